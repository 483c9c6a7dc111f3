"""Give every inline token the 1-based source line it stands on.

markdown-it keeps ``map`` on block tokens only; messages about a role or a
number in a long paragraph need the exact line.
"""

from __future__ import annotations

from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token


def inline_lines_plugin(md: MarkdownIt) -> None:
    """Set ``child.meta['line']`` on the children of every inline token."""
    md.core.ruler.push("inline_lines", _inline_lines)


def _inline_lines(state: StateCore) -> None:
    for line, child in child_lines(state.tokens):
        child.meta = {**(child.meta or {}), "line": line}


def child_lines(tokens: list[Token]) -> Iterator[tuple[int, Token]]:
    """(1-based line, child) for the children of every inline token that has a line: a line break ends its line."""
    for token in tokens:
        if token.type != "inline" or not token.map or not token.children:
            continue
        line = token.map[0] + 1
        for child in token.children:
            yield line, child
            if child.type in ("softbreak", "hardbreak"):
                line += 1
