"""The Markdown layer (site_builder/markdown): tokens and their lines, nesting limits, dollar signs,
and the TeX → MathML renderer with its font subsets."""

from __future__ import annotations

import hashlib
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sitekit import (
    LIMIT_S,
    both_sites,
    lesson,
    problems_of,
    state,
    time_limit,
    write_site,
)

from site_builder.markdown import make_markdown
from site_builder.markdown.mathrender import MATHML_NS, MathError, render_math
from site_builder.render.mathfont import subset_font
from site_builder.vocabulary.i18n import localize

P = "content/pages/x.md"


def test_nesting_past_the_limit_is_an_error_at_the_line_it_is_reached(tmp_path):
    deep = "".join("  " * i + f"- 第 {i} 层\n" for i in range(14))  # level 20 is reached at 第 9 层, line 14
    write_site(tmp_path, {"x": lesson("\n" + deep + "\n" + state())})
    assert problems_of(tmp_path) == [
        f"{P}:14: nesting too deep here (lists, quotes and directives more than 20 levels inside each other): "
        "everything from this line to the end of the enclosing block would be lost; flatten the structure"]


def test_deep_quotes_are_an_error_too(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="> " * 25 + "深处"))})
    assert [p.split(": ", 1)[0] for p in problems_of(tmp_path)] == [f"{P}:8"]


def test_nesting_within_the_limit_builds(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="".join("  " * i + f"- 第 {i} 层\n" for i in range(8))))})
    assert "第 7 层" in both_sites(tmp_path)["_site/x.html"]


def body_html(tmp_path: Path, body: str) -> str:
    write_site(tmp_path, {"x": lesson(state(body=body))})
    html = both_sites(tmp_path)["_site/x.html"]
    return html[html.index('<div class="state-body'):html.index("</section>")]


@pytest.mark.parametrize(("text", "shown"), [
    ("价格：$5 或 $ 10，今天。", "价格：$5 或 $ 10，今天。"),
    ("从 $5 涨到 $10。", "从 $5 涨到 $10。"),  # the closing $ would be followed by a digit
    ("花了 \\$5，又花了 \\$6。", "花了 $5，又花了 $6。"),
    ("a $ b$ c", "a $ b$ c"),
])
def test_dollar_signs_in_prose_stay_text(tmp_path, text, shown):
    html = body_html(tmp_path, text)
    assert shown in html and "<math" not in html


def test_straight_quotes_in_prose_are_shown_curly_and_stay_straight_in_code_and_escaped(tmp_path):
    html = body_html(tmp_path, """the layer's "old" entries ("cached"); \\"as typed\\", `x = "y"` and $a'$, """
                               """<https://example.org/it's>.""")
    assert "the layer’s “old” entries (“cached”)" in html
    assert """<a href="https://example.org/it's">https://example.org/it's</a>""" in html
    assert "&quot;as typed&quot;" in html and "<code>x = &quot;y&quot;</code>" in html and "<math" in html


def test_inline_math_still_works_next_to_dollar_signs(tmp_path):
    html = body_html(tmp_path, "单价 \\$5，公式 $x_1$，与 $\\$$ 本身。")
    assert "单价 $5" in html and html.count("<math") == 2


@pytest.mark.parametrize("body", ["一段文字\n$$\nx^2\n$$\n之后", "- 列表项\n  $$\n  x^2\n  $$\n",
                                  "> 引文\n$$\nx^2\n$$\n"])
def test_display_math_right_after_a_paragraph_line_is_recognised(tmp_path, body):
    html = body_html(tmp_path, body)
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"') == 1
    assert "$" not in html


def test_display_math_opened_on_a_paragraph_line_is_an_error_and_builds_after_a_blank_line(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="一段文字\n$$x^2\n+ y$$"))})
    assert [p.split(": ", 1)[1].split(":")[0] for p in problems_of(tmp_path)] == ["'$$' in running text"] * 2
    assert body_html(tmp_path, "一段文字\n\n$$x^2\n+ y$$").count('display="block"') == 1


def test_display_dollars_inside_running_text_are_an_error(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="前文 $$x$$ 后文。"))})
    assert problems_of(tmp_path) == [
        f"{P}:8: '$$' in running text: leave a blank line before display math, or put each '$$' on a line of its "
        "own; for a dollar sign write \\$"]


@pytest.mark.parametrize("text", ["\n".join(["$$x"] * 8000), "\n\n".join(["$$x"] * 4000),
                                  "\\" * 100_000 + "$a" * 20_000, "$a " * 50_000])
def test_many_dollar_signs_do_not_make_parsing_quadratic(text):
    # 8000 lines of "$$x" took minutes when every paragraph line scanned ahead for a closing $$
    with time_limit(LIMIT_S):
        make_markdown().parse(text)


