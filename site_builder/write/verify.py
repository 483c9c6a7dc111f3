"""Checks on the written sites: every link lands, and nothing for teachers leaks into the public site."""

from __future__ import annotations

import concurrent.futures
import html
import multiprocessing
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from site_builder.check.prepared import PreparedSite
from site_builder.render import search
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem

_TEACHER_MARKERS = ("data-teacher", "teacher-note")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{8,}")


_ATTRIBUTE = re.compile(r"""\s(id|href|src)=(?:"([^"]*)"|'([^']*)')""")
"""The templates write every attribute quoted; one regex pass finds ids and links (an HTML parser
in Python cost 15 s on a 1000-page course)."""


@dataclass(frozen=True)
class _Page:
    ids: frozenset[str]
    links: tuple[tuple[str, int], ...]
    """(URL as written, offset in the file); the line is counted only for a broken link."""


def _scan(text: str) -> _Page:
    ids, links = set(), []
    for match in _ATTRIBUTE.finditer(text):
        value = html.unescape(match.group(2) if match.group(2) is not None else match.group(3))
        if match.group(1) == "id":
            ids.add(value)
        else:
            links.append((value, match.start()))
    return _Page(frozenset(ids), tuple(links))


def verify_output(prepared: PreparedSite, public: Path, teacher: Path) -> list[Problem]:
    """Broken internal links or anchors in either site; teacher notes in the public one.

    Each file is read once and every lookup is in a set or dict, so the checks grow with the
    size of the site, not with its square. The link checks run in a forked child while this
    process scans for leaks (two cores, two halves of the work).
    """
    root = prepared.content.config.base_url
    if "fork" not in multiprocessing.get_all_start_methods():
        return _broken_links(public, root) + _broken_links(teacher, root) + _teacher_leaks(prepared, public)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        links = pool.submit(_both_sites_links, public, teacher, root)
        leaks = _teacher_leaks(prepared, public)
        return links.result() + leaks


def _both_sites_links(public: Path, teacher: Path, root: str) -> list[Problem]:
    return _broken_links(public, root) + _broken_links(teacher, root)


def _broken_links(site: Path, root: str = "") -> list[Problem]:
    """``root``: the site's base_url (404.html links from it, see pipeline.render_generated): such a
    link is checked as the file it names in this site."""
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


def _check_link(page: str, link: str, files: set[str], pages: dict[str, _Page]) -> str:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith("data:") or link.startswith("mailto:"):
        return ""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path))) if parts.path else page
    if parts.path and target not in files:
        return _("link to missing file '{link}'", link=link)
    if parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
        return _("link to missing anchor '{link}'", link=link)
    return ""


_GRAM = 8
"""Every teacher phrase is a run of at least this many Chinese characters, so it starts with one such window."""


class _PhraseFinder:
    """Which phrases (runs of ≥ 8 Chinese characters) occur in a text, found by windows, not by search.

    A phrase inside a text lies inside one of the text's Chinese runs and starts with an 8-character
    window of it: each distinct run is looked at once, window by window, in a dict of the phrases'
    first windows, and only a hit is confirmed with ``in``. The work grows with the distinct text,
    not with phrases × text (which made the scan take 87 s on a 1000-page course).
    """

    def __init__(self, phrases) -> None:
        self.starts: dict[str, list[str]] = {}
        for phrase in phrases:
            self.starts.setdefault(phrase[:_GRAM], []).append(phrase)
        self.seen: dict[str, tuple[str, ...]] = {}

    def in_run(self, run: str) -> tuple[str, ...]:
        found = self.seen.get(run)
        if found is None:
            starts, hits = self.starts, []
            for i in range(len(run) - _GRAM + 1):
                for phrase in starts.get(run[i:i + _GRAM], ()):
                    if run.startswith(phrase, i):
                        hits.append(phrase)
            found = self.seen[run] = tuple(hits)
        return found

    def in_text(self, text: str) -> set[str]:
        return {phrase for run in set(_CJK_RUN.findall(text)) for phrase in self.in_run(run)}


def _teacher_phrases(prepared: PreparedSite) -> dict[str, tuple[str, int]]:
    """Runs of Chinese text found only in teacher notes, with where they were written.

    A run a note shares with public prose (a quoted title, say) proves nothing, so it is left out.
    """
    phrases: dict[str, tuple[str, int]] = {}
    public_runs: set[str] = set()
    for page in prepared.pages.values():
        lines = page.source.split("\n")
        teacher_lines = {n for start, end in page.teacher_spans for n in range(start, end)}
        for number, line in enumerate(lines):
            if number in teacher_lines:
                for run in _CJK_RUN.findall(line):
                    phrases.setdefault(run, (page.meta.path, number + 1))
            else:
                public_runs.update(_CJK_RUN.findall(line))
    finder = _PhraseFinder(phrases)
    shared = {phrase for run in public_runs for phrase in finder.in_run(run)}
    return {run: where for run, where in phrases.items() if run not in shared}


def _teacher_leaks(prepared: PreparedSite, public: Path) -> list[Problem]:
    phrases = _teacher_phrases(prepared)
    finder = _PhraseFinder(phrases)
    problems = []
    for path in sorted(public.rglob("*")):
        if path.suffix not in (".html", ".md", ".txt", ".json"):
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        where = f"{public.name}/{path.relative_to(public).as_posix()}"
        problems += [Problem(where, 0, _("teacher-only markup '{markup}' in the public site", markup=m))
                     for m in _TEACHER_MARKERS if m in text]
        problems += _leaks(where, finder.in_text(text), phrases)
    # The search index is compressed on disk; its documents are checked as the build made them.
    for url, document in search.site_documents(prepared).items():
        problems += _leaks(f"{public.name}/pagefind (search text of {url})", finder.in_text(_PAIRS.sub(r"\1", document)),
                           phrases)
    return problems


_PAIRS = re.compile(r"([\u4e00-\u9fff]) \1")
"""Search text holds Chinese as overlapping pairs (缓存 存与): joined back, 缓存与."""


def _leaks(where: str, leaked: set[str], phrases: dict[str, tuple[str, int]]) -> list[Problem]:
    return [Problem(where, 0, _("teacher note from {path}:{line} leaks into the public site: '{text}…'",
                                path=phrases[run][0], line=phrases[run][1], text=run[:20]))
            for run in sorted(leaked, key=list(phrases).index)]
