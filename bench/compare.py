"""What users run, side by side on the same corpus: this project, MkDocs + Pagefind, Hugo + Pagefind.

    .venv/bin/python bench/compare.py [--sizes 100 1000] [--runs 3] [--edits 10] [--skip-dev] [--clean-only]
                                      [--dir .cache/bench /dev/shm/bench]

Issue #30's rows (clean builds only, on disk and on tmpfs, in one run; on a quiet machine):

    .venv/bin/python bench/compare.py --sizes 1000 --runs 5 --clean-only --dir .cache/bench /dev/shm/bench

A benchmark script, not a test. For each N, ``bench/corpus.py`` writes the same Chinese lessons
as this project's ``content/`` (with the real ``content/records/``, so the figures drawn from them
match the manifest and ``check`` passes), as MkDocs ``docs/`` and as Hugo ``content/``. Then, alternating
the three tools run by run (the order rotates, so drift on a shared machine hits all alike),
each is timed as a whole process from a removed output folder:

- **this project**: ``python build.py`` in a copy of the project holding the corpus — both sites
  (public and teacher) and the public site's Pagefind index. Its build caches (``BUILD_CACHES``:
  parsed and rendered pages, search shards, shared assets, compiled templates, math font subsets)
  are removed before every run; the lessonmodel and figure caches stay (MkDocs and Hugo have no
  model to run; the corpus cites no values or figures).
- **MkDocs 1.6.1** (own venv ``.cache/bench-venv``), theme ``mkdocs`` with locale zh_CN and
  ``nav`` bounded to the index page (a nav of every page on every page grows with N²), then
  ``pagefind --site site --force-language zh-cn`` (the extended Pagefind, which segments Chinese,
  in the same venv). A second MkDocs row does the work this project does: two builds (a public
  and a teacher site) and Pagefind once.
- **Hugo** (Debian's ``hugo`` package; ``apt-get install hugo``), a minimal layout whose nav is
  bounded the same way (home, previous, next), then the same Pagefind command.

With ``--previous DIR`` (a checkout of an earlier commit, e.g. ``git worktree add /tmp/prev REV``),
that code builds the same corpus in its own copy (with its own records, those its manifest was accepted
with), alternating with the others, and gets the same rows below, so a change is measured side by side
with what it replaces. A ``check`` that fails is timed all the same; its problems are printed with its folder.

Then this project's other rows, in the same run: ``python build.py check`` (clean rebuild with the
model rerun and figures redrawn, then every check), a no-change ``python build.py``, a one-page edit
followed by ``python build.py`` in a new process, and the dev server's save → reload (bench/
reload_latency.py, a synthetic site of N pages); ``--clean-only`` leaves them out. Each ``--dir`` (a
disk folder, a tmpfs such as ``/dev/shm``) gets the whole run in turn. Prints, per folder, medians,
ranges, ratios, CPU time (user + system of the process and its children) and the cores it kept busy
(CPU time / wall time), the load average before and after, how much faster this project's clean build is
than MkDocs + Pagefind (one site) and MkDocs ×2 + Pagefind (the same deliverables: public and teacher
sites, one index), and writes the Markdown tables to ``.cache/bench/results.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "bench"
VENV = ROOT / ".cache" / "bench-venv"
MKDOCS_VERSION = "1.6.1"
PY = sys.executable
CODE = ("build.py", "site_builder", "figures", "lessonmodel", "content/records")
"""What a project copy takes from its checkout: the code, and the records its figures/manifest.json and
baselines were accepted with (another checkout's records would make its `check` fail on every figure drawn
from a record that changed since)."""
BUILD_CACHES = ("build", "search", "assets", "jinja", "math-font")
"""This project's caches of earlier builds (pages, search shards, shared assets, compiled templates,
math font subsets): removed before every full build."""

HUGO_CONFIG = """baseURL = "https://example.org/bench/"
languageCode = "zh-cn"
title = "合成课程"
disableKinds = ["taxonomy", "term", "RSS", "sitemap"]
[markup.goldmark.renderer]
unsafe = false
"""
HUGO_BASEOF = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>{{ .Title }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><nav><a href="{{ "/" | relURL }}">合成课程</a>
{{ with .PrevInSection }} · <a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}
{{ with .NextInSection }} · <a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav>
<main data-pagefind-body><h1>{{ .Title }}</h1>{{ block "main" . }}{{ end }}</main></body></html>
"""
HUGO_SINGLE = '{{ define "main" }}{{ .Content }}{{ end }}\n'
HUGO_LIST = ('{{ define "main" }}{{ .Content }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">'
             '{{ .Title }}</a></li>{{ end }}</ul>{{ end }}\n')


