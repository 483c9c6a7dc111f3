"""Heading anchors: ``## Title {#anchor}`` or an id made from the title.

Every heading gets an ``id`` and a permalink, so any section can be linked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.vocabulary.i18n import _

_EXPLICIT = re.compile(r"\s*\{#([A-Za-z0-9][\w-]*)\}\s*$")


def heading_anchor_plugin(md: MarkdownIt) -> None:
    """Give each ``heading_open`` an ``id`` attr and render a permalink after the text."""
    md.core.ruler.push("heading_anchors", _heading_anchors)
    md.add_render_rule("heading_close", _render_heading_close)


def slugify(text: str) -> str:
    """A readable anchor from heading text; keeps CJK characters."""
    slug = re.sub(r"[^\w\u4e00-\u9fff-]+", "-", text.lower()).strip("-")
    return slug or "section"


def _heading_anchors(state: StateCore) -> None:
    taken: set[str] = set()
    for i, token in enumerate(state.tokens):
        if token.type != "heading_open":
            continue
        inline = state.tokens[i + 1]
        explicit = _EXPLICIT.search(inline.content)
        if explicit:
            inline.content = inline.content[:explicit.start()]
            last = inline.children[-1] if inline.children else None
            if last is not None and last.type == "text":
                last.content = _EXPLICIT.sub("", last.content)
            anchor = explicit.group(1)
            token.meta = {**(token.meta or {}), "explicit_anchor": True}
        else:
            anchor, n = slugify(inline.content), 2
            while anchor in taken:
                anchor, n = f"{slugify(inline.content)}-{n}", n + 1
        taken.add(anchor)
        token.attrSet("id", anchor)
        target = state.tokens[i - 1] if i else None
        if target is not None and target.type == "myst_target" and target.content == anchor and token.tag != "h1":
            target.meta = {**(target.meta or {}), "heading": True}  # one anchor, not two (a page title keeps its)


def _render_heading_close(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    opening = next(t for t in reversed(tokens[:idx]) if t.type == "heading_open")
    anchor = opening.attrGet("id")
    label = escapeHtml(env.get("say", str)(_("Link to this section")))  # in the course's language
    link = (f' <a class="permalink" href="#{anchor}" aria-label="{label}" data-pagefind-ignore>#</a>'
            if anchor else "")
    return f"{link}</{tokens[idx].tag}>\n"
