"""The "本页目录" (on this page) list: a page's second-level headings and its steppers, in order.

Shown beside the text at desktop width (site.css), as Quarto and Jupyter Book do; hidden on
phones, where the page itself is the list. Built from tokens, never from rendered HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from site_builder.resolve.resolved import ResolvedPage, Stepper
from site_builder.vocabulary.i18n import _

STEPPER_TITLE = _("Step by step")
"""The stepper's heading (templates/_stepper.html.j2); its entry in the list."""
EVIDENCE_TITLE = _("Evidence and conditions on this page")
"""The evidence section's heading (templates/_evidence.html.j2)."""


def page_toc(page: ResolvedPage, say: Callable[[str], str]) -> list[dict[str, Any]]:
    """Entries ``{"href", "text"}`` in reading order: h2 headings, and one entry per stepper."""
    entries: list[dict[str, Any]] = []
    for section in page.sections:
        if isinstance(section, Stepper):
            entries.append({"href": f"#{section.anchor}", "text": say(STEPPER_TITLE)})
            continue
        for i, token in enumerate(section):
            if token.type == "heading_open" and token.tag == "h2":
                entries.append({"href": f"#{token.attrGet('id')}", "text": section[i + 1].content})
    return entries


def has_evidence_heading(page: ResolvedPage, say: Callable[[str], str]) -> bool:
    """The page writes its own ``## 本页证据与条件`` (the heading in the course's language): the
    build's summary continues it, so the page shows one evidence section, not two."""
    title = say(EVIDENCE_TITLE)
    runs = [run for section in page.sections for run in
            ([s.source.body + s.source.more for s in section.states] if isinstance(section, Stepper) else [section])]
    return any(token.type == "heading_open" and run[i + 1].content.strip() == title
               for run in runs for i, token in enumerate(run))
