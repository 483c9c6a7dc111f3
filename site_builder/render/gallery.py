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
    """Figures (thumbnail and its dark variant, id, marks, provenance, inputs, uses) and values (name, display,
    description, uses) grouped by the experiment or record that produced them."""
    figure_uses = _figure_uses(site)
    value_uses = backlinks(site, "num")
    figures = [{"id": f.id, "file": f"figures/{f.file}", "dark_file": f"figures/{f.dark_file}" if f.dark_file else "",
                "width": f.width, "height": f.height, "alt": f.alt, "description": f.description,
                "provenance": f.provenance, "badge": site.badge(f.provenance), "inputs": list(f.inputs),
                "marks": [site.say(_("{name} ({label})", name=m.name, label=m.label)) if m.label else m.name
                          for m in f.marks], "uses": figure_uses.get(f.id, [])}
               for f in sorted(site.evidence.figures.values(), key=lambda f: f.id)]
    text = site.content.value_text
    groups: dict[str, dict[str, Any]] = {}
    for v in sorted(site.evidence.values.values(), key=lambda v: v.name):
        group = groups.setdefault(v.producer, {"name": v.producer, "title": text.group_title(v.producer) or v.producer,
                                               "values": []})
        described = text.describe(v.name)  # in the reader's language, as numbers.html shows it
        group["values"].append({
            "name": v.name, "display": site.say(display(v)), "description": described or v.description,
            "description_lang": "" if described else "en", "provenance": v.provenance,
            "badge": site.badge(v.provenance), "uses": value_uses.get(v.name, [])})
    return {"figures": figures, "value_groups": list(groups.values()),
            "value_count": len(site.evidence.values)}


def _figure_uses(site: SiteView) -> dict[str, list[dict[str, str]]]:
    """Figure id → pages and states showing it, as a ``:figure:`` or with ``{fig}``."""
    uses: dict[str, list[dict[str, str]]] = {}
    for page_id, page in site.pages.items():
        shown = [(b.figure, b.id) for b in page.blocks if isinstance(b, StateSource) and b.figure]
        for target, state in shown + [(u.target, u.state) for u in site.uses[page_id] if u.name == "fig"]:
            if cited_at(page, state) not in uses.setdefault(target, []):
                uses[target].append(cited_at(page, state))
    return uses
