"""The teacher site's gallery: every figure and every value a lesson may use, with the pages that use them.

A teacher looking for "the figure that shows the KV growth" or "the value for
the cache size" finds it here, filters by words, and copies the id to cite.
"""

from __future__ import annotations

from typing import Any

from .i18n import _
from .numbers import display
from .parse import StateSource
from .render import SiteView


def gallery_context(site: SiteView) -> dict[str, Any]:
    """Figures (thumbnail, id, marks, provenance, inputs, uses) and values (name, display, description, uses)."""
    figure_uses = _figure_uses(site)
    value_uses = _value_uses(site)
    figures = [{"id": f.id, "file": f"figures/{f.file}", "alt": f.alt, "description": f.description,
                "provenance": f.provenance, "badge": site.badge(f.provenance), "inputs": list(f.inputs),
                "marks": [site.say(_("{name} ({label})", name=m.name, label=m.label)) if m.label else m.name
                          for m in f.marks], "uses": figure_uses.get(f.id, [])}
               for f in sorted(site.evidence.figures.values(), key=lambda f: f.id)]
    values = [{"name": v.name, "display": site.say(display(v)), "description": v.description,
               "provenance": v.provenance, "badge": site.badge(v.provenance), "uses": value_uses.get(v.name, [])}
              for v in sorted(site.evidence.values.values(), key=lambda v: v.name)]
    return {"figures": figures, "values": values}


def _link(page, state: str) -> dict[str, str]:
    label = page.meta.label or page.meta.title
    anchor = f"#{page.meta.id}-{state}" if state else ""
    return {"url": f"{page.meta.id}.html{anchor}", "text": f"{label} · {state}" if state else label}


def _add(uses: dict[str, list[dict[str, str]]], target: str, link: dict[str, str]) -> None:
    if link not in uses.setdefault(target, []):
        uses[target].append(link)


def _figure_uses(site: SiteView) -> dict[str, list[dict[str, str]]]:
    """Figure id → pages and states showing it, as a ``:figure:`` or with ``{fig}``."""
    uses: dict[str, list[dict[str, str]]] = {}
    for page in site.pages.values():
        for block in page.blocks:
            if isinstance(block, StateSource) and block.figure:
                _add(uses, block.figure, _link(page, block.id))
        for use in page.roles:
            if use.name == "fig":
                _add(uses, use.target, _link(page, use.state))
    return uses


def _value_uses(site: SiteView) -> dict[str, list[dict[str, str]]]:
    uses: dict[str, list[dict[str, str]]] = {}
    for page in site.pages.values():
        for use in page.roles:
            if use.name == "num":
                _add(uses, use.target, _link(page, use.state))
    return uses
