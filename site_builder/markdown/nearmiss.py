"""Near-miss spellings of a directive or a role: written as one, published as code or text.

``~~~{teacher}``, ``::: {teacher}`` (a space), ``::{teacher}``,
``:::teacher`` or an opener indented into a code block are not directives: markdown-it
reads them as a code block or a paragraph, and what the author meant to hide (a
teacher note) would be published. Likewise ``{num} `x``` (a space), ``{num}x`` (no
backticks), ``｛num｝`x``` or ``{num}｀x｀`` (full-width) are not roles: the page would show
the name instead of the number, and no check would see a citation. These plugins note each
one in ``env["near_misses"]`` as (line, message with the right spelling), for the parse
stage to report as ``path:line`` errors. Only what markdown-it has read as code or text is
looked at, so the syntax shown inside code stays allowed, and so does a brace escaped
on purpose (``\\{num}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.markdown.lines import child_lines
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.roles import ROLES

_COLONS = re.compile(r"^(:{2,})[ \t]*\{?[ \t]*([A-Za-z][\w-]*)[ \t]*\}?[ \t]*(.*?)\s*$")
"""A line of colons and a name, braced or not, with or without spaces (the right spelling included:
where markdown-it reads it as code or text, it is indented or continues a paragraph)."""
_FENCE_INFO = re.compile(r"^\{[ \t]*([A-Za-z][\w-]*)[ \t]*\}[ \t]*(.*?)\s*$")


def near_miss_plugin(md: MarkdownIt, names: Iterable[str]) -> None:
    """Note near-miss spellings of the directives ``names`` after the block stage."""
    known = tuple(names)
    md.core.ruler.after("block", "directive_near_miss", lambda state: _note(state, known))


def _note(state: StateCore, names: tuple[str, ...]) -> None:
    found = [miss for token in state.tokens for miss in _misses(token, names)]
    if found:
        state.env.setdefault("near_misses", []).extend(found)


def _misses(token: Token, names: tuple[str, ...]) -> list[tuple[int, str]]:
    if not token.map:
        return []
    if token.type == "fence":
        spelled = _FENCE_INFO.match(token.info)
        if spelled:  # any name: a fence the directive rule did not take (tildes) is never a code box
            correct = _opener(max(3, len(token.markup)), spelled.group(1).lower(), spelled.group(2))
            return [(token.map[0] + 1, _("'{written}' opens a code block, not a directive, so its content is "
                                         "published as code: write '{correct}'",
                                         written=f"{token.markup}{token.info.strip()}", correct=correct))]
        return []
    if token.type not in ("code_block", "inline"):
        return []
    found = []
    for number, line in enumerate(token.content.split("\n"), token.map[0] + 1):
        spelled = _COLONS.match(line.strip())
        if spelled is None or spelled.group(2).lower() not in names:
            continue
        correct = _opener(max(3, len(spelled.group(1))), spelled.group(2).lower(), spelled.group(3))
        if token.type == "code_block":
            message = _("'{written}' is indented, so it is published as code, not read as a directive: "
                        "write '{correct}' at the start of the line", written=line.strip(), correct=correct)
        else:
            message = _("'{written}' is not a directive's spelling, so it is published as text: write '{correct}'",
                        written=line.strip(), correct=correct)
        found.append((number, message))
    return found


def _opener(colons: int, name: str, argument: str) -> str:
    return f"{':' * colons}{{{name}}}" + (f" {argument}" if argument else "")


_ROLE = re.compile(r"[{｛][ \t]*(" + "|".join(map(re.escape, sorted(ROLES, key=len, reverse=True))) + r")[ \t]*[}｝]")
"""A role's name in braces, ASCII or full-width: in text, never a role (myst_role took every right spelling)."""


_LINK = re.compile(r"!?\[[^\[\]\n]*\]\([^)\n]*\)?")
"""A link's or picture's spelling in text: markdown-it took every one it could read (an escaped ``\\[`` is a token
of its own), so this one has a mistake, most often a space in its address."""


def role_near_miss_plugin(md: MarkdownIt) -> None:
    """Note role names, links and pictures left in text, after the inline stage and before its escapes join the
    text."""
    md.core.ruler.after("inline", "role_near_miss", _note_text)


def _note_text(state: StateCore) -> None:
    found = [(line, message) for line, child in child_lines(state.tokens) if child.type == "text"
             for message in _text_misses(child.content)]
    if found:
        state.env.setdefault("near_misses", []).extend(found)


def _text_misses(text: str) -> list[str]:
    found = [_("'{written}' is not a role's spelling, so the page shows it as text: write {correct} (ASCII braces and "
               "backticks, nothing between them)", written=miss.group(), correct=f"{{{miss.group(1)}}}`…`")
             for miss in _ROLE.finditer(text)]
    return found + [_("'{written}' is not read as a link or a picture, so the page shows it as text: an address with "
                      "a space goes inside <…>, as in ![text](<images/a b.png>)", written=miss.group())
                    for miss in _LINK.finditer(text)]
