"""Markdown for lessons: markdown-it-py plus the project's plugins, one module each."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.myst_role import myst_role_plugin

from .cjk import cjk_breaks_plugin
from .directives import DIRECTIVES, directive_plugin
from .headings import heading_anchor_plugin
from .highlight import highlight_code
from .images import image_figure_plugin
from .lines import inline_lines_plugin
from .mathrules import dollar_math_plugin, math_render_plugin
from .nearmiss import near_miss_plugin
from .nesting import nesting_limit_plugin
from .roles import role_render_plugin
from .tables import table_align_plugin


def make_markdown() -> MarkdownIt:
    """The one Markdown parser/renderer of the site.

    Raw HTML is *parsed* (``html=True``) so that the check stage can point at it
    and refuse it; it is never rendered.
    """
    md = MarkdownIt("commonmark", {"html": True, "typographer": False, "highlight": highlight_code}).enable("table")
    md.use(nesting_limit_plugin)
    md.use(directive_plugin)
    md.use(near_miss_plugin, names=DIRECTIVES)
    md.use(myst_role_plugin)
    md.use(dollar_math_plugin)
    md.use(heading_anchor_plugin)
    md.use(table_align_plugin)
    md.use(inline_lines_plugin)  # before cjk_breaks, which removes the line breaks it counts
    md.use(cjk_breaks_plugin)
    md.use(image_figure_plugin)
    md.use(role_render_plugin)
    md.use(math_render_plugin)
    return md
