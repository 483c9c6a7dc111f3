"""The search index's bytes are a function of its documents: Pagefind numbers the pages in site order,
whatever the file system (search_index ``_run_pagefind``)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from site_builder.render import search, search_index


def _documents(count: int) -> dict[str, str]:
    return {f"p{n}.html": search._document([f"<h1>第{n}页</h1><p>{search.search_terms(f'键值缓存第{n}段')}</p>"])
            for n in range(count)}


def _files(bundle: Path) -> dict[str, bytes]:
    return {p.relative_to(bundle).as_posix(): p.read_bytes() for p in sorted(bundle.rglob("*")) if p.is_file()}


def _page_order(bundle: Path) -> list[str]:
    """The URLs in the order Pagefind numbered the pages: its meta file lists the pages' fragment hashes
    in that order."""
    meta = gzip.decompress(next(bundle.glob("pagefind.*.pf_meta")).read_bytes())
    urls = {}
    for fragment in (bundle / "fragment").iterdir():
        data = gzip.decompress(fragment.read_bytes()).removeprefix(b"pagefind_dcd")
        urls[fragment.name.removesuffix(".pf_fragment")] = json.loads(data)["url"]
    return [url for _position, url in sorted((meta.index(h.encode()), url) for h, url in urls.items())]


def test_pages_are_numbered_in_the_order_of_the_documents(tmp_path):
    docs = _documents(6)
    shuffled = {url: docs[url] for url in ("p3.html", "p0.html", "p5.html", "p1.html", "p4.html", "p2.html")}
    for name, given in (("sorted", docs), ("shuffled", shuffled)):
        search_index._run_pagefind(given, tmp_path / name)
        assert _page_order(tmp_path / name) == [f"/{url}" for url in given]


def test_the_same_documents_make_the_same_bytes_on_another_file_system(tmp_path):
    """The command line read a folder of documents in the order its file system listed them (a hash on ext4,
    creation order on tmpfs); the service gets them in site order, so the bundle is the same bytes anywhere."""
    other = Path("/dev/shm")
    if not other.is_dir() or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs a tmpfs at /dev/shm besides the tests' temporary folder")
    docs = _documents(40)
    here = search_index.index_documents(docs, tmp_path / "cache")
    there_cache = other / f"search-order-{os.getpid()}"
    try:
        there = search_index.index_documents(docs, there_cache)
        assert [_files(b) for b in here] == [_files(b) for b in there]
    finally:
        shutil.rmtree(there_cache, ignore_errors=True)
    again = search_index.index_documents(docs, tmp_path / "again")
    assert [_files(b) for b in here] == [_files(b) for b in again]
