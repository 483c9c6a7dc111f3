"""Code blocks highlighted at build time with Pygments: spans with short class names, no script.

The colours live in site.css ("code highlighting"), one palette per theme, so a block reads in
light and dark mode alike. A fence without a language, or with one Pygments does not know, is
shown as plain text (escaped), never guessed.
"""

from __future__ import annotations

import functools

from markdown_it.common.utils import escapeHtml


def highlight_code(code: str, lang: str, attrs: str) -> str:
    """markdown-it's ``highlight`` hook: the block's inner HTML (markdown-it wraps it in
    ``<pre><code class="language-…">``)."""
    return _highlighted(code, lang) if lang else escapeHtml(code)


@functools.lru_cache(maxsize=256)
def _highlighted(code: str, lang: str) -> str:
    """Remembered because each page is rendered for both sites in one process, one after the other
    (pipeline.render_sites): the teacher site's copy of a block costs nothing."""
    lexer = _lexer(lang)
    if lexer is None:
        return escapeHtml(code)
    from pygments import highlight

    return highlight(code, lexer, _formatter())


# Lexers and the formatter hold no state between blocks; making them cost more than highlighting a
# short block (the formatter builds its whole style table each time).
@functools.cache
def _lexer(lang: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@functools.cache
def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)
