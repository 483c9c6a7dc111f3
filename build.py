"""Build the lesson sites: the one module that wires lessonmodel, figures and site_builder together.

    python build.py                 build _site/ (public) and _site-teacher/ (with teacher notes)
    python build.py check           what CI runs: a clean rebuild from scratch, then every check
    python build.py figures --accept  record the current figures in figures/manifest.json
    python build.py serve           build, serve on 127.0.0.1 and rebuild on every save
    python build.py new lesson ID   start a new lesson from a template

Every mistake a teacher can make is printed as ``path:line: message``; the
build then exits with status 1 and leaves the previous site untouched.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache"
PUBLIC, TEACHER = ROOT / "_site", ROOT / "_site-teacher"


def measure(cache: Path | None) -> dict:
    """Run lessonmodel's experiments (cached by a hash of its source and config)."""
    import lessonmodel

    return lessonmodel.run_all(cache)


def evidence_from(results: dict, records: dict[str, dict], figure_info: dict, figure_dir: Path):
    """Turn model results, records and drawn figures into the plain data the site builder takes."""
    from site_builder.content import Evidence, FigureInfo, Value

    values: dict[str, Value] = {}
    for name, experiment in results["experiments"].items():
        for key, entry in experiment["values"].items():
            values[f"{name}.{key}"] = Value(
                name=f"{name}.{key}", value=entry["value"], unit=entry.get("unit", ""), provenance="measured",
                producer=name, description=entry.get("description", ""), command=experiment["command"],
                source_file=experiment["source"], conditions=_config_line(experiment["config"]))
    for record_id, record in records.items():
        conditions = "；".join(str(record[k]) for k in ("machine", "conditions") if record.get(k))
        for key, entry in record["values"].items():
            values[f"{record_id}.{key}"] = Value(
                name=f"{record_id}.{key}", value=entry["value"], unit=entry.get("unit", ""), provenance="record",
                producer=record_id, description=entry.get("description", ""), command=record.get("command") or "",
                conditions=conditions, date=str(record.get("date", "")))
    values = _with_tolerances(values, records)
    figures = {fid: FigureInfo(id=fid, file=info["file"], alt=info["alt"], description=info["description"],
                               provenance=info["provenance"], width=int(info["width"]), height=int(info["height"]),
                               inputs=tuple(info.get("inputs", ()))) for fid, info in figure_info.items()}
    sources = {e["source"] for e in results["experiments"].values()}
    return Evidence(values=values, figures=figures, figure_dir=str(figure_dir),
                    experiment_files={s: str(ROOT / s) for s in sorted(sources) if (ROOT / s).is_file()})


def _config_line(config: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in config.items() if isinstance(v, (str, int, float, bool)))


def _with_tolerances(values: dict, records: dict[str, dict]) -> dict:
    """Mark today's values that a record compares against, so the numbers page shows the rule."""
    from dataclasses import replace

    from site_builder.numbers import format_number

    for record_id, record in records.items():
        for rule in record.get("compare") or ():
            name = rule.get("with", "")
            if name in values and isinstance(rule.get("bound"), (int, float)):
                text = f"{rule.get('rule', '')} {format_number(rule['bound'], values[name].unit)}（记录 {record_id} 的比较）"
                values[name] = replace(values[name], tolerance=text)
    return values


def build(clean: bool = False, quiet: bool = False):
    """Measure, draw, then build and write both sites. Returns the prepared site and the figure results."""
    from site_builder import ContentError, prepare_site, render_site, write_site
    from site_builder.load import load_content

    started = time.perf_counter()
    content, problems = load_content(ROOT)
    if content is None:
        raise ContentError(problems)
    records = {r.id: r.data for r in content.records}
    results = measure(None if clean else CACHE / "lessonmodel")
    import figures

    figure_dir = CACHE / "figures-out"
    drawn = figures.render_all(results, records, figure_dir, CACHE / ("figures-clean" if clean else "figures"))
    evidence = evidence_from(results, records, drawn, figure_dir)
    prepared = prepare_site(ROOT, evidence)
    for out_dir, teacher in ((PUBLIC, False), (TEACHER, True)):
        write_site(render_site(prepared, teacher=teacher), out_dir)
    if not quiet:
        print(f"built {len(prepared.pages)} pages, {len(evidence.figures)} figures, {len(evidence.values)} values "
              f"→ {PUBLIC.name}/ and {TEACHER.name}/ in {time.perf_counter() - started:.2f} s")
    return prepared, drawn


def check() -> int:
    """Clean rebuild from scratch, then the checks CI needs: figures, links, leaks."""
    import shutil

    from site_builder.verify import verify_output

    import figures

    shutil.rmtree(CACHE / "figures-clean", ignore_errors=True)
    prepared, drawn = build(clean=True)
    problems = [f"figures/manifest.json: {p}" for p in figures.check_manifest(drawn, figures.MANIFEST_PATH)]
    problems += [str(p) for p in verify_output(prepared, PUBLIC, TEACHER)]
    for problem in problems:
        print(problem, file=sys.stderr)
    values = prepared.evidence.values
    print(f"check: {len(prepared.pages)} pages, {len(values)} values "
          f"({sum(v.provenance == 'measured' for v in values.values())} measured today), "
          f"{len(drawn)} figures, record comparisons hold, {len(problems)} problems")
    return 1 if problems else 0


def accept_figures() -> int:
    import figures

    _, drawn = build()
    figures.write_manifest(drawn, figures.MANIFEST_PATH)
    print(f"recorded {len(drawn)} figures in {figures.MANIFEST_PATH.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python build.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("build", help="build _site/ and _site-teacher/ (the default)")
    commands.add_parser("check", help="clean rebuild and every check CI makes")
    figures_parser = commands.add_parser("figures", help="draw the figures; --accept records them in the manifest")
    figures_parser.add_argument("--accept", action="store_true", help="write figures/manifest.json")
    args = parser.parse_args(argv)
    from site_builder import ContentError

    try:
        if args.command == "check":
            return check()
        if args.command == "figures":
            return accept_figures() if args.accept else (build(), 0)[1]
        build()
        return 0
    except ContentError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print(f"{len(error.problems)} problem(s); the site was not changed.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
