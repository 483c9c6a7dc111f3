"""Incremental builds for the dev server: after a save, render and write only what changed.

A long-running process (``python build.py serve``) keeps, between builds:

- each page's parse result, keyed by the hash of its source file;
- each page's rendered files, keyed by a hash of everything they depend on:
  the page's source, the navigation (every page's id, title, label and kind,
  which also fixes prev/next), the titles and anchors of the pages it links to
  with ``{ref}``, the evidence, the templates and static files, the site
  config and the teacher flag;
- the generated pages (numbers, sources, figures, 404, llms.txt), keyed by the
  outline of every page (titles, anchors, roles, states showing a figure), the
  sources, ``content/values.yml``, the evidence …;
- what the output folder holds, so a save writes only the files that changed
  (``update_in_place``; the first build, or a folder changed by someone else,
  is written whole with ``write_site``);
- each page's file identity and text (``load_content(known=…)``) and each
  file's formula characters, so a save reads and scans only what changed.

Every key is a content hash, never a modification time, so a cache can only
miss, never serve something stale. The output is byte-identical to a full
``render_site`` of the same content (tests/test_incremental.py checks this).
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment

from .content import Evidence, SourceFile
from .load import load_content
from .markdown import make_markdown
from .parse import ParsedPage, StateSource
from .pipeline import (GENERATED, STATIC, PreparedSite, SiteFiles, check_parsed, copied_files, formula_characters,
                       make_kit, math_font_for, parse_source, render_generated, render_page_files, render_site)
from .problems import ContentError, Problem
from .render import TEMPLATES, SiteView, make_environment
from .writer import update_in_place, write_site


@dataclass(frozen=True)
class BuildReport:
    """What one incremental build did."""

    changed_urls: tuple[str, ...]
    """Site-relative paths (``alpha.html``) of the HTML pages an open browser tab should reload."""
    changed_files: tuple[str, ...]
    """Every output file that was written anew (added, changed) or removed."""
    rendered: tuple[str, ...]
    """Ids of the pages rendered this time (the others came from the cache)."""
    pages: int
    """Number of pages in the site."""
    seconds: float
    """Wall-clock time of the build, writing included."""
    warnings: tuple[Problem, ...] = ()
    """Likely mistakes that did not stop the build."""


def digest(*parts: str | bytes) -> str:
    """sha256 of the parts, each length-prefixed so that ('ab', 'c') and ('a', 'bc') differ."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_digest(*folders: Path) -> str:
    """Hash of the names and bytes of every file under ``folders`` (templates, static)."""
    parts: list[str] = []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            parts += [path.relative_to(folder.parent).as_posix(), file_digest(path)]
    return digest(*parts)


def evidence_digest(evidence: Evidence) -> str:
    """Hash of the values, figure metadata and published experiment sources (their bytes too)."""
    return digest(repr(sorted(evidence.values.items())), repr(sorted(evidence.figures.items())),
                  evidence.figure_dir, evidence.notebook_setup,
                  *(f"{name}={file_digest(Path(path))}" for name, path in sorted(evidence.experiment_files.items())))


def page_outline(page: ParsedPage) -> str:
    """Hash of what other pages may show of this one: title, label, kind, summary, anchors."""
    meta = page.meta
    return digest(meta.id, meta.title, meta.label, meta.kind, meta.summary, repr(page.anchors))


def linked_pages(page: ParsedPage) -> tuple[str, ...]:
    """Pages whose titles or anchors this page's ``{ref}`` links show (``#x`` is the page itself)."""
    return tuple(sorted({use.target.partition("#")[0] or page.meta.id for use in page.roles if use.name == "ref"}))


@dataclass(frozen=True)
class _PageFacts:
    """What the keys need from one parsed page; computed once per source text."""

    outline: str
    """``page_outline`` of the page."""
    roles: str
    """Hash of every role and state figure the page uses (the generated pages list them as backlinks)."""
    links: tuple[str, ...]
    """``linked_pages`` of the page."""
    shown: str = ""
    """Hash of the states that show a figure (figures.html lists them under each figure)."""


def page_facts(page: ParsedPage) -> _PageFacts:
    shown = [(b.id, b.title, b.figure) for b in page.blocks if isinstance(b, StateSource) and b.figure]
    return _PageFacts(page_outline(page), digest(repr(page.roles)), linked_pages(page), digest(repr(shown)))


