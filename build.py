"""Build the lesson sites: the one module that wires lessonmodel, figures and site_builder together.

    python build.py                 build _site/ (public) and _site-teacher/ (with teacher notes)
    python build.py check [--report DIR]  what CI runs: a clean rebuild from scratch, then every check
    python build.py figures --accept  record the current figures in figures/manifest.json
    python build.py serve           build, serve on 127.0.0.1 and rebuild on every save
    python build.py new lesson ID   start a new lesson from a template
    python build.py new figure ID [--from EXPERIMENT]   a figure module in figures/ (found by scanning)
    python build.py new experiment ID   an experiment module in lessonmodel/ (found by its @experiment mark)
    python build.py list [values|figures|sources|terms]   what pages may cite, one line each
    python build.py import PATH     a MyST or d2l page made a page of this course, and what still needs a hand

Every mistake is printed as ``path:line: message``; the build then exits with status 1, the site untouched.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache"
PUBLIC, TEACHER = ROOT / "_site", ROOT / "_site-teacher"
WORKERS = 2  # processes rendering the pages of each site (these machines have 2 cores)


def LANGUAGE() -> str:  # noqa: N802 (read when needed: a teacher may change site.yml)
    """The course's language (site.yml ``language``): teacher-facing messages are printed in it."""
    from site_builder.load.yamlnodes import course_language
    return course_language(ROOT)


def _(msgid: str, /, **params):
    from site_builder.vocabulary.i18n import Text
    return Text(msgid, **params)


def say(text: str, file=None) -> None:
    """Print a message in the course's language."""
    from site_builder.vocabulary.i18n import localize

    print(localize(text, LANGUAGE()), file=file)


@dataclass(frozen=True)
class Measured:
    """What one measure-and-draw pass produced."""

    evidence: Any
    """The site builder's ``Evidence``."""
    drawn: dict
    """The course language's figures (``figures.render_languages``' first folder): figure id → file and metadata."""
    results: dict
    """lessonmodel's results document."""
    records: dict
    """Record id → the record's JSON."""
    loaded: tuple = ()
    """``load_content``'s (content, problems), read once for the records and again used for the pages."""
    baselines: dict = field(default_factory=dict)
    """(figure id, language) → its baseline PNG, saved from the drawing the site shows (a clean run's figures)."""


def measure_all(clean: bool = False, progress=None, figure_dir: Path | None = None, first: bool = False) -> Measured:
    """Run the model and draw the figures (both cached; ``clean``: anew, each figure also as the baseline PNG
    ``check`` compares). ``first``: a translation whose figures are not all in the cache yet is left out of
    ``editions`` (the dev server serves the course's language while they are drawn)."""
    from contextlib import nullcontext

    import figures
    import lessonmodel
    from site_builder.load.evidence import evidence_from
    from site_builder.load.loader import load_content
    from site_builder.vocabulary.i18n import localize
    from site_builder.vocabulary.problems import ContentError, Problem, code_error

    step = progress or (lambda label: nullcontext())
    content, problems = load_content(ROOT)
    if content is None:
        raise ContentError(problems)
    records = {r.id: r.data for r in content.records}
    figure_dir = figure_dir or CACHE / "figures-out"
    try:
        with step(_("running lessonmodel experiments")):
            results = lessonmodel.run_all(None if clean else CACHE / "lessonmodel")  # cached by its code and config
        warned: list[str] = []  # the languages share one cache: a damaged entry is named once, not per language
        baselines: dict[tuple[str, str], bytes] = {}
        with step(_("drawing figures")):  # once per language: a translation's figures speak its language
            drawn = figures.render_languages(
                results, records, figure_dir, CACHE / ("figures-clean" if clean else "figures"),
                (LANGUAGE(), *content.config.translations), drawn_only=first,
                warn=lambda message: warned.append(localize(message, LANGUAGE())),
                baselines=(lambda fid, language, png: baselines.setdefault((fid, language), png)) if clean else None)
        for message in dict.fromkeys(warned):
            say(message, file=sys.stderr)
    except figures.MarkError as error:  # a mark naming nothing drawn: the figure author's path:line
        raise ContentError([Problem(error.path, error.line, error.message)]) from None
    except Exception as error:  # a bug in a figure or an experiment: its file:line first, the trace below
        raise code_error(error, ROOT, ("figures", "lessonmodel")) from None
    evidence = evidence_from(results, records, drawn[""], figure_dir, ROOT, LANGUAGE())
    editions = {tag: evidence_from(results, {r.id: r.data for r in edition.records}, drawn[tag], figure_dir / tag,
                                   ROOT, tag)
                for tag, edition in zip(content.config.translations, content.editions, strict=True) if tag in drawn}
    return Measured(replace(evidence, editions=editions), drawn[""], results, records, (content, problems), baselines)


