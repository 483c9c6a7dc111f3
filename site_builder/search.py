"""The search stage: a Pagefind index of the public site, fed from the parsed pages.

Chinese has no spaces between words, and Pagefind segments it one way when it
indexes (a dictionary) and another in the browser (``Intl.Segmenter``, or one
character at a time), so a word could be indexed whole and searched in pieces:
缓存 then matched every page with 存, and 字节 matched "第 5 节". Here index
and query are cut the same, simple way: every run of Chinese characters becomes
its overlapping character pairs (键值缓存 → 键值 值缓 缓存), everything else stays
as it is, and Pagefind is told the text is space-separated (``force_language``
``en``: no segmentation of its own). ``static/search.js`` cuts the query with the
same rule, so a word matches exactly the pages that contain it, in order; a
quoted phrase asks Pagefind for those pairs consecutively; a word that occurs
nowhere has a pair that occurs nowhere and finds nothing. search.js joins the
pairs back into text for titles and excerpts.

The text comes from what the build already has — each page's Markdown with
teacher notes removed and roles resolved, its headings and states as anchored
headings (so a result can land on the right state), the values and sources for
the two generated pages — never from reading the written HTML back. Pagefind
runs as its own process through its Python API while the sites are rendered
(``start_index`` forks before rendering starts). The index is a function of
those documents and Pagefind's version, and is kept in the build cache under
their digest: a build whose searchable text did not change reuses it whole.
Pagefind cannot add to or remove from an index it has written, so any change
re-indexes every page (about 1 ms per page in Pagefind's own process).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import html
import importlib.metadata
import multiprocessing
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .markdown_out import role_text, ROLE
from .numbers import display
from .parse import ParsedPage

LANGUAGE = "en"
"""What Pagefind is told: split on spaces, no segmenter of its own (the text arrives cut into pairs)."""
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\u2018-\u201f\u2026\u2014"
_PIECES = re.compile(f"([{_CJK}]+)|([{_CJK_PUNCT}])")
_UNUSED_UI = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
              "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
"""Pagefind's ready-made interfaces: the site has its own search box (static/search.js)."""
KEEP_BUNDLES = 3
"""Indexes kept in the cache (the current one and a couple to switch back to)."""


class SearchIndexError(RuntimeError):
    """Pagefind is missing or failed."""


def search_terms(text: str) -> str:
    """``text`` as Pagefind should index it: Chinese runs as overlapping pairs, punctuation apart.

    static/search.js ``terms()`` is the same rule for queries; tests keep the two in step.
    """
    def piece(match: re.Match) -> str:
        run = match.group(1)
        if run is None:
            return f" {match.group(2)} "
        return " " + (run if len(run) == 1 else " ".join(run[i:i + 2] for i in range(len(run) - 1))) + " "

    return " ".join(_PIECES.sub(piece, text).split())


# ------------------------------------------------------------------ documents --
_FENCE = re.compile(r"^\s*(```|~~~|:{3,})")
_OPTION = re.compile(r"^\s*:(\w+):\s*(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[*_`$|>]+|^\s*(?:[-+*]|\d+[.)])\s+|^\s*-{3,}\s*$")


_TITLE = ' data-pagefind-weight="10"'
"""A word in a page's title outranks the same word in its text (Pagefind's highest weight)."""


def page_document(page: ParsedPage, evidence, titles: dict[str, str]) -> str:
    """One page's search document: its title, its public text, and an anchored heading per heading or state."""
    lines = page.source.split("\n")
    hidden = {n for start, end in page.teacher_spans for n in range(start, end)}
    headings = {line: (anchor, title) for anchor, line, title in page.anchors}
    resolve = functools.partial(ROLE.sub, lambda m: role_text(m.group(1), m.group(2).strip(), evidence, titles))
    out = [f"<h1{_TITLE}>{_text(page.meta.title)}</h1>"]
    if page.meta.summary:
        out.append(f"<p>{_text(resolve(page.meta.summary))}</p>")
    for number, line in enumerate(lines):
        if number in hidden:
            continue
        heading = headings.get(number + 1)
        if heading is not None:
            anchor, title = heading
            out.append(f'<h2 id="{html.escape(anchor)}">{_text(resolve(title))}</h2>')
            continue
        if _FENCE.match(line) or _HEADING.match(line):
            continue
        option = _OPTION.match(line)
        if option:
            if option.group(1) != "caption":
                continue
            line = option.group(2)
        text = _MARKUP.sub(lambda m: m.group(1) or " ", resolve(line)).strip()
        if text:
            out.append(f"<p>{_text(text)}</p>")
    return _document(out)


_REFERENCE = ' data-pagefind-weight="0.25"'
_REFERENCE_HEADING = ' data-pagefind-weight="1"'
"""The reference pages (numbers, sources) list names, configurations and paper titles verbatim:
a word there ranks below the same word in a lesson's title or text."""


def values_document(values: Iterable) -> str:
    """numbers.html: each value's name, displayed value, description and conditions."""
    out = ["<h1>" + _text("数值与出处") + "</h1>"]
    for v in sorted(values, key=lambda v: v.name):
        out.append(f'<h2 id="{html.escape(v.name)}-title"{_REFERENCE_HEADING}>{_text(f"{v.name} = {display(v)}")}</h2>')
        out.append(f"<p{_REFERENCE}>{_text(' '.join(x for x in (v.description, v.conditions, v.command) if x))}</p>")
    return _document(out)