def source_key(page: ParsedPage) -> str:
    """What a page's own files depend on of its source: front matter and body."""
    return digest(page.meta.path, repr(page.meta), page.source)


def render_keys(site: SiteView, looks: str, evidence_key: str, source_key_of: Callable[[ParsedPage], str],
                facts_of: Callable[[ParsedPage], _PageFacts]) -> tuple[dict[str, str], str]:
    """Each page's render key and the generated pages' key: equal keys, identical files.

    A page's files depend on its source, the navigation (every page's id, title, label and kind,
    which also fixes prev/next), the outlines of the pages its ``{ref}`` links show, the
    templates and static files (``looks``), the evidence, the site config, the glossary (its terms'
    hover cards), the teacher flag and the teacher-supplied pictures.
    """
    base = digest(looks, evidence_key, repr(site.content.config), repr(site.content.glossary), str(site.teacher),
                  repr(sorted(site.images.items())))
    facts = {page_id: facts_of(page) for page_id, page in site.pages.items()}
    nav = digest(*(f"{p.meta.id}\0{p.meta.title}\0{p.meta.label}\0{p.meta.kind}" for p in site.pages.values()))
    keys = {page_id: digest(base, nav, source_key_of(page), *(facts[t].outline for t in facts[page_id].links
                                                               if t in facts))
            for page_id, page in site.pages.items()}
    generated = digest(base, nav, repr(site.content.sources), repr(site.content.value_text),
                       *(f.outline + f.roles + f.shown for f in facts.values()))
    return keys, generated


def figures_shown(page: ParsedPage) -> set[str]:
    """Figure ids a page shows (state figures and ``{fig}``), for reloading it when one is redrawn."""
    states = {b.figure for b in page.blocks if isinstance(b, StateSource) and b.figure}
    return states | {use.target for use in page.roles if use.name == "fig"}