def ensure_mkdocs() -> Path:
    """MkDocs, and the Pagefind that segments Chinese (the same version as this project's), in their own venv."""
    mkdocs = VENV / "bin" / "mkdocs"
    if not mkdocs.exists() or pagefind_binary() is None:
        subprocess.run([PY, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", f"mkdocs=={MKDOCS_VERSION}",
                        f"pagefind-bin-extended=={_version('pagefind_bin')}"], check=True)
    return mkdocs


def ensure_hugo() -> str:
    hugo = shutil.which("hugo")
    if hugo is None:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "hugo"], check=True)
        hugo = shutil.which("hugo")
    if hugo is None:
        raise SystemExit("hugo is not installed and apt-get could not install it")
    return hugo


def pagefind_binary() -> Path | None:
    """The extended Pagefind of the peers' venv: MkDocs' and Hugo's pages are indexed with its zh-cn segmenter."""
    return next(VENV.glob("lib/python*/site-packages/pagefind_bin_extended/pagefind_extended"), None)


CPU = [0.0]
"""CPU seconds (user + system, all processes and threads) of the last ``timed`` command: a measure the
other jobs on a shared machine disturb far less than wall time."""


def timed(command: list[str], cwd: Path, may_fail: bool = False) -> float:
    # Python's bytecode is written, as it is for every installed tool: MkDocs' modules were compiled when pip
    # installed them, and this project's are compiled by the warm-up run (its copies of the code start without
    # __pycache__), not again in every timed run.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if result.returncode and may_fail:  # timed all the same; what it found is shown once, with where it ran
        found = "".join(f"\n    {line[:300]}" for line in result.stderr.decode().strip().splitlines()[-10:])
        print(f"  ({' '.join(command[1:])} in {cwd} exited {result.returncode}:{found})", flush=True)
    elif result.returncode:
        raise SystemExit(f"{' '.join(command)} (in {cwd}) failed:\n{result.stderr.decode()[-3000:]}"
                         f"{result.stdout.decode()[-2000:]}")
    return seconds


def prepare(n: int, where: Path = CACHE, previous: Path | None = None) -> dict[str, Path]:
    """The corpus in three layouts, this project's code beside its copy, MkDocs and Hugo configured;
    with ``previous``, a second copy of the project holding that checkout's code."""
    sys.path.insert(0, str(ROOT / "bench"))
    import corpus

    folder = where / f"corpus-{n}"
    kept = {name: folder / "project" / ".cache" / name for name in ("lessonmodel", "figures", "figures-out")}
    saved = where / f"kept-{n}"
    shutil.rmtree(saved, ignore_errors=True)
    for name, path in kept.items():  # the model and figure caches survive a rewrite of the corpus
        if path.is_dir():
            shutil.copytree(path, saved / name)
    corpus.write_corpus(n, folder)
    project = folder / "project"
    _copy_code(ROOT, project)  # with the real records: figures drawn from them match the manifest
    (project / ".cache").mkdir(exist_ok=True)
    for name in kept:
        if (saved / name).is_dir():
            shutil.copytree(saved / name, project / ".cache" / name)
    mkdocs = folder / "mkdocs"
    (mkdocs / "mkdocs.yml").write_text("site_name: 合成课程\ntheme:\n  name: mkdocs\n  locale: zh_CN\n"
                                       "nav:\n  - index.md\n", encoding="utf-8")
    hugo = folder / "hugo"
    shutil.rmtree(hugo, ignore_errors=True)
    (hugo / "layouts" / "_default").mkdir(parents=True)
    (hugo / "hugo.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    for name, text in (("baseof", HUGO_BASEOF), ("single", HUGO_SINGLE), ("list", HUGO_LIST)):
        (hugo / "layouts" / "_default" / f"{name}.html").write_text(text, encoding="utf-8")
    shutil.copytree(mkdocs / "docs", hugo / "content")
    os.rename(hugo / "content" / "index.md", hugo / "content" / "_index.md")
    where_is = {"project": project, "mkdocs": mkdocs, "hugo": hugo}
    if previous is not None:
        shutil.rmtree(folder / "previous", ignore_errors=True)
        shutil.copytree(project, folder / "previous", symlinks=True,
                        ignore=shutil.ignore_patterns(*CODE, "_site", "_site-teacher"))
        _copy_code(previous, folder / "previous")
        where_is["previous"] = folder / "previous"
    return where_is


def _copy_code(root: Path, project: Path) -> None:
    for name in CODE:
        source = root / name
        shutil.rmtree(project / name, ignore_errors=True)
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, project / name)


