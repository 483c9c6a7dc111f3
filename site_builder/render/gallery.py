"""The teacher site's gallery: every figure and every value a lesson may use, with the pages that use them.

A teacher looking for "the figure that shows the KV growth" or "the value for
the cache size" finds it here, filters by words, and copies the id to cite.
"""

from __future__ import annotations

from typing import Any

from site_builder.parse.page import StateSource
from site_builder.resolve.resolved import SiteView, backlinks, cited_at
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.numbers import display


def gallery_context(site: SiteView) -> dict[str, Any]:
    """Figures (thumbnail, id, marks, provenance, inputs, uses) and values (name, display, description, uses)."""
    figure_uses = _figure_uses(site)
    value_uses = backlinks(site, "num")
    figures = [{"id": f.id, "file": f"figures/{f.file}", "alt": f.alt, "description": f.description,
                "provenance": f.provenance, "badge": site.badge(f.provenance), "inputs": list(f.inputs),
                "marks": [site.say(_("{name} ({label})", name=m.name, label=m.label)) if m.label else m.name
                          for m in f.marks], "uses": figure_uses.get(f.id, [])}
               for f in sorted(site.evidence.figures.values(), key=lambda f: f.id)]
    values = [{"name": v.name, "display": site.say(display(v)), "description": v.description,
               "provenance": v.provenance, "badge": site.badge(v.provenance), "uses": value_uses.get(v.name, [])}
              for v in sorted(site.evidence.values.values(), key=lambda v: v.name)]
    return {"figures": figures, "values": values}


def _figure_uses(site: SiteView) -> dict[str, list[dict[str, str]]]:
    """Figure id → pages and states showing it, as a ``:figure:`` or with ``{fig}``."""
    uses: dict[str, list[dict[str, str]]] = {}
    for page_id, page in site.pages.items():
        shown = [(b.figure, b.id) for b in page.blocks if isinstance(b, StateSource) and b.figure]
        for target, state in shown + [(u.target, u.state) for u in site.uses[page_id] if u.name == "fig"]:
            if cited_at(page, state) not in uses.setdefault(target, []):
                uses[target].append(cited_at(page, state))
    return uses
