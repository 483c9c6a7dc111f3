"""Drop source line breaks between two CJK characters.

Browsers render a line break inside a paragraph as a space, which is wrong
between Chinese characters; teachers still like to wrap long lines.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

_CJK = r"\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_ENDS_CJK = re.compile(f"[{_CJK}]$")
_STARTS_CJK = re.compile(f"^[{_CJK}]")


def cjk_breaks_plugin(md: MarkdownIt) -> None:
    """Remove ``softbreak`` tokens whose neighbours are both CJK text."""
    md.core.ruler.push("cjk_breaks", _cjk_breaks)


def _cjk_breaks(state: StateCore) -> None:
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children = token.children
        token.children = [
            child for i, child in enumerate(children)
            if not (child.type == "softbreak" and 0 < i < len(children) - 1
                    and _ENDS_CJK.search(children[i - 1].content) and _STARTS_CJK.search(children[i + 1].content))
        ]