def run_ours(project: Path) -> dict[str, float]:
    for name in ("_site", "_site-teacher"):
        shutil.rmtree(project / name, ignore_errors=True)
    for name in BUILD_CACHES:
        shutil.rmtree(project / ".cache" / name, ignore_errors=True)
    total = timed([PY, "build.py"], project)
    return {"total": total, "cpu": CPU[0]}


def run_mkdocs(folder: Path, mkdocs: Path, pagefind: str) -> dict[str, float]:
    shutil.rmtree(folder / "site", ignore_errors=True)
    build = timed([str(mkdocs), "build", "-q"], folder)
    cpu = CPU[0]
    index = timed([pagefind, "--site", "site", "--force-language", "zh-cn"], folder)
    return {"total": build + index, "cpu": cpu + CPU[0], "build": build, "pagefind": index}


def run_mkdocs_both(folder: Path, mkdocs: Path, pagefind: str) -> dict[str, float]:
    """The work this project does: a public and a teacher site, one search index."""
    for name in ("site", "site-teacher"):
        shutil.rmtree(folder / name, ignore_errors=True)
    public = timed([str(mkdocs), "build", "-q"], folder)
    cpu = CPU[0]
    teacher = timed([str(mkdocs), "build", "-q", "-d", "site-teacher"], folder)
    cpu += CPU[0]
    index = timed([pagefind, "--site", "site", "--force-language", "zh-cn"], folder)
    return {"total": public + teacher + index, "cpu": cpu + CPU[0], "build": public + teacher, "pagefind": index}


def run_hugo(folder: Path, hugo: str, pagefind: str) -> dict[str, float]:
    shutil.rmtree(folder / "public", ignore_errors=True)
    build = timed([hugo, "--quiet", "-d", "public"], folder)
    cpu = CPU[0]
    index = timed([pagefind, "--site", "public", "--force-language", "zh-cn"], folder)
    return {"total": build + index, "cpu": cpu + CPU[0], "build": build, "pagefind": index}


def bench_size(n: int, runs: int, edits: int, dev: bool, mkdocs: Path, hugo: str, pagefind: str,
               folder: Path = CACHE, previous: Path | None = None, clean_only: bool = False) -> dict:
    where = prepare(n, folder, previous)
    tools = {"ours": lambda: run_ours(where["project"]),
             "mkdocs": lambda: run_mkdocs(where["mkdocs"], mkdocs, pagefind),
             "mkdocs2": lambda: run_mkdocs_both(where["mkdocs"], mkdocs, pagefind),
             "hugo": lambda: run_hugo(where["hugo"], hugo, pagefind)}
    if previous is not None:
        tools["previous"] = lambda: run_ours(where["previous"])
    print(f"N={n}: warming up (model and figure caches, imports)", flush=True)
    for run in tools.values():
        run()
    result: dict = {"n": n, "loads": [], **{tool: [] for tool in tools}}
    names = list(tools)
    for run in range(runs):
        order = names[run % len(names):] + names[:run % len(names)]
        for tool in order:
            result["loads"].append(os.getloadavg()[0])  # a run started under another job's load is suspect
            times = tools[tool]()
            result[tool].append(times)
            print(f"  N={n} run {run + 1}: {tool} " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()),
                  flush=True)
    result["files"] = _files(where["project"])
    for label, project in (("", where["project"]), ("previous_", where.get("previous"))):
        if project is not None and not clean_only:
            _project_rows(result, label, project, n, runs, edits, dev,
                          (previous or ROOT) / "bench" / "reload_latency.py")
    return result


