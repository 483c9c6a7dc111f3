"""The search stage: a Pagefind index of the public site, fed from the parsed pages.

Chinese has no spaces between words, and Pagefind segments it one way when it
indexes (a dictionary) and another in the browser (``Intl.Segmenter``, or one
character at a time), so a word could be indexed whole and searched in pieces:
缓存 then matched every page with 存, and 字节 matched "第 5 节". Here index
and query are cut the same, simple way: every run of Chinese characters becomes
its overlapping character pairs (键值缓存 → 键值 值缓 缓存), everything else stays
as it is, and Pagefind is told the text is space-separated (``force_language``
``en``: no segmentation of its own). ``static/search-engine.js`` cuts the query with the
same rule, so a word matches exactly the pages that contain it, in order; a
quoted phrase asks Pagefind for those pairs consecutively; a word that occurs
nowhere has a pair that occurs nowhere and finds nothing. It joins the
pairs back into text for titles and excerpts.

The text comes from what the build already has — each page's public resolved page
(resolve.py: teacher notes removed, roles as text), its headings and states as anchored
headings (so a result can land on the right state), the values and sources for
the two generated pages — never from reading the written HTML back. Pagefind
runs as its own processes through the protocol of its Python API while the sites are rendered
(``IndexJob`` forks before rendering starts). Pagefind cannot add to or remove from an index
it has written, so the index comes in shards of ``SHARD_PAGES`` pages, each a function of its
documents and Pagefind's version and kept in the build cache under their digest: an edit
re-indexes one shard (about 5 ms per page in Pagefind's own process), and a build whose
searchable text did not change reuses every shard. The browser merges the shards.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import importlib.metadata
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from .i18n import _
from .markdown.source import inline_text, role_pieces
from .numbers import display
from .parse import ParsedPage
from .resolve import SiteView, Stepper, resolve_page, role_text

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

    static/search-engine.js ``terms()`` is the same rule for queries; the browser tests keep the two in step.
    """
    return " ".join(_PIECES.sub(_piece, text).split())


def _piece(match: re.Match) -> str:
    run = match.group(1)
    if run is None:
        return f" {match.group(2)} "
    return f" {' '.join(map(str.__add__, run, run[1:])) if len(run) > 1 else run} "


# ------------------------------------------------------------------ documents --
_TITLE = ' data-pagefind-weight="10"'
"""A word in a page's title outranks the same word in its text (Pagefind's highest weight)."""
_TEXT_BLOCKS = frozenset({"fence", "code_block", "math_block"})
"""Block tokens whose content is their text (code and display maths are searchable as written)."""


def page_document(page: ParsedPage, site: SiteView) -> str:
    """One page's search document, from its public resolved page: its title, its text, and an anchored
    heading per heading or state (so a result lands on the right state)."""
    parts = [(f"<h1{_TITLE}>", page.meta.title),
             ("<p>", "".join(p if isinstance(p, str) else role_text(site, *p) for p in role_pieces(page.meta.summary)))]
    for section in resolve_page(site, page).sections:
        for state in section.states if isinstance(section, Stepper) else ():
            source = state.source
            parts += [(f'<h2 id="{html.escape(state.anchor)}">', source.title),
                      *_token_texts(site, source.caption + source.body + source.more, source.figure)]
        if not isinstance(section, Stepper):
            parts += _token_texts(site, section, "")
    # One pass of the pair cutter over the whole page (one call per piece cost twice as much).
    cut = _PIECES.sub(_piece, "\x00".join(text for _tag, text in parts)).split("\x00")
    return _document([f"{tag}{html.escape(' '.join(text.split()), quote=False)}</{tag[1:3].rstrip('>')}>"
                      for (tag, _text), text in zip(parts, cut, strict=True) if text.strip()])


def _token_texts(site: SiteView, tokens, figure: str) -> list[tuple[str, str]]:
    """(tag, text) of each heading, paragraph, cell, picture and code or maths block, roles as text."""
    parts, heading = [], None
    for token in tokens:
        if token.type == "heading_open":
            heading = f'<h2 id="{html.escape(token.attrGet("id") or "")}">'
        elif token.type == "inline":
            text = inline_text(token, lambda name, target: role_text(site, name, target, figure))
            parts.append((heading or "<p>", text))
            heading = None
        elif token.type in _TEXT_BLOCKS:
            parts.append(("<p>", token.content))
        elif token.type == "image_figure":
            parts.append(("<p>", f"{token.meta['alt']} {token.meta['caption']}"))
    return parts


