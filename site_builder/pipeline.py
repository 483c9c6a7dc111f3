"""The build as a pipeline: load → parse → check → render → write.

``prepare_site`` runs the stages both sites share; ``render_site`` makes one
site's files in memory; ``write_site`` (writer.py) puts them on disk atomically.
"""

from __future__ import annotations

import base64
import gc
import hashlib
import multiprocessing
import re
from collections.abc import Callable, Collection, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markdown_it import MarkdownIt
from markupsafe import Markup

from .check import check_site, pointing_warnings
from .content import BADGE_TEXT, Content, Evidence, SourceFile
from .frontmatter import split_page
from .gallery import gallery_context
from .glossary import find_term
from .i18n import _
from .images import Picture, prepare_images
from .load import load_content
from .markdown import make_markdown
from .markdown_out import llms_txt, plain_markdown, published_pictures, zip_bundle
from .mathfont import formula_characters, math_font_for
from .notebook import lesson_notebook
from .numbers import class_text, display
from .parse import ParsedPage, StateSource, parse_page
from .problems import ContentError, Problem
from .render import SiteView, figure_anchor, figure_context, make_environment, render_page_blocks, use_language
from .toc import has_evidence_heading, page_toc
from .urls import check_html

STATIC = Path(__file__).parent / "static"
HEAD_SCRIPT = (Path(__file__).parent / "templates" / "head.js").read_text(encoding="utf-8").strip()
"""Inlined in every <head> so theme and notes state apply before first paint; the only inline script."""
HEAD_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(HEAD_SCRIPT.encode()).digest()).decode()
"""Lets the Content-Security-Policy allow exactly that script."""
TEACHER_ONLY = frozenset({"present.js"})
"""Static files only the teacher site loads (presenting, the speaker window)."""
SiteFiles = dict[str, "bytes | Path"]
"""Output path (relative, POSIX) → bytes to write, or a file to copy."""


@dataclass(frozen=True)
class PreparedSite:
    """Content loaded, parsed and checked: ready to render either site."""

    content: Content
    """What the loader read."""
    pages: dict[str, ParsedPage]
    """Parsed pages by id, in site order."""
    evidence: Evidence
    """Values and figures of this build."""
    warnings: tuple[Problem, ...] = ()
    """What ``check`` reports without failing (a 指图 list naming no mark)."""
    images: dict[str, Picture] = field(default_factory=dict)
    """Teacher-supplied pictures the pages show, resized, by project-relative path."""


Parsed = list[tuple["ParsedPage | None", list[Problem]]]
"""``parse_source``'s result for each page source, in order."""


def prepare_site(root: Path, evidence: Evidence, content_dir: str = "content") -> PreparedSite:
    """Load, parse and check, keeping nothing; raise ``ContentError`` with every problem found."""
    content, problems = load_content(root, content_dir)
    if content is None:
        raise ContentError(problems)
    return check_parsed(content, parse_sources(list(content.pages)), problems, evidence)


def parse_sources(sources: list[SourceFile]) -> Parsed:
    md = make_markdown()
    with collector_paused():
        return [parse_source(source, md) for source in sources]


