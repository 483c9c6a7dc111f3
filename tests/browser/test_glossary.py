"""Glossary terms: a link to the definition with or without JavaScript; a hover or focus card with CSS."""

from __future__ import annotations

import re

_CARD = "el => getComputedStyle(el, '::after').content"


def _first_term_page(site) -> tuple[str, str]:
    """A page of the site with a ``{term}`` link, and that link's href."""
    for name in site.pages:
        match = re.search(r'<a class="term" href="([^"]+)"', (site.public_dir / name).read_text(encoding="utf-8"))
        if match:
            return name, match.group(1)
    raise AssertionError(f"{site.kind} site: no page cites a glossary term")


def test_term_shows_its_definition_on_hover_and_focus(site, open_tab):
    page_name, href = _first_term_page(site)
    tab = open_tab(site.url(False, page_name))
    term = tab.page.locator("a.term").first
    definition = term.get_attribute("data-definition")
    assert definition and term.evaluate(_CARD) == "none"  # no card until asked for
    term.hover()
    assert term.evaluate(_CARD) == f'"{definition}"'
    box, card_right = term.bounding_box(), term.evaluate(
        "el => el.getBoundingClientRect().left + parseFloat(getComputedStyle(el, '::after').width)")
    assert box and card_right <= tab.page.viewport_size["width"] + 1  # the card stays on screen
    tab.page.mouse.move(0, 0)
    term.focus()
    assert term.evaluate(_CARD) == f'"{definition}"'
    assert tab.errors == []


def test_term_is_a_plain_link_without_javascript(site, open_tab):
    page_name, href = _first_term_page(site)
    tab = open_tab(site.url(False, page_name), js=False)
    tab.page.locator("a.term").first.click()
    assert tab.page.url.endswith(href)
    anchor = href.split("#", 1)[1]
    assert tab.page.locator(f"#{anchor}").is_visible()
