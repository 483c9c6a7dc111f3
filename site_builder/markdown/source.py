"""Reading Markdown for the outputs that republish it, so that they never read its syntax themselves.

The page's Markdown and the notebook's cells republish the source text: they replace each role by
its text and a picture's address by its published file, and leave every other character as the
teacher wrote it (``role_pieces``, ``picture_address``). The search text and the glossary's hover
card read a run of inline tokens as plain text (``inline_text``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it.token import Token

from site_builder.markdown import make_markdown

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


def inline_text(inline: Token, role: Callable[[str, str], str] = lambda _name, target: target,
                math: Callable[[str], str] = lambda tex: tex) -> str:
    """An inline token as plain text: maths as ``math(tex)`` (its TeX unless told), code and tags as
    written, each role as ``role(name, target)``."""
    pieces = []
    for child in inline.children or ():
        if child.type == "myst_role":
            pieces.append(role(child.meta["name"], child.content.strip()))
        elif child.type in ("text", "code_inline", "html_inline"):  # a tag stays text, never markup
            pieces.append(child.content)
        elif child.type == "math_inline":
            pieces.append(math(child.content) + child.meta.get("after", ""))
        elif child.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
    return "".join(pieces)


_parser = functools.cache(make_markdown)


@functools.cache
def parse_inline(text: str) -> Token:
    """A line of Markdown outside a page (a glossary definition) as one inline token."""
    return next(iter(_parser().parseInline(text, {})), Token("inline", "", 0))