def measure_and_draw(clean: bool = False, progress=None, figure_dir: Path | None = None, first: bool = False):
    """The site's evidence and the figure results."""
    return (measured := measure_all(clean, progress, figure_dir, first)).evidence, measured.drawn


def build(clean: bool = False, quiet: bool = False, public: Path = PUBLIC, teacher: Path = TEACHER, warn: bool = True):
    """Measure, draw, build both sites: the engine's report (no prepared site if nothing changed) and what was
    measured. ``clean`` (``check``) keeps nothing: everything is made anew. ``warn``: print the warnings."""
    from site_builder.serve.commands import build_sites

    started = time.perf_counter()
    measured = measure_all(clean)
    evidence = measured.evidence
    report = build_sites(ROOT, evidence, public, teacher, None if clean else CACHE, WORKERS, measured.loaded, warn)
    said = {"figures": len(evidence.figures), "values": len(evidence.values), "public": public.name,
            "teacher": teacher.name, "seconds": f"{time.perf_counter() - started:.2f}"}
    if not quiet:
        say(_("nothing changed since the last build ({figures} figures, {values} values) → {public}/ and "
              "{teacher}/ kept, in {seconds} s", **said) if report.prepared is None else
            _("built {pages} pages, {figures} figures, {values} values → {public}/ and {teacher}/ in {seconds} s",
              pages=len(report.prepared.pages), **said))
    return report, measured


def check(report_dir: Path | None = None) -> int:
    """Clean rebuild from scratch, then the checks CI needs: figures by picture and data, links, leaks."""
    import shutil

    import figures
    from figures.report import write_report
    from site_builder.write.verify import verify_output

    shutil.rmtree(CACHE / "figures-clean", ignore_errors=True)
    report, measured = build(clean=True, warn=False)
    prepared = report.prepared
    drawn = [figures.BY_ID[fid] for fid in measured.drawn]
    checks, problems = figures.check_figures(drawn, measured.results, measured.records, marks=_drawn_marks(measured),
                                             languages=figures.LANGUAGES, drawn=measured.baselines)
    refused = verify_output(prepared, PUBLIC, TEACHER)  # a placeholder line is said once, as the error it is here
    problems += [p.localized(LANGUAGE()) for p in refused]
    warnings = [w for w in prepared.warnings if w not in [p.as_warning() for p in refused]]
    for line in [w.localized(LANGUAGE()) for w in warnings] + problems:
        say(line, file=sys.stderr)
    if report_dir is not None:
        say(_("report: {path}", path=write_report(checks, problems, report_dir)), file=sys.stderr)
    values = prepared.evidence.values
    count = {kind: sum(v.provenance == kind for v in values.values()) for kind in ("measured", "computed")}
    say(_("check: {pages} pages in {editions} editions, {values} values ({measured} measured, {computed} computed "
          "today), {figures} figures in {languages} languages compared with their baselines, record comparisons hold, "
          "{problems} problems, {warnings} warnings",
          pages=len(prepared.pages) + sum(len(e.pages) for e in prepared.editions), editions=1 + len(prepared.editions),
          values=len(values), **count, figures=len(drawn), languages=len(figures.LANGUAGES), problems=len(problems),
          warnings=len(warnings)))
    return 1 if problems else 0


def _drawn_marks(measured: Measured) -> dict:
    """Figure id → its marks' boxes as drawn now (the manifest keeps them: notes point at them)."""
    from figures.manifest import mark_boxes
    return {fid: mark_boxes(entry) for fid, entry in measured.drawn.items()}


def accept_figures() -> int:
    """Accept the figures as drawn now: new baselines where the picture changed, and the manifest."""
    import figures

    _prepared, measured = build()
    drawn = [figures.BY_ID[fid] for fid in measured.drawn]
    try:
        said = figures.accept_figures(drawn, measured.results, measured.records, marks=_drawn_marks(measured),
                                      languages=figures.LANGUAGES)
    except ValueError as error:
        say(error.args[0], file=sys.stderr)
        return 1
    for line in said:
        say(line)
    say(_("{n} change(s) accepted; {figures} figures in {manifest} and figures/baseline/", n=len(said),
          figures=len(drawn), manifest=figures.MANIFEST_PATH.relative_to(ROOT)))
    return 0


