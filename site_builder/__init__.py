"""The lesson-site generator: Markdown + Jinja → a static site. Knows nothing of transformers.

Pipeline: ``load_content`` → ``parse_page`` → ``check_site`` → ``resolve_page`` (per site flavour)
→ outputs (``render_site``) → ``write_site``, wired by ``prepare_site`` and ``render_site``; values and figures come in as plain data
(:class:`~site_builder.content.Evidence`).
"""

from __future__ import annotations

from .content import Evidence, FigureInfo, FigureMark, Value
from .pipeline import PreparedSite, prepare_site, render_site, render_sites
from .problems import ContentError, Problem
from .writer import write_site

__all__ = ["ContentError", "Evidence", "FigureInfo", "FigureMark", "PreparedSite", "Problem", "Value", "prepare_site",
           "render_site", "render_sites", "write_site"]
