"""A course in two languages in the browser: the language switcher keeps the reader's state, and each
edition's search finds that edition's pages only.

The course is tests/editionkit.py's (Chinese at the root, English under en/, r2 not translated), built
by the engine as ``python build.py`` builds (both sites, every edition, each edition's search index).
"""

from __future__ import annotations

import pytest
from conftest import serve
from editionkit import course_evidence, write_course
from playwright.sync_api import expect

from site_builder.parse.page import StateSource
from site_builder.serve.commands import build_sites


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = write_course(tmp_path_factory.mktemp("editions"))
    public, teacher = root / "_site", root / "_site-teacher"
    report = build_sites(root, course_evidence(root / "fig"), public, teacher, None, 1)
    (edition,) = report.prepared.editions
    url, server = serve(public)
    yield {"url": url, "prepared": report.prepared, "tag": edition.content.config.language,
           "translated": [p for p in edition.pages.values() if p.meta.path.startswith("content/en/")]}
    server.shutdown()


def _lesson(prepared):
    """A lesson of the course with at least two states, and the id of its last state's anchor."""
    for page_id, page in prepared.pages.items():
        states = [b.id for b in page.blocks if isinstance(b, StateSource)]
        if len(states) >= 2:
            return page_id, f"{page_id}-{states[-1]}"
    raise AssertionError("no lesson with two states")


def test_the_switcher_keeps_the_state_the_reader_is_on(course, open_tab):
    page_id, anchor = _lesson(course["prepared"])
    tag = course["tag"]
    tab = open_tab(f"{course['url']}/{page_id}.html#{anchor}")
    page = tab.page
    assert tab.visible_states() == [anchor]
    page.locator(f"a[data-edition][hreflang='{tag}']").click()
    page.wait_for_url(f"**/{tag}/{page_id}.html#{anchor}")
    assert page.locator("html").get_attribute("lang") == tag
    assert tab.visible_states() == [anchor]
    # Moved by the stepper's own buttons (which replace the hash without a hashchange), then back.
    page.goto(f"{course['url']}/{tag}/{page_id}.html")
    first = tab.visible_states()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{course['url']}/{tag}/{page_id}.html#{anchor}")
    page.locator("a[data-edition][hreflang='zh-CN']").click()
    page.wait_for_url(f"**/{page_id}.html#{anchor}")
    assert "/en/" not in page.url and tab.visible_states() == [anchor] != first
    assert tab.errors == []


def _search(page, term: str) -> list[str]:
    page.locator("[data-search] input").fill(term)
    expect(page.locator("[data-search-status]")).to_contain_text(term, timeout=15000)
    links = page.locator("[data-search-list] a")
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_each_edition_searches_its_own_language(course, open_tab):
    tag, prepared = course["tag"], course["prepared"]
    english = course["translated"][0]
    chinese = prepared.pages[english.meta.id]
    word = next(w for w in english.meta.title.replace(":", " ").split() if len(w) > 4)
    tab = open_tab(f"{course['url']}/{tag}/index.html")
    found = _search(tab.page, word)
    assert found and all(f"/{tag}/" in href or not href.startswith(("/", "http")) for href in found), found
    assert any(href.split("#")[0].endswith(f"{english.meta.id}.html") for href in found), found
    # Curly quotes and a spaced dash read in an English excerpt as the page writes them (not stay“as they
    # are”—the), and the apostrophe typed straight (model's) as the page shows it, curly.
    assert _search(tab.page, "entries")
    excerpts = tab.page.locator("[data-search-list] .search-excerpt").all_inner_texts()
    assert any("stay “as they are” — the model’s entries" in text for text in excerpts), excerpts
    # A highlight holds the word, not the full stop Pagefind marks with it ("again." in the sentence above).
    assert _search(tab.page, "again")
    marks = tab.page.locator("[data-search-list] .search-excerpt mark").all_inner_texts()
    assert marks and all(mark.lower() == "again" for mark in marks), marks
    # And an excerpt that stops inside a sentence ends with "…".
    shown = excerpts + tab.page.locator("[data-search-list] .search-excerpt").all_inner_texts()
    assert all(text.rstrip().endswith(("…", ".", "!", "?", "。", "！", "？")) for text in shown), shown
    # A Chinese word of the source page: the English search does not find it (r2, shown in Chinese
    # there, is left out of the English index), the Chinese search does, on Chinese pages only.
    chinese_word = chinese.meta.title.split("：")[-1][:2]
    assert _search(tab.page, chinese_word) == []
    root = open_tab(f"{course['url']}/index.html")
    found = _search(root.page, chinese_word)
    assert found and not [href for href in found if f"{tag}/" in href], found
    assert tab.errors == [] and root.errors == []


def test_both_editions_pass_axe_with_the_switcher_and_the_notice(course, open_tab, axe_source):
    from test_a11y import axe_violations

    tag, edition = course["tag"], course["prepared"].editions[0]
    untranslated = [p for p in edition.pages if edition.pages[p].meta.path.startswith("content/pages/")]
    assert untranslated
    tab = open_tab(None, bypass_csp=True)
    for name in [f"{course['translated'][0].meta.id}.html", f"{tag}/{course['translated'][0].meta.id}.html",
                 f"{tag}/{untranslated[0]}.html", f"{tag}/numbers.html"]:
        tab.page.goto(f"{course['url']}/{name}")
        assert axe_violations(tab, axe_source) == [], name
