"""Pages as Markdown for readers and agents: ``<page>.md``, ``llms.txt``, download bundles."""

from __future__ import annotations

import io
import re
import zipfile

from .content import Evidence
from .numbers import display
from .check import resolve_mark
from .parse import ParsedPage, StateSource

_ROLE = re.compile(r"\{([A-Za-z][\w-]*)\}`([^`]*)`")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so two builds write identical bytes


def plain_markdown(page: ParsedPage, evidence: Evidence, titles: dict[str, str], teacher: bool) -> str:
    """The page source with roles resolved to plain text; teacher notes removed unless ``teacher``."""
    lines = page.source.split("\n")
    if not teacher:
        for start, end in page.teacher_spans:
            lines[start:end] = [None] * (end - start)
    figures = _state_figures(page, len(lines))
    lines = [None if line is None else _ROLE.sub(
        lambda m, fig=fig: _role_text(m.group(1), m.group(2).strip(), evidence, titles, fig), line)
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


def _role_text(name: str, target: str, evidence: Evidence, titles: dict[str, str], state_figure: str = "") -> str:
    if name == "mark":
        figure_id, mark_name = resolve_mark(target, state_figure)
        mark = evidence.figures[figure_id].mark(mark_name) if figure_id in evidence.figures else None
        return mark.label if mark else target
    if name == "num" and target in evidence.values:
        return display(evidence.values[target])
    if name == "fig" and target in evidence.figures:
        return f"（图 {target}：{evidence.figures[target].alt}）"
    if name == "src":
        return f"[{target}]"
    if name == "ref":
        page = target.partition("#")[0]
        return f"《{titles[page]}》" if page in titles else target
    return target


def llms_txt(site_title: str, base_url: str, pages: list[ParsedPage]) -> str:
    """An index of the Markdown versions of every page (llmstxt.org convention)."""
    lines = [f"# {site_title}", "", "> 每页的 Markdown 全文（数值已由本次构建填入）。", "", "## Pages", ""]
    lines += [f"- [{p.meta.title}]({base_url}{p.meta.id}.md)" + (f": {p.meta.summary}" if p.meta.summary else "")
              for p in pages]
    return "\n".join(lines) + "\n"


def zip_bundle(files: dict[str, bytes]) -> bytes:
    """A deterministic zip: sorted names, fixed timestamps, UTF-8 names."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()
