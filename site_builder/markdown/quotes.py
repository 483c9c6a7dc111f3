"""Straight quotes in prose shown curly (markdown-it's ``smartquotes``), except in a URL shown as its own text."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore


def keep_autolink_text(state: StateCore) -> None:
    """The text of an autolink (``<https://example.org/it's>``) is its URL: retyped so that ``smartquotes``, which
    changes only ``text`` tokens, leaves it as typed (``text_join`` merges it back afterwards)."""
    for block in state.tokens:
        inside = False
        for token in block.children or ():
            if token.type == "link_open":
                inside = token.markup == "autolink"
            elif token.type == "link_close":
                inside = False
            elif inside and token.type == "text":
                token.type = "text_special"


def smart_quotes_plugin(md: MarkdownIt) -> None:
    md.options["typographer"] = True
    md.core.ruler.before("smartquotes", "keep_autolink_text", keep_autolink_text)
    md.enable("smartquotes")
