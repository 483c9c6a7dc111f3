"""Hostile input: whatever a teacher (or an attacker with commit rights) writes, the build either
succeeds or reports ``path:line: message`` problems — never a traceback, never a hang — and no
page it produces runs a script the site did not ship.

Two halves: hypothesis property tests that feed random and mutated pages, front matter, YAML and
record JSON to ``prepare_site`` + ``render_site``; and an XSS corpus whose payloads go into every
field that reaches HTML, checked on the HTML and then in headless Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitekit import SOURCES_YML, fake_evidence, lesson, time_limit, write_site

import build
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.load.evidence import evidence_from
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.vocabulary.urls import page_root, url_problems
from site_builder.write.writer import write_site as write_output

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"
ALPHA = (FIXTURE / "pages" / "alpha.md").read_text(encoding="utf-8")
RECORD = (FIXTURE / "records" / "old_check.json").read_text(encoding="utf-8")
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"
TIME_LIMIT_S = 5  # one small site builds in well under 0.2 s; five seconds means a hang
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "100"))  # raise it for a longer fuzzing session


def property_settings(examples: int = EXAMPLES) -> settings:
    return settings(max_examples=examples, deadline=3000, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


PROPERTY = property_settings()


# --------------------------------------------------------------------------- harness


@pytest.fixture(scope="module")
def evidence(tmp_path_factory) -> Evidence:
    return fake_evidence(tmp_path_factory.mktemp("figures"))


_PROBLEM = re.compile(r"^content/[^\n:]+:\d+: [^\n]+$")


def assert_well_formed(problems: tuple[Problem, ...], root: Path) -> None:
    assert problems, "ContentError without problems"
    for problem in problems:
        assert isinstance(problem, Problem) and isinstance(problem.line, int) and problem.line >= 0, problem
        assert isinstance(problem.message, str) and problem.message.strip(), problem
        assert _PROBLEM.match(f"{problem.path}:{problem.line}: {problem.message}"), repr(problem)
        assert (root / problem.path).exists() or problem.path.endswith(("site.yml", "sources.yml")), problem


def try_build(root: Path, evidence: Evidence, teacher: bool = False) -> dict[str, bytes | Path] | None:
    """Build the site at ``root``: its files, or ``None`` when the content was refused (problems checked).

    Both sites are rendered and every page and figure of each is scanned against the URL allowlist.
    """
    with time_limit(TIME_LIMIT_S):
        try:
            prepared = prepare_site(root, evidence)
        except ContentError as error:
            assert_well_formed(error.problems, root)
            return None
        sites = {flag: render_site(prepared, teacher=flag) for flag in (False, True)}
    for files in sites.values():
        assert_only_allowed_urls(files)
    return sites[teacher]


def assert_only_allowed_urls(files: dict[str, bytes | Path]) -> None:
    """The output invariant: no URL-bearing attribute of any page or SVG outside the allowlist."""
    found = []
    for name, payload in files.items():
        if name.endswith((".html", ".svg")):
            data = payload if isinstance(payload, bytes) else payload.read_bytes()
            text = data.decode("utf-8")
            root = page_root(text) if name.endswith("404.html") else ""  # 404.html links from the site's path
            found += [f"{name}: {p}" for p in url_problems(text, images=name.endswith(".svg"), root=root)]
    assert not found, "\n".join(found[:20])


@contextmanager
def site_dir() -> Iterator[Path]:
    # hypothesis runs many examples per test: a fresh folder each, not pytest's one tmp_path
    path = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------- strategies

SNIPPETS = [
    ":::{state} b0", ":::{state} b1", ":::{state} b9", ":::{state}", "::::{state} b0", ":::{more}", "::::{more}",
    "::::{teacher}", ":::::{teacher}", ":::{unknown}", ":::", "::::", ":::::", ":title: 标题", ":title:",
    ":figure: sketch", ":figure: plot", ":figure: ../../etc/passwd", ":caption: 图注 {src}`M34`",
    ":provenance: teaching", ":provenance: measured", ":provenance: record", ":provenance:", ":colour: red",
    "{num}`exp.diff`", "{num}`exp.bytes`", "{num}`nope`", "{num}``", "{fig}`plot`", "{fig}`../x`",
    "{src}`M34`", "{src}`../../x`", "{ref}`x`", "{ref}`x#b0`", "{ref}`#`", "{ref}`#x-b0`", "{ref}`nope#b1`",
    "{ref}`x#b`", "{example}`3 GiB`", "{bogus}`x`", "{num}`exp.diff", "$x^2$", "$$", "$\\frac{a}{b}$",
    "$\\frac{a}{b$", "$$\n\\sum_i x_i\n$$", "$\\begin{matrix}a\\end{matrix}$", "$\\left($", "$\\href{x}{y}$",
    "# 标题", "## 小节 {#sec}", "## {#}", "### {#a b}", "#", "- 列表", "  - 嵌套", "1. 一", "> 引用", "```",
    "```python", "~~~", "    缩进代码", "| a | b |", "|---|---|", "| 1 | 2 |", "<b>粗</b>", "<!-- 注释 -->",
    "<script>alert(1)</script>", "[链接](numbers.html)", "[x](javascript:alert(1))", "![图](x.png)",
    "[y](../../etc/passwd)", "<https://example.org>", "2.2e-15", "512 KiB", "65%", "3 ms", "×10",
    "---", "***", "\\", "`", "``", "*", "_", "[", "]", "{", "}", ":", "\t", "\u3000", "\ufeff", "\x00", "\r",
    "中文一行，没有标点", "English words mixed 中文", "",
]

markdown_lines = st.lists(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=30)), max_size=25)
markdown_body = markdown_lines.map("\n".join)


@st.composite
def mutated(draw, text: str) -> str:
    """A valid text with a few random edits: deletions, duplications, insertions, swaps, junk."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        kind = draw(st.sampled_from(["delete", "duplicate", "insert", "swap", "truncate", "char"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "insert":
            lines.insert(i, draw(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=20))))
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "truncate":
            lines[i] = lines[i][:draw(st.integers(0, max(len(lines[i]), 0)))]
        else:
            position = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:position] + draw(st.characters()) + lines[i][position:]
    return "\n".join(lines)


