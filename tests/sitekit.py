"""Small sites for tests: write a content/ folder and fake evidence (values, figures)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence, FigureInfo, Value
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.vocabulary.urls import page_root, url_problems
from site_builder.write.leaks import teacher_leaks
from site_builder.write.writer import write_site as write_output

SITE_YML = "title: 测试课程\nlanguage: zh-CN\nbase_url: https://example.org/c/\npages: [{pages}]\n"
SOURCES_YML = "- id: M34\n  title: 内部记录\n- id: Vaswani2017\n  title: Attention Is All You Need\n"


def write_site(root: Path, pages: dict[str, str], *, site_yml: str | None = None, sources: str = SOURCES_YML,
               records: dict[str, dict] | None = None, glossary: str | None = None) -> Path:
    """Write ``root/content`` with the given pages (id → text); returns ``root``."""
    content = root / "content"
    (content / "pages").mkdir(parents=True, exist_ok=True)
    (content / "records").mkdir(exist_ok=True)
    (content / "site.yml").write_text(site_yml or SITE_YML.format(pages=", ".join(pages)), encoding="utf-8")
    (content / "sources.yml").write_text(sources, encoding="utf-8")
    if glossary is not None:
        (content / "glossary.yml").write_text(glossary, encoding="utf-8")
    for page_id, text in pages.items():
        (content / "pages" / f"{page_id}.md").write_text(text, encoding="utf-8")
    for record_id, record in (records or {}).items():
        (content / "records" / f"{record_id}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1),
                                                               encoding="utf-8")
    return root


def fake_evidence(figure_dir: Path) -> Evidence:
    """Five values (measured, of each value class, computed, and record) and four figures (teaching,
    measured with a dark variant, computed, and one whose corner label disagrees with its badge)."""
    figure_dir.mkdir(parents=True, exist_ok=True)
    for name in ("sketch", "plot", "plot.dark", "table", "mislabelled"):
        (figure_dir / f"{name}.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    values = {
        "exp.diff": Value("exp.diff", 1.1e-15, "", "measured", "exp", command="python -m lessonmodel run exp",
                          value_class="rounding", rtol=1e-9, atol=1e-12),
        "exp.bytes": Value("exp.bytes", 819200, "B", "measured", "exp", value_class="exact"),
        "bench.decode_ms": Value("bench.decode_ms", 1.5, "ms", "measured", "bench", value_class="timing"),
        "formula.per_token": Value("formula.per_token", 524288, "B", "computed", "formula", value_class="exact"),
        "old_check.max_abs_diff": Value("old_check.max_abs_diff", 2.22e-15, "", "record", "old_check",
                                        date="2025-01-01"),
    }
    figures = {"sketch": FigureInfo("sketch", "sketch.svg", "草图", "长描述", "teaching"),
               "plot": FigureInfo("plot", "plot.svg", "曲线", "长描述", "measured", label="模型实测",
                                  dark_file="plot.dark.svg"),
               "table": FigureInfo("table", "table.svg", "表", "长描述", "computed", label="公式计算"),
               "mislabelled": FigureInfo("mislabelled", "mislabelled.svg", "表", "长描述", "computed",
                                         label="模型实测")}
    return Evidence(values=values, figures=figures, figure_dir=str(figure_dir))


def lesson(body: str, *, front: str = "title: 一课\n") -> str:
    """A lesson page with the given body after the front matter (front matter is lines 1–3)."""
    return f"---\n{front}---\n{body}"


class Hang(Exception):
    """Raised by ``time_limit``. Not a ``TimeoutError``: that is an ``OSError``, which the code under test may
    catch as a failed read (a FIFO's open interrupted by the alarm), so the hang would pass unnoticed."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Turn a hang into a test failure (hypothesis' deadline only fires after an example returns).

    SIGALRM interrupts a blocking system call too (such as opening a FIFO nobody writes to).
    """
    def expired(signum, frame):
        raise Hang(f"did not finish in {seconds} s: a hang on hostile input")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


PROJECT = Path(__file__).resolve().parent.parent
_PROJECT_PARTS = ("build.py", "content", "figures", "lessonmodel", "site_builder", "README.md", "Makefile",
                  "requirements.txt", "requirements-test.txt", "pyproject.toml")


def project_copy(target: Path) -> Path:
    """A copy of this project (code, content, and the content-hashed model and figure caches) at ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in _PROJECT_PARTS:
        source = PROJECT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    copy_caches(target)
    return target


