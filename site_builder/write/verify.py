"""Checks on the written sites: every link lands, and nothing for teachers leaks into the public site."""

from __future__ import annotations

import concurrent.futures
import html
import multiprocessing
import posixpath
import re
import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from site_builder.check.placeholders import placeholder_problems
from site_builder.check.prepared import PreparedSite
from site_builder.parse.page import ParsedPage
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem
from site_builder.vocabulary.urls import site_root
from site_builder.write.leaks import teacher_leaks

_ATTRIBUTE = re.compile(r"""\s(id|href|src)=(?:"([^"]*)"|'([^']*)')""")
"""The templates write every attribute quoted; one regex pass finds ids and links (an HTML parser
in Python cost 15 s on a 1000-page course)."""


@dataclass(frozen=True)
class _Page:
    ids: frozenset[str]
    links: tuple[tuple[str, int], ...]
    """(URL as written, offset in the file); the line is counted only for a broken link."""


_CODE = re.compile(r"<code\b[^>]*>.*?</code>", re.DOTALL)
"""Code shown as text: a tag written in it (```` ```md ```` showing ``<img src=…>``) is no link (highlighted code
keeps its quotes unescaped, so the attribute pattern would otherwise find it)."""


def _scan(text: str) -> _Page:
    ids, links = set(), []
    if "<code" in text:
        text = _CODE.sub(lambda code: " " * len(code.group()), text)  # same length: offsets still give lines
    for match in _ATTRIBUTE.finditer(text):
        value = html.unescape(match.group(2) if match.group(2) is not None else match.group(3))
        if match.group(1) == "id":
            ids.add(value)
        else:
            links.append((value, match.start()))
    return _Page(frozenset(ids), tuple(links))


def verify_output(prepared: PreparedSite, public: Path, teacher: Path) -> list[Problem]:
    """Broken internal links or anchors in either site; teacher notes in the public one; a skeleton's
    placeholder text (a warning while writing, refused here: this decides what is published).

    Each file is read once and every lookup is in a set or dict, so the checks grow with the
    size of the site, not with its square. The link checks run in a forked child while this
    process scans for leaks (two cores, two halves of the work).
    """
    root = site_root(prepared.content.config.base_url)
    placeholders = placeholder_problems(prepared.content.pages)
    if "fork" not in multiprocessing.get_all_start_methods():
        return placeholders + _broken_links(public, root) + _broken_links(teacher, root) \
            + teacher_leaks(prepared, public)
    quiet = (signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is this process's to report, once
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"),
                                                initializer=signal.signal, initargs=quiet) as pool:
        links = pool.submit(_both_sites_links, public, teacher, root)
        leaks = teacher_leaks(prepared, public)
        return placeholders + links.result() + leaks


def _both_sites_links(public: Path, teacher: Path, root: str) -> list[Problem]:
    return _broken_links(public, root) + _broken_links(teacher, root)


def _broken_links(site: Path, root: str = "") -> list[Problem]:
    """``root``: the site's path (404.html links from it, see ``urls.site_root``): such a link is checked as
    the file it names in this site."""
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    texts = {name: (site / name).read_text(encoding="utf-8") for name in sorted(files) if name.endswith(".html")}
    pages = {name: _scan(text) for name, text in texts.items()}
    problems = []
    for name, page in pages.items():
        for link, offset in page.links:
            if root and link.startswith(root):
                link = "../" * name.count("/") + link[len(root):]  # the same file, as a relative link
            reason = _check_link(name, link, files, pages)
            if reason:
                problems.append(Problem(f"{site.name}/{name}", texts[name].count("\n", 0, offset) + 1, reason))
    return problems


def source_link_problems(pages: Iterable[ParsedPage], files: Mapping[str, bytes | Path]) -> list[Problem]:
    """Each Markdown link to a file the built sites lack (``files/a.pdf``), or to an anchor its page lacks
    (``numbers.html#x``), at its line in the Markdown: once, whichever sites show it. ``files``: every file of
    the sites, by site path (the teacher site's where both have one: its pages hold every anchor)."""
    names, scanned = set(files), _Scanned(files)
    return [Problem(page.meta.path, line, reason) for page in pages for link, line in page.file_links
            if (reason := _check_link(f"{page.meta.id}.html", link, names, scanned))]


class _Scanned(dict):
    """An HTML file's ids, read when a link's anchor is first looked for there."""

    def __init__(self, files: Mapping[str, bytes | Path]) -> None:
        super().__init__()
        self.files = files

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.endswith(".html") and name in self.files

    def __missing__(self, name: str) -> _Page:
        payload = self.files[name]
        text = payload.decode("utf-8") if isinstance(payload, bytes) else payload.read_text(encoding="utf-8")
        self[name] = found = _scan(text)
        return found


def _check_link(page: str, link: str, files: set[str], pages: Mapping[str, _Page]) -> str:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith("data:") or link.startswith("mailto:"):
        return ""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path))) if parts.path else page
    if parts.path and target not in files:
        return _("link to missing file '{link}'", link=link)
    if parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
        return _("link to missing anchor '{link}'", link=link)
    return ""