FRONT_KEYS = ["title", "id", "kind", "summary", "label", "titel", "order", "x"]
yaml_scalar = st.one_of(st.sampled_from(["一课", "''", "null", "~", "yes", "1", "1.5", "[a, b]", "{a: 1}", "|",
                                         ">-", "&a x", "*a", "!!int x", "!!python/object:os.system x", "lesson",
                                         "article", "index", "r55", "Bad Id", "../x", "2001-13-45", '"\\x"']),
                        st.text(max_size=15))
front_matter = st.lists(st.tuples(st.sampled_from(FRONT_KEYS), yaml_scalar), max_size=6).map(
    lambda items: "\n".join(f"{k}: {v}" for k, v in items))

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=10))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                              st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                          max_leaves=8)


# --------------------------------------------------------------------------- properties


@pytest.mark.slow  # hypothesis: a hundred sites built, both flavours
@PROPERTY
@given(body=st.one_of(markdown_body, mutated(STATE + "\n段落 {num}`exp.diff` 与 $x$。\n")))
def test_random_markdown_is_built_or_refused_with_locations(evidence, body):
    with site_dir() as root:
        write_site(root, {"x": lesson(body)})
        try_build(root, evidence)


@pytest.mark.slow  # hypothesis: 25 copies of the fixture site built, both flavours
@property_settings(max(EXAMPLES // 4, 10))  # the whole fixture site, both builds: slower per example
@given(page=mutated(ALPHA))
def test_mutated_lesson_is_built_or_refused_with_locations(evidence, page):
    with site_dir() as root:
        shutil.copytree(FIXTURE, root / "content")
        (root / "content" / "pages" / "alpha.md").write_text(page, encoding="utf-8")
        try_build(root, evidence, teacher=True)


@pytest.mark.slow  # hypothesis: a hundred sites built, both flavours
@PROPERTY
@given(front=st.one_of(front_matter, mutated("title: 一课\nkind: lesson\nsummary: 概要\nlabel: R1")),
       opener=st.sampled_from(["---\n", "--- \n", "---\r\n", "\ufeff---\n", "", "----\n"]))
def test_random_front_matter_is_built_or_refused_with_locations(evidence, front, opener):
    with site_dir() as root:
        write_site(root, {"x": f"{opener}{front}\n---\n{STATE}"})
        try_build(root, evidence)


SITE = "title: 测试课程\nlanguage: zh-CN\nbase_url: https://example.org/c/\npages: [x]\n"


@pytest.mark.slow  # hypothesis: a hundred sites built, both flavours
@PROPERTY
@given(site=st.one_of(mutated(SITE), st.text(max_size=60)), sources=st.one_of(mutated(SOURCES_YML),
                                                                                 st.text(max_size=60)))
def test_random_site_and_sources_yaml_is_built_or_refused_with_locations(evidence, site, sources):
    with site_dir() as root:
        write_site(root, {"x": lesson(STATE + "见 {src}`M34`。\n")}, site_yml=site or "\n", sources=sources)
        try_build(root, evidence)


@pytest.mark.slow  # hypothesis: a hundred sites built, both flavours
@PROPERTY
@given(record=st.one_of(
    mutated(RECORD),
    st.dictionaries(st.sampled_from(["id", "title", "date", "machine", "values", "compare", "data", "source",
                                     "command", "conditions", "colour"]), json_value, max_size=8).map(json.dumps),
    st.builds(lambda values, compare: json.dumps({"id": "old_check", "title": "t", "date": "2025-01-01",
                                                  "values": values, "compare": compare}), json_value, json_value)))
def test_random_record_json_is_built_or_refused_with_locations(evidence, record):
    with site_dir() as root:
        write_site(root, {"x": lesson(STATE)})
        (root / "content" / "records" / "old_check.json").write_text(record, encoding="utf-8")
        try_build(root, evidence)


SCHEMES = ["javascript", "JaVaScRiPt", "vbscript", "data", "file", "ftp", "blob", "https", "http", "mailto", "tel"]
url_noise = st.sampled_from(["", " ", "\t", "\n", "\x01", "\x7f", "\u00a0", "&#x20;", "&#9;", "%20", "\\"])


@st.composite
def hostile_urls(draw) -> str:
    """Script URLs as browsers still read them (case, spaces, tabs, entities, encodings) and paths out of the site."""
    scheme = draw(st.sampled_from(SCHEMES))
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(scheme)))
        scheme = scheme[:cut] + draw(st.sampled_from(["\t", "\n", "&#x9;", "&#115;", ""])) + scheme[cut:]
    absolute = draw(url_noise) + scheme + draw(st.sampled_from([":", "&#58;", "&colon;", "%3A"]))
    rest = draw(st.sampled_from(["alert(1)", "//evil.example/x", "text/html,<script>alert(1)</script>",
                                 "image/svg+xml,<svg onload=alert(1)>", "x@y.z", "/etc/passwd"]))
    relative = draw(st.sampled_from(["../x.html", "/etc/passwd", "//evil.example", "\\\\evil.example", "/\\evil",
                                     "numbers.html#x", "#b0", "a/../../b", "static/site.css", "?q=1"]))
    return draw(st.sampled_from([absolute + rest, relative, draw(st.text(max_size=12)) + absolute + rest]))