class IncrementalSite:
    """One site (public or teacher) rebuilt after each save; holds the caches between builds.

    Mutable on purpose: it lives as long as the dev server and exists to remember.
    Not thread-safe; the server runs builds one at a time.
    """

    def __init__(self, root: Path, out_dir: Path, teacher: bool, content_dir: str = "content",
                 finish: Callable[[Path], None] | None = None) -> None:
        self.root, self.out_dir, self.teacher, self.content_dir = root, out_dir, teacher, content_dir
        self.finish = finish
        self._md = make_markdown()
        self._parsed: dict[str, tuple[ParsedPage | None, list[Problem]]] = {}
        self._source_keys: dict[str, str] = {}
        self._page_facts: dict[str, _PageFacts] = {}
        self._pages: dict[str, tuple[str, SiteFiles]] = {}
        self._generated: tuple[str, SiteFiles] | None = None
        self._jinja: tuple[str, Environment] | None = None
        self._evidence: tuple[Evidence, str] | None = None
        self._written: dict[str, bytes | str] = {}
        self._sources: dict = {}
        """Page files read before, by path (see ``load_content``'s ``known``)."""
        self._checked: dict = {}
        """Each page's problems, for ``check_site``."""
        self._formulas: dict[str, tuple[bytes | Path, str]] = {}
        """HTML file → (its bytes as last built, its formula characters)."""
        self._out_identity: tuple[int, int, int] | None = None
        self.prepared: PreparedSite | None = None
        """The site of the build being written (for ``finish``, e.g. a search index), then of the last one."""

    def build(self, evidence: Evidence) -> BuildReport:
        """Load, parse (cached), check, render (cached) and write; raise ``ContentError`` on problems.

        On any error the output folder and the caches of the last good build stay as they were
        (a parse cached during a failed build is still a correct parse of that source).
        """
        started = time.perf_counter()
        content, problems = load_content(self.root, self.content_dir, self._sources)
        if content is None:
            raise ContentError(problems)
        prepared = check_parsed(content, self._parse_all(content.pages), problems, evidence, self._checked)
        site = SiteView(prepared.content, prepared.pages, evidence, self.teacher, prepared.images)
        looks = tree_digest(TEMPLATES, STATIC)
        kit = make_kit(site, self._environment(looks))
        keys, generated_key = render_keys(site, looks, self._evidence_digest(evidence),
                                          lambda page: self._source_keys[page.meta.path], self._facts)
        files: SiteFiles = {}
        rendered: list[str] = []
        pages: dict[str, tuple[str, SiteFiles]] = {}
        for page_id, page in site.pages.items():
            cached = self._pages.get(page_id)
            if cached is None or cached[0] != keys[page_id]:
                cached = (keys[page_id], render_page_files(site, page, kit))
                rendered.append(page_id)
            pages[page_id] = cached
            files.update(cached[1])
        generated = self._generated
        if generated is None or generated[0] != generated_key:
            generated = (generated_key, render_generated(site, kit))
        files.update(generated[1])
        files.update(copied_files(site))
        # Formula characters of a file whose bytes are the very object the last build had are not read again.
        formulas = formula_characters(files, {rel: chars for rel, (payload, chars) in self._formulas.items()
                                              if files.get(rel) is payload})
        self._formulas = {rel: (files[rel], chars) for rel, chars in formulas.items()}
        files.update(math_font_for(formulas))
        self.prepared = prepared
        changed = self._write(files)
        self._pages, self._generated = pages, generated
        return BuildReport(_urls_to_reload(changed, site), tuple(sorted(changed)), tuple(rendered),
                           len(site.pages), time.perf_counter() - started, prepared.warnings)

    def _parse_all(self, sources: Iterable[SourceFile]) -> list[tuple[ParsedPage | None, list[Problem]]]:
        # Only this build's sources stay cached, so a long editing session does not pile up parses.
        kept: dict[str, tuple[ParsedPage | None, list[Problem]]] = {}
        for source in sources:
            key = digest(source.path, source.text)
            self._source_keys[source.path] = key
            kept[key] = self._parsed.get(key) or parse_source(source, self._md)
        self._parsed = kept
        self._page_facts = {k: v for k, v in self._page_facts.items() if k in kept}
        return [kept[self._source_keys[source.path]] for source in sources]

    def _facts(self, page: ParsedPage) -> _PageFacts:
        key = self._source_keys[page.meta.path]
        if key not in self._page_facts:
            self._page_facts[key] = page_facts(page)
        return self._page_facts[key]

    def _environment(self, looks: str) -> Environment:
        # A fresh environment when any template changed: Jinja's own reload check uses mtimes.
        if self._jinja is None or self._jinja[0] != looks:
            self._jinja = (looks, make_environment())
        return self._jinja[1]

    def _evidence_digest(self, evidence: Evidence) -> str:
        if self._evidence is None or self._evidence[0] is not evidence:
            self._evidence = (evidence, evidence_digest(evidence))
        return self._evidence[1]

    def _write(self, files: SiteFiles) -> set[str]:
        """Write the site: into the folder of the last build, only what changed (in place); otherwise
        a whole new site swapped in, linking what the folder holds. Returns the changed paths."""
        now: dict[str, bytes | str] = {rel: file_digest(p) if isinstance(p, Path) else p for rel, p in files.items()}
        trusted = self._out_identity is not None and self._out_identity == folder_identity(self.out_dir)
        previous = self._written if trusted else {}
        unchanged = {rel for rel, held in now.items() if rel in previous and _same(previous[rel], held)}
        changed = (set(now) - unchanged) | (set(previous) - set(now))
        if trusted:
            update_in_place(files, changed, self.out_dir)
        else:
            write_site(files, self.out_dir, finish=self.finish, reuse=unchanged, delete_later=True)
        self._written, self._out_identity = now, folder_identity(self.out_dir)
        return changed


def _same(a: bytes | str, b: bytes | str) -> bool:
    return a is b or a == b  # `is`: a page served from the cache is the very same bytes object


