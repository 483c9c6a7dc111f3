from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from site_builder.markdown.mathrender import MATHML_NS, MathError, render_math
from site_builder.render.mathfont import subset_font

STATIC = Path(__file__).resolve().parents[1] / "site_builder" / "static" / "math"


def _tree(mathml: str) -> ET.Element:
    return ET.fromstring(mathml)


def _tags(mathml: str) -> list[str]:
    return [node.tag.removeprefix(f"{{{MATHML_NS}}}") for node in _tree(mathml).iter()]


def _find(mathml: str, tag: str) -> list[ET.Element]:
    return list(_tree(mathml).iter(f"{{{MATHML_NS}}}{tag}"))


# ---------------------------------------------------------------- shapes


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


# ---------------------------------------------------------------- operator names


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


# ---------------------------------------------------------------- errors


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


# ---------------------------------------------------------------- determinism and font


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
