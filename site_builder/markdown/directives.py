"""MyST-style colon-fence directives: ``:::{state} b0`` … ``:::``.

A directive opens with three or more colons and ``{name}``, may carry
``:key: value`` option lines, and closes with a line of colons. It is a container
in markdown-it's sense, like a block quote: its content is tokenized by the block
rules, and its closer is itself a block rule that ends the innermost open directive
only where that directive's own content is being read. So a fenced code block (or a
nested directive) consumes its lines first, and a ``::::`` line inside it cannot end
the directive around it: a teacher note holding one stays whole.

Directives nest (``::::{more}`` inside ``:::{state}``). A closer with fewer colons
than the innermost open directive ends that one (left unclosed) and is then tried
on the next one out; a state left open ends where the next state begins (states
never nest). One forgotten closer is one problem, reported at its opener, instead
of swallowing the rest of the page.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from site_builder.vocabulary.i18n import _

DIRECTIVES = ("state", "more", "teacher")
"""The directives a page may use."""

_OPEN = re.compile(r"^(:{3,})\{([A-Za-z][\w-]*)\}[ \t]*(.*?)\s*$")
_CLOSE = re.compile(r"^(:{3,})\s*$")
_OPTION = re.compile(r"^:([A-Za-z][\w-]*):(?:[ \t]+(.*?))?\s*$")
_STACK = "open_directives"
"""``env`` key: the ``directive_open`` tokens whose content is being read, innermost last."""
_TERMINATES = {"alt": ["paragraph", "blockquote", "list"]}


def directive_plugin(md: MarkdownIt) -> None:
    """Parse colon-fence directives into ``directive_open``/``directive_close`` tokens.

    ``directive_open.meta`` holds ``name``, ``arg``, ``options`` (key → (value,
    line), the first line giving the key), ``repeated`` ((key, line) of each later line giving
    a key again) and ``closed``; ``map`` spans the whole directive.
    """
    md.block.ruler.before("fence", "directive", _directive, _TERMINATES)
    md.block.ruler.before("directive", "directive_end", _directive_end, _TERMINATES)
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


def _innermost(state: StateBlock) -> Token | None:
    """The directive whose own content is being read at this point, if any (not one further out, nor
    one whose content holds the list or quote being read)."""
    stack = state.env.get(_STACK)
    return stack[-1] if stack and stack[-1].level + 1 == state.level else None


def _stop(state: StateBlock, directive: Token, line: int, end: int, closed: bool) -> bool:
    """End ``directive``'s content at ``line`` (its closer when ``closed``): stop the tokenizer reading it."""
    directive.meta["closed"], directive.meta["end"] = closed, line
    state.line = end
    return True


def _directive_end(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line of colons: the closer of the innermost directive, or where an unclosed one ends."""
    if state.sCount[start] - state.blkIndent >= 4 or not state.env.get(_STACK):
        return False
    closed = _CLOSE.match(_line(state, start))
    if closed is None:
        return False
    if silent:  # it ends the paragraph, list or quote before it: they lie inside a directive
        return True
    directive = _innermost(state)
    if directive is None:  # inside a list or quote of the directive: text there
        return False
    return _stop(state, directive, start, end, len(directive.markup) <= len(closed.group(1)))


def _directive(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    opened = _OPEN.match(_line(state, start))
    if opened is None:
        return False
    around = _innermost(state)
    if opened.group(2) == "state" and around is not None and around.meta["name"] == "state":
        return silent or _stop(state, around, start, end, False)  # states never nest: the open one ends here
    if silent:
        return True
    options, repeated, body = {}, [], start + 1
    while body < end and (option := _OPTION.match(_line(state, body))):
        if option.group(1) in options:  # neither line may silently win: the parse stage reports it
            repeated.append((option.group(1), body + 1))
        else:
            options[option.group(1)] = ((option.group(2) or "").strip(), body + 1)
        body += 1

    token = state.push("directive_open", "div", 1)
    token.block = True
    token.markup = opened.group(1)
    token.meta = {"name": opened.group(2), "arg": opened.group(3), "options": options, "repeated": repeated,
                  "closed": False}
    stack = state.env.setdefault(_STACK, [])
    stack.append(token)
    old_parent = state.parentType
    state.parentType = "directive"
    state.md.block.tokenize(state, body, end)
    state.parentType = old_parent
    stack.pop()
    last = token.meta.pop("end", max(min(state.line, end), body))  # else where the tokenizer stopped
    if not token.meta["closed"]:
        token.meta["closer_in_code"] = _closer_in_code(state.tokens[state.tokens.index(token) + 1:], token.markup)
    token.map = [start, last + 1 if token.meta["closed"] else last]

    closing = state.push("directive_close", "div", -1)
    closing.block = True
    closing.meta = {"name": opened.group(2)}
    state.line = token.map[1]
    return True


def _closer_in_code(tokens: list[Token], fence: str) -> int:
    """The line (1-based) of a line of at least ``fence`` colons held by a code block among ``tokens``
    (a code block left open, or closed after the directive's closer, took it), or 0."""
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            for number, line in enumerate(token.content.split("\n"), token.map[0] + 1 + (token.type == "fence")):
                if (closer := _CLOSE.match(line.strip())) and len(closer.group(1)) >= len(fence):
                    return number
    return 0


def unclosed_code(directive: Token) -> str:
    """For a directive never closed whose closer a code block took: where, and what to do (else ``''``)."""
    line = directive.meta.get("closer_in_code", 0)
    return _("; line {line} is inside a code block, so it closes nothing: end the code block before that line",
             line=line) if line else ""


def directive_lines(tokens: list[Token]) -> tuple[tuple[int, str, str, str], ...]:
    """Each line of directive syntax among ``tokens``, in order: (0-based line, directive name, ``open``,
    ``close`` or the option's key, the argument or the option's value)."""
    found = []
    for token in tokens:
        if token.type == "directive_open" and token.map:
            name = token.meta["name"]
            found.append((token.map[0], name, "open", token.meta["arg"].strip()))
            found += [(line - 1, name, key, value) for key, (value, line) in token.meta["options"].items()]
            if token.meta["closed"]:
                found.append((token.map[1] - 1, name, "close", ""))
    return tuple(sorted(found))
