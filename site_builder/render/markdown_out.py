"""Pages as Markdown for readers and agents: ``<page>.md``, ``llms.txt``, download bundles."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

from site_builder.check.images import Picture
from site_builder.parse.page import ParsedPage
from site_builder.resolve.markdown_text import markdown_text, markdown_url
from site_builder.resolve.resolved import ResolvedPage
from site_builder.vocabulary.i18n import _

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so two builds write identical bytes


def page_markdown(page: ResolvedPage) -> str:
    """The page's source as its flavour publishes it (teacher notes gone from the public one), with roles
    as text and each picture at its published file: the teacher's original is re-encoded under another
    name and is not in the site."""
    text = "\n".join(text for text, _directive in markdown_lines(page)).strip("\n")
    return f"# {markdown_text(page.page.meta.title)}\n\n{text}\n"


def markdown_lines(page: ResolvedPage, site_url: str = "") -> list[tuple[str, tuple[str, str, str] | None]]:
    """Each republished line's text, with its directive syntax (``Line.directive``); blank lines between
    blocks are kept one at a time, never more. ``site_url`` goes before each picture's file where the
    Markdown is read away from the site (a notebook)."""
    kept: list[tuple[str, tuple[str, str, str] | None]] = []
    for line in page.lines:
        text = line if isinstance(line, str) else \
            "".join(p if isinstance(p, str) else markdown_url(site_url + published_image(p)) for p in line.pieces)
        if text or (kept and kept[-1][0]):
            kept.append((text, None if isinstance(line, str) else line.directive))
    return kept


def published_image(picture: Picture) -> str:
    """The site-relative file a Markdown page links for a picture: its widest re-encoding."""
    return list(picture.files)[-1]


def published_pictures(page: ResolvedPage) -> dict[str, bytes]:
    """The files the page's Markdown links for its pictures (a lesson's zip holds them beside it)."""
    return {published_image(p): p.files[published_image(p)] for p in page.pictures}


def llms_txt(site_title: str, base_url: str, pages: list[ParsedPage], say: Callable[[str], str]) -> str:
    """An index of the Markdown versions of every page (llmstxt.org convention)."""
    lines = [f"# {markdown_text(site_title)}", "",
             "> " + say(_("The full Markdown of every page (its numbers filled in by this build).")), "",
             "## " + say(_("Pages")), ""]
    lines += [f"- [{markdown_text(p.meta.title)}]({markdown_url(f'{base_url}{p.meta.id}.md')})"
              + (f": {markdown_text(p.meta.summary)}" if p.meta.summary else "") for p in pages]
    return "\n".join(lines) + "\n"


def zip_bundle(files: dict[str, bytes]) -> bytes:
    """A deterministic zip: sorted names, fixed timestamps, UTF-8 names.

    Stored, not deflated: a lesson's bundle is a few text files of some KiB, and deflating a
    thousand of them per site cost 0.6 s of every build (the web server may compress in transit).
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()