URL_PLACES = [
    lambda u: f"[点我]({u})", lambda u: f"[点我](<{u}>)", lambda u: f"<{u}>", lambda u: f"[点我][r]\n\n[r]: {u}",
    lambda u: f"[点我]({u} \"t\")", lambda u: f"![x]({u})", lambda u: f"$\\href{{{u}}}{{x}}$",
    lambda u: f"$$\n\\href{{{u}}}{{y}}\n$$", lambda u: f"{{ref}}`{u}`", lambda u: f"{{src}}`{u}`",
]


@pytest.mark.slow  # hypothesis: a hundred sites built, both flavours
@PROPERTY
@given(url=hostile_urls(), place=st.sampled_from(range(len(URL_PLACES))), in_source=st.booleans())
def test_fuzzed_urls_never_reach_either_site_outside_the_allowlist(evidence, url, place, in_source):
    with site_dir() as root:
        sources = SOURCES_YML + (f"- id: Z\n  title: t\n  url: {json.dumps(url)}\n" if in_source else "")
        write_site(root, {"x": lesson(_state(body=URL_PLACES[place](url) + "\n\n见 {src}`M34`。"))}, sources=sources)
        try_build(root, evidence)  # scans both sites


def test_non_utf8_and_odd_files_are_refused_with_locations(evidence, tmp_path):
    write_site(tmp_path, {"x": lesson(STATE)})
    (tmp_path / "content" / "pages" / "x.md").write_bytes(lesson("第一行\n").encode("gb18030") + b"\xff\xfe\n")
    (tmp_path / "content" / "records" / "bad.json").write_bytes(b'{"id": "bad", "title": "\xff"}')
    assert try_build(tmp_path, evidence) is None