def folder_identity(folder: Path) -> tuple[int, int, int] | None:
    """Which directory ``folder`` is now: another build swapping in a site changes it.

    The inode alone is not enough (a deleted folder's inode is soon reused); the
    change time moves whenever entries are added, removed or the folder is renamed.
    This is an identity check on our own output, not a cache key.
    """
    try:
        st = folder.stat()
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def _urls_to_reload(changed: set[str], site: SiteView) -> tuple[str, ...]:
    """Changed HTML pages, pages showing a redrawn figure, and every page when CSS or JS changed."""
    html = {rel for rel in changed if rel.endswith(".html")}
    if any(rel.startswith("static/") for rel in changed):
        html |= {f"{page_id}.html" for page_id in site.pages} | {"numbers.html", "sources.html", "glossary.html",
                                                                  "figures.html"}
    files = {name: f.id for f in site.evidence.figures.values() for name in (f.file, f.dark_file) if name}
    redrawn = {files[rel.removeprefix("figures/")] for rel in changed
               if rel.startswith("figures/") and rel.removeprefix("figures/") in files}
    if redrawn:
        html |= {f"{page_id}.html" for page_id, page in site.pages.items() if figures_shown(page) & redrawn}
        html.add("figures.html")
    return tuple(sorted(html))


# ----------------------------------------------------------- across processes --
@dataclass(frozen=True)
class Reuse:
    """What the last build into one output folder left that this build may take over (``plan_reuse``)."""

    out_dir: Path
    state_file: Path
    keys: dict[str, str]
    """Each page's render key in this build."""
    kept: frozenset[str]
    """Pages whose key is unchanged and whose files are all still in ``out_dir``: not rendered again."""
    old_pages: dict
    """Page id → [render key, its files] as the last build recorded them (empty when not trusted)."""
    old_files: dict
    """File → sha256 as the last build wrote it (empty when not trusted)."""
    old_formulas: dict
    """HTML file → its formula characters, as the last build wrote it (empty when not trusted)."""


def plan_reuse(prepared: PreparedSite, teacher: bool, out_dir: Path, state_file: Path) -> Reuse:
    """Which pages of one site need rendering, from what the last build into ``out_dir`` recorded.

    ``state_file`` remembers, from the last build that wrote ``out_dir``: each page's render key
    and files, and the sha256 of every file written. The state is trusted only while ``out_dir``
    is the very folder that build swapped in (see ``folder_identity``); otherwise every page is
    rendered and every file written, so the result is always the bytes a clean build writes.
    """
    state = _load_state(state_file)
    trusted = bool(state) and state.get("identity") == list(folder_identity(out_dir) or ())
    site = SiteView(prepared.content, prepared.pages, prepared.evidence, teacher, prepared.images)
    keys, generated = render_keys(site, code_digest(), evidence_digest(prepared.evidence), source_key, page_facts)
    keys[GENERATED] = generated  # the generated pages are kept, or not, like one more page
    old_pages = state.get("pages", {}) if trusted else {}
    kept = frozenset(page_id for page_id, key in keys.items()
                     if page_id in old_pages and old_pages[page_id][0] == key
                     and all((out_dir / rel).is_file() for rel in old_pages[page_id][1]))
    return Reuse(out_dir, state_file, keys, kept, old_pages, state.get("files", {}) if trusted else {},
                 state.get("formulas", {}) if trusted else {})


def write_planned(files: SiteFiles, plan: Reuse, finish: Callable[[Path], None] | None = None,
                  store: Path | None = None) -> tuple[int, int]:
    """Write one site from the files rendered for the pages ``plan`` did not keep: the kept pages'
    files come from the output folder, and every file whose bytes are unchanged is hard-linked
    instead of written. Records the new state. Returns (pages rendered, files written)."""
    import json

    files = dict(files)
    kept_files = {rel for page_id in plan.kept for rel in plan.old_pages[page_id][1]}
    for rel in kept_files:
        files[rel] = plan.out_dir / rel
    # The math font holds the characters of every page's formulas, kept pages' included (as recorded).
    formulas = formula_characters(files, {rel: plan.old_formulas.get(rel, "") for rel in kept_files})
    files.update(math_font_for(formulas))
    sums = {rel: plan.old_files[rel] if rel in kept_files and rel in plan.old_files else _sum(payload)
            for rel, payload in files.items()}
    reuse = {rel for rel, value in sums.items() if plan.old_files.get(rel) == value}
    write_site(files, plan.out_dir, finish=finish, reuse=reuse, store=store)
    page_files: dict[str, list[str]] = {page_id: [] for page_id in plan.keys}
    for rel in files:
        owner = _owner(rel)
        if owner not in plan.keys and "/" not in rel:
            owner = GENERATED  # numbers.html, llms.txt …: what render_generated makes
        if owner in page_files:
            page_files[owner].append(rel)
    plan.state_file.parent.mkdir(parents=True, exist_ok=True)
    scratch = plan.state_file.with_name(f"{plan.state_file.name}.{os.getpid()}")
    scratch.write_text(json.dumps({"identity": list(folder_identity(plan.out_dir) or ()), "files": sums,
                                   "formulas": {rel: chars for rel, chars in formulas.items() if chars},
                                   "pages": {p: [plan.keys[p], sorted(page_files[p])] for p in plan.keys}}),
                       encoding="utf-8")
    os.replace(scratch, plan.state_file)
    return sum(1 for p in plan.keys if p not in plan.kept and p != GENERATED), len(files) - len(reuse)