_REFERENCE = ' data-pagefind-weight="0.1"'
_REFERENCE_HEADING = ' data-pagefind-weight="0.5"'
"""The reference pages (numbers, sources) list names, configurations and paper titles verbatim:
a word there ranks below the same word in a lesson's title or text."""


def values_document(values: Iterable, say: Callable[[str], str] = str) -> str:
    """numbers.html: each value's name, displayed value, description and conditions."""
    out = ["<h1>" + _text(say(_("Numbers and where they come from"))) + "</h1>"]
    for v in sorted(values, key=lambda v: v.name):
        heading = f"{v.name} = {say(display(v))}"
        text = " ".join(filter(None, (v.description, v.conditions, v.command)))
        out += [f'<h2 id="{html.escape(v.name)}-title"{_REFERENCE_HEADING}>{_text(heading)}</h2>',
                f"<p{_REFERENCE}>{_text(text)}</p>"]
    return _document(out)


def sources_document(sources: Iterable, say: Callable[[str], str] = str) -> str:
    """sources.html: each source's id, title, authors and what was checked where."""
    out = ["<h1>" + _text(say(_("Sources"))) + "</h1>"]
    for s in sources:
        text = " ".join(str(x) for x in (s.authors, s.year, s.checked, s.where) if x)
        out += [f'<h2 id="{html.escape(s.id)}-title"{_REFERENCE_HEADING}>{_text(f"{s.id} {s.title}")}</h2>',
                f"<p{_REFERENCE}>{_text(text)}</p>"]
    return _document(out)


def site_documents(prepared, cache: Path | None = None) -> dict[str, str]:
    """URL → search document for every indexed page of the public site, in site order.

    With a ``cache`` folder, a page's document is kept there between builds (``_kept_documents``),
    so an edit makes one page's document again, not every page's.
    """
    site = SiteView(prepared.content, prepared.pages, prepared.evidence, False, prepared.images)
    if cache is None:
        docs = {f"{page_id}.html": page_document(page, site) for page_id, page in prepared.pages.items()}
    else:
        docs = _kept_documents(prepared, site, Path(cache))
    docs["numbers.html"] = values_document(prepared.evidence.values.values(), site.say)
    docs["sources.html"] = sources_document(prepared.content.sources, site.say)
    return docs


def _kept_documents(prepared, site: SiteView, cache: Path) -> dict[str, str]:
    """The pages' documents, each kept in ``cache`` under a hash of everything it is made from (its
    source, the titles of every page, the evidence, the language, the code)."""
    from .incremental import code_digest, digest, evidence_digest, source_key

    titles = {page_id: p.meta.title for page_id, p in prepared.pages.items()}
    held = _held_documents(cache)
    common = digest(code_digest(), evidence_digest(prepared.evidence), repr(sorted(titles.items())),
                    prepared.content.config.language)
    kept: dict[str, tuple[str, str]] = {}
    for page_id, page in prepared.pages.items():
        url, key = f"{page_id}.html", digest(common, source_key(page))
        kept[url] = held[url] if url in held and held[url][0] == key else \
            (key, page_document(page, site))
    if kept != held:
        _hold_documents(cache, kept)
    return {url: document for url, (_key, document) in kept.items()}


_DOCUMENTS = "documents.pickle"


def _held_documents(cache: Path) -> dict[str, tuple[str, str]]:
    import pickle

    try:
        return pickle.loads((cache / _DOCUMENTS).read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, ValueError):
        return {}


