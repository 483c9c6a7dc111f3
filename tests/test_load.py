"""Loading content/ (site_builder/load): site, sources, records, glossary, value texts and front matter;
every teacher mistake's exact message; what it refuses (special files, odd encodings, YAML tricks); random
Markdown, front matter, YAML and records built or refused with locations (hypothesis)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitekit import (
    SOURCES_YML,
    TIME_LIMIT_S,
    _state,
    assert_well_formed,
    fake_evidence,
    lesson,
    problems_of,
    secret_outside,
    state,
    time_limit,
    write_site,
)

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence, SourceFile
from site_builder.load.value_text import check_value_text, parse_value_text
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import UnsafeOutputError, check_html, page_root, url_problems

# ---------------------------------------------------------------------------
# Every mistake a teacher can make: the exact ``path:line: message``, all at once.


P = "content/pages/x.md"


STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"


def problems(tmp_path, pages, **kwargs) -> list[str]:
    root = write_site(tmp_path, pages, **kwargs)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


CASES = [
    ("missing front matter", "开头没有前置信息。\n", f"{P}:1: a page needs a title: start it with a line "
                                               "'# Title', or with front matter: a line '---', 'title: …', then '---'"),
    ("unclosed front matter", "---\ntitle: 一\n正文\n",
     f"{P}:1: front matter is not closed: add a line '---' after it"),
    ("missing title", "---\nkind: lesson\n---\n" + STATE, f"{P}:1: a page needs a title: start it with a line "
     "'# Title', or with front matter: a line '---', 'title: …', then '---'"),
    ("unknown key", "---\ntitle: 一\ntitel: 二\n---\n" + STATE,
     f"{P}:3: unknown front matter key 'titel' (did you mean 'title'?)"),
    ("bad kind", "---\ntitle: 一\nkind: lessen\n---\n" + STATE,
     f"{P}:3: unknown page kind 'lessen' (use one of: lesson, article, index)"),
    ("invalid yaml", "---\ntitle: [一\n---\n" + STATE,
     f"{P}:2: the '[' here is never closed: add ']' where it ends (column 8)"),
    ("lesson without states", lesson("只有正文。\n", front="title: 一课\nkind: lesson\n"),
     f"{P}:1: a lesson needs at least one ':::{{state}} b0' block"),
    ("state out of order", lesson(STATE.replace("b0", "b1")),
     f"{P}:4: state id 'b1' should be 'b0': states are numbered b0, b1, … in order"),
    ("state without title", lesson(":::{state} b0\n:provenance: teaching\n\n正文。\n:::\n"),
     f"{P}:4: state b0 needs ':title: …'"),
    ("bad provenance", lesson(STATE.replace("teaching", "teached")),
     f"{P}:6: state b0 needs ':provenance:' set to one of teaching, computed, measured, record, not 'teached' "
     "(did you mean 'teaching'?)"),
    ("unknown option", lesson(STATE.replace(":title: 一", ":title: 一\n:figur: plot")),
     f"{P}:6: unknown state option ':figur:' (did you mean 'figure'?)"),
    ("unknown figure", lesson(STATE.replace(":title: 一", ":title: 一\n:figure: skech")),
     f"{P}:6: unknown figure 'skech' (did you mean 'sketch'?)"),
    ("unclosed directive", lesson(":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n"),
     f"{P}:4: directive '{{state}}' is never closed: add a line ':::' after its content"),
    ("unknown directive", lesson(STATE.replace("正文。", "::::{mroe}\n更多\n::::")),
     f"{P}:8: unknown directive '{{mroe}}' (did you mean 'more'?)"),
    ("unknown value", lesson(STATE.replace("正文。", "差值 {num}`exp.dif`。")),
     f"{P}:8: unknown value 'exp.dif' (did you mean 'exp.diff'?)"),
    ("unknown source", lesson(STATE.replace("正文。", "见 {src}`M43`。")),
     f"{P}:8: unknown source 'M43' (did you mean 'M34'?) (sources are listed in content/sources.yml)"),
    ("unknown role", lesson(STATE.replace("正文。", "见 {nmu}`exp.diff`。")),
     f"{P}:8: unknown role '{{nmu}}' (did you mean 'num'?)"),
    ("a word for a role", lesson(STATE.replace("正文。", "见 {value}`exp.diff`。")),
     f"{P}:8: unknown role '{{value}}' (did you mean 'num'?)"),
    ("broken ref page", lesson(STATE.replace("正文。", "见 {ref}`y`。")), f"{P}:8: {{ref}} to unknown page 'y'"),
    ("broken ref anchor", lesson(STATE.replace("正文。", "见 {ref}`x#b3`。")),
     f"{P}:8: {{ref}} to unknown anchor '#x-b3' on page 'x' (did you mean 'x-b0'?)"),
    ("raw html", lesson(STATE.replace("正文。", "正文 <b>粗</b>。")),
     f"{P}:8: raw HTML is not allowed in lessons; write Markdown, or a directive (state, more, teacher); "
     "to show a tag as text, put it in `backticks`"),
    ("unbound number", lesson(STATE.replace("正文。", "误差是 2.2e-15。")),
     f"{P}:8: state b0: number '2.2e-15' is written by hand: cite a value with {{num}}`name`, "
     "or mark an illustration with {example}`…`"),
    ("unbound bytes", lesson(STATE.replace("正文。", "每个 token 要 512 KiB。")),
     f"{P}:8: state b0: number '512 KiB' is written by hand: cite a value with {{num}}`name`, "
     "or mark an illustration with {example}`…`"),
    ("unbound percent", lesson("开场 65% 的显存。\n\n" + STATE),
     f"{P}:4: number '65%' is written by hand: cite a value with {{num}}`name`, "
     "or mark an illustration with {example}`…`"),
    ("provenance teaching but measured value", lesson(STATE.replace("正文。", "差值 {num}`exp.diff`。")),
     f"{P}:6: state b0 declares teaching but uses measured value exp.diff: declare measured"),
    ("provenance measured but nothing measured", lesson(STATE.replace("teaching", "measured")),
     f"{P}:6: state b0 declares measured but uses no computed or measured value or figure, and no record: "
     "declare teaching"),
    ("provenance teaching but measured figure", lesson(STATE.replace(":title: 一", ":title: 一\n:figure: plot")),
     f"{P}:7: state b0 declares teaching but uses figure plot: declare measured"),
    ("provenance measured but computed value", lesson(STATE.replace("teaching", "measured")
                                                      .replace("正文。", "每 token {num}`formula.per_token`。")),
     f"{P}:6: state b0 declares measured but uses computed value formula.per_token: declare computed"),
    ("provenance teaching but computed figure", lesson(STATE.replace(":title: 一", ":title: 一\n:figure: table")),
     f"{P}:7: state b0 declares teaching but uses figure table: declare computed"),
    ("figure label disagrees with badge", lesson(STATE.replace(":title: 一", ":title: 一\n:figure: mislabelled")
                                                  .replace("teaching", "computed")),
     f"{P}:6: figure mislabelled: its corner label '模型实测' disagrees with its badge "
     "'computed by formula, not measured'"),
    ("bad math", lesson(STATE.replace("正文。", "公式 $\\frac{a}{b$。")),
     f"{P}:8: cannot render math '\\frac{{a}}{{b': unbalanced braces: 1 '{{' never closed"),
    ("duplicate anchor", lesson("## 一 {#a}\n\n## 二 {#a}\n\n" + STATE), f"{P}:6: duplicate anchor '#a' on this page"),
    ("nested state", lesson("- 列表\n\n  :::{state} b0\n  :title: 一\n  :provenance: teaching\n  正文\n  :::\n"),
     f"{P}:6: a state must stand at the top level of the page, not inside another block"),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_mistake_is_reported_with_path_and_line(tmp_path, text, expected):
    assert expected in problems(tmp_path, {"x": text})


def test_all_mistakes_are_reported_at_once(tmp_path):
    body = STATE.replace("正文。", "差值 {num}`exp.dif`，见 {src}`M43`，误差 2.2e-15。")
    found = problems(tmp_path, {"x": lesson(body), "y": "没有前置信息\n"})
    assert len(found) == 4
    assert [f.split(":")[0] for f in found] == ["content/pages/y.md", P, P, P]  # the page that failed to load first


def test_site_config_mistakes(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, y]\ncolour: red\n"
    found = problems(tmp_path, {"x": lesson(STATE)}, site_yml=site)
    assert found == ["content/site.yml:4: no page 'y' in content/pages/",
                     "content/site.yml:5: unknown site.yml key 'colour' (allowed: title, language, base_url, pages, "
                     "content_language, translations, short_title)"]


def test_page_not_listed_in_site_config(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x]\n"
    found = problems(tmp_path, {"x": lesson(STATE), "draft": lesson(STATE)}, site_yml=site)
    assert found == ["content/pages/draft.md:1: page 'draft' is not listed in site.yml 'pages'"]


def test_source_registry_mistakes(tmp_path):
    sources = "- id: M34\n  title: 一\n- id: M34\n  title: 二\n- id: 'bad id'\n  title: 三\n- id: X1\n  titel: 四\n"
    found = problems(tmp_path, {"x": lesson(STATE)}, sources=sources)
    assert found == ["content/sources.yml:3: duplicate source id 'M34'",
                     "content/sources.yml:5: source id 'bad id' must be letters, digits and '-'",
                     "content/sources.yml:7: source 'X1' has no title",
                     "content/sources.yml:8: unknown source key 'titel' (did you mean 'title'?)"]


def test_record_comparison_that_fails(tmp_path):
    record = {"id": "old", "title": "旧", "date": "2025-01-01", "values": {"d": {"value": 1e-15, "unit": ""}},
              "compare": [{"value": "d", "with": "exp.diff", "rule": "<=", "bound": 1e-16}]}
    found = problems(tmp_path, {"x": lesson(STATE)}, records={"old": record})
    assert found == ["content/records/old.json: today's exp.diff = 1.1×10⁻¹⁵ breaks the record's comparison "
                     "<= 1×10⁻¹⁶"]


def test_record_comparisons_follow_the_value_class(tmp_path):
    rules = [{"value": "d", "with": "exp.diff", "rule": "==", "bound": 1.1e-15 + 1e-13},  # rounding: within atol
             {"value": "d", "with": "exp.diff", "rule": "==", "bound": 1e-11},  # rounding: beyond
             {"value": "d", "with": "exp.bytes", "rule": "==", "bound": 819201},  # exact: off by one
             {"value": "d", "with": "bench.decode_ms", "rule": "<=", "bound": 10}]  # timing: never compared
    record = {"id": "old", "title": "旧", "date": "2025-01-01",
              "values": {"d": {"value": 1e-15, "unit": "", "class": "rounding"},
                         "e": {"value": 1, "unit": "", "class": "approx"}}, "compare": rules}
    found = problems(tmp_path, {"x": lesson(STATE)}, records={"old": record})
    assert found == [
        "content/records/old.json:11: record value 'e': unknown class 'approx' (one of exact, rounding, timing)",
    ]
    del record["values"]["e"]
    found = problems(tmp_path, {"x": lesson(STATE)}, records={"old": record})
    assert found == [
        "content/records/old.json: comparison with 'bench.decode_ms': "
        "a timing value depends on the machine and its load; it is recorded, never compared",
        "content/records/old.json: today's exp.bytes = 800 KiB breaks the record's comparison == 800 KiB",
        "content/records/old.json: today's exp.diff = 1.1×10⁻¹⁵ breaks the record's comparison == 1×10⁻¹¹ "
        "(a rounding value: within rtol 1e-09, atol 1e-12)",
    ]


def test_record_shape_mistakes(tmp_path):
    record = {"id": "other", "title": "旧", "values": {"d": 3}, "colour": 1}
    found = problems(tmp_path, {"x": lesson(STATE)}, records={"old": record})
    assert found == ["content/records/old.json:1: record has no 'date'",
                     "content/records/old.json:2: record id must equal the file name 'old' and use [a-z0-9_]",
                     "content/records/old.json:5: record value 'd' must be an object with 'value' and 'unit'",
                     "content/records/old.json:7: unknown record key 'colour'"]


GLOSSARY = ("- id: head-dim\n  term: 头维度\n  forbidden: [头维, 每个头的维度]\n  definition: 一个头的向量长度。\n"
            "- id: kv-cache\n  term: KV 缓存\n  allowed: [键值缓存]\n  forbidden: [K/V 缓存]\n"
            "  definition: 每层的 K 和 V。\n")


def test_glossary_terms_and_forbidden_variants(tmp_path):
    body = STATE.replace("正文。", "{term}`KV 缓存` 与 {term}`键值缓存` 都认得；{term}`KV缓存` 不认得，"
                                  "条目的 id {term}`kv-cach` 也不是。\n\n"
                                  "头维度没问题，头维不行；K/V 缓存也不行。")
    found = problems(tmp_path, {"x": lesson("每个头的维度。\n\n" + body)}, glossary=GLOSSARY)
    assert found == [
        f"{P}:4: '每个头的维度' is a forbidden variant in the glossary: write '头维度'",
        f"{P}:10: unknown term 'KV缓存' (did you mean 'KV 缓存'?) (terms are listed in content/glossary.yml)",
        f"{P}:10: unknown term 'kv-cach' (did you mean 'KV 缓存'?) (terms are listed in content/glossary.yml)",
        f"{P}:12: 'K/V 缓存' is a forbidden variant in the glossary: write 'KV 缓存'",
        f"{P}:12: '头维' is a forbidden variant in the glossary: write '头维度'",
    ]


def test_glossary_definition_with_bad_maths(tmp_path):
    glossary = "- id: a\n  term: 甲\n  definition: 记作 $\\foo$。\n"
    found = problems(tmp_path, {"x": lesson(STATE)}, glossary=glossary)
    assert len(found) == 1 and found[0].startswith(
        "content/glossary.yml:3: cannot render math '\\foo': unknown command"), found


def test_glossary_file_mistakes(tmp_path):
    glossary = ("- id: a\n  term: 甲\n  definition: 一。\n  defintion: 二。\n"
                "- id: b\n  term: 甲\n  definition: 重复。\n"
                "- id: C D\n  term: 丙\n  definition: 三。\n"
                "- id: d\n  term: 丁\n")
    found = problems(tmp_path, {"x": lesson(STATE)}, glossary=glossary)
    assert found == ["content/glossary.yml:4: unknown glossary key 'defintion' (did you mean 'definition'?)",
                     "content/glossary.yml:5: term '甲' repeats the id or a wording of '甲' (line 1)",
                     "content/glossary.yml:8: term id 'C D' must be lower-case letters, digits and '-'",
                     "content/glossary.yml:11: glossary entry needs definition (text)"]


def site_with_zz(root: Path) -> Path:
    """A site listing page zz, whose file the test then replaces."""
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, zz]\n"
    write_site(root, {"x": lesson(state()), "zz": lesson(state())}, site_yml=site)
    path = root / "content" / "pages" / "zz.md"
    path.unlink()
    return path


@pytest.mark.parametrize(("kind", "message"), [
    ("fifo", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
    ("link-out", "content/pages/zz.md: is a link to a file outside content/: copy the file here instead"),
    ("dangling", "content/pages/zz.md: is a link to nothing: remove it or copy the file here"),
    ("folder", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
    ("link-to-fifo", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
])
def test_special_files_are_refused_once_without_blocking(tmp_path, kind, message):
    page = site_with_zz(tmp_path)
    if kind == "fifo":
        os.mkfifo(page)
    elif kind == "link-out":
        page.symlink_to(secret_outside(tmp_path))
    elif kind == "dangling":
        page.symlink_to(tmp_path / "nowhere.md")
    elif kind == "folder":
        page.mkdir()
    else:
        os.mkfifo(tmp_path / "content" / "pages" / "pipe")
        page.symlink_to("pipe")
    assert problems_of(tmp_path) == [message]  # and no "must start with front matter", no "no page 'zz'"


@pytest.mark.parametrize("what", ["site.yml", "records/r.json"])
def test_fifo_config_and_record_are_refused_once(tmp_path, what):
    write_site(tmp_path, {"x": lesson(state())})
    path = tmp_path / "content" / what
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    assert problems_of(tmp_path) == [f"content/{what}: is not a regular file: save the text in an ordinary file"]


def test_base_url_must_be_a_web_address(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: javascript:alert(1)//\npages: [x]\n"
    write_site(tmp_path, {"x": lesson(state())}, site_yml=site)
    assert problems_of(tmp_path) == ["content/site.yml:3: site.yml 'base_url' must start with https:// or http://"]


def test_svg_figures_are_held_to_the_same_allowlist():
    good = (b'<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#m1"/>'
            b'<image xlink:href="data:image/png;base64,iVBORw0KGgo="/><path style="fill: #fff" d="M 0 0"/></svg>')
    check_html("figures/ok.svg", good, images=True)
    for bad in (b'<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
                b'<svg><image href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;"/></svg>',
                b'<svg><use xlink:href="https://evil.example/x.svg#a" /><a href = "//evil.example">x</a></svg>'):
        with pytest.raises(UnsafeOutputError):
            check_html("figures/bad.svg", bad, images=True)



def test_a_figure_s_dark_variant_is_held_to_the_allowlist_too(tmp_path):
    """Both drawings of a figure are published; the dark one was never checked (found in review)."""
    from site_builder.load.evidence import evidence_from

    (tmp_path / "f.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (tmp_path / "f.dark.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><a href='javascript:x'/></svg>",
                                         encoding="utf-8")
    info = {"f": {"file": "f.svg", "dark_file": "f.dark.svg", "alt": "a", "description": "d",
                  "provenance": "teaching"}}
    with pytest.raises(UnsafeOutputError, match="f.dark.svg"):
        evidence_from({"experiments": {}}, {}, info, tmp_path, tmp_path, "zh-CN")


FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"


ALPHA = (FIXTURE / "pages" / "alpha.md").read_text(encoding="utf-8")


RECORD = (FIXTURE / "records" / "old_check.json").read_text(encoding="utf-8")


EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "100"))  # raise it for a longer fuzzing session


def property_settings(examples: int = EXAMPLES) -> settings:
    # The deadline stops runaway work (an input that makes a stage super-linear), not slowness: an example takes
    # about 1 s here when the machine is quiet and 4 s under the load of a full test run beside other jobs, which
    # a 3 s deadline turned into a failure.
    return settings(max_examples=examples, deadline=30_000, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


PROPERTY = property_settings()


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
            found += [f"{name}: {p}" for p in url_problems(data, images=name.endswith(".svg"), root=root)]
    assert not found, "\n".join(found[:20])


@contextmanager
def site_dir() -> Iterator[Path]:
    # hypothesis runs many examples per test: a fresh folder each, not pytest's one tmp_path
    path = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


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


FIRST = "- id: a\n  term: 甲\n  definition: 第一条。\n"  # lines 1–3: the entry under test starts on line 4


RAW_HTML = ("content/glossary.yml:6: raw HTML is not allowed in a glossary definition; write Markdown (*emphasis*, "
            "[text](https://…), $maths$); to show a tag as text, put it in `backticks`")


def glossary_problems(tmp_path, definition: str) -> list[str]:
    glossary = FIRST + f"- id: b\n  term: 乙\n  definition: {json.dumps(definition, ensure_ascii=False)}\n"
    write_site(tmp_path, {"x": lesson(STATE)}, glossary=glossary)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("definition", [
    '读者会被带走 <meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "<script>alert(document.domain)</script>",
    "图 <img src=x onerror=alert(document.domain)>",
    '<span style="position:fixed;inset:0">盖住整页</span>',
])
def test_raw_html_in_a_definition_is_an_error_at_its_line(tmp_path, definition):
    assert glossary_problems(tmp_path, definition) == [RAW_HTML]


@pytest.mark.parametrize(("definition", "problem"), [
    ("见 [口令](/etc/passwd)", "link '/etc/passwd' leaves the site: link to a page with {ref}`id`, "
                             "or give a full https:// URL"),
    ("见 [这里](javascript:alert(document.domain))", "link 'javascript:alert(document.domain)' uses a scheme the site "
                                                    "does not allow: give a full https:// URL, or link to a page "
                                                    "with {ref}`id`"),
    ("见 <javascript:alert(document.domain)>", "link 'javascript:alert(document.domain)' uses a scheme the site "
                                              "does not allow: give a full https:// URL, or link to a page "
                                              "with {ref}`id`"),
    ("见 ![图](images/a.png)", "a glossary definition is one line of text: it cannot show a picture"),
])
def test_links_in_a_definition_follow_the_allowlist_of_prose(tmp_path, definition, problem):
    assert glossary_problems(tmp_path, definition) == [f"content/glossary.yml:6: {problem}"]


def test_a_folded_definition_is_reported_at_its_key(tmp_path):
    glossary = FIRST + "- id: b\n  term: 乙\n  definition: >\n    第一行\n    <b>第二行</b>\n"
    write_site(tmp_path, {"x": lesson(STATE)}, glossary=glossary)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))
    assert [str(p) for p in caught.value.problems] == [RAW_HTML]


def test_safe_markdown_in_a_definition_renders_as_before(tmp_path):
    definition = "见 [论文](https://example.org/paper) 与 [数值页](numbers.html)，*强调*，`<b>`，记作 $d_h$。"
    write_site(tmp_path, {"x": lesson(STATE)}, glossary=FIRST.replace("第一条。", definition))
    page = render_site(prepare_site(tmp_path, fake_evidence(tmp_path / "fig")), teacher=False)["glossary.html"].decode()
    assert ('见 <a href="https://example.org/paper">论文</a> 与 <a href="numbers.html">数值页</a>，<em>强调</em>，'
            '<code>&lt;b&gt;</code>，记作 <span class="math-run"><span class="math"><math xmlns="http://www.w3.org/1998/Math/'
            'MathML" alttext="d_h"><msub><mi>d</mi><mi>h</mi></msub></math></span>。</span></p>') in page


# ---------------------------------------------------------------------------
# content/values.yml: Chinese titles and descriptions for numbers.html, checked against the values.


TEXT = """groups:
  timing: 计时记录
