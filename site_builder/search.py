"""The search stage: a Pagefind index of the public site, built offline at build time.

``index_site`` runs the Pagefind binary that ships inside the ``pagefind``
Python package (``pagefind[extended]``, whose build segments Chinese into
words) on a finished site folder. It is meant as the ``finish`` step of
``write_site`` for the public site only: the teacher site is never indexed.

Chinese has no spaces between words, so a search index that silently stops
segmenting would still build and then find nothing. Before indexing, a
self-test indexes one known sentence and checks that a word from its middle
became a term of its own; if not, the build stops with a clear message.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

_SELF_TEST_SENTENCE = "模型把旧的键值缓存保留下来，下一步只计算新词元。"
_SELF_TEST_WORD = "缓存"  # from the middle of 键值缓存: found only if the text is segmented into words
_SELF_TEST_PAGE = (
    '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>自检</title></head>'
    f"<body><main data-pagefind-body><h1>自检</h1><p>{_SELF_TEST_SENTENCE}</p></main></body></html>"
)
_INDEX_SIGNATURE = b"pagefind_dcd"
_UNUSED_UI = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
              "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
"""Pagefind's ready-made interfaces: the site has its own search box (static/search.js)."""


class SearchIndexError(RuntimeError):
    """Pagefind is missing, failed, or built an index that cannot find Chinese words."""


def index_site(site_dir: Path, previous: Path | None = None) -> None:
    """Write ``site_dir/pagefind/``: the search index and Pagefind's own JavaScript.

    Only pages whose markup opts in with ``data-pagefind-body`` are indexed
    (lessons, articles, the numbers and sources pages — not 404 or raw views).
    If ``previous`` (the site being replaced) was indexed from exactly the same
    pages by the same Pagefind, its index is reused: the index is a function of
    those bytes, and running Pagefind would take most of a no-change rebuild.
    """
    site_dir = Path(site_dir)
    digest = _pages_digest(site_dir)
    if previous is not None and _stamp(previous) == digest:
        shutil.copytree(previous / "pagefind", site_dir / "pagefind", copy_function=_link_or_copy)
        return
    _check_chinese_segmentation()
    _run_pagefind(site_dir)
    for name in _UNUSED_UI:
        (site_dir / "pagefind" / name).unlink(missing_ok=True)
    (site_dir / "pagefind" / _STAMP).write_text(digest + "\n", encoding="utf-8")


def carry_index(site_dir: Path, previous: Path) -> None:
    """For the dev server: keep the previous site's index (built once, at start), so a save
    reloads in milliseconds; search may lag behind edits until the server restarts."""
    if (previous / "pagefind" / "pagefind.js").is_file():
        shutil.copytree(previous / "pagefind", Path(site_dir) / "pagefind", copy_function=_link_or_copy)
    else:
        index_site(site_dir)


_STAMP = "pages.sha256"
"""Inside the bundle: the digest of the pages (and Pagefind version) the index was built from."""


def _pages_digest(site_dir: Path) -> str:
    digest = hashlib.sha256(_pagefind_version().encode())
    for page in sorted(site_dir.rglob("*.html")):
        digest.update(page.relative_to(site_dir).as_posix().encode() + b"\0" + page.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamp(site_dir: Path) -> str:
    stamp = site_dir / "pagefind" / _STAMP
    return stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else ""


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


@functools.cache
def _check_chinese_segmentation() -> None:
    """Index one known sentence in a scratch folder; the word from its middle must be a term."""
    with tempfile.TemporaryDirectory(prefix="pagefind-selftest-") as scratch:
        site = Path(scratch)
        (site / "index.html").write_text(_SELF_TEST_PAGE, encoding="utf-8")
        _run_pagefind(site)
        terms = b"".join(_index_chunks(site / "pagefind"))
    if _cbor_text(_SELF_TEST_WORD) not in terms:
        raise SearchIndexError(
            f"search self-test failed: Pagefind indexed {_SELF_TEST_SENTENCE!r} but the word "
            f"{_SELF_TEST_WORD!r} from its middle is not a search term, so Chinese search would find nothing. "
            "Install the extended build: pip install 'pagefind[extended]==1.5.2'")


def _run_pagefind(site: Path) -> None:
    binary = _executable()
    result = subprocess.run([str(binary), "--site", str(site)], capture_output=True, text=True, check=False)
    if result.returncode != 0 or not (site / "pagefind" / "pagefind.js").is_file():
        raise SearchIndexError(f"pagefind failed on {site} (exit {result.returncode}):\n"
                               f"{result.stdout[-2000:]}{result.stderr[-2000:]}")


def _executable() -> Path:
    try:
        from pagefind.service import get_executable
    except ImportError as error:
        raise SearchIndexError("the pagefind package is not installed: pip install 'pagefind[extended]==1.5.2'") \
            from error
    binary = get_executable()
    if binary is None or not Path(binary).is_file():
        raise SearchIndexError("the pagefind package has no binary: pip install 'pagefind[extended]==1.5.2'")
    return Path(binary)


def _index_chunks(bundle: Path) -> list[bytes]:
    """The decompressed word-index chunks (``index/*.pf_index``: gzip of a signature plus CBOR)."""
    chunks = []
    for path in sorted((bundle / "index").glob("*.pf_index")):
        data = gzip.decompress(path.read_bytes())
        if not data.startswith(_INDEX_SIGNATURE):
            raise SearchIndexError(f"{path}: not a Pagefind index chunk (format changed?)")
        chunks.append(data)
    return chunks


def _cbor_text(word: str) -> bytes:
    """``word`` as a CBOR text string: the exact term, not a longer word that merely contains it."""
    data = word.encode()
    if len(data) < 24:
        return bytes([0x60 + len(data)]) + data
    if len(data) < 256:
        return bytes([0x78, len(data)]) + data
    raise ValueError("self-test word too long")
