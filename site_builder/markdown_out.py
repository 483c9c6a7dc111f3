"""Pages as Markdown for readers and agents: ``<page>.md``, ``llms.txt``, download bundles."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Mapping

from .check import resolve_mark
from .content import Evidence
from .i18n import _
from .images import Picture
from .numbers import display
from .parse import ParsedPage, StateSource, image_path

ROLE = re.compile(r"\{([A-Za-z][\w-]*)\}`([^`]*)`")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so two builds write identical bytes


_IMAGE_DESTINATION = re.compile(r"(!\[(?:[^\]\\]|\\.)*\]\(\s*)(<[^>\n]*>|[^\s)]+)")
"""``![alt](`` and the path after it (CommonMark also allows the path in ``<…>``)."""


def plain_markdown(page: ParsedPage, evidence: Evidence, titles: dict[str, str], teacher: bool,
                   pictures: Mapping[str, Picture] | None = None, say: Callable[[str], str] = str,
                   site_url: str = "") -> str:
    """The page source with roles resolved to plain text; teacher notes removed unless ``teacher``;
    ``say`` puts the build's own words in the course's language.

    A picture points at its published file (``pictures``: project path → ``Picture``): the
    teacher's original is re-encoded under another name and is not in the site. ``site_url``
    goes before it where the Markdown is read away from the site (a notebook).
    """
    lines = page.source.split("\n")
    for src, line in page.images:
        picture = (pictures or {}).get(image_path(page.meta.path, src))
        if picture is not None:
            published = site_url + published_image(picture)
            lines[line - 1] = _IMAGE_DESTINATION.sub(lambda m, to=published: m.group(1) + to, lines[line - 1], count=1)
    if not teacher:
        for start, end in page.teacher_spans:
            lines[start:end] = [None] * (end - start)
    figures = _state_figures(page, len(lines))
    lines = [None if line is None else ROLE.sub(
        lambda m, fig=fig: role_text(m.group(1), m.group(2).strip(), evidence, titles, fig, say), line)
        for line, fig in zip(lines, figures, strict=True)]
    body = "\n".join(line for line in lines if line is not None).strip("\n")
    return f"# {page.meta.title}\n\n{re.sub(chr(10) * 3 + '+', chr(10) * 2, body)}\n"


def _state_figures(page: ParsedPage, count: int) -> list[str]:
    """For each source line, the figure of the state it stands in (``{mark}`` names resolve against it)."""
    figures = [""] * count
    for block in page.blocks:
        if isinstance(block, StateSource):
            figures[block.line - 1:block.end_line] = [block.figure] * (block.end_line - block.line + 1)
    return figures[:count]


def role_text(name: str, target: str, evidence: Evidence, titles: dict[str, str], state_figure: str = "",
              say: Callable[[str], str] = str) -> str:
    if name == "mark":
        figure_id, mark_name = resolve_mark(target, state_figure)
        mark = evidence.figures[figure_id].mark(mark_name) if figure_id in evidence.figures else None
        return mark.label if mark else target
    if name == "num" and target in evidence.values:
        return say(display(evidence.values[target]))
    if name == "fig" and target in evidence.figures:
        return say(_("(figure {id}: {alt})", id=target, alt=evidence.figures[target].alt))
    if name == "src":
        return f"[{target}]"
    if name == "ref":
        page = target.partition("#")[0]
        return say(_("“{title}”", title=titles[page])) if page in titles else target
    return target


def published_image(picture: Picture) -> str:
    """The site-relative file a Markdown page links for a picture: its widest re-encoding."""
    return list(picture.files)[-1]


def published_pictures(page: ParsedPage, pictures: Mapping[str, Picture]) -> dict[str, bytes]:
    """The files the page's Markdown links for its pictures (a lesson's zip holds them beside it)."""
    found = (pictures.get(image_path(page.meta.path, src)) for src, _line in page.images)
    return {published_image(p): p.files[published_image(p)] for p in found if p is not None}


def llms_txt(site_title: str, base_url: str, pages: list[ParsedPage], say: Callable[[str], str] = str) -> str:
    """An index of the Markdown versions of every page (llmstxt.org convention)."""
    lines = [f"# {site_title}", "", "> " + say(_("The full Markdown of every page (its numbers filled in by this "
                                                 "build).")), "", "## " + say(_("Pages")), ""]
    lines += [f"- [{p.meta.title}]({base_url}{p.meta.id}.md)" + (f": {p.meta.summary}" if p.meta.summary else "")
              for p in pages]
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
