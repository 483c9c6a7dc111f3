"""The build as a pipeline: load → parse → check → resolve → render → write.

``prepare_site`` runs the stages both sites share; ``render_site`` makes one
site's files in memory (each page resolved, then its outputs made: outputs.py);
``write_site`` (writer.py) puts them on disk atomically.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing
import re
import signal
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markdown_it import MarkdownIt

from site_builder.check.images import prepare_images
from site_builder.check.placeholders import placeholder_problems
from site_builder.check.prepared import PreparedSite
from site_builder.check.site import check_site, pointing_warnings
from site_builder.engine import parsed_store
from site_builder.load.content import Content, Evidence, SourceFile
from site_builder.load.frontmatter import split_page
from site_builder.load.loader import load_content
from site_builder.markdown import make_markdown
from site_builder.parse.page import ParsedPage, parse_page
from site_builder.render.html import Rendered, make_environment
from site_builder.render.keys import GENERATED
from site_builder.render.mathfont import formula_characters, math_font_for
from site_builder.render.outputs import SiteFiles, make_kit, render_generated, render_page_files
from site_builder.resolve.resolved import SiteView
from site_builder.vocabulary.problems import ContentError, Problem

STATIC = Path(__file__).parents[1] / "static"
TEACHER_ONLY = frozenset({"present.js", "gallery.css"})
"""Static files only the teacher site loads (presenting, the speaker window, the gallery's layout)."""
EDITIONS_ONLY = frozenset({"editions.js"})
"""Static files only a course in several languages loads (the language switcher keeping the reader's state)."""


Parsed = list[tuple["ParsedPage | None", list[Problem]]]
"""``parse_source``'s result for each page source, in order."""


def prepare_site(root: Path, evidence: Evidence, content_dir: str = "content") -> PreparedSite:
    """Load, parse and check, keeping nothing; raise ``ContentError`` with every problem found."""
    from site_builder.engine.editions import edition_sources, with_editions  # it builds on this module

    content, problems = load_content(root, content_dir)
    if content is None:
        raise ContentError(problems)
    parsed = parse_sources(list(content.pages) + edition_sources(content))
    prepared = check_parsed(content, parsed[:len(content.pages)], problems, evidence)
    return with_editions(prepared, parsed[len(content.pages):])


def parse_sources(sources: list[SourceFile]) -> Parsed:
    with collector_paused():
        return [parsed for parsed, _entry in parse_split(sources)]


PARSE_CHUNK = 10
"""Pages taken at a time by either process parsing a course: the two meet within a chunk of each other, and
Ctrl-C waits for one chunk at most."""


PARALLEL_MIN_PAGES = 64
"""Below this, forking workers costs more than parsing or rendering the pages."""


def _forks(workers: int, pages: int) -> bool:
    """Whether ``pages`` are parsed or rendered with forked workers: more than one allowed, enough pages to pay
    for forking, and a system that forks."""
    return workers > 1 and pages >= PARALLEL_MIN_PAGES and "fork" in multiprocessing.get_all_start_methods()


_FORKED: tuple | None = None
"""What a forked worker works on, inherited through fork: a parsing worker's pages and the bounds it shares with
this process (``parse_split``); a rendering worker's sites, pages wanted per site and template environment
(``_render_forked``: the parsed tokens are never pickled, as unpickling them costs more than parsing; only the
rendered bytes travel back)."""


def parse_split(sources: list[SourceFile], workers: int = 1, entries: bool = False,
                ) -> list[tuple[tuple[ParsedPage | None, list[Problem]], bytes]]:
    """Each source's parse (``parse_source``) and its parsed-page store's entry: for a page a worker parsed, the
    entry it came back as; for a page parsed here, its entry when ``entries`` is asked (a build keeping the store),
    else ``b''``.

    With ``workers`` > 1 and from ``PARALLEL_MIN_PAGES`` pages on, one forked worker parses the pages chunk by
    chunk from the end while this process parses them from the start, until they meet (``_take``): both cores
    parse from the start of a clean build until the pages run out, however long a page takes on either side.
    Then the worker's pages come back, in one message, as the store's JSON (a parse's tokens unpickle slower
    than they parse), and this process reads them back; the store keeps them as they are. A page the worker
    cannot send so (one with problems or warnings, which are rare) is parsed again here.
    """
    md = make_markdown()

    def here(chunk: list[SourceFile]) -> list[tuple[tuple[ParsedPage | None, list[Problem]], bytes]]:
        return [(parsed, parsed_store.entry(parsed) if entries else b"")
                for parsed in (parse_source(source, md) for source in chunk)]

    if not _forks(workers, len(sources)):
        return here(sources)
    context = multiprocessing.get_context("fork")
    bounds = context.Array("q", [0, len(sources)])  # the first page neither took yet, and the one after the last
    # Forked before its first task, with no thread alive here; it leaves Ctrl-C to this process.
    with _forking((sources, bounds)), ProcessPoolExecutor(1, context, signal.signal,
                                                          (signal.SIGINT, signal.SIG_IGN)) as pool:
        try:
            tail = pool.submit(_parse_from_the_end)
            parsed = []
            while span := _take(bounds, front=True):
                parsed += here(sources[span[0]:span[1]])
            parsed += [(parsed_store.read_entry(text) or parse_source(source, md), text)
                       for source, text in zip(sources[len(parsed):], tail.result(), strict=True)]
        except BaseException:  # Ctrl-C or a bug: the worker ends the chunk under way and takes no other
            with bounds.get_lock():
                bounds[1] = bounds[0]
            raise
    return parsed


@contextmanager
def _forking(work: tuple):
    """``work`` as ``_FORKED`` for the workers forked meanwhile; this process lets it go afterwards."""
    global _FORKED
    _FORKED = work
    try:
        yield
    finally:
        _FORKED = None


def _take(bounds: Any, front: bool) -> tuple[int, int] | None:
    """The next ``PARSE_CHUNK`` pages neither process has taken, from the front or from the back of the pages, as
    (start, end); ``None`` once the two have met."""
    with bounds.get_lock():
        low, high = bounds[0], bounds[1]
        if low >= high:
            return None
        if front:
            bounds[0] = min(low + PARSE_CHUNK, high)
            return low, bounds[0]
        bounds[1] = max(high - PARSE_CHUNK, low)
        return bounds[1], high


def _parse_from_the_end() -> list[bytes]:
    """In a parsing worker: the entries (``parsed_store.entry``) of the pages it took, in page order, from where the
    two processes met to the last page."""
    assert _FORKED is not None
    (sources, bounds), md, taken = _FORKED, make_markdown(), []
    while span := _take(bounds, front=False):
        taken.append([parsed_store.entry(parse_source(source, md)) for source in sources[span[0]:span[1]]])
    return [entry for chunk in reversed(taken) for entry in chunk]


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
                 memo: Callable | None = None, shown: Mapping[str, frozenset[str]] | None = None) -> PreparedSite:
    """Check the parsed pages across the site; raise ``ContentError`` with every problem found.
    (``memo``, ``shown``: see ``check_site``.)"""
    problems = problems + [p for _, errors in parsed for p in errors]
    pages = [page for page, _ in parsed if page is not None]
    failed = {source.path: _stem(source.path) for source, (page, _) in zip(content.pages, parsed, strict=True)
              if page is None}
    # A page with problems of its own (a directive or code block left open swallows the states after it): what
    # it defines is not known for sure, so no reference into it is reported; its own problems say why.
    unsure = {page.meta.id for page, errors in parsed if page is not None and errors}
    problems += check_site(content, pages, evidence, memo, content.unlisted - set(shown or ()) | set(failed.values())
                           | unsure, shown)
    images, image_problems = prepare_images(content, pages)
    problems += image_problems
    if problems:  # causes first: the page list, then the pages that failed to load, then what they left out
        raise ContentError(problems, causes=(content.config.path, *failed))
    warnings = tuple(sorted(pointing_warnings(pages))) + tuple(w for page in pages for w in page.warnings) \
        + tuple(p.as_warning() for p in placeholder_problems(content.pages, memo))
    return PreparedSite(content, {p.meta.id: p for p in pages}, evidence, warnings, images)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def render_site(prepared: PreparedSite, teacher: bool, workers: int = 1) -> SiteFiles:
    """Every file of one site (public or teacher), in memory, math font included; pages over ``workers`` processes."""
    files = render_sites(prepared, (teacher,), workers)[teacher]
    return files | math_font_for(formula_characters(files))


