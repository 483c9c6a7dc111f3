"""What the build engine's store is keyed by: content digests, never modification times.

A page's parse is found under the digest of its source and of the code that parses it; a page's
files under its render key, the digest of everything they are made from. Equal keys, identical
bytes: a cache can only miss, never serve something stale.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.check.refs import split_title
from site_builder.load.content import Evidence
from site_builder.load.files import SETTLED_NS, file_stamp
from site_builder.vocabulary.roles import REFERENCE_ROLES

if TYPE_CHECKING:  # only named: importing the renderer or the parser would slow a build that changes nothing
    from site_builder.parse.page import ParsedPage
    from site_builder.render.html import SiteView

GENERATED = "(generated)"
"""The render key of the generated pages (numbers, sources, figures … ``render_generated``), kept or
rendered like one more page; never a page id."""


def digest(*parts: str | bytes) -> str:
    """sha256 of the parts, each length-prefixed so that ('ab', 'c') and ('a', 'bc') differ."""
    return _hashed(hashlib.sha256(), parts).hexdigest()


def digest_after(*first: str | bytes) -> Callable[..., str]:
    """``digest(*first, *rest)`` as a function of ``rest``: ``first`` is hashed once (a save keys every page)."""
    start = _hashed(hashlib.sha256(), first)
    return lambda *rest: _hashed(start.copy(), rest).hexdigest()


def _hashed(h: hashlib._Hash, parts: Iterable[str | bytes]) -> hashlib._Hash:
    """``h`` with ``parts`` added as ``digest`` adds them."""
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h


def file_digest(path: Path) -> str:
    """sha256 of the file's bytes, kept under its stamp (``file_stamp``, taken before the read) once that has
    settled: a dev server's save hashed every figure, script and style sheet of the site again (a hundred
    files in the real course)."""
    # The clock before the stamp: a change time older than ``settled`` then stands for the bytes read after.
    name, settled = os.fspath(path), time.time_ns() - SETTLED_NS
    stamp, kept = file_stamp(name), _DIGESTS.get(name)
    if stamp and kept and kept[0] == stamp:
        return kept[1]
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if stamp and stamp[2] < settled:
        if len(_DIGESTS) >= 20_000:  # a long session of tests or builds in many folders
            _DIGESTS.clear()
        _DIGESTS[name] = (stamp, found)
    return found


_DIGESTS: dict[str, tuple[list[int], str]] = {}


def file_stamps(folder: Path, files: Iterable[str], recorded: dict[str, list[int] | None],
                changed: Iterable[str]) -> dict[str, list[int] | None]:
    """Each of ``files``' stamp (``file_stamp``): as ``recorded`` for a file not ``changed`` since, taken now for
    the others (set operations: a dev server's save changes a few of thousands)."""
    stamps, wanted, base = dict(recorded), set(files), os.fspath(folder)
    for rel in (stamps.keys() - wanted) | set(changed):
        stamps.pop(rel, None)
    stamps.update((rel, file_stamp(os.path.join(base, rel))) for rel in wanted - stamps.keys())
    return stamps


def tree_digest(*folders: Path) -> str:
    """Hash of the names and bytes of every file under ``folders``."""
    parts: list[str] = []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            parts += [path.relative_to(folder.parent).as_posix(), file_digest(path)]
    return digest(*parts)


LIBRARIES = ("jinja2", "markdown-it-py", "pygments", "latex2mathml", "pagefind-bin", "ziamath", "fonttools")
"""The installed libraries whose versions change what a build makes (each pinned in requirements.txt)."""


@functools.cache
def code_digest() -> str:
    """What parses and renders, across processes: the whole package (templates, static, and the Python
    that highlights code, cuts the TOC, renders maths …), the libraries it works with and Python itself."""
    import importlib.metadata

    versions = [importlib.metadata.version(name) for name in LIBRARIES]
    return digest(tree_digest(Path(__file__).parents[1]), sys.version, *versions)


def evidence_digest(evidence: Evidence) -> str:
    """Hash of the values, figure metadata, published experiment sources and the notebook's package (their
    bytes too)."""
    return digest(repr(sorted(evidence.values.items())), repr(sorted(evidence.figures.items())),
                  evidence.figure_dir, evidence.notebook_setup, evidence.notebook_requirements,
                  *(f"{name}={file_digest(Path(path))}" for name, path in sorted(evidence.experiment_files.items())),
                  *(f"{name}={file_digest(Path(path))}" for name, path in sorted(evidence.notebook_files.items())),
                  *(f"{tag}={evidence_digest(drawn)}" for tag, drawn in sorted(evidence.editions.items())))


def source_key(page: ParsedPage) -> str:
    """What a page's own outputs depend on of its source: front matter and body."""
    return digest(page.meta.path, repr(page.meta), page.source)


@dataclass(frozen=True)
class PageFacts:
    """What the render keys need from one parsed page; computed once per source."""

    outline: str
    """Hash of what other pages may show of this one: title, label, kind, summary, anchors."""
    roles: str
    """Hash of every role the page uses (the generated pages list them as backlinks)."""
    links: tuple[str, ...]
    """Pages whose titles or anchors this page's ``{ref}`` (``{eq}``, ``{numref}``, ``{doc}``, Markdown) links show
    (``#x`` is the page itself); a name no page has is a bare label, which any page may define."""
    shown: str
    """Hash of the states that show a figure (figures.html lists them under each figure)."""
    nav: str
    """What the navigation shows of the page: id, title, label and kind."""


def page_facts(page: ParsedPage) -> PageFacts:
    from site_builder.parse.page import StateSource

    meta = page.meta
    shown = [(b.id, b.title, b.figure) for b in page.blocks if isinstance(b, StateSource) and b.figure]
    targets = [(use.name, split_title(use.target)[1]) for use in page.roles if use.name in REFERENCE_ROLES]
    links = {_linked_page(name, target, meta.id) for name, target in [*targets, *(("ref", t) for t, _ in page.links)]}
    return PageFacts(digest(meta.id, meta.title, meta.label, meta.kind, meta.summary, repr(page.anchors)),
                     digest(repr(page.roles)), tuple(sorted(links)), digest(repr(shown)),
                     f"{meta.id}\0{meta.title}\0{meta.label}\0{meta.kind}")


def _linked_page(name: str, target: str, page_id: str) -> str:
    """The page a reference's target names (for a bare label: the label itself)."""
    if name == "doc":
        return target.removesuffix(".md").rsplit("/", 1)[-1]
    return target.partition("#")[0] or page_id


def render_keys(site: SiteView, looks: str, evidence_key: str, source_key_of: Callable[[ParsedPage], str],
                facts_of: Callable[[ParsedPage], PageFacts],
                memo: dict[tuple[str, ...], str] | None = None) -> tuple[dict[str, str], str]:
    """Each page's render key and the generated pages' key: equal keys, identical files.

    A page's files depend on its source, the navigation (every page's id, title, label and kind,
    which also fixes prev/next), the outlines of the pages its ``{ref}`` links show, the code,
    templates and static files (``looks``), the evidence, the site config, the glossary (its terms'
    hover cards), ``values.yml`` (its evidence footer's group titles), the teacher flag and the teacher-supplied
    pictures.

    ``memo``: each key by the digests it is made of, filled here; a dev server keeps it between saves,
    so a save hashes the keys of the pages whose inputs changed (a key is a function of its inputs).
    """
    memo = {} if memo is None else memo
    base = digest(looks, evidence_key, repr(site.content.config), repr(site.content.glossary),
                  repr(site.content.value_text), str(site.teacher), repr(sorted(site.images.items())))
    facts = {page_id: facts_of(page) for page_id, page in site.pages.items()}
    nav = _memoized(memo, "nav", tuple(f.nav for f in facts.values()))
    keys = {}
    for page_id, page in site.pages.items():
        # The outlines its links show: of the pages it names, or of every page when it names a label.
        links = facts[page_id].links
        shown = [facts[t].outline for t in links] if all(map(facts.__contains__, links)) else \
            [f.outline for f in facts.values()]
        keys[page_id] = _memoized(memo, "page", (base, nav, source_key_of(page), *shown))
    generated = _memoized(memo, "generated", (base, nav, repr(site.content.sources),
                                              *(f.outline + f.roles + f.shown for f in facts.values())))
    return keys, generated


def _memoized(memo: dict[tuple[str, ...], str], kind: str, parts: tuple[str, ...]) -> str:
    """``digest(*parts)``, kept in ``memo`` under ``kind`` and ``parts``."""
    entry = (kind, *parts)
    if entry not in memo:
        memo[entry] = digest(*parts)
    return memo[entry]


def folder_identity(folder: Path) -> tuple[int, int, int] | None:
    """Which directory ``folder`` is now: another build swapping in a site changes it.

    The inode alone is not enough (a deleted folder's inode is soon reused); the
    change time moves whenever entries are added, removed or the folder is renamed.
    """
    try:
        st = folder.stat()
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def files_of_pages(files: Mapping[str, object], keys: dict[str, str], rendered: Iterable[str]) -> dict[str, list[str]]:
    """Each of the ``rendered`` pages' ids (or ``GENERATED``) → the files it made: ``x.html``, ``x.md``,
    ``x.source.html``, ``downloads/x.zip``, ``downloads/x.ipynb``; numbers.html, llms.txt … are the generated
    pages'; a translation's, the same in its folder (``en/x``). Only those rendered: a save renders a few."""
    owned: dict[str, list[str]] = {page_id: [] for page_id in rendered}
    folders = {page_id.rpartition("/")[0] + "/" for page_id in keys if "/" in page_id}
    for rel in files:
        folder = next((f for f in folders if rel.startswith(f)), "")
        inner = rel[len(folder):]
        name = inner.removeprefix("downloads/") if inner.startswith("downloads/") and inner.count("/") == 1 else inner
        owner = next((name[:-len(s)] for s in (".source.html", ".html", ".md", ".zip", ".ipynb")
                      if "/" not in name and name.endswith(s)), "")
        if folder + owner not in keys and "/" not in inner:
            owner = GENERATED
        if folder + owner in owned:
            owned[folder + owner].append(rel)
    return owned