def write_reusing(prepared: PreparedSite, teacher: bool, out_dir: Path, state_file: Path, workers: int = 1,
                  finish: Callable[[Path], None] | None = None, store: Path | None = None) -> tuple[int, int]:
    """Render and write one site like ``write_site(render_site(...))``, reusing the last build's work
    (``plan_reuse``, then ``write_planned``). Returns (pages rendered, files written)."""
    plan = plan_reuse(prepared, teacher, out_dir, state_file)
    return write_planned(render_site(prepared, teacher, workers=workers, skip=plan.kept), plan, finish, store)


class ParseCache:
    """Parsed pages kept between build processes, in one file: each page pickled under the hash of
    its source and of the code that parses it, so a stale parse can never be found.

    Loading a pickled page costs a third of parsing it (with the garbage collector paused, as
    while parsing). ``save`` rewrites the file when a page was parsed anew, keeping only the pages
    of this build's sources. One file, not one per page: creating a thousand files cost more on
    ext4 than writing the same bytes once.
    """

    def __init__(self, file: Path) -> None:
        self.file = file
        self.new: dict[str, tuple[ParsedPage | None, list[Problem]]] = {}
        self.kept: dict[str, bytes] = {}

    def parse(self, sources: list[SourceFile]):
        import pickle

        from .pipeline import collector_paused

        held = self._held()
        md = None
        parsed = []
        with collector_paused():
            for source in sources:
                key = digest(code_digest(), source.path, source.text)
                try:
                    parsed.append(pickle.loads(held[key]))
                    self.kept[key] = held[key]
                    continue
                except (KeyError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError):
                    pass  # not there, or unreadable: parse it (and store it again)
                md = md or make_markdown()
                parsed.append(parse_source(source, md))
                self.new[key] = parsed[-1]
        self._stale = len(held) != len(self.kept)
        return parsed

    def save(self) -> None:
        import pickle

        if not self.new and not self._stale:
            return
        pages = {**self.kept, **{key: pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)
                                 for key, page in self.new.items()}}
        self.file.parent.mkdir(parents=True, exist_ok=True)
        scratch = self.file.with_name(f"{self.file.name}.{os.getpid()}")
        scratch.write_bytes(pickle.dumps(pages, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(scratch, self.file)

    def _held(self) -> dict[str, bytes]:
        import pickle

        try:
            held = pickle.loads(self.file.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, ValueError):
            return {}
        return held if isinstance(held, dict) else {}


@functools.cache
def code_digest() -> str:
    """What renders a page, across processes: the whole package (templates, static, and the Python
    that highlights code, cuts the TOC, renders maths …) and the libraries it renders with."""
    import importlib.metadata

    versions = [importlib.metadata.version(name) for name in ("jinja2", "markdown-it-py", "pygments", "latex2mathml")]
    return digest(tree_digest(Path(__file__).parent), *versions)


def _owner(rel: str) -> str:
    """The page an output file belongs to: ``x.html``, ``x.md``, ``x.source.html``, ``downloads/x.zip``,
    ``downloads/x.ipynb``."""
    name = rel.removeprefix("downloads/") if rel.startswith("downloads/") and rel.count("/") == 1 else rel
    if "/" in name:
        return ""
    for suffix in (".source.html", ".html", ".md", ".zip", ".ipynb"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return ""


def _sum(payload: bytes | Path) -> str:
    return hashlib.sha256(payload.read_bytes() if isinstance(payload, Path) else payload).hexdigest()


def _load_state(path: Path) -> dict:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
