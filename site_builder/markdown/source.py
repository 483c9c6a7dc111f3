"""Where roles and a picture's address stand in a line of source.

For the outputs that republish the source text itself (the page's Markdown, the notebook's
cells): they replace each role by its text and a picture's address by its published file, and
leave every other character as the teacher wrote it. The only reading of Markdown syntax they
need happens here, in the parser.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r"\{([A-Za-z][\w-]*)\}`([^`]*)`")
_IMAGE_ADDRESS = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^\s)]+)")
"""``![alt](`` and the path after it (CommonMark also allows the path in ``<…>``)."""


def role_pieces(text: str) -> list[str | tuple[str, str]]:
    """``text`` cut into literal strings and (role name, target) pairs, in order."""
    pieces: list[str | tuple[str, str]] = []
    end = 0
    for match in _ROLE.finditer(text):
        pieces += [text[end:match.start()], (match.group(1), match.group(2).strip())]
        end = match.end()
    return [*pieces, text[end:]]


def picture_address(line: str) -> tuple[int, int] | None:
    """Where the address of the line's first picture starts and ends, if the line shows one."""
    match = _IMAGE_ADDRESS.search(line)
    return match.span(1) if match else None