# ---------------------------------------------------------------------------
# Markdown plugins: fixture files of input Markdown and expected HTML.
#
# Regenerate an expected file after a deliberate change with
# ``UPDATE_FIXTURES=1 pytest tests/test_markdown.py`` and review the diff.


FIXTURES = Path(__file__).parent / "fixtures" / "markdown"


def fake_role_html(name: str, target: str, block: bool) -> str:
    return f'<role name="{name}" block="{int(block)}">{target}</role>'


@pytest.mark.parametrize("source", sorted(FIXTURES.glob("*.md")), ids=lambda p: p.stem)
def test_fixture(source: Path):
    env = {"role_html": fake_role_html, "say": lambda text: localize(text, "zh-CN")}  # labels as a Chinese course
    html = make_markdown().render(source.read_text(encoding="utf-8"), env)
    expected = source.with_suffix(".html")
    if os.environ.get("UPDATE_FIXTURES") or not expected.exists():
        expected.write_text(html, encoding="utf-8")
    assert html == expected.read_text(encoding="utf-8")


def test_inline_tokens_know_their_line():
    tokens = make_markdown().parse("一行\n二行 {num}`a.b`\n三行 $x$\n")
    children = tokens[1].children
    role = next(c for c in children if c.type == "myst_role")
    math = next(c for c in children if c.type == "math_inline")
    assert (role.meta["line"], math.meta["line"]) == (2, 3)


def test_directive_tokens_carry_options_and_lines():
    tokens = make_markdown().parse("\n:::{state} b0\n:title: 标题\n:provenance: teaching\n\n正文\n:::\n")
    opener = tokens[0]
    assert opener.type == "directive_open"
    assert opener.map == [1, 7]
    assert opener.meta == {"name": "state", "arg": "b0", "closed": True,
                           "options": {"title": ("标题", 3), "provenance": ("teaching", 4)}, "repeated": [], "lost": {}}


def test_closing_punctuation_stays_on_the_line_of_its_formula():
    """记作 $d_h$。 must never leave 。 alone at the start of a line: it is rendered inside the formula's run."""
    md = make_markdown()
    tokens = md.parse("记作 $d_h$。然后 $x$，和 $y$ 以及 $z$\n")
    html = md.renderer.render(tokens, md.options, {})
    assert html.count('<span class="math-run">') == 2
    assert re.search(r'<span class="math-run"><span class="math"><math[^>]*alttext="d_h"'
                     r'.*?</math></span>。</span>然后', html)
    assert re.search(r'alttext="x".*?</math></span>，</span>和', html)
    assert md.renderer.render(tokens, md.options, {}) == html, "rendering twice (two sites) gives the same"


STATIC = Path(__file__).resolve().parents[1] / "site_builder" / "static" / "math"


def _tree(mathml: str) -> ET.Element:
    return ET.fromstring(mathml)


def _tags(mathml: str) -> list[str]:
    return [node.tag.removeprefix(f"{{{MATHML_NS}}}") for node in _tree(mathml).iter()]


def _find(mathml: str, tag: str) -> list[ET.Element]:
    return list(_tree(mathml).iter(f"{{{MATHML_NS}}}{tag}"))


def test_inline_shape():
    assert render_math("x^2", display=False) == (
        f'<math xmlns="{MATHML_NS}" alttext="x^2"><msup><mi>x</mi><mn>2</mn></msup></math>'
    )


def test_display_shape():
    out = render_math("x^2", display=True)
    assert out.startswith(f'<math xmlns="{MATHML_NS}" display="block" alttext="x^2">')
    assert out.endswith("</math>")


def test_alttext_keeps_tex_escaped():
    out = render_math(r"a < b \text{ & } c", display=False)
    assert _tree(out).get("alttext") == r"a < b \text{ & } c"
    assert "&lt;" in out and "&amp;" in out


def test_text_is_escaped():
    assert _find(render_math(r"\text{a<b & c}", display=False), "mtext")[0].text == "a<b\u00a0&\u00a0c"


def test_mathrm_word_is_one_identifier():
    mis = _find(render_math(r"\mathrm{bytes} = 2", display=False), "mi")
    assert [mi.text for mi in mis] == ["bytes"]


def test_mathrm_single_letter_is_upright():
    mi = _find(render_math(r"\mathrm{d}x", display=False), "mi")[0]
    assert (mi.text, mi.get("mathvariant")) == ("d", "normal")


def test_operatorname_is_function_application():
    out = render_math(r"\operatorname{softmax}(x)", display=False)
    assert out.startswith(
        f'<math xmlns="{MATHML_NS}" alttext="\\operatorname{{softmax}}(x)">'
        '<mi>softmax</mi><mo lspace="0" rspace="0">\u2061</mo><mo stretchy="false">(</mo>'
    )