def copy_caches(target: Path) -> None:
    """This checkout's model and figure caches into ``target/.cache``: keyed by content hashes, so safe to share,
    and a build there neither runs the model nor draws a figure again."""
    cache = filled_caches()
    for name in ("lessonmodel", "figures"):
        shutil.copytree(cache / name, target / ".cache" / name)


@functools.cache
def filled_caches() -> Path:
    """This checkout's .cache, holding the model's results and every figure for the current sources: once per
    process, under a lock (a run's workers share the folder). In a fresh clone it is empty, and each project
    copy would otherwise run the model and draw every figure in every language anew."""
    from shared import held

    import build

    with held(build.CACHE / "tests" / "filled.lock"):
        build.measure_all()
    return build.CACHE


# Hostile input: builds under a time limit, problems well formed, no URL outside the allowlist in any output.

LIMIT_S = 30  # a build of these small sites takes well under a second: thirty means a hang


SECRET = "root:x:0:0:SECRET-LINE"


def state(body: str = "正文。", title: str = "一") -> str:
    return f":::{{state}} b0\n:title: {title}\n:provenance: teaching\n\n{body}\n:::\n"


def problems_of(root: Path) -> list[str]:
    with time_limit(LIMIT_S), pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(root / "fig"))
    return [str(p) for p in caught.value.problems]


def both_sites(root: Path) -> dict[str, str]:
    """Both sites written to disk; every HTML and SVG file of each, by path."""
    with time_limit(LIMIT_S):
        prepared = prepare_site(root, fake_evidence(root / "fig"))
        for teacher, out in ((False, root / "_site"), (True, root / "_site-teacher")):
            write_output(render_site(prepared, teacher=teacher), out)
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8")
            for out in (root / "_site", root / "_site-teacher") for path in sorted(out.rglob("*"))
            if path.suffix in (".html", ".svg")}


def assert_no_unsafe_url(files: dict[str, str]) -> None:
    """``files``: site folder/path → text. A page in a folder of its site (a translation's ``en/``) may link up
    to the site's root, as the build allows (``render/outputs.guarded``); no link may climb out of the site."""
    def root(name: str, text: str) -> str:
        return page_root(text) if name.endswith("404.html") else "../" * (name.count("/") - 1)
    found = [f"{name}: {p}" for name, text in files.items()
             for p in url_problems(text.encode(), images=name.endswith(".svg"), root=root(name, text))]
    assert not found, "\n".join(found[:20])


def secret_outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(f"{SECRET}\nsecond line\n", encoding="utf-8")
    return secret


TIME_LIMIT_S = 5  # one small site builds in well under 0.2 s; five seconds means a hang


_PROBLEM = re.compile(r"^content/[^\n:]+:\d+: [^\n]+$")


def assert_well_formed(problems: tuple[Problem, ...], root: Path) -> None:
    assert problems, "ContentError without problems"
    for problem in problems:
        assert isinstance(problem, Problem) and isinstance(problem.line, int) and problem.line >= 0, problem
        assert isinstance(problem.message, str) and problem.message.strip(), problem
        assert _PROBLEM.match(f"{problem.path}:{problem.line}: {problem.message}"), repr(problem)
        assert (root / problem.path).exists() or problem.path.endswith(("site.yml", "sources.yml")), problem


def _state(title: str = "一", caption: str = "", body: str = "正文。", teacher: str = "") -> str:
    return (f":::{{state}} b0\n:title: {title}\n:figure: sketch\n"
            + (f":caption: {caption}\n" if caption else "") + ":provenance: teaching\n\n" + body + "\n"
            + (f"\n::::{{teacher}}\n{teacher}\n::::\n" if teacher else "") + ":::\n")


def _found(prepared, site: Path) -> list[str]:
    return [str(p) for p in teacher_leaks(prepared, site)]
