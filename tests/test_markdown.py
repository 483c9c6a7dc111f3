"""Markdown plugins: fixture files of input Markdown and expected HTML.

Regenerate an expected file after a deliberate change with
``UPDATE_FIXTURES=1 pytest tests/test_markdown.py`` and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from site_builder.markdown import make_markdown
from site_builder.vocabulary.i18n import localize

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
                           "options": {"title": ("标题", 3), "provenance": ("teaching", 4)}, "repeated": []}


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
