"""Every mistake a teacher can make: the exact ``path:line: message``, all at once."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"


def problems(tmp_path, pages, **kwargs) -> list[str]:
    root = write_site(tmp_path, pages, **kwargs)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


CASES = [
    ("missing front matter", "开头没有前置信息。\n", f"{P}:1: a page must start with front matter: a line '---', "
                                               "'title: …', then '---'"),
    ("unclosed front matter", "---\ntitle: 一\n正文\n",
     f"{P}:1: front matter is not closed: add a line '---' after it"),
    ("missing title", "---\nkind: lesson\n---\n" + STATE, f"{P}:1: front matter has no 'title'"),
    ("unknown key", "---\ntitle: 一\ntitel: 二\n---\n" + STATE,
     f"{P}:3: unknown front matter key 'titel' (did you mean 'title'?)"),
    ("bad kind", "---\ntitle: 一\nkind: lessen\n---\n" + STATE,
     f"{P}:3: unknown page kind 'lessen' (use one of: lesson, article, index)"),
    ("invalid yaml", "---\ntitle: [一\n---\n" + STATE,
     f"{P}:2: the '[' here is never closed: add ']' where it ends (column 8)"),
    ("lesson without states", lesson("只有正文。\n"), f"{P}:1: a lesson needs at least one ':::{{state}} b0' block"),
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
    assert [f.split(":")[0] for f in found] == [P, P, P, "content/pages/y.md"]


def test_site_config_mistakes(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, y]\ncolour: red\n"
    found = problems(tmp_path, {"x": lesson(STATE)}, site_yml=site)
    assert found == ["content/site.yml:4: no page 'y' in content/pages/",
                     "content/site.yml:5: unknown site.yml key 'colour' (allowed: title, language, base_url, pages)"]


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
    body = STATE.replace("正文。", "{term}`KV 缓存` 与 {term}`键值缓存` 都认得；{term}`KV缓存` 不认得。\n\n"
                                  "头维度没问题，头维不行；K/V 缓存也不行。")
    found = problems(tmp_path, {"x": lesson("每个头的维度。\n\n" + body)}, glossary=GLOSSARY)
    assert found == [
        f"{P}:4: '每个头的维度' is a forbidden variant in the glossary: write '头维度'",
        f"{P}:10: unknown term 'KV缓存' (did you mean 'KV 缓存'?) (terms are listed in content/glossary.yml)",
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
