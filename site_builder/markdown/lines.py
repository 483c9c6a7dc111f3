"""Give every inline token the 1-based source line it stands on.

markdown-it keeps ``map`` on block tokens only; messages about a role or a
number in a long paragraph need the exact line.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore


def inline_lines_plugin(md: MarkdownIt) -> None:
    """Set ``child.meta['line']`` on the children of every inline token."""
    md.core.ruler.push("inline_lines", _inline_lines)


def _inline_lines(state: StateCore) -> None:
    for token in state.tokens:
        if token.type != "inline" or not token.map or not token.children:
            continue
        line = token.map[0] + 1
        for child in token.children:
            child.meta = {**(child.meta or {}), "line": line}
            if child.type in ("softbreak", "hardbreak"):
                line += 1
