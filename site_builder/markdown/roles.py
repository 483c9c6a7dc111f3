"""Render ``{name}`target``` roles through a resolver the render stage supplies.

Parsing is done by mdit-py-plugins' ``myst_role``; what a role means (a value,
a figure, a source, a page) is decided by the site, which passes
``env["role_html"]: (name, target) -> html``. Unknown roles were already
reported by the check stage; here they fall back to their escaped text.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token


def role_render_plugin(md: MarkdownIt) -> None:
    """Replace myst_role's debugging output with the site's resolver.

    A ``{fig}`` alone in its paragraph is marked ``block``: the site shows the
    figure itself there, not a link to it.
    """
    md.core.ruler.push("standalone_figures", _mark_standalone_figures)
    md.add_render_rule("myst_role", _render_role)


def _mark_standalone_figures(state: StateCore) -> None:
    tokens = state.tokens
    for i in range(1, len(tokens) - 1):
        inline = tokens[i]
        if inline.type != "inline" or tokens[i - 1].type != "paragraph_open":
            continue
        children = [c for c in inline.children or () if not (c.type == "text" and not c.content.strip())]
        if len(children) == 1 and children[0].type == "myst_role" and children[0].meta["name"] == "fig":
            children[0].meta["block"] = True
            tokens[i - 1].hidden = tokens[i + 1].hidden = True


def _render_role(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    token = tokens[idx]
    resolve = (env or {}).get("role_html")
    name, target = token.meta["name"], token.content.strip()
    if resolve is None:
        return f"<code>{escapeHtml(target)}</code>"
    return resolve(name, target, bool(token.meta.get("block")))
