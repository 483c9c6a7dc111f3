"""The list of all figures (``FIGURES``), collected from the lesson modules.

Each lesson module defines its figures next to their drawing code. Importing
this module imports those modules, but never matplotlib.
"""

from __future__ import annotations

from figures import choice, kv_bytes, misc, r55, rc_v1, worked
from figures.spec import PROVENANCES, Figure


def check_registry(figures: tuple[Figure, ...]) -> list[str]:
    """Internal consistency of a registry; returns problems (empty when fine)."""
    problems: list[str] = []
    seen: set[str] = set()
    for fig in figures:
        if fig.id in seen:
            problems.append(f"figure {fig.id} is registered twice")
        seen.add(fig.id)
        if fig.provenance not in PROVENANCES:
            problems.append(f"figure {fig.id}: unknown provenance {fig.provenance!r}")
        if fig.provenance == "teaching" and fig.inputs:
            problems.append(f"figure {fig.id}: a teaching sketch must take no data, but declares {list(fig.inputs)}")
        if fig.provenance != "teaching" and not fig.inputs:
            problems.append(f"figure {fig.id}: {fig.provenance} figure declares no inputs")
    return problems


MODULES = (rc_v1, choice, r55, kv_bytes, misc, worked)
"""Every module that defines figures (each has a ``FIGURES`` tuple), in order: the one place a figure
module is registered (``python build.py new figure ID`` adds it here)."""
FIGURES: tuple[Figure, ...] = tuple(fig for module in MODULES for fig in module.FIGURES)
FIGURE_IDS: tuple[str, ...] = tuple(f.id for f in FIGURES)
BY_ID: dict[str, Figure] = {f.id: f for f in FIGURES}

_problems = check_registry(FIGURES)
assert not _problems, _problems  # a broken registry is a bug in this package
