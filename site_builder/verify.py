"""Checks on the written sites: every link lands, and nothing for teachers leaks into the public site."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .pipeline import PreparedSite
from .i18n import _
from .problems import Problem

_TEACHER_MARKERS = ("data-teacher", "teacher-note")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{8,}")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None:
                self.links.append((value, self.getpos()[0]))


def verify_output(prepared: PreparedSite, public: Path, teacher: Path) -> list[Problem]:
    """Broken internal links or anchors in either site; teacher notes in the public one."""
    root = prepared.content.config.base_url
    return _broken_links(public, root) + _broken_links(teacher, root) + _teacher_leaks(prepared, public)


def _broken_links(site: Path, root: str = "") -> list[Problem]:
    """``root``: the site's base_url (404.html links from it, see pipeline.render_generated): such a
    link is checked as the file it names in this site."""
    pages: dict[str, _Links] = {}
    for path in sorted(site.rglob("*.html")):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path.relative_to(site).as_posix()] = parser
    problems = []
    for name, parser in pages.items():
        for link, line in parser.links:
            if root and link.startswith(root):
                link = "../" * name.count("/") + link[len(root):]  # the same file, as a relative link
            reason = _check_link(site, name, link, pages)
            if reason:
                problems.append(Problem(f"{site.name}/{name}", line, reason))
    return problems


def _check_link(site: Path, page: str, link: str, pages: dict[str, _Links]) -> str:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith("data:") or link.startswith("mailto:"):
        return ""
    target = (Path(page).parent / unquote(parts.path)).as_posix() if parts.path else page
    target = str(Path(target)).replace("\\", "/")
    if parts.path and not (site / target).is_file():
        return f"link to missing file '{link}'"
    if parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
        return f"link to missing anchor '{link}'"
    return ""


def _teacher_phrases(prepared: PreparedSite) -> dict[str, tuple[str, int]]:
    """Runs of Chinese text found only in teacher notes, with where they were written.

    A run a note shares with public prose (a quoted title, say) proves nothing, so it is left out.
    """
    phrases: dict[str, tuple[str, int]] = {}
    public_text = []
    for page in prepared.pages.values():
        lines = page.source.split("\n")
        teacher_lines = {n for start, end in page.teacher_spans for n in range(start, end)}
        for number, line in enumerate(lines):
            if number in teacher_lines:
                for run in _CJK_RUN.findall(line):
                    phrases.setdefault(run, (page.meta.path, number + 1))
            else:
                public_text.append(line)
    shared = "\n".join(public_text)
    return {run: where for run, where in phrases.items() if run not in shared}


def _teacher_leaks(prepared: PreparedSite, public: Path) -> list[Problem]:
    phrases = _teacher_phrases(prepared)
    problems = []
    for path in sorted(public.rglob("*")):
        if path.suffix not in (".html", ".md", ".txt", ".json"):
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        where = f"{public.name}/{path.relative_to(public).as_posix()}"
        problems += [Problem(where, 0, _("teacher-only markup '{markup}' in the public site", markup=m))
                     for m in _TEACHER_MARKERS if m in text]
        problems += [Problem(where, 0, _("teacher note from {src}:{line} leaks into the public site: '{text}…'",
                                       src=src, line=line, text=run[:20]))
                     for run, (src, line) in phrases.items() if run in text]
    return problems