@pytest.mark.parametrize("yaml_text", [
    "title: !!python/object/apply:os.system ['true']", "? [a]\n: b\ntitle: x", "title: &a [*a]",
    "title: !!timestamp x", "title: !!binary xx",
    # billion laughs: aliases must not make the loader (or str()) exponential
    "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join(["*" + chr(97 + i)] * 9)
                                              + "]\n" for i in range(8)) + "title: *i",
])
def test_yaml_tricks_in_front_matter(evidence, tmp_path, yaml_text):
    write_site(tmp_path, {"x": f"---\n{yaml_text}\n---\n{STATE}"})
    assert try_build(tmp_path, evidence) is None


@pytest.mark.parametrize("sources", [
    "- id: A\n  title: &t [*t]\n", "- id: A\n  title: t\n  url: [1]\n", "- {id: A, title: t, year: {a: 1}}\n",
    "a: &a [x,x,x,x,x,x,x,x,x]\n", "- id: &a [x,x,x,x,x,x,x,x,x]\n  title: *a\n",
])
def test_yaml_tricks_in_sources(evidence, tmp_path, sources):
    write_site(tmp_path, {"x": lesson(STATE)}, sources=sources)
    assert try_build(tmp_path, evidence) is None


# --------------------------------------------------------------------------- XSS corpus

PAYLOADS = [
    "<script>window.__xss=1;alert(1)</script>",
    "<img src=x onerror=\"window.__xss=1;alert(1)\">",
    "\"><svg onload=\"window.__xss=1;alert(1)\">",
    "'><script>window.__xss=1</script>",
    "</title><script>window.__xss=1</script>",
    "</textarea></pre><script>window.__xss=1</script>",
    "javascript:window.__xss=1;alert(1)",
    "<a href=\"javascript:window.__xss=1\">x</a>",
    "<iframe srcdoc=\"<script>parent.__xss=1</script>\"></iframe>",
    "{{ 7*7 }}{% raw %}",
]
_INLINE = [p for p in PAYLOADS if "\n" not in p]
_YAML_QUOTED = [json.dumps(p, ensure_ascii=False) for p in _INLINE]  # a JSON string is a YAML double-quoted string


def _state(title: str = "一", caption: str = "", body: str = "正文。", teacher: str = "") -> str:
    return (f":::{{state}} b0\n:title: {title}\n:figure: sketch\n"
            + (f":caption: {caption}\n" if caption else "") + ":provenance: teaching\n\n" + body + "\n"
            + (f"\n::::{{teacher}}\n{teacher}\n::::\n" if teacher else "") + ":::\n")


def _markdown_cases(payload: str, quoted: str) -> dict[str, dict]:
    """Where a payload can go in a page: case name → site (pages, sources)."""
    return {
        "front-title": {"x": f"---\ntitle: {quoted}\n---\n{_state()}"},
        "front-summary-label": {"x": f"---\ntitle: 一\nsummary: {quoted}\nlabel: {quoted}\n---\n{_state()}"},
        "state-title": {"x": lesson(_state(title=payload))},
        "state-caption": {"x": lesson(_state(caption=payload))},
        "body": {"x": lesson(_state(body=payload))},
        "teacher-note": {"x": lesson(_state(teacher=payload))},
        "heading": {"x": lesson(f"## {payload}\n\n" + _state())},
        "code": {"x": lesson(_state(body=f"`{payload}`\n\n```html\n{payload}\n```"))},
        "table": {"x": lesson(_state(body=f"| a | b |\n|---|---|\n| {payload} | x |"))},
        "link-text": {"x": lesson(_state(body=f"[{payload}](numbers.html)"))},
        "roles": {"x": lesson(_state(body="".join(f"{{{r}}}`{payload}` " for r in ("ref", "src", "num", "fig"))))},
        "example-role": {"x": lesson(_state(body=f"{{example}}`{payload}`"))},
        "math": {"x": lesson(_state(body=f"${payload}$ 与 $\\text{{{payload}}}$"))},
        "article": {"x": f"---\ntitle: 一\nkind: article\n---\n{payload}\n"},
    }


