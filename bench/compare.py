"""This project against MkDocs on the same synthetic Chinese corpus, plus the real course.

    .venv/bin/python bench/compare.py [--sizes 100 1000] [--runs 3] [--skip-real]

A benchmark script, not a test. For each N it writes the corpus (bench/corpus.py), then runs,
alternating the two tools run by run so machine drift hits both alike:

- full build: a whole process from a removed output folder
  (``mkdocs build -q`` / ``bench/synthetic_build.py full``, public site only, empty evidence:
  no lessonmodel and no figures for the synthetic corpus);
- one-page edit rebuild: append a line to the middle page, then ``mkdocs build -q --dirty``
  (its fastest mode; it leaves stale nav and search) and, for this project, the dev server's
  incremental rebuild in a running process (site_builder.incremental), which is a correct build.
  A new ``python build.py`` process after an edit is a full build (see the full rows).

Prints medians, the ratio, peak RSS of each process (os.wait4), output size and bytes per page.
Then the real course from a fresh copy of the project: ``python build.py check`` (clean: model,
figures, both sites, link checks) and ``python build.py`` run twice (the second is a no-change rebuild).
MkDocs runs from its own venv, .cache/bench-venv (mkdocs==1.6.1), created on first use.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "bench"
VENV = ROOT / ".cache" / "bench-venv"
MKDOCS_VERSION = "1.6.1"
PY = sys.executable


def ensure_mkdocs() -> Path:
    mkdocs = VENV / "bin" / "mkdocs"
    if not mkdocs.exists():
        subprocess.run([PY, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", f"mkdocs=={MKDOCS_VERSION}"], check=True)
    return mkdocs


def timed_rss(command: list[str], cwd: Path, may_fail: bool = False) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MiB and stdout of one run; wait4 gives this child's own rusage."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if process.returncode and may_fail:
        print(f"  ({' '.join(command[1:])} exited {process.returncode}: {err.decode().strip()[-400:]})", flush=True)
    elif process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{err.decode()[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, out.decode()


def tree_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def append_line(page: Path, n: int) -> None:
    with page.open("a", encoding="utf-8") as handle:
        handle.write(f"\n补充说明（编辑 {time.time_ns()} {n}）。\n")


def median_line(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f}, n={len(values)})"


def bench_size(n: int, runs: int, mkdocs: Path) -> dict:
    import corpus

    folder = CACHE / f"corpus-{n}"
    corpus.write_corpus(n, folder)
    project, site_dir = folder / "project", folder / "mkdocs"
    ours_out, mk_out = folder / "out" / "_site", site_dir / "site"
    ours_cmd = [PY, str(ROOT / "bench" / "synthetic_build.py"), "full", str(project), str(ours_out)]
    mk_cmd = [str(mkdocs), "build", "-q"]
    result: dict = {"n": n, "ours_full": [], "mk_full": [], "ours_rss": [], "mk_rss": [], "ours_phases": []}
    for run in range(runs):
        order = [("mk", mk_cmd, site_dir, mk_out), ("ours", ours_cmd, project, ours_out)]
        for tool, command, cwd, out in order if run % 2 else order[::-1]:
            shutil.rmtree(out, ignore_errors=True)
            seconds, rss, stdout = timed_rss(command, cwd)
            result[f"{tool}_full"].append(seconds)
            result[f"{tool}_rss"].append(rss)
            if tool == "ours":
                result["ours_phases"].append(json.loads(stdout.strip().splitlines()[-1]))
            print(f"  N={n} run {run + 1}: {tool} full {seconds:.2f} s, {rss:.0f} MiB", flush=True)
    result["ours_size"], result["ours_files"] = tree_size(ours_out)
    result["mk_size"], result["mk_files"] = tree_size(mk_out)
    result["ours_lesson_html"] = statistics.mean(p.stat().st_size for p in ours_out.glob("page-*.html")
                                                 if not p.name.endswith(".source.html"))
    result["mk_lesson_html"] = statistics.mean(p.stat().st_size for p in mk_out.glob("page-*/index.html"))
    # one-page edit: mkdocs --dirty in a new process; ours in the dev server's long-running process
    middle = f"page-{n // 2:04d}.md"
    result["mk_rebuild"] = []
    for run in range(runs):
        append_line(site_dir / "docs" / middle, run)
        seconds, _, _ = timed_rss(mk_cmd + ["--dirty"], site_dir)
        result["mk_rebuild"].append(seconds)
    _, rss, stdout = timed_rss([PY, str(ROOT / "bench" / "synthetic_build.py"), "incremental", str(project),
                                str(folder / "out" / "_site-dev"), "--edits", str(max(runs, 5))], project)
    incremental = json.loads(stdout.strip().splitlines()[-1])
    result["ours_rebuild"] = incremental["rebuild_s"]
    result["ours_rebuild_rendered"] = incremental["pages_rendered"]
    result["ours_dev_rss"] = rss
    print(f"  N={n}: mkdocs --dirty {median_line(result['mk_rebuild'])} s; "
          f"incremental {median_line(result['ours_rebuild'])} s", flush=True)
    return result


def bench_real(runs: int) -> dict:
    work = CACHE / "real" / "course"
    shutil.rmtree(work.parent, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("content", "site_builder", "figures", "lessonmodel", "build.py"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, work / name)
    result: dict = {}
    seconds, rss, _ = timed_rss([PY, "build.py", "check"], work, may_fail=True)  # timed even if a check fails
    result["check"], result["check_rss"] = seconds, rss
    print(f"  real: build.py check (clean) {seconds:.2f} s, {rss:.0f} MiB", flush=True)
    timed_rss([PY, "build.py"], work)  # the first plain build after check: fills the non-clean caches
    result["nochange"] = [timed_rss([PY, "build.py"], work)[0] for _ in range(runs)]
    result["size"], result["files"] = tree_size(work / "_site")
    result["teacher_size"], _ = tree_size(work / "_site-teacher")
    print(f"  real: build.py no-change {median_line(result['nochange'])} s", flush=True)
    return result


def report(sizes: list[dict], real: dict | None, load: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    lines = [f"date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; machine: {platform.node()}, "
             f"{os.cpu_count()} CPU, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
             f"mkdocs {MKDOCS_VERSION}",
             f"load average before: {' '.join(f'{x:.2f}' for x in load[0])}; "
             f"after: {' '.join(f'{x:.2f}' for x in load[1])}",
             "synthetic corpus: empty Evidence (no lessonmodel, no figures); this project builds the public site "
             "only in the full rows (the real build writes public + teacher)", "",
             "| N | tool | full build median s (min-max, runs) | per-page ms | one-page rebuild median s | "
             "peak RSS MiB | output | files | bytes/page | avg lesson HTML KiB |",
             "|---:|---|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in sizes:
        n = r["n"]
        for tool, name, rebuild in (("mk", "mkdocs (theme mkdocs)", "mk_rebuild"),
                                    ("ours", "this project", "ours_rebuild")):
            size = r[f"{tool}_size"]
            lines.append(f"| {n} | {name} | {median_line(r[f'{tool}_full'])} | "
                         f"{statistics.median(r[f'{tool}_full']) / n * 1000:.1f} | {median_line(r[rebuild])} | "
                         f"{max(r[f'{tool}_rss']):.0f} | {size / 2**20:.1f} MiB | {r[f'{tool}_files']} | "
                         f"{size / n / 1024:.1f} KiB | {r[f'{tool}_lesson_html'] / 1024:.1f} |")
    lines.append("")
    for r in sizes:
        ratio = statistics.median(r["mk_full"]) / statistics.median(r["ours_full"])
        phases = {k: statistics.median(p[k] for p in r["ours_phases"]) for k in r["ours_phases"][0] if k != "pages"}
        lines.append(f"N={r['n']}: mkdocs/ours full-build ratio {ratio:.2f}× (>1 means this project is faster); "
                     f"ours phases (median s, in-process): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
                     + f"; incremental rebuild rendered {r['ours_rebuild_rendered']} pages, dev process peak RSS "
                       f"{r['ours_dev_rss']:.0f} MiB")
    if len(sizes) >= 2:
        per = [statistics.median(r["ours_full"]) / r["n"] * 1000 for r in sizes]
        lines.append(f"per-page ms from N={sizes[0]['n']} to N={sizes[-1]['n']}: {per[0]:.1f} → {per[-1]:.1f} "
                     f"(×{per[-1] / per[0]:.2f}; flat would be ×1)")
    if real:
        lines += ["", f"real course: `python build.py check` (clean, from a fresh copy: model, figures, both sites, "
                      f"checks) {real['check']:.2f} s, peak RSS {real['check_rss']:.0f} MiB; "
                      f"no-change `python build.py` {median_line(real['nochange'])} s; "
                      f"public site {real['size'] / 2**20:.1f} MiB in {real['files']} files, "
                      f"teacher {real['teacher_size'] / 2**20:.1f} MiB"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000], help="corpus sizes (none: real only)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-real", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    mkdocs = ensure_mkdocs()
    before = os.getloadavg()
    sizes = [bench_size(n, args.runs, mkdocs) for n in args.sizes]
    real = None if args.skip_real else bench_real(args.runs)
    print()
    print(report(sizes, real, (before, os.getloadavg())))


if __name__ == "__main__":
    main()
