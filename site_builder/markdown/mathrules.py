"""Render ``$…$`` and ``$$…$$`` (parsed by dollarmath) to MathML at build time."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from ..mathrender import MathError, render_math


def math_render_plugin(md: MarkdownIt) -> None:
    """MathML for math tokens; the check stage has already reported bad TeX."""
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_block", _render_block)


def _mathml(tex: str, display: bool) -> str:
    try:
        return render_math(tex, display)
    except MathError:
        return f'<code class="math-error">{escapeHtml(tex)}</code>'


def _render_inline(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    return f'<span class="math">{_mathml(tokens[idx].content, False)}</span>'


def _render_block(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    return f'<div class="math-display">{_mathml(tokens[idx].content.strip(), True)}</div>\n'