def test_function_name_gets_thin_space_before_argument():
    out = render_math(r"2\log x", display=False)
    assert '<mn>2</mn><mspace width="0.1667em" /><mi>log</mi>' in out
    assert '<mo lspace="0" rspace="0.1667em">\u2061</mo><mi>x</mi>' in out


def test_max_puts_limits_under_in_display():
    out = render_math(r"\max_i x_i", display=True)
    assert '<munder><mo movablelimits="true" lspace="0" rspace="0.1667em">max</mo><mi>i</mi></munder>' in out


def test_arg_is_supported():
    assert _find(render_math(r"\arg z", display=False), "mi")[0].text == "arg"


def test_capital_greek_is_upright():
    mi = _find(render_math(r"\Delta x", display=False), "mi")[0]
    assert mi.get("mathvariant") == "normal"


def test_cdot_is_dot_operator_with_medium_space():
    mo = _find(render_math(r"a \cdot b", display=False), "mo")[0]
    assert (mo.text, mo.get("lspace"), mo.get("rspace")) == ("\u22c5", "0.2222em", "0.2222em")


def test_unary_minus_has_no_space():
    mo = _find(render_math(r"10^{-15}", display=False), "mo")[0]
    assert (mo.get("lspace"), mo.get("rspace")) == ("0", "0")


def test_relations_in_scripts_lose_their_space():
    mo = _find(render_math(r"x_{<t}", display=False), "mo")[0]
    assert (mo.text, mo.get("lspace"), mo.get("rspace")) == ("<", "0", "0")


def test_top_is_an_identifier():
    assert _find(render_math(r"K^\top", display=False), "mi")[1].text == "\u22a4"


def test_aligned_becomes_a_table():
    out = render_math(r"\begin{aligned} a &= b \\ c &= d \end{aligned}", display=True)
    assert _tags(out).count("mtr") == 2
    assert "&" not in ET.tostring(_tree(out), encoding="unicode").split("alttext")[0]


@pytest.mark.parametrize(
    ("tex", "message"),
    [
        ("", "empty formula"),
        (r"\frac{a}{b", "unbalanced braces: 1 '{' never closed"),
        ("a}b", "unbalanced braces: '}' at column 2 closes nothing"),
        (
            r"\begin{gathered} a \end{gathered}",
            "unsupported environment 'gathered' (supported: Bmatrix, Vmatrix, aligned, array, "
            "bmatrix, cases, matrix, pmatrix, split, vmatrix)",
        ),
        (r"\foo x", r"unknown command '\foo'"),
        ("a & b", "unexpected '&' outside an environment such as aligned"),
        (r"a \\ b", r"line break '\\' outside an environment such as aligned"),
        (r"\left( x", r"\left without a matching \right (or the reverse)"),
        ("x^", "'^' or '_' has nothing to attach to"),
        ("x_a_b", "double subscript: write x_{ab}, not x_a_b"),
        (r"\not< b", r"\not is only supported as \not= and \not\in"),
    ],
)
def test_errors(tex: str, message: str):
    with pytest.raises(MathError) as info:
        render_math(tex, display=True)
    assert str(info.value) == message


def test_math_error_is_value_error():
    assert issubclass(MathError, ValueError)


def test_render_is_deterministic_without_cache():
    tex = r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_h}}\right)V"
    first = render_math(tex, display=True)
    render_math.cache_clear()
    assert render_math(tex, display=True) == first


def test_static_font_and_css_exist():
    font = STATIC / "stix-two-math.woff2"
    assert font.read_bytes()[:4] == b"wOF2"
    assert font.stat().st_size < 200_000
    assert 'src: url("./stix-two-math.woff2") format("woff2");' in (STATIC / "math.css").read_text()


@pytest.mark.slow  # subsets the math font twice (about a second each)
def test_subset_is_byte_identical():
    first, second = subset_font("x^2+y"), subset_font("x^2+y")
    assert first[:4] == b"wOF2" and hashlib.sha256(first).digest() == hashlib.sha256(second).digest()


def test_a_damaged_subset_kept_on_disk_is_made_again(tmp_path, monkeypatch):
    from site_builder.render import mathfont

    monkeypatch.setattr(mathfont, "CACHE_DIR", tmp_path)
    mathfont.math_font.cache_clear()
    made = mathfont.math_font("x^2")
    (kept,) = tmp_path.glob("*.woff2")
    kept.write_bytes(b"wOF2 damaged")
    mathfont.math_font.cache_clear()
    assert mathfont.math_font("x^2") == made
    assert [p.read_bytes() for p in tmp_path.glob("*.woff2")] == [made]
    mathfont.math_font.cache_clear()
