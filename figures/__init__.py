"""Figures for the lessons, drawn with matplotlib at build time.

Entry point: ``render_languages(results, records, out_dir, cache_dir, languages)``: every figure as SVG, by
id, in each language (everything a reader sees in it), drawn on every core; ``render``: one language, drawn
one figure after another; ``LANGUAGES``: every language the figures are drawn in.
Importing this package never imports matplotlib; only drawing does, and a
build whose figures are all cached never draws.
"""

from __future__ import annotations

from figures.i18n import LANGUAGES
from figures.manifest import MANIFEST_PATH, FigureCheck, accept_figures, check_figures
from figures.marks import MarkError
from figures.registry import BY_ID, FIGURE_IDS, FIGURES
from figures.runner import Rendered, render, render_languages
from figures.spec import Figure

__all__ = ["BY_ID", "FIGURES", "FIGURE_IDS", "LANGUAGES", "MANIFEST_PATH", "Figure", "FigureCheck", "MarkError",
           "Rendered", "accept_figures", "check_figures", "render", "render_languages"]
