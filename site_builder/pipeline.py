"""The build as a pipeline: load → parse → check → resolve → render → write.

``prepare_site`` runs the stages both sites share; ``render_site`` makes one
site's files in memory (each page resolved, then its outputs made: outputs.py);
``write_site`` (writer.py) puts them on disk atomically.
"""

from __future__ import annotations

import gc
import multiprocessing
import re
from collections.abc import Callable, Collection, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment
from markdown_it import MarkdownIt

from .check import check_site, pointing_warnings
from .content import Content, Evidence, SourceFile
from .frontmatter import split_page
from .images import Picture, prepare_images
from .load import load_content
from .markdown import make_markdown
from .mathfont import FONT_PATH, math_characters, math_font
from .outputs import make_kit, render_generated, render_page_files
from .parse import ParsedPage, parse_page
from .problems import ContentError, Problem
from .render import make_environment
from .resolve import SiteView

STATIC = Path(__file__).parent / "static"
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


def prepare_site(root: Path, evidence: Evidence, content_dir: str = "content",
                 parse: Callable[[list[SourceFile]], Parsed] | None = None,
                 loaded: tuple[Content, list[Problem]] | tuple = ()) -> PreparedSite:
    """Load, parse and check; raise ``ContentError`` with every problem found.

    ``parse`` may stand in for ``parse_sources`` (a build keeping parsed pages between processes);
    ``loaded`` is ``load_content``'s result when the caller has read the content already.
    """
    content, problems = loaded or load_content(root, content_dir)
    if content is None:
        raise ContentError(problems)
    return check_parsed(content, (parse or parse_sources)(list(content.pages)), problems, evidence)


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

    Depends on nothing but the source, so a long-running build may cache it by the source's hash.
    """
    split, problems = split_page(source)
    if split is None:
        return None, problems
    page, errors = parse_page(split, md)
    return page, problems + errors


def check_parsed(content: Content, parsed: list[tuple[ParsedPage | None, list[Problem]]],
                 problems: list[Problem], evidence: Evidence, known: dict | None = None) -> PreparedSite:
    """Check the parsed pages across the site; raise ``ContentError`` with every problem found.
    (``known``: see ``check_site``.)"""
    problems = problems + [p for _, errors in parsed for p in errors]
    pages = [page for page, _ in parsed if page is not None]
    problems += check_site(content, pages, evidence, known)
    images, image_problems = prepare_images(content, pages)
    problems += image_problems
    if problems:
        raise ContentError(problems)
    warnings = tuple(sorted(pointing_warnings(pages))) + tuple(w for page in pages for w in page.warnings)
    return PreparedSite(content, {p.meta.id: p for p in pages}, evidence, warnings, images)


PARALLEL_MIN_PAGES = 64
"""Below this, forking workers costs more than rendering the pages."""


def render_site(prepared: PreparedSite, teacher: bool, workers: int = 1, skip: Collection[str] = ()) -> SiteFiles:
    """Every file of one site (public or teacher), in memory; pages over ``workers`` processes.

    Pages named in ``skip`` are left out (a caller that still has their files from an earlier build);
    such a caller adds the math font itself (``math_font_file``) once those pages' files are back,
    since the font must hold the characters of every page.
    """
    return render_sites(prepared, (teacher,), workers, {teacher: skip})[teacher]


def render_sites(prepared: PreparedSite, sites: tuple[bool, ...] = (False, True), workers: int = 1,
                 skip: Mapping[bool, Collection[str]] | None = None) -> dict[bool, SiteFiles]:
    """The files of several sites (``False`` public, ``True`` teacher) in one pass, as ``render_site`` each.

    Each page is rendered for every site by the same process, one site after the other, so what
    the sites share is made once: highlighted code and the lesson notebook (both sites publish
    the same one). ``skip`` names, per site, pages to leave out.
    """
    skip = skip or {}
    views = {teacher: SiteView(prepared.content, prepared.pages, prepared.evidence, teacher, prepared.images)
             for teacher in sites}
    wanted = {teacher: [p for p in views[teacher].pages if p not in skip.get(teacher, ())] for teacher in sites}
    pages = list(dict.fromkeys(page_id for teacher in sites for page_id in wanted[teacher]))
    jinja = make_environment()  # one for every site and worker: each template is compiled once
    if workers > 1 and len(pages) >= PARALLEL_MIN_PAGES and "fork" in multiprocessing.get_all_start_methods():
        files = _render_forked(views, wanted, pages, workers, jinja)
    else:
        files = _render_pages(views, wanted, pages, jinja)
    for teacher, site in views.items():
        if GENERATED not in skip.get(teacher, ()):
            files[teacher].update(render_generated(site, make_kit(site, jinja)))
        files[teacher].update(copied_files(site))
        if not skip.get(teacher):
            files[teacher].update(math_font_file(files[teacher]))
    return files


GENERATED = "(generated)"
"""In ``skip``: the generated pages (numbers, sources, figures … ``render_generated``); never a page id."""


def math_font_file(files: SiteFiles) -> SiteFiles:
    """The math font cut to the characters this site's formulas use (mathfont.py); nothing when
    no page has maths (the committed full subset is copied but never linked)."""
    return math_font_for(formula_characters(files))


def math_font_for(formulas: Mapping[str, str]) -> SiteFiles:
    """``math_font_file`` from each HTML file's formula characters (``formula_characters``)."""
    chars = "".join(sorted(set("".join(formulas.values()))))
    return {FONT_PATH: math_font(chars)} if chars else {}


def formula_characters(files: SiteFiles, known: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each HTML file's formula characters (``math_characters``); ``known`` has them for files read before."""
    known = known or {}
    return {name: known[name] if name in known else
            math_characters([(data if isinstance(data, bytes) else data.read_bytes()).decode()])
            for name, data in files.items() if name.endswith(".html")}


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
"""What a forked worker renders (sites, pages wanted per site, the template environment): inherited through fork, so the parsed
tokens are never pickled (unpickling them costs more than parsing); only the rendered bytes travel back."""


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
    for picture in site.pictures:
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
