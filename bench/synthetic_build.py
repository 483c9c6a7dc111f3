"""Build a synthetic corpus (bench/corpus.py) through site_builder, with empty evidence.

    .venv/bin/python bench/synthetic_build.py full PROJECT OUT [--teacher]
    .venv/bin/python bench/synthetic_build.py incremental PROJECT OUT --edits 5

``full``: prepare_site → render_site → write_site, the stages of ``python build.py``
without lessonmodel and figures (the corpus cites no values or figures; Evidence() is empty);
``--teacher`` writes both sites as the real build does (in parallel, with the search index).
Prints one JSON line of phase times.

``incremental``: the dev server's path (site_builder.engine.builder.Engine, serving): one
untimed build, then ``--edits`` times append a sentence to the middle page and rebuild,
printing the seconds of each rebuild (load, parse what changed, check, render what changed, write).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# Run as a script from anywhere: the project's own imports below need ROOT on sys.path first.
# ruff: noqa: E402
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.write.writer import write_site


def full(project: Path, out: Path, teacher: bool) -> dict[str, float]:
    """Time the stages; with ``teacher``, exactly ``python build.py``'s writing step (both sites in
    parallel, Pagefind index of the public one), minus lessonmodel and figures."""
    import build

    times: dict[str, float] = {}
    started = time.perf_counter()
    prepared = prepare_site(project, Evidence())
    times["prepare_s"] = time.perf_counter() - started
    mark = time.perf_counter()
    if teacher:
        from site_builder.engine.builder import Engine, Output
        from site_builder.render.search_index import IndexJob

        outputs = (Output(False, out, finish=lambda prepared: IndexJob(prepared, build.CACHE / "search").place),
                   Output(True, out.with_name(out.name + "-teacher")))
        Engine(project, outputs, workers=build.WORKERS).build(Evidence())
        times["render_write_both_with_search_s"] = time.perf_counter() - mark
    else:
        write_site(render_site(prepared, teacher=False, workers=build.WORKERS), out)
        times["render_write_public_s"] = time.perf_counter() - mark
    times["total_s"] = time.perf_counter() - started
    times["pages"] = len(prepared.pages)
    return times


def incremental(project: Path, out: Path, edits: int) -> dict[str, object]:
    from site_builder.engine.builder import Engine, Output

    site = Engine(project, (Output(False, out),), serving=True)
    first = site.build(Evidence())
    pages = sorted((project / "content" / "pages").glob("page-*.md"))
    page = pages[len(pages) // 2]
    seconds, rendered = [], []
    for n in range(edits):
        with page.open("a", encoding="utf-8") as handle:
            handle.write(f"\n补充说明（编辑第{'一二三四五六七八九十'[n % 10]}次）。\n")
        mark = time.perf_counter()
        report = site.build(Evidence())
        seconds.append(time.perf_counter() - mark)
        rendered.append(len(report.rendered))
    return {"first_build_s": first.seconds, "rebuild_s": seconds, "median_s": statistics.median(seconds),
            "pages_rendered": rendered, "pages": len(first.prepared.pages)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("full", "incremental"))
    parser.add_argument("project", type=Path, help="folder holding content/")
    parser.add_argument("out", type=Path, help="output folder")
    parser.add_argument("--teacher", action="store_true", help="also write the teacher site (OUT-teacher)")
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    result = full(args.project, args.out, args.teacher) if args.mode == "full" else \
        incremental(args.project, args.out, args.edits)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