@contextmanager
def collector_paused():
    """Parse without the cyclic garbage collector, then freeze what was made.

    Parsing allocates millions of small objects that all stay alive (the token trees), so every
    collection the allocations trigger finds nothing to free: with the collector off parsing a
    1000-page course took 2.3 s instead of 4.1 s. ``gc.freeze`` then keeps those objects out of
    later collections (and out of the pages forked workers would otherwise copy by touching them).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def parse_source(source: SourceFile, md: MarkdownIt) -> tuple[ParsedPage | None, list[Problem]]:
    """Split and parse one page source; a page that cannot be split comes back as ``None``.

    Depends on nothing but the source, so the build engine keeps it under the source's digest.
    """
    split, problems = split_page(source)
    if split is None:
        return None, problems
    page, errors = parse_page(split, md)
    return page, problems + errors


def check_parsed(content: Content, parsed: Parsed, problems: list[Problem], evidence: Evidence,
                 memo: Callable | None = None) -> PreparedSite:
    """Check the parsed pages across the site; raise ``ContentError`` with every problem found.
    (``memo``: see ``check_site``.)"""
    problems = problems + [p for _, errors in parsed for p in errors]
    pages = [page for page, _ in parsed if page is not None]
    problems += check_site(content, pages, evidence, memo)
    images, image_problems = prepare_images(content, pages)
    problems += image_problems
    if problems:
        raise ContentError(problems)
    warnings = tuple(sorted(pointing_warnings(pages))) + tuple(w for page in pages for w in page.warnings)
    return PreparedSite(content, {p.meta.id: p for p in pages}, evidence, warnings, images)


PARALLEL_MIN_PAGES = 64
"""Below this, forking workers costs more than rendering the pages."""


def render_site(prepared: PreparedSite, teacher: bool, workers: int = 1) -> SiteFiles:
    """Every file of one site (public or teacher), in memory, math font included; pages over ``workers`` processes."""
    files = render_sites(prepared, (teacher,), workers)[teacher]
    return files | math_font_for(formula_characters(files))


def render_sites(prepared: PreparedSite, sites: tuple[bool, ...] = (False, True), workers: int = 1,
                 skip: Mapping[bool, Collection[str]] | None = None,
                 jinja: Environment | None = None) -> dict[bool, SiteFiles]:
    """The files of several sites (``False`` public, ``True`` teacher) in one pass, all but the math font
    (``math_font_for``, once every page's files are known).

    Each page is rendered for every site by the same process, one site after the other, so what
    the sites share is made once: highlighted code and the lesson notebook (both sites publish
    the same one). ``skip`` names, per site, pages to leave out (the engine still has their files);
    ``jinja`` is a template environment a long-running process keeps (one is made otherwise).
    """
    skip = skip or {}
    views = {teacher: SiteView(prepared.content, prepared.pages, prepared.evidence, teacher, prepared.images)
             for teacher in sites}
    wanted = {teacher: [p for p in views[teacher].pages if p not in skip.get(teacher, ())] for teacher in sites}
    pages = list(dict.fromkeys(page_id for teacher in sites for page_id in wanted[teacher]))
    jinja = jinja or make_environment()  # one for every site and worker: each template is compiled once
    if workers > 1 and len(pages) >= PARALLEL_MIN_PAGES and "fork" in multiprocessing.get_all_start_methods():
        files = _render_forked(views, wanted, pages, workers, jinja)
    else:
        files = _render_pages(views, wanted, pages, jinja)
    for teacher, site in views.items():
        if GENERATED not in skip.get(teacher, ()):
            files[teacher].update(render_generated(site, make_kit(site, jinja)))
        files[teacher].update(copied_files(site))
    return files


GENERATED = "(generated)"
"""In ``skip``: the generated pages (numbers, sources, figures … ``render_generated``); never a page id."""


def _render_pages(views: dict[bool, SiteView], wanted: dict[bool, list[str]], pages: list[str],
                  jinja: Environment) -> dict[bool, SiteFiles]:
    shared: dict[str, bytes] = {}
    kits = {teacher: make_kit(site, jinja, shared) for teacher, site in views.items()}
    wanted_sets = {teacher: set(ids) for teacher, ids in wanted.items()}
    files: dict[bool, SiteFiles] = {teacher: {} for teacher in views}
    for page_id in pages:
        for teacher, site in views.items():
            if page_id in wanted_sets[teacher]:
                files[teacher].update(render_page_files(site, site.pages[page_id], kits[teacher]))
    return files


_FORKED: tuple | None = None
"""What a forked worker renders (sites, pages wanted per site, the template environment): inherited through
fork, so the parsed tokens are never pickled (unpickling them costs more than parsing); only the rendered
bytes travel back."""


def _render_share(page_ids: list[str]) -> dict[bool, SiteFiles]:
    assert _FORKED is not None
    views, wanted, jinja = _FORKED
    return _render_pages(views, wanted, page_ids, jinja)


def _render_forked(views: dict[bool, SiteView], wanted: dict[bool, list[str]], pages: list[str],
                   workers: int, jinja: Environment) -> dict[bool, SiteFiles]:
    global _FORKED
    _FORKED = (views, wanted, jinja)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            shares = pool.map(_render_share, [pages[i::workers] for i in range(workers)])
    finally:
        _FORKED = None
    return {teacher: dict(sorted(item for share in shares for item in share[teacher].items())) for teacher in views}


@dataclass(frozen=True)
class RenderKit:
    """What rendering any page of one site needs besides the page: made once per site render."""

    md: MarkdownIt
    """The Markdown renderer (its render rules turn tokens into HTML)."""
    jinja: Environment
    """The template environment."""
    common: dict[str, Any]
    """The site context every template sees (title, nav …)."""
    lessons: tuple[ParsedPage, ...]
    """Lessons in site order, for prev/next links."""
    titles: dict[str, str]
    """Page id → title, for ``{ref}`` in the plain Markdown."""
    shared: dict[str, bytes] = field(default_factory=dict)
    """Files the kits of one rendering pass share, by page id: a lesson's notebook is the same in both sites."""


def make_kit(site: SiteView, jinja: Environment | None = None, shared: dict[str, bytes] | None = None) -> RenderKit:
    """``jinja`` may be passed in so a long-running process keeps its compiled templates; ``shared``
    so kits of the two sites share the notebooks."""
    return RenderKit(make_markdown(), use_language(jinja or make_environment(), site), _site_context(site),
                     tuple(p for p in site.pages.values() if p.meta.kind == "lesson"),
                     {page_id: p.meta.title for page_id, p in site.pages.items()},
                     {} if shared is None else shared)


def render_page_files(site: SiteView, page: ParsedPage, kit: RenderKit) -> SiteFiles:
    """The files of one page: its HTML, its Markdown and, for lessons, the source view and download."""
    jinja, common = kit.jinja, kit.common
    context = _page_context(site, page, list(kit.lessons), kit.md, jinja)
    template = "lesson.html.j2" if page.meta.kind == "lesson" else "article.html.j2"
    html = _eager_first_figure(jinja.get_template(template).render(site=common, page=context))
    files: SiteFiles = {f"{page.meta.id}.html": html.encode()}
    markdown = plain_markdown(page, site.evidence, kit.titles, site.teacher, site.images, site.say)
    files[f"{page.meta.id}.md"] = markdown.encode()
    if page.meta.kind == "lesson":
        files[f"{page.meta.id}.source.html"] = jinja.get_template("source.html.j2").render(
            site=common, page={**context, "has_math": False}, markdown=markdown).encode()  # TeX shown as text
        files[f"downloads/{page.meta.id}.zip"] = zip_bundle(_bundle(page, markdown, site.evidence)
                                                                | published_pictures(page, site.images))
        if site.evidence.notebook_setup:
            notebook = kit.shared.get(page.meta.id)
            if notebook is None:
                notebook = kit.shared[page.meta.id] = lesson_notebook(page, site.evidence, kit.titles, site.say,
                                                                      site.images, site.content.config.base_url)
            files[f"downloads/{page.meta.id}.ipynb"] = notebook
    return guarded(files)


def _eager_first_figure(html: str) -> str:
    """The page's first figure is usually in the first screen (the largest thing painted there):
    load it at once; every later one stays ``loading="lazy"``."""
    return html.replace('loading="lazy"', 'loading="eager" fetchpriority="high"', 1)


def render_generated(site: SiteView, kit: RenderKit) -> SiteFiles:
    """The pages made from the whole site: sources, numbers, figures, 404, ``llms.txt`` and, for teachers, the gallery."""
    jinja, common = kit.jinja, kit.common
    gallery = {"gallery.html": jinja.get_template("gallery.html.j2").render(
        site=common, page=_generated("gallery", site.say(_("All figures and values"))), **gallery_context(site)).encode()
    } if site.teacher else {}
    # GitHub Pages serves 404.html for a missing path at any depth: its links are absolute, from base_url.
    not_found = {**_generated("404", site.say(_("Page not found"))), "root": common["base_url"]}
    return guarded(gallery | {
        "figures.html": _eager_first_figure(jinja.get_template("figures.html.j2").render(
            site=common, page=_generated("figures", site.say(_("All figures"))), figures=_figures_context(site))).encode(),
        "sources.html": jinja.get_template("sources.html.j2").render(
            site=common, page=_generated("sources", site.say(_("Sources"))), sources=_sources_context(site)).encode(),
        "numbers.html": jinja.get_template("numbers.html.j2").render(
            site=common, page=_generated("numbers", site.say(_("Numbers and where they come from"))),
            groups=_numbers_context(site)).encode(),
        "glossary.html": jinja.get_template("glossary.html.j2").render(
            site=common, page={**_generated("glossary", site.say(_("Glossary"))),
                               "has_math": any(t.formulas for t in site.content.glossary)},
            terms=_glossary_context(site, kit.md)).encode(),
        "404.html": jinja.get_template("404.html.j2").render(site=common, page=not_found).encode(),
        "llms.txt": llms_txt(common["title"], common["base_url"], list(site.pages.values()), site.say).encode(),
    })


def guarded(files: SiteFiles) -> SiteFiles:
    """``files``, after checking every HTML page's URLs against the allowlist (see urls.py)."""
    for name, payload in files.items():
        if name.endswith(".html") and isinstance(payload, bytes):
            check_html(name, payload)
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
    return {"title": config.title, "lang": config.language, "base_url": config.base_url, "teacher": site.teacher,
            "head_script": Markup(HEAD_SCRIPT), "head_script_hash": HEAD_SCRIPT_HASH,
            "nav": [{"id": p.meta.id, "title": p.meta.title, "label": p.meta.label or p.meta.title,
                     "kind": p.meta.kind, "url": f"{p.meta.id}.html"} for p in pages]}


def _generated(page_id: str, title: str) -> dict[str, Any]:
    return {"id": page_id, "title": title, "kind": "generated", "has_math": False, "summary": "", "toc": []}


def _page_context(site: SiteView, page: ParsedPage, lessons: list[ParsedPage], md: MarkdownIt,
                  jinja) -> dict[str, Any]:
    index = next((i for i, p in enumerate(lessons) if p is page), None)  # O(lessons); cheap next to rendering
    neighbour = (lambda i: {"url": f"{lessons[i].meta.id}.html", "title": lessons[i].meta.title}
                 if index is not None and 0 <= i < len(lessons) else None)
    return {"id": page.meta.id, "title": page.meta.title, "kind": page.meta.kind, "summary": page.meta.summary,
            "label": page.meta.label or page.meta.id, "url": f"{page.meta.id}.html",
            "md_url": f"{page.meta.id}.md", "source_url": f"{page.meta.id}.source.html",
            "zip_url": f"downloads/{page.meta.id}.zip", "has_math": bool(page.math),
            "notebook_url": f"downloads/{page.meta.id}.ipynb" if site.evidence.notebook_setup else "",
            "sections": _sections(page.meta.id, render_page_blocks(site, page, md, jinja)),
            "prev": neighbour(index - 1) if index is not None else None,
            "next": neighbour(index + 1) if index is not None else None,
            "evidence": _evidence_summary(site, page), "own_evidence": has_evidence_heading(page, site.say),
            "toc": page_toc(page, site.teacher, site.say)}


def _sections(page_id: str, blocks: list[dict]) -> list[dict[str, Any]]:
    """Prose runs and steppers: consecutive states form one stepper, prose between states ends it."""
    sections: list[dict[str, Any]] = []
    for block in blocks:
        if block["kind"] == "html":
            if str(block["html"]).strip():
                sections.append(block)
        elif sections and sections[-1]["kind"] == "stepper":
            sections[-1]["states"].append(block["state"])
        else:
            number = sum(s["kind"] == "stepper" for s in sections) + 1
            sections.append({"kind": "stepper", "id": f"{page_id}-steps" + (f"-{number}" if number > 1 else ""),
                             "states": [block["state"]]})
    return sections


def _values_used(site: SiteView, page: ParsedPage) -> list[str]:
    names = [u.target for u in page.roles if u.name == "num" and (site.teacher or not u.teacher)]
    return sorted(set(names) & set(site.evidence.values))


def _evidence_summary(site: SiteView, page: ParsedPage) -> dict[str, Any]:
    """The page footer: what this page shows is measured, recorded or a sketch, and under what conditions."""
    states = [b for b in page.blocks if isinstance(b, StateSource)]
    figures = {s.figure for s in states if s.figure} | {u.target for u in page.roles if u.name == "fig"}
    values = [site.evidence.values[n] for n in _values_used(site, page)]
    producers: dict[str, dict[str, str]] = {}
    for value in values:
        producers.setdefault(value.producer, {"name": value.producer, "provenance": value.provenance,
                                              "badge": site.badge(value.provenance), "command": value.command,
                                              "conditions": value.conditions, "date": value.date})
    counts = {kind: 0 for kind in BADGE_TEXT}
    for figure in figures:
        if figure in site.evidence.figures:
            counts[site.evidence.figures[figure].provenance] += 1
    return {"figure_counts": [{"badge": site.badge(k), "count": n} for k, n in counts.items() if n],
            "producers": sorted(producers.values(), key=lambda p: p["name"]), "value_count": len(values)}


def _bundle(page: ParsedPage, markdown: str, evidence: Evidence) -> dict[str, bytes]:
    files = {f"{page.meta.id}.md": markdown.encode()}
    for use in page.roles:
        value = evidence.values.get(use.target) if use.name == "num" else None
        if value and value.source_file in evidence.experiment_files:
            files[value.source_file] = Path(evidence.experiment_files[value.source_file]).read_bytes()
    return files


def _backlinks(site: SiteView, name: str) -> dict[str, list[dict[str, str]]]:
    """Target → every page and state that cites it with role ``name``: one pass over the site
    (asking page by page for each value made the numbers page grow with values × pages)."""
    seen, uses = set(), {}
    for page in site.pages.values():
        for use in page.roles:
            if use.name == name and (site.teacher or not use.teacher):
                anchor = f"{page.meta.id}-{use.state}" if use.state else ""
                if (use.target, page.meta.id, anchor) not in seen:
                    seen.add((use.target, page.meta.id, anchor))
                    label = page.meta.label or page.meta.title
                    uses.setdefault(use.target, []).append(
                        {"url": f"{page.meta.id}.html" + (f"#{anchor}" if anchor else ""),
                         "text": f"{label} · {use.state}" if use.state else label})
    return uses


def _figures_context(site: SiteView) -> list[dict[str, Any]]:
    """Every figure with its home anchor and the pages that show or cite it."""
    shown: dict[str, list[dict[str, str]]] = {}
    for page in site.pages.values():
        label = page.meta.label or page.meta.title
        for block in page.blocks:
            if isinstance(block, StateSource) and block.figure:
                shown.setdefault(block.figure, []).append(
                    {"url": f"{page.meta.id}.html#{page.meta.id}-{block.id}-fig", "text": f"{label} · {block.title}"})
    cited = _backlinks(site, "fig")
    return [{"figure": figure_context(f, site), "anchor": figure_anchor(f.id),
             "uses": shown.get(f.id, []) + cited.get(f.id, [])}
            for f in sorted(site.evidence.figures.values(), key=lambda f: f.id)]


def _sources_context(site: SiteView) -> list[dict[str, Any]]:
    uses = _backlinks(site, "src")
    return [{"id": s.id, "title": s.title, "authors": s.authors, "year": s.year, "url": s.url,
             "checked": s.checked, "where": s.where, "uses": uses.get(s.id, [])}
            for s in site.content.sources]


def _glossary_context(site: SiteView, md: MarkdownIt) -> list[dict[str, Any]]:
    terms = site.content.glossary
    context = []
    for term in terms:
        cited = dict.fromkeys(page_id for page_id, page in site.pages.items() for r in page.roles
                              if r.name == "term" and find_term(terms, r.target) is term
                              and (site.teacher or not r.teacher))  # each page once, in site order
        pages = [site.pages[page_id] for page_id in cited]
        context.append({"anchor": term.anchor, "term": term.term, "allowed": term.allowed,
                        "forbidden": term.forbidden, "definition": Markup(md.renderInline(term.definition)),
                        "uses": [{"url": f"{p.meta.id}.html", "text": p.meta.label or p.meta.title} for p in pages]})
    return context


def _numbers_context(site: SiteView) -> list[dict[str, Any]]:
    """Values grouped by the experiment or record that produced them, described in the reader's
    language where ``content/values.yml`` says how (else the producer's own English line)."""
    text = site.content.value_text
    uses = _backlinks(site, "num")
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


def copied_files(site: SiteView) -> SiteFiles:
    """Files copied as they are: static assets (scripts and the stylesheet without their comments), figures,
    the published experiment sources and pictures."""
    files: SiteFiles = {}
    for path in sorted(STATIC.rglob("*")):
        if path.is_file() and (site.teacher or path.name not in TEACHER_ONLY):
            rel = f"static/{path.relative_to(STATIC).as_posix()}"
            compact = _COMPACTORS.get(path.suffix)
            files[rel] = compact(path.read_text(encoding="utf-8")).encode() if compact else path
    if site.evidence.figure_dir:
        for figure in site.evidence.figures.values():
            for name in filter(None, (figure.file, figure.dark_file)):
                files[f"figures/{name}"] = Path(site.evidence.figure_dir) / name
    for repo_path, absolute in site.evidence.experiment_files.items():
        files[f"code/{repo_path}"] = Path(absolute)
    for picture in site.images.values():
        files.update(picture.files)
    return files


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def compact_css(source: str) -> str:
    """A style sheet as published: comments, blank lines and indentation dropped (the per-page CSS
    budget; the comments stay in the repository). Our sheets hold no ``/*`` inside a string."""
    lines = (line.strip() for line in _CSS_COMMENT.sub("", source).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


_TRAILING_COMMENT = re.compile(r"\s{2,}// .*$")
"""A comment after code, by the house convention: two spaces, then ``// ``."""


def compact_js(source: str) -> str:
    """A script as published: comment lines, blank lines and indentation dropped (the comments stay in
    the repository, readers' browsers download the code only — the per-page script budget).

    Line-based on purpose: statements keep their own lines, so nothing can change meaning except a
    string holding a line that starts with ``//`` or ``/*``, which our scripts never have.
    """
    lines, in_block = [], False
    for line in source.split("\n"):
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        if text and not text.startswith("//"):
            lines.append(_TRAILING_COMMENT.sub("", text))
    return "\n".join(lines) + "\n"


_COMPACTORS = {".js": compact_js, ".css": compact_css}
"""What each kind of static file loses on its way to readers: comments and indentation."""