def sources_document(sources: Iterable) -> str:
    """sources.html: each source's id, title, authors and what was checked where."""
    out = ["<h1>" + _text("来源") + "</h1>"]
    for s in sources:
        out.append(f'<h2 id="{html.escape(s.id)}-title"{_REFERENCE_HEADING}>{_text(f"{s.id} {s.title}")}</h2>')
        out.append(f"<p{_REFERENCE}>{_text(' '.join(str(x) for x in (s.authors, s.year, s.checked, s.where) if x))}</p>")
    return _document(out)


def site_documents(prepared) -> dict[str, str]:
    """URL → search document for every indexed page of the public site, in site order."""
    titles = {page_id: p.meta.title for page_id, p in prepared.pages.items()}
    docs = {f"{page_id}.html": page_document(page, prepared.evidence, titles)
            for page_id, page in prepared.pages.items()}
    docs["numbers.html"] = values_document(prepared.evidence.values.values())
    docs["sources.html"] = sources_document(prepared.content.sources)
    return docs


def _text(text: str) -> str:
    return html.escape(search_terms(text), quote=False)


def _document(parts: list[str]) -> str:
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><main data-pagefind-body>'
            + "".join(parts) + "</main></body></html>")


# -------------------------------------------------------------------- indexing --
def documents_digest(documents: dict[str, str]) -> str:
    digest = hashlib.sha256(f"{_pagefind_version()}\0{LANGUAGE}\0".encode())
    for url, document in documents.items():
        digest.update(url.encode() + b"\0" + document.encode() + b"\0")
    return digest.hexdigest()


def index_documents(documents: dict[str, str], cache: Path) -> Path:
    """The Pagefind bundle for ``documents``: from ``cache`` when it holds one for the same digest,
    else built and stored there. Returns the bundle folder."""
    bundle = Path(cache) / documents_digest(documents)
    if (bundle / "pagefind.js").is_file():
        return bundle
    Path(cache).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="index-", dir=cache))
    try:
        asyncio.run(_run_pagefind(documents, scratch / "pagefind"))
        for name in _UNUSED_UI:
            (scratch / "pagefind" / name).unlink(missing_ok=True)
        try:
            os.rename(scratch / "pagefind", bundle)
        except OSError:  # another build stored the same bundle meanwhile
            if not (bundle / "pagefind.js").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _prune(Path(cache), keep=bundle)
    return bundle


async def _run_pagefind(documents: dict[str, str], out: Path) -> None:
    try:
        from pagefind.index import PagefindIndex
    except ImportError as error:
        raise SearchIndexError("the pagefind package is not installed: pip install 'pagefind[extended]==1.5.2'") \
            from error
    try:
        async with PagefindIndex({"force_language": LANGUAGE, "output_path": str(out)}) as index:
            for url, document in documents.items():
                await index.add_html_file(content=document, url=url)
    except SearchIndexError:
        raise
    except Exception as error:
        raise SearchIndexError(f"pagefind failed: {error}") from error
    if not (out / "pagefind.js").is_file():
        raise SearchIndexError(f"pagefind wrote no index into {out}")


def _prune(cache: Path, keep: Path) -> None:
    bundles = sorted((p for p in cache.iterdir() if p.is_dir() and not p.name.startswith("index-")),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    os.utime(keep)
    for old in [b for b in bundles if b != keep][KEEP_BUNDLES - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def place_bundle(bundle: Path, site_dir: Path) -> None:
    """Put the bundle into ``site_dir/pagefind`` as hard links (its files are never written again)."""
    shutil.copytree(bundle, Path(site_dir) / "pagefind", copy_function=_link_or_copy)


def index_site(prepared, site_dir: Path, cache: Path | None = None) -> None:
    """Index ``prepared``'s public pages into ``site_dir/pagefind`` (in this process)."""
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="search-") as scratch:
            place_bundle(index_documents(site_documents(prepared), Path(scratch)), site_dir)
        return
    place_bundle(index_documents(site_documents(prepared), cache), site_dir)


class IndexJob:
    """Indexing in a forked process, started before rendering so Pagefind works while pages render.

    ``place(site_dir)`` waits for it and links the bundle into the site; it raises
    ``SearchIndexError`` when indexing failed (the site is then not swapped in).
    """

    def __init__(self, prepared, cache: Path) -> None:
        self.cache = Path(cache)
        self.documents = site_documents(prepared)
        self.bundle = self.cache / documents_digest(self.documents)
        self.process = None
        if (self.bundle / "pagefind.js").is_file():
            return
        if "fork" in multiprocessing.get_all_start_methods():
            self.process = multiprocessing.get_context("fork").Process(
                target=_index_child, args=(self.documents, self.cache), name="search-index")
            self.process.start()

    def place(self, site_dir: Path) -> None:
        if self.process is not None:
            self.process.join()
            if self.process.exitcode != 0:
                raise SearchIndexError(f"indexing for search failed (exit {self.process.exitcode}); "
                                       "see the message above")
        place_bundle(index_documents(self.documents, self.cache), site_dir)


def _index_child(documents: dict[str, str], cache: Path) -> None:
    index_documents(documents, cache)


def carry_index(site_dir: Path, previous: Path, prepared, cache: Path | None = None) -> None:
    """For the dev server: keep the previous site's index (built once, at start), so a save
    reloads in milliseconds; search may lag behind edits until the server restarts."""
    if (previous / "pagefind" / "pagefind.js").is_file():
        shutil.copytree(previous / "pagefind", Path(site_dir) / "pagefind", copy_function=_link_or_copy)
    else:
        index_site(prepared, site_dir, cache)


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@functools.cache
def _pagefind_version() -> str:
    try:
        return importlib.metadata.version("pagefind")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