def _hold_documents(cache: Path, documents: dict[str, tuple[str, str]]) -> None:
    import pickle

    cache.mkdir(parents=True, exist_ok=True)
    scratch = cache / f"{_DOCUMENTS}.{os.getpid()}"
    scratch.write_bytes(pickle.dumps(documents, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(scratch, cache / _DOCUMENTS)


def _text(text: str) -> str:
    return html.escape(search_terms(text), quote=False)


def _document(parts: list[str]) -> str:
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><main data-pagefind-body>'
            + "".join(parts) + "</main></body></html>")


# -------------------------------------------------------------------- indexing --
_FORMAT = "shards-3"
"""Changes whenever this module lays out a bundle differently, so no older bundle is reused."""

SHARD_PAGES = 100
"""Pages per shard. Pagefind cannot add a page to an index it has written, so the index is cut into
shards of this many pages (in site order), each cached under the digest of its documents: an edit
re-indexes only its page's shard (≈ 0.6 s of Pagefind at 100 pages instead of 5.6 s at 1000), and
shards index two at a time. The cost is in the reader's browser: the first search of a site of
N pages loads ⌈N/100⌉ Pagefind bundles (≈ 72 kB of WebAssembly each, then only the index chunks a
query needs); a course up to 100 pages is one bundle, as before. (At 128 pages a shard, a one-page
edit of a 1000-page course took 1.95 s, over the 2 s it should stay under; at 100, 1.7 s.)"""
SHARDS_FILE = "shards.json"
"""In the site's ``pagefind/`` folder: the folders of the other shards, relative to it (``[]`` for one)."""
PARALLEL = 2
"""Pagefind processes at once (one per core of the machines this runs on)."""


def shard(documents: dict[str, str]) -> list[dict[str, str]]:
    """The documents in shards of ``SHARD_PAGES``, in site order (an edit keeps every other shard's documents)."""
    items = list(documents.items())
    return [dict(items[start:start + SHARD_PAGES]) for start in range(0, len(items), SHARD_PAGES)] or [{}]


def documents_digest(documents: dict[str, str]) -> str:
    digest = hashlib.sha256(f"{_pagefind_version()}\0{LANGUAGE}\0{_FORMAT}\0".encode())
    for url, document in documents.items():
        digest.update(url.encode() + b"\0" + document.encode() + b"\0")
    return digest.hexdigest()


def index_documents(documents: dict[str, str], cache: Path) -> list[Path]:
    """The Pagefind bundle of each shard of ``documents``, first shard first: from ``cache`` when it
    holds one for the shard's digest, else built (``PARALLEL`` at a time) and stored there."""
    cache = Path(cache)
    shards = shard(documents)
    bundles = [cache / documents_digest(part) for part in shards]
    missing = [k for k, bundle in enumerate(bundles) if not (bundle / "pagefind.js").is_file()]
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
        failures: list[BaseException] = []
        queue = list(missing)
        lock = threading.Lock()

        def work() -> None:
            while not failures:
                with lock:
                    if not queue:
                        return
                    k = queue.pop(0)
                try:
                    _store_bundle(shards[k], bundles[k])
                except BaseException as error:  # reported below, in the calling thread
                    failures.append(error)

        # Each Pagefind is a process of its own; these threads only feed and wait on pipes.
        threads = [threading.Thread(target=work, name=f"pagefind-{n}") for n in range(min(PARALLEL, len(missing)))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
    _prune(cache, keep=set(bundles))
    return bundles


def _store_bundle(documents: dict[str, str], bundle: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="index-", dir=bundle.parent))
    try:
        _run_pagefind(documents, scratch / "out")
        try:
            os.rename(scratch / "out", bundle)
        except OSError:  # another build stored the same shard meanwhile
            if not (bundle / "pagefind.js").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_pagefind(documents: dict[str, str], out: Path) -> None:
    """Index ``documents`` with ``pagefind --service``, the indexer behind Pagefind's Python API.

    The API's own client (``pagefind.index.PagefindIndex``) reads one reply per 0.1 s poll, which
    made 1000 pages take 100 s of waiting; this client speaks the same protocol (base64 JSON
    messages ended by a comma) and reads each reply as soon as it comes. Pages go one at a time:
    sent all at once, they were indexed in a varying order and the index differed between builds.
    """
    service = _Service(_executable())
    try:
        index_id = service.ask({"type": "NewIndex", "config": {"force_language": LANGUAGE}})["index_id"]
        requests = [{"type": "AddFile", "index_id": index_id, "url": url, "file_contents": document,
                     "file_path": None} for url, document in documents.items()]
        for request in requests:  # one at a time: pages sent at once are indexed in a varying order
            service.ask(request)
        # The bundle comes back in the reply and is written here: with WriteFiles, the reply came
        # before pagefind had finished writing, and closing it then left empty files behind.
        bundle = service.ask({"type": "GetFiles", "index_id": index_id})["files"]
    finally:
        service.close()
    for file in bundle:
        if file["path"] in _UNUSED_UI:
            continue
        target = out / _inside_bundle(file["path"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(file["content"]))
    if not (out / "pagefind.js").is_file() or not (out / "pagefind-entry.json").is_file():
        raise SearchIndexError(_("pagefind returned no index for {n} pages", n=len(documents)))


def _inside_bundle(path: str) -> str:
    if not path or path.startswith("/") or ".." in path.split("/"):
        raise SearchIndexError(_("pagefind returned a file outside its bundle: {path}", path=repr(path)))
    return path


class _Service:
    """One ``pagefind --service`` process and the messages to and from it."""

    def __init__(self, binary: Path) -> None:
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([str(binary), "--service"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.log)
        self.next_id = 0
        self.buffer = bytearray()

    def _send(self, payload: dict) -> None:
        self.next_id += 1
        message = {"message_id": self.next_id, "payload": payload}
        self.process.stdin.write(base64.b64encode(json.dumps(message).encode()) + b",")

    def _receive(self) -> dict:
        while (end := self.buffer.find(b",")) < 0:
            chunk = self.process.stdout.read1(1 << 16)
            if not chunk:
                self.log.seek(0)
                raise SearchIndexError(_("pagefind stopped: {log}", log=self.log.read().decode(errors="replace")[-2000:]))
            self.buffer += chunk
        message, self.buffer = self.buffer[:end], self.buffer[end + 1:]
        reply = json.loads(base64.b64decode(bytes(message)))["payload"]
        if reply.get("type") == "Error":
            raise SearchIndexError(_("pagefind: {message}", message=reply.get("message")))
        return reply

    def ask(self, payload: dict) -> dict:
        self._send(payload)
        self.process.stdin.flush()
        return self._receive()

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


_INSTALL = "pip install 'pagefind[extended]==1.5.2'"


def _executable() -> Path:
    try:
        from pagefind.service import get_executable
    except ImportError as error:
        raise SearchIndexError(_("the pagefind package is not installed: {command}", command=_INSTALL)) \
            from error
    binary = get_executable()
    if binary is None or not Path(binary).is_file():
        raise SearchIndexError(_("the pagefind package has no binary: {command}", command=_INSTALL))
    return Path(binary)


KEEP_SPARE = 64
"""Shards of earlier builds kept besides the current ones, newest first (to switch back after an
undo without re-indexing); each is a few hundred kB."""


def _prune(cache: Path, keep: set[Path]) -> None:
    for bundle in keep:
        os.utime(bundle)
    others = sorted((p for p in cache.iterdir() if p.is_dir() and not p.name.startswith("index-") and p not in keep),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[KEEP_SPARE:]:
        shutil.rmtree(old, ignore_errors=True)


def place_bundle(bundles: list[Path], site_dir: Path) -> None:
    """Put the shards into ``site_dir/pagefind`` (the first) and ``pagefind/shard-N/`` (the others) as
    hard links (their files are never written again), with the list the browser merges."""
    target = Path(site_dir) / "pagefind"
    shutil.copytree(bundles[0], target, copy_function=_link_or_copy)
    others = [f"shard-{k}/" for k in range(1, len(bundles))]
    for name, bundle in zip(others, bundles[1:]):
        shutil.copytree(bundle, target / name.rstrip("/"), copy_function=_link_or_copy)
    (target / SHARDS_FILE).write_text(json.dumps(others), encoding="utf-8")


def index_site(prepared, site_dir: Path, cache: Path | None = None) -> None:
    """Index ``prepared``'s public pages into ``site_dir/pagefind`` (in this process)."""
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="search-") as scratch:
            place_bundle(index_documents(site_documents(prepared), Path(scratch)), site_dir)
        return
    place_bundle(index_documents(site_documents(prepared, cache), cache), site_dir)


class IndexJob:
    """Indexing in a forked process, started before rendering so Pagefind works while pages render.

    The child makes the documents, and indexes them unless the cache holds their index;
    ``place(site_dir)`` waits for it and links the bundle into the site. It raises
    ``SearchIndexError`` when indexing failed (the site is then not swapped in).
    """

    def __init__(self, prepared, cache: Path) -> None:
        self.prepared, self.cache = prepared, Path(cache)
        self.process, self.reply = None, None
        if "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            self.reply, sending = context.Pipe(duplex=False)
            self.process = context.Process(target=_index_child, args=(prepared, self.cache, sending),
                                           name="search-index")
            self.process.start()
            sending.close()

    def place(self, site_dir: Path) -> None:
        if self.process is None:
            index_site(self.prepared, site_dir, self.cache)
            return
        try:
            bundles = [Path(folder) for folder in self.reply.recv()]
        except EOFError:
            bundles = None
        self.process.join()
        if bundles is None or self.process.exitcode != 0:
            raise SearchIndexError(_("indexing for search failed (exit {code}); see the message above",
                                     code=self.process.exitcode))
        place_bundle(bundles, site_dir)


def _index_child(prepared, cache: Path, reply) -> None:
    reply.send([str(bundle) for bundle in index_documents(site_documents(prepared, cache), cache)])
    reply.close()


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
