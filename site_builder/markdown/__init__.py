"""Markdown for lessons: markdown-it-py plus the project's plugins, one module each."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.myst_role import myst_role_plugin

from site_builder.markdown.cjk import cjk_breaks_plugin
from site_builder.markdown.directives import DIRECTIVES, directive_plugin
from site_builder.markdown.headings import heading_anchor_plugin
from site_builder.markdown.highlight import highlight_code
from site_builder.markdown.images import image_figure_plugin
from site_builder.markdown.lines import inline_lines_plugin
from site_builder.markdown.mathrules import dollar_math_plugin, math_render_plugin
from site_builder.markdown.myst import myst_blocks_plugin
from site_builder.markdown.nearmiss import near_miss_plugin, role_near_miss_plugin
from site_builder.markdown.nesting import nesting_limit_plugin
from site_builder.markdown.quotes import smart_quotes_plugin
from site_builder.markdown.roles import role_render_plugin
from site_builder.markdown.tables import table_align_plugin


def make_markdown() -> MarkdownIt:
    """The one Markdown parser/renderer of the site.

    Raw HTML is *parsed* (``html=True``) so that the check stage can point at it
    and refuse it; it is never rendered. Every link is parsed as a link, whatever its
    URL, for the same reason: the check stage judges it by the site's one allowlist
    (urls.py). markdown-it's own list would leave ``[x](javascript:…)`` as text, which
    no check sees and the published Markdown republishes as a link. Straight quotes in prose are shown
    curly (``smartquotes``; not markdown-it's other ``replacements``, which would turn a teacher's ``(c)`` or
    ``--`` into other characters).
    """
    md = MarkdownIt("commonmark", {"html": True, "highlight": highlight_code}).enable("table")
    md.validateLink = lambda url: True
    md.use(nesting_limit_plugin)
    md.use(directive_plugin)
    md.use(near_miss_plugin, names=DIRECTIVES)
    md.use(myst_blocks_plugin)
    md.use(myst_role_plugin)
    md.use(role_near_miss_plugin)
    md.use(dollar_math_plugin)
    md.use(heading_anchor_plugin)
    md.use(table_align_plugin)
    md.use(inline_lines_plugin)  # before cjk_breaks, which removes the line breaks it counts
    md.use(cjk_breaks_plugin)
    md.use(image_figure_plugin)
    md.use(role_render_plugin)
    md.use(math_render_plugin)
    md.use(smart_quotes_plugin)
    return md
