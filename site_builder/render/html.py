"""HTML of a resolved page's body: its prose runs, its steppers and its roles.

Rendering never parses Markdown (the tokens come from the parse stage, teacher material
already removed from a public page by the resolve stage) and never reads files except
templates through Jinja's loader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined
from jinja2.bccache import Bucket
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup, escape

from site_builder.check.site import resolve_mark
from site_builder.load.bibtex import cited_ids
from site_builder.load.content import FigureInfo
from site_builder.load.glossary import find_term
from site_builder.parse.page import ParsedPage, image_path
from site_builder.resolve.resolved import ResolvedPage, ResolvedState, SiteView, Stepper, ref_link
from site_builder.vocabulary.i18n import _, install
from site_builder.vocabulary.numbers import display
from site_builder.vocabulary.provenance import BADGE_TEXT
from site_builder.vocabulary.roles import CITE_ROLES, REFERENCE_ROLES

TEMPLATES = Path(__file__).parents[1] / "templates"


class _Compiled(BytecodeCache):
    """Compiled templates kept in this process only, for every environment it makes (tests make hundreds).

    Never on disk: Jinja's file cache unmarshals code objects that run when loaded, so a tampered file
    would run code. Compiling every template costs a new process about 0.1-0.25 s. Jinja checks each
    template's source against the kept code, so a changed template is compiled again. Mutable on purpose."""

    def __init__(self) -> None:
        self._held: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._held:
            bucket.bytecode_from_string(self._held[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._held[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _Compiled()


_DICT_NAMES = frozenset(dir(dict))


class _Environment(Environment):
    """Jinja reads ``page.title`` as ``getattr(page, "title")``, then ``page["title"]``: on the dicts the
    renderer hands its templates, every such lookup raised and caught an AttributeError (a tenth of a
    page's template time). A plain dict has no attributes but its methods, so for any other name its item
    is what Jinja would find: it is read first. Same result, same undefined for a missing key."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def make_environment() -> Environment:
    """Strict, autoescaping Jinja: a missing field fails the build instead of rendering blank.

    Templates are not checked for changes on disk (``auto_reload``: a ``stat`` of each template every time a
    page uses it): an environment serves one version of them, and the engine makes a new one when any
    template changes (``Engine._environment``)."""
    env = _Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, autoescape=True,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                       extensions=["jinja2.ext.i18n"], bytecode_cache=_COMPILED, auto_reload=False)
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    install(env, "en")  # until a site's language is installed (see ``use_language``)
    env.globals["badge_text"] = BADGE_TEXT
    env.filters["keep_quotations"] = keep_quotations
    return env


_QUOTATION = re.compile(r"[“‘「『][^“”‘’「」『』]{1,24}[”’」』]")


def keep_quotations(title: str) -> Markup:
    """A title whose short quotations stay on one line: headings break only at spaces (CSS keep-all keeps
    Chinese words whole), so “I gave” would otherwise end a line between its two words."""
    return Markup(_QUOTATION.sub(lambda quoted: quoted[0].replace(" ", "\u00a0"), str(escape(title))))


def use_language(env: Environment, site: SiteView) -> Environment:
    """Give the templates the catalog of the site's language (and the badges in it)."""
    install(env, site.content.config.language)
    env.globals["badge_text"] = {kind: site.badge(kind) for kind in BADGE_TEXT}
    return env


def role_resolver(site: SiteView, page: ResolvedPage, jinja: Environment,
                  state_figure: str = "", state_anchor: str = "") -> Callable[[str, str, bool], str]:
    """How ``{num}``, ``{fig}``, ``{src}``, ``{ref}``, ``{example}`` and ``{mark}`` read on ``page``
    (inside the state ``state_anchor`` whose figure is ``state_figure``: a link to that figure goes to
    this state's copy of it, not to an earlier state showing the same figure)."""
    figure_macro = jinja.get_template("_figure.html.j2").module.figure
    page_id = page.page.meta.id

    def figure_href(figure_id: str) -> str:
        return f"#{state_anchor}-fig" if state_anchor and figure_id == state_figure else _figure_href(page, figure_id)

    def role_html(name: str, target: str, block: bool) -> str:
        if name == "num" and target in site.evidence.values:
            value = site.evidence.values[target]
            return (f'<a class="num" href="numbers.html#{escapeHtml(target)}" data-provenance="{value.provenance}"'
                    f' title="{escapeHtml(site.badge(value.provenance) + " · " + target)}">'
                    f"{escapeHtml(site.say(display(value)))}</a>")
        if name == "fig" and target in site.evidence.figures:
            figure = site.evidence.figures[target]
            if block:
                return str(figure_macro(figure_context(figure, site), f"{page_id}-fig-{target}"))
            text = site.say(_("Figure: {alt}", alt=figure.alt))
            return f'<a class="fig-ref" href="{escapeHtml(figure_href(target))}">{escapeHtml(text)}</a>'
        if name == "src" or name in CITE_ROLES:  # {cite}`a,b`: each source as {src} shows it
            return " ".join(f'<a class="src" href="sources.html#{escapeHtml(key)}">[{escapeHtml(key)}]</a>'
                            for key in ([target] if name == "src" else cited_ids(target)))
        if name in REFERENCE_ROLES:
            href, text = ref_link(site, target, page_id, name)
            return f'<a class="ref" href="{escapeHtml(href)}">{escapeHtml(text)}</a>'
        if name == "term" and (term := find_term(site.content.glossary, target)):
            label = site.say(_("{term}: {definition}", term=target, definition=term.plain_definition))
            # The definition rides in an attribute: a CSS hover/focus card shows it, the link works without
            # CSS or JS, and the page's text (search, copy, Markdown) keeps only the word itself.
            return (f'<a class="term" href="glossary.html#{term.anchor}"'
                    f' data-definition="{escapeHtml(term.plain_definition)}" aria-label="{escapeHtml(label)}">'
                    f'{escapeHtml(target)}</a>')
        if name == "term":  # a page a translation shows untranslated: its word is not in that glossary
            return escapeHtml(target)
        if name == "example":
            note = site.say(_("an illustrative number, not a measurement"))
            return f'<span class="example" title="{escapeHtml(note)}">{escapeHtml(target)}</span>'
        if name == "mark":
            figure_id, mark_name = resolve_mark(target, state_figure)
            return mark_html(site, figure_id, mark_name, figure_href(figure_id))
        return f"<code>{escapeHtml(target)}</code>"

    return role_html


def image_resolver(site: SiteView, page: ParsedPage, jinja: Environment) -> Callable[[dict[str, Any]], str]:
    """How a picture (an ``image_figure`` token's meta) reads on ``page``: a figure with the 插图 badge."""
    macro = jinja.get_template("_image.html.j2").module.image

    def image_html(image: dict[str, Any]) -> str:
        picture = site.images[image_path(page.meta.path, image["src"])]
        caption = image["caption"]
        if image.get("number"):  # a labelled MyST {figure}: numbered like a formula, referenced with {numref}
            caption = site.say(_("Figure {number}", number=image["number"])) + (f" {caption}" if caption else "")
        return str(macro(picture, image["alt"], caption, image.get("label", ""), width_class(image.get("width", ""))))

    return image_html


def width_class(width: str) -> str:
    """A MyST figure's ``:width:`` (``60%``, ``300px``) as one of site.css's ``fig-w-N`` classes (tenths of the
    text column, which is about 612 px wide): the Content-Security-Policy allows no inline style."""
    amount = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%|px)?\s*", width)
    if not amount:
        return ""
    share = float(amount.group(1)) / (612 if amount.group(2) == "px" else 100)
    return f"fig-w-{min(10, max(1, round(share * 10))) * 10}"


def mark_html(site: SiteView, figure_id: str, name: str, href: str) -> str:
    """A ``{mark}``: the mark's label, linked to its figure at ``href``; site.js outlines the region on hover
    and focus."""
    mark = site.evidence.figures[figure_id].mark(name)
    assert mark is not None  # the check stage reported unknown marks
    return (f'<a class="mark-ref" href="{escapeHtml(href)}" '
            f'data-figure="{escapeHtml(figure_id)}" data-mark="{escapeHtml(name)}">{escapeHtml(mark.label)}</a>')


def _figure_href(page: ResolvedPage, figure_id: str) -> str:
    """Where an inline ``{fig}`` points: the figure as this page shows it, else its home on the figures
    page (caption, badge, description) — never an anchor the page lacks, never the bare SVG file."""
    return page.shown.get(figure_id) or f"figures.html#{figure_anchor(figure_id)}"


def figure_anchor(figure_id: str) -> str:
    """The figure's anchor on figures.html, the page that shows every figure."""
    return f"fig-{figure_id}"


def figure_context(figure: FigureInfo, site: SiteView) -> dict[str, Any]:
    """A figure as its template macro sees it."""
    return {"id": figure.id, "src": f"figures/{figure.file}",
            "dark_src": f"figures/{figure.dark_file}" if figure.dark_file else "", "alt": figure.alt,
            "description": figure.description, "provenance": figure.provenance,
            "badge": site.badge(figure.provenance), "width": figure.width, "height": figure.height,
            "marks": marks_json(figure)}


def marks_json(figure: FigureInfo) -> str:
    """The figure's marks for site.js: {name: [left, top, right, bottom, label]} in fractions of the image."""
    return json.dumps({m.name: [*(round(v, 4) for v in m.box), m.label] for m in figure.marks},
                      ensure_ascii=False, separators=(",", ":")) if figure.marks else ""


def render_tokens(md: MarkdownIt, tokens, env: dict[str, Any]) -> Markup:
    """HTML of a token run (the resolved page's: teacher material is already gone from a public one)."""
    return Markup(md.renderer.render(list(tokens), md.options, env))


Rendered = dict[tuple, tuple[tuple, Markup]]
"""One page's token runs as HTML, by (the run's identity, what its roles read besides the site): the run kept
beside its HTML, so the identity cannot be a later run's."""


def render_sections(site: SiteView, page: ResolvedPage, md: MarkdownIt, jinja: Environment,
                    rendered: Rendered | None = None) -> list[dict]:
    """The page body as template data: prose runs as HTML, and steppers.

    ``rendered``: the runs of the same page already rendered for the other site (``pipeline.render_sites``
    renders a page for both, one after the other). A run without teacher material is the same tuple of
    tokens in both flavours (``without_teacher`` keeps it), and its HTML depends besides on the site's
    shared facts only on where the page shows each figure (``shown``) and the state it is in: such a run
    is rendered once. Markdown rendering was a fifth of a page's rendering.
    """
    rendered = {} if rendered is None else rendered
    shown = tuple(page.shown.items())  # differs between the flavours when only a teacher note shows a figure

    def html(tokens, env: dict[str, Any], state: tuple[str, str] = ("", "")) -> Markup:
        key = (id(tokens), shown, state)
        held = rendered.get(key)
        if held is None or held[0] is not tokens:
            held = rendered[key] = (tokens, render_tokens(md, tokens, env))
        return held[1]

    env = {"role_html": role_resolver(site, page, jinja), "image_html": image_resolver(site, page.page, jinja),
           "ref_link": lambda target: ref_link(site, target, page.page.meta.id),
           "say": site.say}
    count = len(page.states)
    return [{"kind": "stepper", "id": section.anchor,
             "states": [_state_context(site, page, state, count, html, jinja, env) for state in section.states]}
            if isinstance(section, Stepper) else {"kind": "html", "html": html(section, env)}
            for section in page.sections]


def _state_context(site: SiteView, page: ResolvedPage, state: ResolvedState, count: int,
                   html: Callable[..., Markup], jinja: Environment, env: dict[str, Any]) -> dict[str, Any]:
    source = state.source
    around = ("", "")
    if source.figure:
        around = (source.figure, state.anchor if state.figure else "")
        env = {**env, "role_html": role_resolver(site, page, jinja, *around)}
    return {
        "id": source.id,
        "anchor": state.anchor,
        "number": int(source.id[1:]) + 1,
        "count": count,
        "title": source.title,
        "provenance": state.provenance,
        "badge": site.badge(state.provenance),
        "figure": figure_context(state.figure, site) if state.figure else None,
        "caption": html(source.caption, env, around) if source.caption else "",
        "body": html(source.body, env, around),
        "more": html(source.more, env, around) if source.more else "",
        "teacher": html(source.teacher, env, around) if source.teacher else "",
    }