def _project_rows(result: dict, label: str, project: Path, n: int, runs: int, edits: int, dev: bool,
                  reload_script: Path) -> None:
    """check, no-change build, one-page edit (new process) and the dev server's save → reload, under
    ``label`` + the row's key; the dev row uses that checkout's own reload script."""
    for key in ("check", "nochange", "edit"):
        result[label + key], result[f"{label}{key}_cpu"] = [], []

    def row(key: str, command: list[str], may_fail: bool = False) -> None:
        result[label + key].append(timed(command, project, may_fail))
        result[f"{label}{key}_cpu"].append(CPU[0])

    for _ in range(max(1, runs // 2)):
        row("check", [PY, "build.py", "check"], may_fail=True)
    timed([PY, "build.py"], project)
    for _ in range(runs):
        row("nochange", [PY, "build.py"])
    page = sorted((project / "content" / "pages").glob("page-*.md"))[n // 2]
    for i in range(runs):
        with page.open("a", encoding="utf-8") as handle:
            handle.write(f"\n补充说明，第{'一二三四五六七八九十'[i % 10]}次修改。\n")
        row("edit", [PY, "build.py"])
    check, nochange, edit = (median_line(result[label + key]) for key in ("check", "nochange", "edit"))
    print(f"  N={n} {label or 'this project'}: check {check}, no-change {nochange}, "
          f"one-page edit (new process) {edit}", flush=True)
    if dev:
        out = subprocess.run([PY, str(reload_script), "--pages", str(n), "--skip-real", "--edits", str(edits)],
                             capture_output=True, text=True, check=True, cwd=reload_script.parent.parent).stdout
        found = re.search(r"median (\d+) ms, min (\d+) ms, max (\d+) ms", out)
        result[label + "dev"] = tuple(int(x) for x in found.groups()) if found else None
        print(f"  N={n} {label or 'this project'}: dev server {out.strip().splitlines()[-1].strip()}", flush=True)


def _files(project: Path) -> int:
    return sum(1 for site in ("_site", "_site-teacher") for p in (project / site).rglob("*") if p.is_file())


def median_line(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f}, n={len(values)})"


def _totals(result: dict, tool: str, part: str = "total") -> list[float]:
    return [t[part] for t in result[tool]]


def report(sizes: list[dict], load: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    hugo_version = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout.split()[1]
    lines = [f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.node()}, "
             f"{os.cpu_count()} CPU, {platform.machine()}, Python {platform.python_version()}; "
             f"mkdocs {MKDOCS_VERSION}; {hugo_version}"
             f" (Debian); pagefind {_version('pagefind_bin')} (extended for the peers)",
             f"load average before: {' '.join(f'{x:.2f}' for x in load[0])}; "
             f"after: {' '.join(f'{x:.2f}' for x in load[1])}", "",
             "| N | what | wall: median s (min–max, runs) | per page ms | ratio of medians | CPU s (median) "
             f"| cores busy (of {os.cpu_count()}) |",
             "|---:|---|---|---:|---|---:|---:|"]
    for r in sizes:
        n, ours = r["n"], statistics.median(_totals(r, "ours"))
        rows = [("this project `python build.py` (both sites + search)", _totals(r, "ours"), ""),
                ("MkDocs, nav bounded, + Pagefind", _totals(r, "mkdocs"), "mkdocs"),
                ("  of which MkDocs / Pagefind", None, "mkdocs-parts"),
                ("MkDocs, equal work: public + teacher builds, Pagefind once", _totals(r, "mkdocs2"), "mkdocs2"),
                ("  of which MkDocs ×2 / Pagefind", None, "mkdocs2-parts"),
                ("Hugo, nav bounded, + Pagefind", _totals(r, "hugo"), "hugo"),
                ("  of which Hugo / Pagefind", None, "hugo-parts")]
        if "previous" in r:
            rows.insert(1, ("previous code `python build.py` (--previous)", _totals(r, "previous"), "previous"))
        for label, values, tool in rows:
            if values is None:
                tool = tool.removesuffix("-parts")
                build, index = (statistics.median(_totals(r, tool, p)) for p in ("build", "pagefind"))
                lines.append(f"| {n} | {label} | {build:.2f} / {index:.2f} | | | | |")
                continue
            ratio = ""
            if tool:
                ratio = f"{statistics.median(values) / ours:.2f}× this project's time"
            cpu = statistics.median(_totals(r, tool or "ours", "cpu"))
            busy = statistics.median(t["cpu"] / t["total"] for t in r[tool or "ours"])
            lines.append(f"| {n} | {label} | {median_line(values)} | {statistics.median(values) / n * 1000:.1f} "
                         f"| {ratio} | {cpu:.2f} | {busy:.2f} |")
        for who in ("", "previous_"):
            if who + "check" not in r:
                continue
            for label, key in (("`python build.py check` (clean: model, figures, both sites, checks)", "check"),
                               ("no-change `python build.py`", "nochange"),
                               ("one-page edit, then `python build.py` (new process)", "edit")):
                ratio = f"{statistics.median(r[who + key]) / ours:.2f}× a build" if key == "check" and not who else ""
                lines.append(f"| {n} | {'previous code: ' if who else ''}{label} | {median_line(r[who + key])} | | "
                             f"{ratio} | {statistics.median(r[who + key + '_cpu']):.2f} | |")
            if r.get(who + "dev"):
                median, low, high = r[who + "dev"]
                lines.append(f"| {n} | {'previous code: ' if who else ''}dev server save → reload | "
                             f"{median / 1000:.3f} s ({low / 1000:.3f}–{high / 1000:.3f}) | | | | |")
        lines.append(f"| {n} | files in this project's two sites | {r['files']} | | | | |")
        lines.append(f"| {n} | 1-minute load average as each timed clean build (any tool) started | "
                     f"{min(r['loads']):.2f}–{max(r['loads']):.2f} | | | | |")
        for tool, what in (("mkdocs", "MkDocs + Pagefind (one site)"),
                           ("mkdocs2", "MkDocs ×2 + Pagefind (the same deliverables)")):
            lines.append(f"| {n} | speed-up of this project's clean build over {what}: their time ÷ this "
                         f"project's (> 1: faster) | {statistics.median(_totals(r, tool)) / ours:.2f}× | | | | |")
    if len(sizes) >= 2:
        per = [statistics.median(_totals(r, "ours")) / r["n"] * 1000 for r in sizes]
        lines += ["", f"this project's per-page ms from N={sizes[0]['n']} to N={sizes[-1]['n']}: "
                      f"{per[0]:.1f} → {per[-1]:.1f} (×{per[-1] / per[0]:.2f}; flat would be ×1)"]
    return "\n".join(lines)


def _version(name: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000], help="corpus sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=10, help="dev server saves per size")
    parser.add_argument("--skip-dev", action="store_true", help="no dev-server rows")
    parser.add_argument("--previous", type=Path, help="a checkout of earlier code, benched side by side")
    parser.add_argument("--clean-only", action="store_true",
                        help="only the clean builds (no check, no-change, edit or dev-server rows)")
    parser.add_argument("--dir", type=Path, nargs="+", default=[CACHE],
                        help="where the corpora and outputs go, each in turn: a disk folder, a tmpfs such as "
                             "/dev/shm/bench (default %(default)s)")
    args = parser.parse_args()

    mkdocs, hugo, pagefind = ensure_mkdocs(), ensure_hugo(), str(pagefind_binary())
    previous = args.previous.resolve() if args.previous else None
    texts = []
    for folder in (d.resolve() for d in args.dir):
        folder.mkdir(parents=True, exist_ok=True)
        kind = subprocess.run(["stat", "-f", "-c", "%T", str(folder)], capture_output=True, text=True).stdout.strip()
        before = os.getloadavg()
        sizes = [bench_size(n, args.runs, args.edits, not args.skip_dev, mkdocs, hugo, pagefind, folder, previous,
                            args.clean_only) for n in args.sizes]
        texts.append(f"### corpora in {folder} ({kind})\n\n" + report(sizes, (before, os.getloadavg())))
        print("\n" + texts[-1], flush=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "results.md").write_text("\n\n".join(texts) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