URL_CASES = {
    "md-link": "[点我](javascript:window.__xss=1)", "md-link-case": "[点我](JaVaScRiPt:window.__xss=1)",
    "md-link-entity": "[点我](java&#x73;cript:window.__xss=1)", "md-link-space": "[点我]( javascript:window.__xss=1)",
    "md-link-data": "[点我](data:text/html,<script>parent.__xss=1</script>)", "md-link-vb": "[点我](vbscript:x)",
    "autolink": "<javascript:window.__xss=1>", "image": "![x](javascript:window.__xss=1)",
    "image-data-svg": "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "ref-link": "[点我][r]\n\n[r]: javascript:alert(1)",
    "html-link": "<a href=\"javascript:alert(1)\">x</a>",
    "link-title": "[a](numbers.html \"\\\" onmouseover=alert(1) x=\\\"\")",
}


def _source_cases() -> dict[str, str]:
    cases = {}
    for i, quoted in enumerate(_YAML_QUOTED):
        cases[f"source-fields-{i}"] = (f"- id: M34\n  title: {quoted}\n  authors: {quoted}\n  year: {quoted}\n"
                                       f"  checked: {quoted}\n  where: {quoted}\n")
    for url in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)",
                "data:text/html,<script>x</script>", "https://example.org/\"><script>alert(1)</script>", "vbscript:x",
                "java\tscript:alert(1)"):
        cases[f"source-url-{url[:12]}"] = f"- id: M34\n  title: t\n  url: {json.dumps(url)}\n"
    return cases


def xss_sites() -> dict[str, dict]:
    """Every case: name → keyword arguments of ``sitekit.write_site`` (plus optional evidence payload)."""
    sites: dict[str, dict] = {}
    for n, (payload, quoted) in enumerate(zip(_INLINE, _YAML_QUOTED, strict=True)):
        for case, pages in _markdown_cases(payload, quoted).items():
            sites[f"{case}-{n}"] = {"pages": pages}
    for case, markdown in URL_CASES.items():
        sites[case] = {"pages": {"x": lesson(_state(body=markdown))}}
    for case, sources in _source_cases().items():
        sites[case] = {"pages": {"x": lesson(_state(body="见 {src}`M34`。"))}, "sources": sources}
    for n, payload in enumerate(_INLINE):
        sites[f"evidence-{n}"] = {"pages": {"x": lesson(_state(body="值 {num}`exp.v` 与 {num}`rec.v`。\n\n{fig}`fig`")
                                                        .replace(":provenance: teaching", ":provenance: measured"))},
                                  "evidence": payload}
    return sites


