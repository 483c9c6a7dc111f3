"""The search index: Pagefind run on the search documents (search.py) of the public site.

Pagefind runs as its own processes (its command line, on the documents written as files) while the sites are
rendered (``IndexJob`` forks before rendering starts). Pagefind cannot add to or remove from an
index it has written, so the index comes in shards of ``SHARD_PAGES`` pages, each a function of
its documents and Pagefind's version and kept in the build cache under their digest: an edit
re-indexes one shard (about 5 ms per page in Pagefind's own process), and a build whose
searchable text did not change reuses every shard. The browser merges the shards.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from site_builder.render.search import LANGUAGE, site_documents, synonyms
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import SearchIndexError

_UNUSED_UI = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
              "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
"""Pagefind's ready-made interfaces: the site has its own search box (static/search.js)."""
_UNFETCHED = ("wasm.unknown.pagefind",)
"""What no browser asks for in the first shard: the index's one language is always found (``LANGUAGE``), so the
WebAssembly for an unknown one is never loaded."""
_UNFETCHED_IN_MERGED = _UNFETCHED + ("pagefind.js", "pagefind-worker.js", f"wasm.{LANGUAGE}.pagefind")
"""What no browser asks for in a merged shard: ``mergeIndex`` reads its entry, meta, index and fragments, and
searches them with the first shard's script and WebAssembly (about 230 kB a shard)."""
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
SYNONYMS_FILE = "synonyms.json"
"""In the site's ``pagefind/`` folder: the glossary's wordings, searched as synonyms (search.py ``synonyms``)."""
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
        # Each Pagefind is a process of its own; these threads only feed and wait on pipes.
        with ThreadPoolExecutor(PARALLEL, thread_name_prefix="pagefind") as pool:
            list(pool.map(lambda k: _store_bundle(shards[k], bundles[k]), missing))  # raises the first failure
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
    """Index ``documents`` with the ``pagefind`` command line into the bundle folder ``out``.

    Each document is written as the file its URL names, in a folder of its own, and Pagefind reads
    that folder as a site. (Its ``--service``, behind Pagefind's Python API, takes the documents
    through a pipe as base64 JSON, one page per round trip to keep the page order, and sends the
    bundle back the same way: about 2 CPU-s more at 1000 pages.) ``--keep-index-url``: Pagefind
    would otherwise cut ``index.html`` out of every URL that contains it. Pagefind numbers a shard's
    pages in the order the file system lists the folder, not in site order: a shard's bytes may differ
    between file systems (one machine keeps them, cached under the documents' digest), and pages
    with exactly equal scores may be listed in another order; scores and URLs are the same.
    """
    site = out.with_name(out.name + "-site")
    site.mkdir()
    for url, document in documents.items():
        (site / url).write_text(document, encoding="utf-8")
    with tempfile.TemporaryFile() as log:
        done = subprocess.run([str(_executable()), "--site", str(site), "--output-path", str(out),
                               "--force-language", LANGUAGE, "--keep-index-url", "--quiet"],
                              stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        if done.returncode:
            log.seek(0)
            raise SearchIndexError(_("pagefind stopped: {log}", log=log.read().decode(errors="replace")[-2000:]))
    for name in _UNUSED_UI:
        with contextlib.suppress(FileNotFoundError):
            (out / name).unlink()
    if not (out / "pagefind.js").is_file() or not (out / "pagefind-entry.json").is_file():
        raise SearchIndexError(_("pagefind returned no index for {n} pages", n=len(documents)))


_INSTALL = "pip install pagefind-bin==1.5.2"


def _executable() -> Path:
    try:
        from pagefind_bin import get_executable
    except ImportError as error:
        raise SearchIndexError(_("the pagefind package is not installed: {command}", command=_INSTALL)) \
            from error
    try:
        return Path(get_executable())
    except OSError as error:
        raise SearchIndexError(_("the pagefind package has no binary: {command}", command=_INSTALL)) from error


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


def place_bundle(bundles: list[Path], site_dir: Path, synonym_groups: list = ()) -> None:
    """Put the shards into ``site_dir/pagefind`` (the first) and ``pagefind/shard-N/`` (the others) as
    hard links (their files are never written again), with the list the browser merges and the
    glossary's synonyms."""
    target = Path(site_dir) / "pagefind"
    shutil.copytree(bundles[0], target, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(*_UNFETCHED))
    others = [f"shard-{k}/" for k in range(1, len(bundles))]
    for name, bundle in zip(others, bundles[1:], strict=True):
        shutil.copytree(bundle, target / name.rstrip("/"), copy_function=_link_or_copy,
                        ignore=shutil.ignore_patterns(*_UNFETCHED_IN_MERGED))
    (target / SHARDS_FILE).write_text(json.dumps(others), encoding="utf-8")
    (target / SYNONYMS_FILE).write_text(json.dumps(list(synonym_groups), ensure_ascii=False),
                                        encoding="utf-8")


def index_site(prepared, site_dir: Path, cache: Path | None = None) -> None:
    """Index ``prepared``'s public pages into ``site_dir/pagefind`` (in this process)."""
    groups = synonyms(prepared.content.glossary)
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="search-") as scratch:
            place_bundle(index_documents(site_documents(prepared), Path(scratch)), site_dir, groups)
        return
    place_bundle(index_documents(site_documents(prepared, cache), cache), site_dir, groups)


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
            answer = self.reply.recv()
        except EOFError:
            answer = None
        self.process.join()
        if isinstance(answer, OSError):  # a full disk or ulimit -f: said once, by the build
            raise answer
        bundles = None if answer is None else [Path(folder) for folder in answer]
        if bundles is None or self.process.exitcode != 0:
            raise SearchIndexError(_("indexing for search failed (exit {code}); see the message above",
                                     code=self.process.exitcode))
        place_bundle(bundles, site_dir, synonyms(self.prepared.content.glossary))


def _index_child(prepared, cache: Path, reply) -> None:
    try:
        reply.send([str(bundle) for bundle in index_documents(site_documents(prepared, cache), cache)])
    except OSError as error:  # the parent says it, in one line, instead of a traceback from here
        reply.send(OSError(error.errno, error.strerror, error.filename))
    except KeyboardInterrupt:  # Ctrl-C in a terminal reaches every process of the build: the build says it, once
        pass
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
        return importlib.metadata.version("pagefind_bin")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