def render_sites(prepared: PreparedSite, sites: tuple[bool, ...] = (False, True), workers: int = 1,
                 skip: Mapping[bool, Collection[str]] | None = None,
                 jinja: Environment | None = None) -> dict[bool, SiteFiles]:
    """The files of several sites (``False`` public, ``True`` teacher) in one pass, all but the math font
    (``math_font_for``, once every page's files are known, every edition's: one font at the site's root).

    Each page is rendered for every site by the same process, one site after the other, so what
    the sites share is made once: highlighted code, the prose a page has in both flavours
    (``render_sections``) and the lesson notebook (both sites publish the same one). ``skip`` names, per
    site, pages to leave out (the engine still has their files); ``jinja`` is a template environment a
    long-running process keeps (one is made otherwise).
    """
    skip = skip or {}
    views = {teacher: SiteView(prepared.content, prepared.pages, prepared.evidence, teacher, prepared.images)
             for teacher in sites}
    wanted = {teacher: [p for p in views[teacher].pages if p not in skip.get(teacher, ())] for teacher in sites}
    pages = list(dict.fromkeys(page_id for teacher in sites for page_id in wanted[teacher]))
    jinja = jinja or make_environment()  # one for every site and worker: each template is compiled once
    if _forks(workers, len(pages)):
        files = _render_forked(views, wanted, pages, workers, jinja)
    else:
        files = _render_pages(views, wanted, pages, jinja)
    for teacher, site in views.items():
        if GENERATED not in skip.get(teacher, ()):
            files[teacher].update(render_generated(site, make_kit(site, jinja)))
        files[teacher].update(copied_files(site))
    # Each translation in its folder, made the same way (``skip`` names its pages in it: ``en/alpha``); with
    # templates of its own, since a template's macros (``.module``) keep the catalog of the language installed
    # when they were first used.
    for edition in prepared.editions:
        prefix = edition.content.config.prefix
        its = {teacher: {name.removeprefix(prefix) for name in skip.get(teacher, ()) if name.startswith(prefix)}
               for teacher in sites}
        for teacher, made in render_sites(edition, sites, workers, its).items():
            files[teacher].update({f"{prefix}{rel}": payload for rel, payload in made.items()})
    return files


