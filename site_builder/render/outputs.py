"""The output stage: each page's files and the pages made from the whole site, all from resolved pages.

A page's HTML, its Markdown, its source view, its zip and its notebook are each a function of
its ``ResolvedPage`` (resolve.py); the generated pages (numbers, sources, figures, glossary,
gallery, 404, ``llms.txt``) read the site's backlinks, made by one builder.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markdown_it import MarkdownIt
from markupsafe import Markup

from site_builder.load.content import Evidence
from site_builder.load.glossary import find_term
from site_builder.markdown import make_markdown
from site_builder.parse.page import ParsedPage, StateSource
from site_builder.render.editions import edition_links, fallback_notice, other_editions, sitemap
from site_builder.render.gallery import gallery_context
from site_builder.render.html import (
    Rendered,
    figure_anchor,
    figure_context,
    make_environment,
    render_sections,
    use_language,
)
from site_builder.render.markdown_out import llms_txt, page_markdown, published_pictures, zip_bundle
from site_builder.render.notebook import REPRODUCED, download_readme, lesson_notebook
from site_builder.resolve.markdown_text import markdown_text
from site_builder.resolve.resolved import ResolvedPage, SiteView, backlinks, resolve_page
from site_builder.resolve.toc import has_evidence_heading, page_toc
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.numbers import class_text, display
from site_builder.vocabulary.provenance import BADGE_TEXT
from site_builder.vocabulary.urls import check_html, site_root

SiteFiles = dict[str, "bytes | Path"]
"""Output path (relative, POSIX) → bytes to write, or a file to copy."""
HEAD_SCRIPT = (Path(__file__).parents[1] / "templates" / "head.js").read_text(encoding="utf-8").strip()
"""Inlined in every <head> so theme and notes state apply before first paint; the only inline script."""
HEAD_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(HEAD_SCRIPT.encode()).digest()).decode()
"""Lets the Content-Security-Policy allow exactly that script."""


@dataclass(frozen=True)
class RenderKit:
    """What rendering any page of one site needs besides the page: made once per site render."""

    md: MarkdownIt
    jinja: Environment
    common: dict[str, Any]
    """The site context every template sees (title, nav …)."""
    lessons: tuple[ParsedPage, ...]
    """Lessons in site order, for prev/next links."""
    places: dict[str, int]
    """Lesson id → its place in ``lessons`` (looking a page up in the list made a page's cost grow with the course)."""
    public: SiteView
    """The public flavour of the site: the notebook (the same in both sites) is made from it."""
    shared: dict[str, bytes] = field(default_factory=dict)
    """Files the kits of one rendering pass share, by page id: a lesson's notebook is the same in both sites."""


def make_kit(site: SiteView, jinja: Environment | None = None, shared: dict[str, bytes] | None = None) -> RenderKit:
    """``jinja`` may be passed in so a long-running process keeps its compiled templates; ``shared``
    so kits of the two sites share the notebooks."""
    jinja = use_language(jinja or make_environment(), site)
    common = _site_context(site)
    common["chrome"] = _chrome(jinja, common, frozenset(site.pages))
    lessons = tuple(p for p in site.pages.values() if p.meta.kind == "lesson")
    return RenderKit(make_markdown(), jinja, common, lessons, {p.meta.id: i for i, p in enumerate(lessons)},
                     replace(site, teacher=False) if site.teacher else site, {} if shared is None else shared)


def _chrome(jinja: Environment, common: dict[str, Any], pages: frozenset[str]) -> Callable[..., Markup]:
    """``site.chrome(name, root, current)`` for base.html.j2: the macro ``name`` of _chrome.html.j2 (the
    interface words, the header, the footer links), made once per site and variant instead of once per
    page. The header differs only in the link it marks as the current page (and, in a course in several
    languages, the switcher's links), so a page the nav does not list (a lesson of a long course in one
    language) shares the header of every other such page."""
    module = jinja.get_template("_chrome.html.j2").make_module()
    listed = {item["id"] for item in common["nav"]}
    made: dict[tuple[str, str, str], Markup] = {}

    def chrome(name: str, root: str = "", current: str = "") -> Markup:
        # With a language switcher (several editions), every header links its own page in the others.
        key = (name, root, current if current in listed or current not in pages or common["editions"] else "")
        if key not in made:
            made[key] = Markup(getattr(module, name)(common, root, key[2]))
        return made[key]

    return chrome


def render_page_files(site: SiteView, page: ParsedPage, kit: RenderKit, rendered: Rendered | None = None) -> SiteFiles:
    """The files of one page: its HTML, its Markdown and, for a lesson whose download reproduces
    something (``reproduces``), the source view, the notebook and the zip. (``rendered``: see ``render_sections``.)"""
    jinja, common = kit.jinja, kit.common
    resolved = resolve_page(site, page)
    downloads = page.meta.kind == "lesson" and reproduces(page, site.evidence)
    context = _page_context(site, resolved, kit, downloads, rendered)
    template = "lesson.html.j2" if page.meta.kind == "lesson" else "article.html.j2"
    html = _eager_first_figure(jinja.get_template(template).render(site=common, page=context))
    files: SiteFiles = {f"{page.meta.id}.html": html.encode()}
    markdown = page_markdown(resolved)
    files[f"{page.meta.id}.md"] = markdown.encode()
    if downloads:
        files[f"{page.meta.id}.source.html"] = jinja.get_template("source.html.j2").render(
            site=common, page={**context, "has_math": False}, markdown=markdown).encode()  # TeX shown as text
        notebook = None
        if site.evidence.notebook_setup:
            notebook = kit.shared.get(page.meta.id)
            if notebook is None:
                public = resolved if not site.teacher else resolve_page(kit.public, page)
                notebook = kit.shared[page.meta.id] = lesson_notebook(public, site.evidence, site.say,
                                                                      site.content.config.base_url)
            files[f"downloads/{page.meta.id}.ipynb"] = notebook
        files[f"downloads/{page.meta.id}.zip"] = zip_bundle(_bundle(resolved, markdown, site, notebook)
                                                                | published_pictures(resolved))
    return guarded(files, up=site.content.config.up)


def reproduces(page: ParsedPage, evidence: Evidence) -> bool:
    """Whether a lesson's public text cites a value an experiment measures or computes. Only such a
    lesson gets a download (zip, notebook) and a source view: they exist to reproduce its values
    (the zip carries the experiments' code, the notebook reruns them), and for any other lesson they
    would repeat its ``.md`` in three more files per site."""
    values = evidence.values
    return any(use.name == "num" and not use.teacher and use.target in values
               and values[use.target].provenance in REPRODUCED for use in page.roles)


def _eager_first_figure(html: str) -> str:
    """The page's first figure is usually in the first screen (the largest thing painted there):
    load it at once; every later one stays ``loading="lazy"``."""
    return html.replace('loading="lazy"', 'loading="eager" fetchpriority="high"', 1)


def render_generated(site: SiteView, kit: RenderKit) -> SiteFiles:
    """The pages made from the whole site: sources, numbers, figures, 404, ``llms.txt`` and, for teachers,
    the gallery."""
    common, config = kit.common, site.content.config
    root = site_root(common["base_url"])
    top = site_root(config.root_url)  # a translation's 404.html: its assets are at the site's root

    def page(name: str, title: str, facts: dict[str, Any] | None = None, **context: Any) -> str:
        """Template ``name``.html.j2 with its page's facts (``facts`` added) and ``context``."""
        facts = {"id": name, "title": site.say(title), "kind": "generated", "has_math": False, "summary": "",
                 "toc": [], **(facts or {})}
        return kit.jinja.get_template(f"{name}.html.j2").render(site=common, page=facts, **context)

    pages = {"gallery.html": page("gallery", _("All figures and values"), **gallery_context(site))} \
        if site.teacher else {}
    pages |= {
        "figures.html": _eager_first_figure(page("figures", _("All figures"), figures=_figures_context(site))),
        "sources.html": page("sources", _("Sources"), sources=_sources_context(site)),
        "numbers.html": page("numbers", _("Numbers and where they come from"), groups=_numbers_context(site)),
        "glossary.html": page("glossary", _("Glossary"), {"has_math": any(t.formulas for t in site.content.glossary)},
                              terms=_glossary_context(site, kit.md)),
        # GitHub Pages serves 404.html for a missing path at any depth: its links start at the site's path.
        "404.html": page("404", _("Page not found"), {"root": root, "assets": top}),
        "llms.txt": llms_txt(common["title"], common["base_url"], list(site.pages.values()), site.say)
        + other_editions(site.content.config, site.say),
    }
    if config.translations and not config.source_language and not site.teacher:  # one sitemap, every edition
        pages["sitemap.xml"] = sitemap(config, list(site.pages))
    return guarded({name: text.encode() for name, text in pages.items()}, top, up=config.up)


def guarded(files: SiteFiles, root: str = "", up: str = "") -> SiteFiles:
    """``files``, after checking every HTML page's URLs against the allowlist (see urls.py; ``root``: the site's
    path, which 404.html's links start from; ``up``: ``../`` for a translation's page, whose switcher and assets
    are one folder up)."""
    for name, payload in files.items():
        if name.endswith(".html") and isinstance(payload, bytes):
            check_html(name, payload, root=root if name == "404.html" else up)
    return files


NAV_LIMIT = 24
"""Above this many pages the header lists only the index pages: a nav of every page on every page
would make each page's size and render time grow with the course (prev/next and the index still
reach every page)."""


def _site_context(site: SiteView) -> dict[str, Any]:
    config = site.content.config
    pages = list(site.pages.values())
    if len(pages) > NAV_LIMIT:
        pages = [p for p in pages if p.meta.kind == "index"]
    return {"title": config.title, "short_title": config.short_title,
            "lang": config.language, "content_lang": config.content_language or config.language,
            "base_url": config.base_url, "teacher": site.teacher, "assets": config.up,
            "head_script": Markup(HEAD_SCRIPT), "head_script_hash": HEAD_SCRIPT_HASH,
            "editions": edition_links(config, site.teacher),
            "nav": [{"id": p.meta.id, "title": p.meta.title, "label": p.meta.label or p.meta.title,
                     "kind": p.meta.kind, "url": f"{p.meta.id}.html"} for p in pages]}


def _page_context(site: SiteView, page: ResolvedPage, kit: RenderKit, downloads: bool,
                  rendered: Rendered | None = None) -> dict[str, Any]:
    meta, lessons = page.page.meta, kit.lessons
    index = kit.places.get(meta.id)

    def neighbour(step: int) -> dict[str, str] | None:
        i = -1 if index is None else index + step
        return {"url": f"{lessons[i].meta.id}.html", "title": lessons[i].meta.title} if 0 <= i < len(lessons) else None
    return {"id": meta.id, "title": meta.title, "kind": meta.kind, "summary": meta.summary,
            "label": meta.label or meta.id, "url": f"{meta.id}.html",
            "md_url": f"{meta.id}.md", "source_url": f"{meta.id}.source.html" if downloads else "",
            "zip_url": f"downloads/{meta.id}.zip" if downloads else "", "has_math": bool(page.page.math),
            "notebook_url": f"downloads/{meta.id}.ipynb" if downloads and site.evidence.notebook_setup else "",
            "sections": render_sections(site, page, kit.md, kit.jinja, rendered),
            "prev": neighbour(-1), "next": neighbour(1),
            "evidence": _evidence_summary(site, page), "own_evidence": has_evidence_heading(page, site.say),
            "toc": page_toc(page, site.say),
            "fallback": fallback_notice(site.content.config, page.page,
                                        frozenset(f.path for f in site.content.fallback))}


def _evidence_summary(site: SiteView, page: ResolvedPage) -> dict[str, Any]:
    """The page footer: what this page shows is measured, recorded or a sketch, and under what conditions."""
    figures = {s.source.figure for s in page.states if s.source.figure} | {u.target for u in page.uses
                                                                          if u.name == "fig"}
    values = [site.evidence.values[n] for n in page.values]
    producers: dict[str, dict[str, str]] = {}
    for value in values:
        producers.setdefault(value.producer, {"name": value.producer, "provenance": value.provenance,
                                              "title": site.content.value_text.group_title(value.producer),
                                              "badge": site.badge(value.provenance), "command": value.command,
                                              "conditions": value.conditions, "date": value.date})
    # A configuration several experiments share is said once, naming them (it is long, and in English: lessonmodel
    # writes it; a record's conditions are in whatever language its author wrote them, so they carry no lang).
    conditions: dict[str, list[str]] = {}
    english: set[str] = set()
    for producer in sorted(producers.values(), key=lambda p: p["name"]):
        if producer["conditions"]:
            conditions.setdefault(producer["conditions"], []).append(producer["name"])
            if producer["provenance"] != "record":
                english.add(producer["conditions"])
    counts = {kind: 0 for kind in BADGE_TEXT}
    for figure in figures:
        if figure in site.evidence.figures:
            counts[site.evidence.figures[figure].provenance] += 1
    return {"figure_counts": [{"badge": site.badge(k), "count": n} for k, n in counts.items() if n],
            "producers": sorted(producers.values(), key=lambda p: p["name"]), "value_count": len(values),
            "conditions": [{"text": text, "producers": names, "lang": "en" if text in english else ""}
                           for text, names in conditions.items()]}


def _bundle(page: ResolvedPage, markdown: str, site: SiteView, notebook: bytes | None) -> dict[str, bytes]:
    """A lesson's download: its Markdown and the code of the experiments behind the values it cites; with a
    notebook, everything it needs to run in an empty folder: the notebook, the package it imports, the
    pinned requirements and a README saying how."""
    evidence, page_id = site.evidence, page.page.meta.id
    files = {f"{page_id}.md": markdown.encode()}
    for value in (evidence.values[name] for name in page.values):
        if value.source_file in evidence.experiment_files:
            files[value.source_file] = Path(evidence.experiment_files[value.source_file]).read_bytes()
    if notebook is not None:
        files[f"{page_id}.ipynb"] = notebook
        files |= {name: Path(path).read_bytes() for name, path in evidence.notebook_files.items()}
        files["requirements.txt"] = evidence.notebook_requirements.encode()
        files["README.md"] = download_readme(page_id, markdown_text(page.page.meta.title), site.say).encode()
    return files


def _figures_context(site: SiteView) -> list[dict[str, Any]]:
    """Every figure with its home anchor and the pages that show or cite it."""
    shown: dict[str, list[dict[str, str]]] = {}
    for page in site.pages.values():
        label = page.meta.label or page.meta.title
        for block in page.blocks:
            if isinstance(block, StateSource) and block.figure:
                shown.setdefault(block.figure, []).append(
                    {"url": f"{page.meta.id}.html#{page.meta.id}-{block.id}-fig", "text": f"{label} · {block.title}"})
    cited = backlinks(site, "fig")
    return [{"figure": figure_context(f, site), "anchor": figure_anchor(f.id),
             "uses": shown.get(f.id, []) + cited.get(f.id, [])}
            for f in sorted(site.evidence.figures.values(), key=lambda f: f.id)]


def _sources_context(site: SiteView) -> list[dict[str, Any]]:
    uses = backlinks(site, "src")
    return [{"id": s.id, "title": s.title, "authors": s.authors, "year": s.year, "url": s.url,
             "checked": s.checked, "where": s.where, "uses": uses.get(s.id, [])}
            for s in site.content.sources]


def _glossary_context(site: SiteView, md: MarkdownIt) -> list[dict[str, Any]]:
    terms = site.content.glossary
    uses = backlinks(site, "term", key=lambda target: find_term(terms, target), states=False)
    return [{"anchor": term.anchor, "term": term.term, "allowed": term.allowed, "forbidden": term.forbidden,
             "definition": Markup(md.renderInline(term.definition)), "uses": uses.get(term, [])} for term in terms]


def _numbers_context(site: SiteView) -> list[dict[str, Any]]:
    """Values grouped by the experiment or record that produced them, described in the reader's
    language where ``content/values.yml`` says how (else the producer's own English line)."""
    text = site.content.value_text
    uses = backlinks(site, "num")
    groups: dict[str, dict[str, Any]] = {}
    for v in sorted(site.evidence.values.values(), key=lambda v: v.name):
        group = groups.setdefault(v.producer, {
            "name": v.producer, "title": text.group_title(v.producer) or v.producer, "provenance": v.provenance,
            "badge": site.badge(v.provenance), "conditions": "", "command": "", "date": "", "entries": []})
        for key in ("conditions", "command", "date"):  # one producer, one run: said once for the group
            group[key] = group[key] or getattr(v, key)
        description = text.describe(v.name)
        group["entries"].append({
            "name": v.name, "display": site.say(display(v)), "provenance": v.provenance,
            "badge": site.badge(v.provenance),
            "producer": v.producer, "description": description or v.description,
            "description_lang": "" if description else "en", "command": v.command, "source_file": v.source_file,
            "published_source": v.source_file in site.evidence.experiment_files, "conditions": v.conditions,
            "date": v.date, "tolerance": v.tolerance, "value_class": v.value_class,
            "class_text": site.say(class_text(v.value_class, v.rtol, v.atol)), "uses": uses.get(v.name, [])})
    return list(groups.values())
