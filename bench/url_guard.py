"""What the URL allowlist guard (site_builder/vocabulary/urls.py) costs a full render, side by side.

    .venv/bin/python bench/url_guard.py --n 300 --runs 5

Renders the synthetic corpus (bench/corpus.py) and the real course's pages, alternating runs with
the guard on and off in the same process, and prints the medians and their ratio. A script, not a
test: timings on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script from anywhere: the project's own imports below need ROOT on sys.path first.
# ruff: noqa: E402
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import write_corpus

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.render import outputs


def timed(prepared, guard: bool) -> float:
    outputs.check_html = _CHECK if guard else (lambda name, markup, **where: None)
    started = time.perf_counter()
    render_site(prepared, teacher=False)
    return time.perf_counter() - started


_CHECK = outputs.check_html


def compare(label: str, prepared, runs: int) -> None:
    on, off = [], []
    for _ in range(runs):
        off.append(timed(prepared, False))
        on.append(timed(prepared, True))
    a, b = statistics.median(off), statistics.median(on)
    print(f"{label}: render without guard {a * 1000:.0f} ms, with guard {b * 1000:.0f} ms, ratio {b / a:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        write_corpus(args.n, Path(folder))
        compare(f"synthetic {args.n} pages", prepare_site(Path(folder) / "project", Evidence()), args.runs)
    import build

    evidence, _ = build.measure_and_draw()
    compare("real course", prepare_site(ROOT, evidence), args.runs)


if __name__ == "__main__":
    main()
