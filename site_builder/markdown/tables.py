"""Table column alignment as classes, not ``style`` attributes.

The pages' Content-Security-Policy forbids inline styles, so markdown-it's
``style="text-align:right"`` would be ignored; ``class="align-right"`` is not.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

_ALIGN = re.compile(r"text-align:(left|center|right)")


def table_align_plugin(md: MarkdownIt) -> None:
    """Turn the table rule's alignment styles on ``th``/``td`` into ``align-*`` classes."""
    md.core.ruler.push("table_align_classes", _align_classes)


def _align_classes(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("th_open", "td_open") and (style := token.attrGet("style")):
            token.attrs.pop("style")
            if (match := _ALIGN.search(str(style))) is not None:
                token.attrSet("class", f"align-{match.group(1)}")
