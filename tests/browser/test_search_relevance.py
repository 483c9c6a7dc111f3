"""Search relevance on the real course: queries made from the course's own registries (its pages'
titles, its states' titles, the glossary's wordings) and the page and state each should find first.

The expectations come from the registries, not from this file: a page's title finds that page; a
state's title finds that state; every wording the glossary lists for a term (allowed, or refused in
prose — what a reader may still type) finds a lesson that writes the term, never a reference page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from conftest import answer, ask, search_hrefs  # tests/browser/conftest.py
from playwright.sync_api import expect

from site_builder.parse.page import StateSource

pytestmark = pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's words

TOP_1_SHARE = 0.9
READERS = 2
"""Tabs searching side by side."""
NOWHERE = ["qzxwv", "zzqxjwvk", "猫狗鹅", "缓存猫狗", "“RoPE 双向”"]
"""Made-up Latin and Chinese words, a real word next to made-up ones, and two real words never side by side."""


@dataclass(frozen=True)
class Query:
    text: str
    pages: frozenset[str]
    """Any of these pages (``x.html``) is right first."""
    state: str = ""
    """When set, the first link must land on this anchor."""


def relevance_set(prepared, public_dir) -> list[Query]:
    """Titles of lessons, titles of states, and glossary wordings, each with what it should find."""
    lessons = {page_id: page for page_id, page in prepared.pages.items() if page.meta.kind != "index"}
    queries = [Query(page.meta.title, frozenset({f"{page_id}.html"})) for page_id, page in lessons.items()]
    for page_id, page in lessons.items():
        for block in page.blocks:
            if isinstance(block, StateSource):
                queries.append(Query(block.title, frozenset({f"{page_id}.html"}), f"{page_id}-{block.id}"))
    texts = {page_id: _squeezed((public_dir / f"{page_id}.md").read_text(encoding="utf-8")) for page_id in lessons}
    for term in prepared.content.glossary:
        writers = frozenset(f"{page_id}.html" for page_id, text in texts.items()
                            if any(_squeezed(word) in text for word in term.words))
        for wording in (*term.words, *term.forbidden):
            if writers:
                queries.append(Query(wording, writers))
    return queries


def _squeezed(text: str) -> str:
    """Lower case without spaces: 首 token 时间 and 首token时间 are the same words."""
    return re.sub(r"\s+", "", text).lower()


def test_queries_from_the_course_registries_find_their_page_and_state_first(site, open_tab, real_course):
    queries = relevance_set(real_course, site.public_dir)
    assert len(queries) >= 30, len(queries)
    # readers side by side: each search waits out the box's 250-ms pause for typing, so one tab asking them
    # all in turn spent most of the test waiting
    tabs = [open_tab(site.url(False, "index.html")) for _ in range(READERS)]
    misses = []
    for start in range(0, len(queries), READERS):
        asked = list(zip(tabs, queries[start:start + READERS], strict=False))  # the last round may be short
        for tab, query in asked:
            ask(tab.page, query.text)
        for tab, query in asked:
            hrefs = answer(tab.page, query.text)
            first = hrefs[0] if hrefs else ""
            page, _, anchor = first.rsplit("/", 1)[-1].partition("#")
            if page not in query.pages or (query.state and anchor != query.state):
                misses.append((query.text, sorted(query.pages), query.state, hrefs[:2]))
    assert len(misses) <= (1 - TOP_1_SHARE) * len(queries), f"{len(misses)} of {len(queries)} missed: {misses}"
    assert [tab.errors for tab in tabs] == [[]] * READERS


def test_nonsense_finds_nothing(site, open_tab):
    tab = open_tab(site.url(False, "index.html"))
    for term in NOWHERE:
        assert search_hrefs(tab.page, term) == [], term
        expect(tab.page.locator("[data-search-status]")).to_contain_text("没有找到")
