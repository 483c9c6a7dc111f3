"""Dollar math: ``$…$`` inline and ``$$ … $$`` display, parsed by Pandoc's rules, rendered to MathML.

Prose mentions prices, so a ``$`` opens math only when a non-space follows it,
and closes it only when a non-space precedes it and no digit follows
(``$5 or $ 10`` stays text; ``$x_1$`` is math). ``\\$`` is always a dollar sign.
A ``$$`` block may follow a paragraph line directly; ``$$`` anywhere else in
running text is a ``math_stray`` token, which the parse stage reports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath.index import math_block_dollar

from site_builder.markdown.mathrender import MathError, render_math


def dollar_math_plugin(md: MarkdownIt) -> None:
    """Parse ``$…$`` into ``math_inline`` and ``$$…$$`` blocks into ``math_block`` tokens."""
    md.inline.ruler.before("escape", "math_inline", _math_inline)
    md.core.ruler.after("inline", "math_punctuation", _keep_punctuation_with_math)
    # A $$ block ends the paragraph above it (like a fence does), so "text\n$$\nx\n$$" is text + display math.
    md.block.ruler.before("fence", "math_block", _math_block, {"alt": ["paragraph", "blockquote", "list"]})


_DISPLAY = math_block_dollar(allow_labels=False, allow_blank_lines=False)  # Pandoc: no blank line inside


def _math_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """mdit-py-plugins' ``$$`` block rule, made to honour ``silent``.

    ``silent`` is a paragraph asking whether a block starts on its next line: only a line that is
    ``$$`` alone or a whole ``$$…$$`` may (any ``$$``-line would make the question cost a scan to
    the next blank line on every line of a long paragraph), and the rule's token is taken back.
    """
    if not silent:
        return _DISPLAY(state, start, end, False)
    line = state.src[state.bMarks[start] + state.tShift[start]:state.eMarks[start]].rstrip()
    if not (line == "$$" or (len(line) > 4 and line.startswith("$$") and line.endswith("$$"))):
        return False
    tokens, position = len(state.tokens), state.line
    found = _DISPLAY(state, start, end, False)
    del state.tokens[tokens:]
    state.line = position
    return found


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if src[start] != "$" or _escaped(src, start):
        return False
    if src.startswith("$$", start):
        if not silent:  # display math inside a paragraph: an error, not two empty formulas and stray dollars
            state.push("math_stray", "", 0).markup = "$$"
        state.pos = start + 2
        return True
    end = _closing_dollar(src, start + 1)
    if end is None:
        if not _UNCLOSED_TEX.match(src, start + 1):
            return False  # a price or a lone dollar: text
        if not silent:  # TeX that would be published raw: an error the parse stage reports
            state.push("math_unclosed", "", 0).markup = "$"
        state.pos = start + 1
        return True
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content, token.markup = src[start + 1:end], "$"
    state.pos = end + 1
    return True


_UNCLOSED_TEX = re.compile(r"(?=[^\s\d$])[^\s$]*?[\\_^{}]")
"""What follows a ``$`` that opens no math but reads as TeX (``$x_t``, ``$\\alpha``), not as a price (``$5``)."""


def _closing_dollar(src: str, first: int) -> int | None:
    """Index of the ``$`` closing math whose content starts at ``first``, or None if this is no math."""
    if first >= len(src) or src[first].isspace():
        return None
    i = first
    while i < len(src):
        if src[i] == "\\":
            i += 2  # \$ inside math is TeX's dollar, not the end
        elif src[i] == "$":
            ok = not src[i - 1].isspace() and not src[i + 1:i + 2].isdigit()
            return i if ok else None
        else:
            i += 1
    return None


def _escaped(src: str, at: int) -> bool:
    before = at
    while before > 0 and src[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


_CLOSING = "。，、；：！？）」』”’》〉"
"""Chinese punctuation that must not begin a line (a line may break after a formula, before it)."""


def _keep_punctuation_with_math(state) -> None:
    """Move the closing punctuation right after an inline formula into the formula's token
    (``meta["after"]``), so it is rendered on the same line: ``记作 $d_h$。`` never leaves 。 alone
    at the start of the next line. Done once at parse time; rendering never changes tokens."""
    for block in state.tokens:
        children = block.children or ()
        for math, text in pairwise(children):
            if math.type == "math_inline" and text.type == "text" and text.content[:1] in _CLOSING:
                kept = len(text.content) - len(text.content.lstrip(_CLOSING))
                math.meta["after"], text.content = text.content[:kept], text.content[kept:]


def math_render_plugin(md: MarkdownIt) -> None:
    """MathML for math tokens; the check stage has already reported bad TeX."""
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_block", _render_block)
    md.add_render_rule("math_stray", lambda self, tokens, idx, options, env: "$$")
    md.add_render_rule("math_unclosed", lambda self, tokens, idx, options, env: "$")


def _mathml(tex: str, display: bool) -> str:
    try:
        return render_math(tex, display)
    except MathError:
        return f'<code class="math-error">{escapeHtml(tex)}</code>'


def _render_inline(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    formula = f'<span class="math">{_mathml(tokens[idx].content, False)}</span>'
    after = tokens[idx].meta.get("after")
    return f'<span class="math-run">{formula}{escapeHtml(after)}</span>' if after else formula


def _render_block(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    return f'<div class="math-display">{_mathml(tokens[idx].content.strip(), True)}</div>\n'
