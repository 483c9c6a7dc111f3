"""Editions: a course's translations, made by the same pipeline from the same evidence.

A translation (``content/<tag>/``, see load/editions.py) is checked and rendered like the source:
its pages parsed, checked across its site with its own glossary, and rendered into ``<tag>/`` of
both sites by the same renderer. What it shows is the build's one set of values, figures and
marks (the figures drawn in its language: ``Evidence.edition``), so the English page's "0.118" is
the Chinese page's measurement. On top of the usual checks, each translated page must show what its
source shows (check/parity.py); a page not translated yet is the source page, with a notice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from site_builder.check.parity import parity_problems, untranslated_warnings
from site_builder.check.prepared import PreparedSite
from site_builder.engine.pipeline import Parsed, check_parsed
from site_builder.load.content import Content, SourceFile
from site_builder.vocabulary.problems import ContentError, Problem


def edition_sources(content: Content) -> list[SourceFile]:
    """The translated pages of every edition, in order: parsed with the source's pages, in one pass."""
    return [file for edition in content.editions for file in edition.pages]


def with_editions(prepared: PreparedSite, parsed: Parsed, memo: Callable | None = None) -> PreparedSite:
    """``prepared`` with its editions checked (``parsed``: ``edition_sources``'s parses, in order; ``memo``: the
    source's, see ``check_site``); raise ``ContentError`` with every problem of every edition, parity included."""
    content = prepared.content
    problems: list[Problem] = []
    warnings: list[Problem] = []
    editions = []
    start = 0
    for edition in content.editions:
        mine, start = parsed[start:start + len(edition.pages)], start + len(edition.pages)
        problems += [p for page, _errors in mine if page is not None and page.meta.id in prepared.pages
                     for p in parity_problems(prepared.pages[page.meta.id], page)]
        # A page not translated yet shows the source's: references to it are checked against the source's anchors.
        shown = {page_id: page.anchor_ids for page_id, page in prepared.pages.items() if page_id in edition.unlisted}
        try:
            checked = check_parsed(edition, mine, [], prepared.evidence.edition(edition.config.language), memo, shown)
        except ContentError as error:
            problems += error.problems
            continue
        warnings += [*untranslated_warnings(edition.fallback, edition.config.language, edition.folder),
                     *checked.warnings]
        pages = {page_id: checked.pages.get(page_id) or prepared.pages[page_id] for page_id in prepared.pages}
        editions.append(replace(checked, pages=pages, images=prepared.images | checked.images))
    if problems:
        raise ContentError(problems)
    return replace(prepared, warnings=prepared.warnings + tuple(warnings), editions=tuple(editions))

