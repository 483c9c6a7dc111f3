"""Figures for the lessons, drawn with matplotlib at build time.

Entry point: ``render_all(results, records, out_dir, cache_dir, language=…)``: every figure as SVG, by id,
with everything a reader sees in ``language``; ``LANGUAGES``: every language the figures are drawn in.
Importing this package never imports matplotlib; only drawing does, and a
build whose figures are all cached never draws.
"""

from __future__ import annotations

from figures.i18n import LANGUAGES
from figures.manifest import MANIFEST_PATH, FigureCheck, accept_figures, check_figures
from figures.marks import MarkError
from figures.registry import BY_ID, FIGURE_IDS, FIGURES
from figures.runner import Rendered, render, render_all
from figures.spec import Figure

__all__ = ["BY_ID", "FIGURES", "FIGURE_IDS", "LANGUAGES", "MANIFEST_PATH", "Figure", "FigureCheck", "MarkError",
           "Rendered", "accept_figures", "check_figures", "render", "render_all"]