def _render_pages(views: dict[bool, SiteView], wanted: dict[bool, list[str]], pages: list[str],
                  jinja: Environment) -> dict[bool, SiteFiles]:
    shared: dict[str, bytes] = {}
    kits = {teacher: make_kit(site, jinja, shared) for teacher, site in views.items()}
    wanted_sets = {teacher: set(ids) for teacher, ids in wanted.items()}
    files: dict[bool, SiteFiles] = {teacher: {} for teacher in views}
    for page_id in pages:
        rendered: Rendered = {}  # the page's prose, rendered for the first site, reused where the next has the same
        for teacher, site in views.items():
            if page_id in wanted_sets[teacher]:
                files[teacher].update(render_page_files(site, site.pages[page_id], kits[teacher], rendered))
    return files


def _render_share(page_ids: list[str]) -> dict[bool, SiteFiles]:
    assert _FORKED is not None
    views, wanted, jinja = _FORKED
    return _render_pages(views, wanted, page_ids, jinja)


def _render_forked(views: dict[bool, SiteView], wanted: dict[bool, list[str]], pages: list[str],
                   workers: int, jinja: Environment) -> dict[bool, SiteFiles]:
    # Compiled here, once: a worker would compile each template it uses again, and this process still renders
    # the generated pages with them.
    for name in jinja.list_templates(extensions=("j2",)):
        jinja.get_template(name)
    # Workers leave Ctrl-C to this process, which stops them: one message, not one traceback each.
    with _forking((views, wanted, jinja)), \
            multiprocessing.get_context("fork").Pool(workers, signal.signal, (signal.SIGINT, signal.SIG_IGN)) as pool:
        shares = pool.map(_render_share, [pages[i::workers] for i in range(workers)])
    return {teacher: dict(sorted(item for share in shares for item in share[teacher].items())) for teacher in views}


def copied_files(site: SiteView) -> SiteFiles:
    """Files copied as they are: figures and pictures, and at the site's root (the source language's edition)
    what every edition shares, once: static assets and the published experiment sources (``_shared_files``).
    A translation links those one folder up (``SiteConfig.up``)."""
    files = {} if site.content.config.source_language else _shared_files(site)
    if site.evidence.figure_dir:
        for figure in site.evidence.figures.values():
            for name in filter(None, (figure.file, figure.dark_file)):
                files[f"figures/{name}"] = Path(site.evidence.figure_dir) / name
    for picture in site.pictures:
        files.update(picture.files)
    return files


def _shared_files(site: SiteView) -> SiteFiles:
    """The static assets (scripts and the stylesheet without their comments) and the experiment sources."""
    files: SiteFiles = {}
    for path in sorted(STATIC.rglob("*")):
        if path.is_file() and (site.teacher or path.name not in TEACHER_ONLY) \
                and (site.content.config.translations or path.name not in EDITIONS_ONLY):
            rel = f"static/{path.relative_to(STATIC).as_posix()}"
            files[rel] = _compacted(path.suffix, path.read_text(encoding="utf-8")) if path.suffix in _COMPACTORS \
                else path
    for repo_path, absolute in site.evidence.experiment_files.items():
        files[f"code/{repo_path}"] = Path(absolute)
    return files


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


_CSS_PUNCTUATION = re.compile(r"\s*([{};,])\s*")
"""Spaces around braces, semicolons and commas, which CSS never needs (a space before ``:`` can: ``a :hover``)."""


def compact_css(source: str) -> str:
    """A style sheet as published: comments, blank lines, indentation and the spaces around punctuation dropped
    (the per-page CSS budget; the comments stay in the repository). Our sheets hold no ``/*``, brace, semicolon
    or comma inside a string."""
    lines = (_CSS_PUNCTUATION.sub(r"\1", line.strip()) for line in _CSS_COMMENT.sub("", source).split("\n"))
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


@functools.lru_cache(maxsize=64)
def _compacted(suffix: str, source: str) -> bytes:
    """A static file as published, kept by its text: every build (a dev server's save too) copies the static
    files, and compacting them again cost more than the rest of a one-page save's copying."""
    return _COMPACTORS[suffix](source).encode()
