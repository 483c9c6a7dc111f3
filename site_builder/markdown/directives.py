"""MyST-style colon-fence directives: ``:::{state} b0`` … ``:::``.

A directive opens with three or more colons and ``{name}``, may carry
``:key: value`` option lines, and closes with a line of colons. Directives nest
(``::::{more}`` inside ``:::{state}``); each closer ends the innermost open one
whose fence it is at least as long as (see ``_find_close`` for forgotten closers).
The content between is ordinary Markdown, parsed as blocks.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock

from site_builder.vocabulary.i18n import _

_OPEN = re.compile(r"^(:{3,})\{([A-Za-z][\w-]*)\}[ \t]*(.*?)\s*$")
_CLOSE = re.compile(r"^(:{3,})\s*$")
_OPTION = re.compile(r"^:([A-Za-z][\w-]*):(?:[ \t]+(.*?))?\s*$")


def directive_plugin(md: MarkdownIt) -> None:
    """Parse colon-fence directives into ``directive_open``/``directive_close`` tokens.

    ``directive_open.meta`` holds ``name``, ``arg``, ``options`` (key → (value,
    line)) and ``closed``; ``map`` spans the whole directive.
    """
    md.block.ruler.before("fence", "directive", _directive, {"alt": ["paragraph", "blockquote", "list"]})
    md.add_render_rule("directive_open", _render_open)
    md.add_render_rule("directive_close", _render_close)


# States are laid out by the page template; only these two render inline.
_OPEN_HTML = {
    "more": ('<details class="more"><summary>{}</summary>\n', _("More explanation")),
    "teacher": ('<aside class="teacher-note" data-teacher><p class="teacher-label">{}</p>\n', _("Teacher notes")),
}
_CLOSE_HTML = {"more": "</details>\n", "teacher": "</aside>\n"}


def _render_open(self, tokens, idx, options, env) -> str:
    if tokens[idx].meta["name"] not in _OPEN_HTML:
        return "<div>\n"
    html, label = _OPEN_HTML[tokens[idx].meta["name"]]
    return html.format(escapeHtml(env.get("say", str)(label)))  # in the course's language


def _render_close(self, tokens, idx, options, env) -> str:
    return _CLOSE_HTML.get(tokens[idx].meta["name"], "</div>\n")


def _line(state: StateBlock, number: int) -> str:
    return state.src[state.bMarks[number] + state.tShift[number]:state.eMarks[number]]


def _find_close(state: StateBlock, start: int, end: int, fence: int, name: str) -> tuple[int | None, int]:
    """(line of the closer that matches the opener at ``start`` or None, line where its content ends).

    One forgotten closer is one problem, reported at its opener: a closer with
    fewer colons than an inner directive ends that inner one (left unclosed) and
    closes the next one out it matches, and a state left open ends where the next
    state begins (states never nest), instead of swallowing the rest of the page.
    """
    open_fences = [fence]
    for number in range(start + 1, end):
        text = _line(state, number)
        if (opened := _OPEN.match(text)) is not None:
            if name == "state" and opened.group(2) == "state" and len(open_fences) == 1:
                return None, number
            open_fences.append(len(opened.group(1)))
        elif (closed := _CLOSE.match(text)) is not None:
            length = len(closed.group(1))
            while open_fences and open_fences[-1] > length:
                open_fences.pop()
            if not open_fences:
                return None, number
            open_fences.pop()
            if not open_fences:
                return number, number
    return None, end


def _directive(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    opened = _OPEN.match(_line(state, start))
    if opened is None:
        return False
    if silent:
        return True
    close, last = _find_close(state, start, end, len(opened.group(1)), opened.group(2))
    options, body = {}, start + 1
    while body < last and (option := _OPTION.match(_line(state, body))):
        options[option.group(1)] = ((option.group(2) or "").strip(), body + 1)
        body += 1

    token = state.push("directive_open", "div", 1)
    token.block = True
    token.map = [start, last + 1 if close is not None else last]
    token.markup = opened.group(1)
    token.meta = {"name": opened.group(2), "arg": opened.group(3), "options": options, "closed": close is not None}

    old_parent, old_max = state.parentType, state.lineMax
    state.parentType, state.lineMax = "directive", last
    state.md.block.tokenize(state, body, last)
    state.parentType, state.lineMax = old_parent, old_max

    closing = state.push("directive_close", "div", -1)
    closing.block = True
    closing.meta = {"name": opened.group(2)}
    state.line = last + 1 if close is not None else last
    return True