def hostile_evidence(payload: str, figure_dir: Path) -> Evidence:
    """Payloads in every field of model results, records and figures, wired by build.py's own code."""
    results = {"experiments": {"exp": {"title": payload, "command": payload, "source": payload,
                                       "config": {"n": payload}, "data": {},
                                       "values": {"v": {"value": 1.5, "unit": payload, "description": payload}}}}}
    records = {"rec": {"id": "rec", "title": payload, "date": payload, "machine": payload, "conditions": payload,
                       "command": payload, "values": {"v": {"value": 2, "unit": "ms", "description": payload}},
                       "compare": [{"value": "v", "with": "exp.v", "rule": "<=", "bound": 9, "note": payload}]}}
    figure_dir.mkdir(parents=True, exist_ok=True)
    (figure_dir / "fig.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (figure_dir / "sketch.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    drawn = {"fig": {"file": "fig.svg", "alt": payload, "description": payload, "provenance": "measured",
                     "width": 10, "height": 10, "inputs": ["exp"]},
             "sketch": {"file": "sketch.svg", "alt": payload, "description": payload, "provenance": "teaching",
                        "width": 10, "height": 10}}
    return evidence_from(results, records, drawn, figure_dir, build.ROOT, "zh-CN")


class _Html(HTMLParser):
    """What can run in a page: script elements, on* attributes, script-bearing URLs."""

    URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster", "background"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.events: list[str] = []
        self.bad_urls: list[str] = []
        self.frames: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = True
            self.scripts.append(f"src={dict(attrs).get('src')}")
        if tag in ("iframe", "object", "embed", "frame", "base", "form"):
            self.frames.append(tag)
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.frames.append("meta refresh")
        for name, value in attrs:
            if name.startswith("on"):
                self.events.append(f"<{tag} {name}={value!r}>")
            if name in self.URL_ATTRS and value is not None:
                scheme = re.sub(r"[\x00-\x20]", "", value).lower()
                if scheme.startswith(("javascript:", "vbscript:", "data:text", "data:image/svg")):
                    self.bad_urls.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and self.scripts and data.strip():
            self.scripts[-1] += f" inline={data.strip()!r}"


def executable_parts(html: str) -> _Html:
    parser = _Html()
    parser.feed(html)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def own_scripts(evidence, tmp_path_factory) -> set[str]:
    """The scripts the site itself ships, from a harmless build: the only scripts a page may contain."""
    root = write_site(tmp_path_factory.mktemp("benign"), {"x": lesson(_state())})
    prepared = prepare_site(root, evidence)
    scripts: set[str] = set()
    for teacher in (False, True):
        for name, payload in render_site(prepared, teacher=teacher).items():
            if name.endswith(".html"):
                scripts.update(executable_parts(payload.decode()).scripts)
    return scripts


def _html_files(files: dict[str, bytes | Path]) -> dict[str, str]:
    return {name: payload.decode("utf-8") for name, payload in files.items()
            if name.endswith(".html") and isinstance(payload, bytes)}


@pytest.fixture(scope="module")
def xss_outputs(evidence, tmp_path_factory) -> dict[str, tuple[Path, Path] | None]:
    """Each XSS case built and written (public, teacher), or ``None`` when the build refused it."""
    base = tmp_path_factory.mktemp("xss")
    outputs: dict[str, tuple[Path, Path] | None] = {}
    for case, spec in xss_sites().items():
        root = base / case
        write_site(root, spec["pages"], sources=spec.get("sources", SOURCES_YML))
        case_evidence = hostile_evidence(spec["evidence"], root / "fig") if "evidence" in spec else evidence
        with time_limit(TIME_LIMIT_S):
            try:
                prepared = prepare_site(root, case_evidence)
            except ContentError as error:
                assert_well_formed(error.problems, root)
                outputs[case] = None
                continue
            for teacher, out in ((False, root / "_site"), (True, root / "_site-teacher")):
                write_output(render_site(prepared, teacher=teacher), out)
        outputs[case] = (root / "_site", root / "_site-teacher")
    return outputs


@pytest.mark.slow  # the xss_outputs fixture builds and writes about 180 sites
def test_xss_corpus_produces_no_executable_html(xss_outputs, own_scripts):
    built = {case: dirs for case, dirs in xss_outputs.items() if dirs}
    assert len(built) >= len(xss_outputs) // 3, "most cases should build (escaped), not all be refused"
    failures = []
    for case, dirs in built.items():
        for site in dirs:
            for path in sorted(site.rglob("*.html")):
                parts = executable_parts(path.read_text(encoding="utf-8"))
                foreign = [s for s in parts.scripts if s not in own_scripts]
                for what in foreign + parts.events + parts.bad_urls + parts.frames:
                    failures.append(f"{case}: {path.relative_to(site.parent)}: {what}")
    assert not failures, "\n".join(failures[:30])


@pytest.mark.slow  # the xss_outputs fixture builds and writes about 180 sites
def test_raw_html_and_script_urls_are_refused_or_neutralised(xss_outputs):
    # raw HTML in the body must be refused (a refused build is the pass); script URLs in links vanish
    assert xss_outputs["body-0"] is None and xss_outputs["html-link"] is None
    assert xss_outputs["state-caption-0"] is None, "raw HTML in :caption: must be refused like in the body"
    assert all(v is None for k, v in xss_outputs.items()
               if k.startswith("source-url-") and not k.startswith("source-url-https")), \
        "sources.yml urls that are not http(s) must be refused"
    # Markdown links and pictures with script URLs are refused too, like every URL outside the allowlist:
    # left as text, the published Markdown would republish them as links
    for case in ("md-link", "md-link-case", "md-link-entity", "md-link-space", "autolink", "ref-link", "image"):
        assert xss_outputs[case] is None, case


def test_javascript_source_url_is_refused_with_its_line(evidence, tmp_path):
    sources = "- id: M34\n  title: 记录\n- id: A\n  title: t\n  url: javascript:alert(1)\n"
    write_site(tmp_path, {"x": lesson(_state(body="见 {src}`M34`。"))}, sources=sources)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, evidence)
    assert [str(p) for p in caught.value.problems] == [
        "content/sources.yml:5: source 'A': url must start with https:// or http://"]


