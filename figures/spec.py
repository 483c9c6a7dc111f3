"""``Figure``: what the registry knows about one figure."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One figure a page can cite by id."""

    id: str
    """Stable id that content cites, e.g. ``r55-b2``; also the SVG's file stem."""
    alt: str
    """Short alt text, one line, in the figures' source language (Chinese), written ``tr_later("…")``: the runner
    gives it in the drawing language (figures/i18n.py)."""
    description: str
    """Longer description for readers who cannot see the figure; source text like ``alt``."""
    provenance: str
    """``teaching`` (a sketch, no data), ``computed`` (a formula on declared inputs such as
    published configs, evaluated by lessonmodel), ``measured`` (lessonmodel's model runs) or
    ``record`` (content/records/). The corner label is drawn from it
    (``site_builder.vocabulary.provenance.corner_label``)."""
    inputs: tuple[str, ...]
    """Experiment names (computed, measured) or record ids (record) whose data ``draw`` receives."""
    draw: Callable[[Any, Mapping[str, Any]], None]
    """Pure ``draw(fig, data)``: adds axes to ``fig``; never shows, saves or closes it."""
    size: tuple[float, float]
    """Figure size in inches (72 pt each); the SVG is this size exactly."""

    @property
    def module(self) -> str:
        """The module holding the drawing code (its source is part of the cache key)."""
        return self.draw.__module__
