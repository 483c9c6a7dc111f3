"""The one rule for what the build itself writes into published Markdown: a page's ``.md`` (and the
source view and zip that hold it), the notebook's cells and ``llms.txt``.

The HTML pages escape every text that is not the teacher's checked Markdown (a title, a summary,
a state's title, a role's text such as a mark's label or an ``{example}``) and link only to URLs
the allowlist accepts (urls.py). The Markdown outputs publish the same texts and URLs, so they
follow the same two rules here: no tag, link, picture, entity or code span can start in such a
text in any Markdown reader, and such a URL passes the allowlist and stays one link destination.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from site_builder.vocabulary.urls import UnsafeOutputError, allowed_url

_MARKUP = re.compile(r"[\\`<>\[\]&]")
"""What could start a tag or an autolink (``<``), a link or picture (``[``), an entity (``&``) or a
code span (a backtick could pair with one in the teacher's text and free a tag the teacher wrote
as code); ``\\`` so that no escape can be undone; ``>`` and ``]`` to close what the others open."""
_NOT_IN_DESTINATION = re.compile(r"[\s\x00-\x1f\x7f()<>\\`]")
"""Characters that would end a link destination early or let it turn into something else."""


def markdown_text(text: str) -> str:
    """``text`` as Markdown that shows its characters as written: each one that could start a tag, a link or
    a code span is backslash-escaped (CommonMark lets any ASCII punctuation be escaped this way). Emphasis
    marks are left as they are: they change how a text looks, not what it does."""
    return _MARKUP.sub(r"\\\g<0>", text)


def markdown_url(url: str) -> str:
    """``url`` as a Markdown link destination: percent-encoded where a character would end it.

    Raises ``UnsafeOutputError`` if the allowlist refuses it: the URLs written here (``base_url``
    and the site's own files) were checked when loaded, so a refused one is a bug.
    """
    if not allowed_url(url):
        raise UnsafeOutputError(f"URL outside the allowlist in published Markdown: {url!r}")
    return _NOT_IN_DESTINATION.sub(lambda found: quote(found.group(), safe=""), url)
