"""Tables: column alignment as classes, and a box that scrolls only when a table cannot fit.

The pages' Content-Security-Policy forbids inline styles, so markdown-it's
``style="text-align:right"`` would be ignored; ``class="align-right"`` is not.
Each table is wrapped in ``<div class="table-scroll">`` (site.css: the table wraps to fit,
may grow into the margin on wide screens, and scrolls with edge shadows only as a last
resort); the box is a focusable, named region so a keyboard can scroll it too.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore

from site_builder.vocabulary.i18n import _

_ALIGN = re.compile(r"text-align:(left|center|right)")


def table_align_plugin(md: MarkdownIt) -> None:
    """Turn the table rule's alignment styles on ``th``/``td`` into ``align-*`` classes, and
    render every table inside its scroll box."""
    md.core.ruler.push("table_align_classes", _align_classes)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)


def _render_table_open(self, tokens, idx, options, env) -> str:
    # Named by its columns: two tables in one state need two names (a region's name tells them apart).
    columns = ", ".join(_header_cells(tokens, idx))
    label = escapeHtml(env.get("say", str)(_("Table: {columns}", columns=columns) if columns else _("Table")))
    return f'<div class="table-scroll" tabindex="0" role="region" aria-label="{label}">' + self.renderToken(
        tokens, idx, options, env)


def _header_cells(tokens, idx: int) -> list[str]:
    """The plain text of the header row's cells of the table opened at ``idx``."""
    cells = []
    for token in tokens[idx + 1:]:
        if token.type == "thead_close":
            break
        if token.type == "inline":
            text = (child.content for child in token.children or () if child.type in ("text", "code_inline"))
            cells.append(" ".join("".join(text).split()))
    return [cell for cell in cells if cell]


def _render_table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _align_classes(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("th_open", "td_open") and (style := token.attrGet("style")):
            token.attrs.pop("style")
            if (match := _ALIGN.search(str(style))) is not None:
                token.attrSet("class", f"align-{match.group(1)}")