def test_markdown_javascript_link_is_refused_with_its_line(evidence, tmp_path):
    write_site(tmp_path, {"x": lesson(_state(body="[点我](javascript:alert(1)) 与 [好](https://example.org/)"))})
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, evidence)
    assert [str(p) for p in caught.value.problems] == [
        "content/pages/x.md:9: link 'javascript:alert(1)' uses a scheme the site does not allow: give a full "
        "https:// URL, or link to a page with {ref}`id`"]


_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?')


# The browser pass loads the pages a payload can reach; the first three payloads (script element,
# event handler, attribute break-out) stand for the rest, which the HTML test covers, to keep it fast.
def _pages_reached(case: str) -> tuple[str, ...]:
    if case.startswith("source-"):
        return ("sources.html",)
    if case.startswith("evidence-"):
        return ("x.html", "numbers.html")
    return ("x.html", "x.source.html")


def _browser_cases(outputs: dict[str, tuple[Path, Path] | None]) -> dict[str, tuple[Path, Path]]:
    def payload_index(case: str) -> int:
        tail = case.rsplit("-", 1)[-1]
        return int(tail) if tail.isdigit() and not case.startswith("source-fields") else 0
    return {case: dirs for case, dirs in sorted(outputs.items()) if dirs and payload_index(case) < 3}


@pytest.mark.slow  # Chromium loads ~100 pages of the XSS corpus
def test_xss_corpus_runs_no_script_in_chromium(xss_outputs, tmp_path, browser):
    """Load the built pages with the Content-Security-Policy removed, so the HTML itself must be safe."""
    pages: list[Path] = []
    for case, (public, teacher) in _browser_cases(xss_outputs).items():
        for site, names in ((public, _pages_reached(case)), (teacher, ("x.html",) if "teacher" in case else ())):
            for name in names:
                if (site / name).is_file():
                    copy = tmp_path / case / site.name / name
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    copy.write_text(_CSP.sub("", (site / name).read_text(encoding="utf-8")), encoding="utf-8")
                    pages.append(copy)
    fired: list[str] = []
    page = browser.new_page()
    try:
        # nothing else may load: a payload that fetches would show up here, and the copies have no static/
        page.route("**/*", lambda route: route.continue_() if route.request.url.endswith(".html")
                   else route.abort())
        current = {"url": ""}
        page.on("dialog", lambda dialog: (fired.append(f"dialog {dialog.message!r} on {current['url']}"),
                                          dialog.dismiss()))
        for path in pages:
            current["url"] = path.as_uri()
            page.goto(path.as_uri(), wait_until="load")
            if page.evaluate("() => [window, ...Array.from(window.frames)].some(w => { try { return !!w.__xss }"
                             " catch (e) { return false } })"):
                fired.append(f"window.__xss set on {path}")
    finally:
        page.close()
    assert len(pages) > 50, "the browser pass should load most of the corpus (script URLs are refused, not built)"
    assert not fired, "\n".join(fired[:20])