def print_evidence(figure_dir: str, first: bool = False) -> None:
    """Measure and draw, then print the evidence as JSON: what ``serve`` runs in a fresh process."""
    from site_builder.load.evidence import answer

    answer(lambda said: measure_and_draw(progress=said, figure_dir=Path(figure_dir), first=first)[0], LANGUAGE())


def serve(host: str, port: int, teacher: bool) -> int:
    """Build one site into this server's folder, rebuild on every save until Ctrl-C; a busy port is one line."""
    from site_builder.serve.commands import serve_site
    from site_builder.serve.devhttp import PortBusy

    try:
        serve_site(ROOT, CACHE, host, port, teacher, "build.print_evidence",
                   inputs=(ROOT / "lessonmodel", ROOT / "figures", ROOT / "content" / "records"))
    except PortBusy as busy:
        say(busy.args[0], file=sys.stderr)
        return 1
    return 0


def new(kind: str, new_id: str, inputs: tuple[str, ...] = ()) -> int:
    """Scaffold a lesson (listed in site.yml), a figure or an experiment (see docs/programmer-tutorial.md)."""
    try:
        if kind == "lesson":
            from site_builder.serve.scaffold import new_lesson

            made = new_lesson(ROOT, new_id)
            say(_("created {path} and listed '{id}' in content/site.yml; see it with: python build.py serve",
                  path=made.relative_to(ROOT), id=new_id))
        elif kind == "experiment":
            from lessonmodel.scaffold import new_experiment

            made = new_experiment(new_id)
            say(_("created {path}; the build finds experiment '{id}' by its @experiment mark; its values: "
                  "python build.py list values", path=made.relative_to(ROOT), id=new_id))
        else:
            made = _new_figure(new_id, inputs)
            say(_("created {path}; the build finds it in figures/; cite it with ':figure: {id}', "
                  "then record it: python build.py figures --accept", path=made.relative_to(ROOT), id=new_id))
    except ValueError as error:
        say(f"new {kind}: " + error.args[0], file=sys.stderr)
        return 1
    return 0


def _new_figure(figure_id: str, inputs: tuple[str, ...]) -> Path:
    import figures
    from figures.scaffold import new_figure
    from lessonmodel.runner import EXPERIMENTS
    from site_builder.vocabulary.i18n import catalog_name
    from site_builder.vocabulary.problems import suggest

    for name in inputs:
        if name not in EXPERIMENTS:
            raise ValueError(_("unknown experiment '{name}'", name=name)
                             + (suggest(name, EXPERIMENTS) or _(" (known: {names})", names=", ".join(EXPERIMENTS))))
    return new_figure(figure_id, inputs, known=figures.FIGURE_IDS, catalog=catalog_name(LANGUAGE()))


def list_assets(what: str) -> int:
    """Print what a page may cite, one line each: the ids to copy into a lesson."""
    from site_builder.serve.commands import print_list

    if what == "figures":
        import figures
        from figures.i18n import translated

        rows = [(f.id, f.provenance, translated(f.alt, LANGUAGE()), f.inputs) for f in figures.FIGURES]
        return print_list(ROOT, what, rows)
    return print_list(ROOT, what, evidence=measure_and_draw()[0] if what == "values" else None)


def main(argv: list[str] | None = None) -> int:
    from site_builder.serve.cli import make_parser
    from site_builder.vocabulary.i18n import localize

    args = make_parser(lambda text: localize(text, LANGUAGE())).parse_args(argv)
    if args.command == "new":
        return new(args.kind, args.id, tuple(args.inputs))
    if args.command == "serve":
        return serve(args.host, args.port, args.teacher)
    if args.command == "import":
        from site_builder.serve.importer import run_import
        return run_import(ROOT, args.path, LANGUAGE())
    from site_builder.serve.commands import print_problems
    from site_builder.vocabulary.problems import ContentError, SearchIndexError

    try:
        if args.command == "check":
            return check(args.report)
        if args.command == "list":
            return list_assets(args.what)
        if args.command == "figures":
            return accept_figures() if args.accept else (build(), 0)[1]
        build()
        return 0
    except ContentError as error:
        return print_problems(error, LANGUAGE())
    except SearchIndexError as error:  # pagefind missing or failing: one line, in the course's language
        say(error.args[0], file=sys.stderr)
        return 1


if __name__ == "__main__":
    from site_builder.serve.venv import run_under_venv  # any Python: under .venv, or one line on making it

    run_under_venv(ROOT, Path(__file__), sys.argv[1:])
    from site_builder.serve.exits import run_command  # after: it needs the project's packages

    sys.exit(run_command(main, LANGUAGE, CACHE))
