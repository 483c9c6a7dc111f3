"""Code blocks highlighted at build time with Pygments: spans with short class names, no script.

The colours live in site.css ("code highlighting"), one palette per theme, so a block reads in
light and dark mode alike. A fence without a language, or with one Pygments does not know, is
shown as plain text (escaped), never guessed.
"""

from __future__ import annotations

from markdown_it.common.utils import escapeHtml


def highlight_code(code: str, lang: str, attrs: str) -> str:
    """markdown-it's ``highlight`` hook: the block's inner HTML (markdown-it wraps it in
    ``<pre><code class="language-…">``)."""
    if not lang:
        return escapeHtml(code)
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return escapeHtml(code)
    return highlight(code, lexer, HtmlFormatter(nowrap=True))
