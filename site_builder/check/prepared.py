"""What the check stage hands on: the site loaded, parsed and checked, ready to resolve and render."""

from __future__ import annotations

from dataclasses import dataclass, field

from site_builder.check.images import Picture
from site_builder.load.content import Content, Evidence
from site_builder.parse.page import ParsedPage
from site_builder.vocabulary.problems import Problem


@dataclass(frozen=True)
class PreparedSite:
    """Content loaded, parsed and checked: ready to render either site."""

    content: Content
    pages: dict[str, ParsedPage]
    """Parsed pages by id, in site order."""
    evidence: Evidence
    warnings: tuple[Problem, ...] = ()
    """What ``check`` reports without failing (a 指图 list naming no mark)."""
    images: dict[str, Picture] = field(default_factory=dict)
    """Teacher-supplied pictures the pages show, resized, by project-relative path."""
    editions: tuple[PreparedSite, ...] = ()
    """The course's translations, each prepared like the site itself (``engine/editions.py``): its pages are
    the translated ones and, where none is yet, the source's."""