values:
  exp.diff: 两条路径的最大差
  timing.cached_ms_p{p}: 提示 {p} 个 token 时的耗时
  timing.cached_ms_p{p}_n1: 提示 {p} 个 token、只生成 1 个时的耗时
  exp.renamed: 这个数值已经不存在
"""


def test_descriptions_by_name_and_by_pattern():
    text, problems = parse_value_text(SourceFile("content/values.yml", TEXT))
    assert problems == []
    assert text.describe("exp.diff") == "两条路径的最大差"
    assert text.describe("timing.cached_ms_p1024") == "提示 1024 个 token 时的耗时"
    assert text.describe("timing.cached_ms_p8_n1") == "提示 8 个 token、只生成 1 个时的耗时"
    assert text.describe("exp.other") == ""
    assert text.group_title("timing") == "计时记录" and text.group_title("exp") == ""


def test_entries_that_describe_nothing_are_reported_with_their_line():
    text, _ = parse_value_text(SourceFile("content/values.yml", TEXT + "  bad: 1\n"))
    names = {"exp.diff", "timing.cached_ms_p8", "timing.cached_ms_p8_n1"}
    problems = [str(p) for p in check_value_text(text, names, {"exp"})]
    assert problems == ["content/values.yml:7: no value matches 'exp.renamed'",
                        "content/values.yml:2: no experiment or record named 'timing'"]
    _, shape = parse_value_text(SourceFile("content/values.yml", "values:\n  exp.diff: [1]\ntypo: x\n"))
    assert [str(p) for p in shape] == ["content/values.yml:3: unknown key 'typo' (allowed: groups, values, records)",
                                       "content/values.yml:2: 'exp.diff' needs a line of text"]


def test_a_course_without_the_file_keeps_the_producers_text():
    text, problems = parse_value_text(None)
    assert problems == [] and text.describe("exp.diff") == ""
