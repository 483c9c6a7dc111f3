"""The list of all figures (``FIGURES``), found by scanning the figures package.

A figure module is any module of the package that defines a ``FIGURES`` tuple
next to its drawing code; nothing lists it by hand. Importing this module
imports every module of the package, but never matplotlib.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

from figures.spec import Figure
from site_builder.vocabulary.provenance import PROVENANCES


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


def figure_modules() -> tuple[ModuleType, ...]:
    """The package's modules that define ``FIGURES``, in name order (the same on every machine)."""
    names = sorted(info.name for info in pkgutil.iter_modules([str(Path(__file__).parent)])
                   if not info.name.startswith("_"))
    modules = (importlib.import_module(f"{__package__}.{name}") for name in names)
    return tuple(module for module in modules if hasattr(module, "FIGURES"))


MODULES = figure_modules()
"""Every module that defines figures; ``python build.py new figure ID`` only writes one."""
FIGURES: tuple[Figure, ...] = tuple(fig for module in MODULES for fig in module.FIGURES)
FIGURE_IDS: tuple[str, ...] = tuple(f.id for f in FIGURES)
BY_ID: dict[str, Figure] = {f.id: f for f in FIGURES}

_problems = check_registry(FIGURES)
assert not _problems, _problems  # a broken registry is a bug in this package
