"""MyST's block syntax besides directives: ``%`` comments, ``(label)=`` targets, footnotes, definition lists.

The parsing comes from mdit-py-plugins (``myst_blocks``, ``footnote``, ``deflist``); this module decides how
the site shows them: a comment is never published, a target is an anchor the next element carries
(its title is that element's text, so ``{ref}`` reads like a link to a heading).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from site_builder.vocabulary.urls import ALLOWED_SCHEMES


def myst_blocks_plugin(md: MarkdownIt) -> None:
    """Parse comments, targets, ``+++`` breaks, footnotes and definition lists; render them in the site's way."""
    md.use(myst_block_plugin)
    md.use(footnote_plugin)
    md.use(deflist_plugin)
    md.add_render_rule("myst_line_comment", lambda self, tokens, idx, options, env: "")
    md.add_render_rule("myst_block_break", lambda self, tokens, idx, options, env: "")
    md.add_render_rule("myst_target", _render_target)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("link_close", _render_link_close)


def _render_target(self, tokens, idx, options, env) -> str:
    if tokens[idx].meta.get("heading"):
        return ""  # the heading after it has the label's name as its own anchor
    return f'<span class="target" id="{escapeHtml(tokens[idx].content)}"></span>'


_PAGE_LINK = re.compile(r"^(?:([\w.-]+/)*([\w-]+)\.md)?(?:#(.+))?$")
_LABEL = re.compile(r"^([A-Za-z][\w./-]*?)(?::[A-Za-z][\w./-]*)*$")
"""A MyST label (``markdown-fig``, ``content/cards``, ``content:myst/directives``): MyST reads an address with
no file suffix, or with a scheme it does not know, as a label (or a page's name); ``file:///…`` and ``tel:123``
are addresses."""


def page_link(href: str) -> str | None:
    """A Markdown link to a page or label of this site, as the ``{ref}`` target it means (``#label`` → ``label``,
    ``page.md#x`` → ``page#x``, ``page.md`` → ``page``, ``label`` and ``content:x`` as they are); ``None`` for
    any other link (``https:``, ``mailto:`` and ``inv:``, another Sphinx project's, are no labels)."""
    if (label := _LABEL.match(href)) and label.group(1).lower() not in (*ALLOWED_SCHEMES, "inv") \
            and ("." not in href or ":" in href):
        return href
    found = _PAGE_LINK.match(href)
    if href in ("", "#") or found is None:
        return None
    page, anchor = found.group(2) or "", found.group(3) or ""
    return f"{page}#{anchor}" if page and anchor else page or anchor


def _render_link_open(self, tokens, idx, options, env) -> str:
    """A link to a page or label of this site goes to its page's HTML; one without text reads as a ``{ref}``
    does, with the title of what it points at (``env["ref_link"]``: target → (URL, title), from the site)."""
    token = tokens[idx]
    target = page_link(str(token.attrGet("href") or ""))
    resolve = (env or {}).get("ref_link")
    if target is None or resolve is None:
        return self.renderToken(tokens, idx, options, env)
    href, title = resolve(target)
    attrs = "".join(f' {key}="{escapeHtml(str(value))}"' for key, value in {**token.attrs, "href": href}.items())
    return f"<a{attrs}>" + (escapeHtml(title) + "</a>" if tokens[idx + 1].type == "link_close" else "")


def _render_link_close(self, tokens, idx, options, env) -> str:
    opener = tokens[idx - 1]
    if opener.type == "link_open" and (env or {}).get("ref_link") and page_link(str(opener.attrGet("href") or "")):
        return ""  # the opener wrote the whole link, with its title
    return self.renderToken(tokens, idx, options, env)
