"""Phone layouts at 390 px: nothing wider than the screen, tables at their natural width (never
columns narrower than two Chinese characters), term cards inside the screen, the teacher gallery a
short list, and headings broken only between phrases (at every width)."""

from __future__ import annotations

import re

import pytest

PHONE = {"width": 390, "height": 844}
SCREENS_PER_10_FIGURES = 3

# Every state shown (as in print and without JavaScript), so their tables and headings are measured too.
_SHOW_ALL = "document.querySelectorAll('[hidden=\"until-found\"]').forEach(e => { e.hidden = false; })"

_TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = (e) => {  // inside something that scrolls or clips sideways: its width is its own business
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (/(auto|scroll|hidden|clip)/.test(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const wide = [...document.querySelectorAll('body *')].filter(e => e.checkVisibility()
    && e.getBoundingClientRect().right > width + 1 && !clipped(e));
  return [document.documentElement.scrollWidth, width,
          wide.slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + e.getBoundingClientRect().right)];
}"""

_NARROW_COLUMNS = """() => [...document.querySelectorAll('table')].filter(t => t.checkVisibility()).flatMap(t =>
  [...t.querySelectorAll('th, td')].map(c => {
    const s = getComputedStyle(c);
    const content = c.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    return [content, 2 * parseFloat(s.fontSize), c.textContent.trim().slice(0, 20)];
  }).filter(([content, twoChars]) => content < twoChars - 0.5))"""

_MID_WORD_BREAKS = """() => {
  const CJK = /[\\u3400-\\u9fff\\uf900-\\ufaff]/, out = [];
  for (const h of document.querySelectorAll('h1, h2, h3, h4')) {
    if (!h.checkVisibility()) continue;
    const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT), chars = [];
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect) chars.push([node.data[i], rect.top]);
      }
    }
    let quoted = false;  // inside “…”: a quotation (“I gave”) is one phrase
    for (let i = 1; i < chars.length; i++) {
      if (chars[i - 1][0] === '“') quoted = true; else if (chars[i - 1][0] === '”') quoted = false;
      if (chars[i][1] > chars[i - 1][1] + 4 && (quoted || CJK.test(chars[i - 1][0]) && CJK.test(chars[i][0])))
        out.push(h.textContent.trim() + ': ' + chars[i - 1][0] + '|' + chars[i][0]);
    }
  }
  return out;
}"""


def _pages(site) -> list[str]:
    return [p for p in site.pages if p != "404.html"]


def test_nothing_is_wider_than_a_phone_and_no_table_column_is_crushed(site, open_tab):
    tab = open_tab(viewport=PHONE)
    for name in _pages(site):
        tab.page.goto(site.url(False, name))
        tab.page.evaluate(_SHOW_ALL)
        scroll_width, width, wide = tab.page.evaluate(_TOO_WIDE)
        assert scroll_width <= width and wide == [], (name, scroll_width, wide)
        assert tab.page.evaluate(_NARROW_COLUMNS) == [], name
    assert tab.errors == []


def test_term_cards_stay_on_a_phone_screen(site, open_tab):
    tab = open_tab(viewport=PHONE)
    seen = 0
    for name in _pages(site):
        tab.page.goto(site.url(False, name))
        terms = tab.page.locator("main a.term")
        for i in range(terms.count()):
            term = terms.nth(i)
            if not term.is_visible():
                continue
            term.hover()
            left, right = tab.page.evaluate("""(t) => {
                const card = getComputedStyle(t, '::after'), box = t.getBoundingClientRect();
                const left = box.left + parseFloat(card.left);
                return [left, left + parseFloat(card.width)];
            }""", term.element_handle())
            assert left >= 0 and right <= PHONE["width"], (name, term.text_content(), left, right)
            assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
            seen += 1
    if site.kind == "real":
        assert seen, "the real course cites glossary terms: no term card was measured"


def test_the_teacher_gallery_is_a_short_list_on_a_phone(site, open_tab):
    html = (site.teacher_dir / "gallery.html").read_text(encoding="utf-8")
    figures = len(re.findall(r'<li class="gallery-item"', html))
    assert figures
    for img in re.findall(r'<li class="gallery-item".*?<img [^>]*>', html, re.S):
        img = img[img.rindex("<img"):]
        assert 'loading="lazy"' in img and re.search(r'width="\d+"', img) and re.search(r'height="\d+"', img), img
    tab = open_tab(site.url(True, "gallery.html"), viewport=PHONE)
    height = tab.page.evaluate("document.documentElement.scrollHeight")
    assert height <= SCREENS_PER_10_FIGURES * PHONE["height"] * max(figures, 10) / 10, (height, figures)
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert tab.errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_headings_break_between_phrases_not_inside_chinese_words(site, open_tab, width):
    tab = open_tab(viewport={"width": width, "height": 900})
    for name in _pages(site):
        tab.page.goto(site.url(False, name))
        tab.page.evaluate(_SHOW_ALL)
        assert tab.page.evaluate(_MID_WORD_BREAKS) == [], name


_SHOWN_AND_LINKED = """f => [f.querySelector('img').currentSrc.split('/').pop(),
  [...f.querySelectorAll('.figure-full')].filter(a => a.checkVisibility()).map(a => a.href.split('/').pop())]"""
"""A figure's picture as shown (the <picture>'s choice) and the pictures its shown full-size links open."""
_FIRST_SHOWN = "[...document.querySelectorAll('.figure')].find(f => f.checkVisibility()).querySelector('img')"
"""The picture of the first figure the reader sees (lazy: it has no ``currentSrc`` until it loads)."""


def test_a_figure_opens_alone_larger_than_on_the_page_from_its_caption(site, open_tab):
    """On a phone the page shrinks a figure to the screen and its labels with it: the link in its caption
    opens the SVG alone, at its own size (which the reader can zoom further without blurring). It opens
    the picture the page shows: the dark one on a dark system, the light one once the reader picks light."""
    from chromium import wait_until

    tab = open_tab(site.url(False, f"{site.lesson}.html"), viewport=PHONE, color_scheme="dark")
    page = tab.page
    figure = page.locator(".figure").filter(visible=True).first
    figure.scroll_into_view_if_needed()
    wait_until(page, f"() => {_FIRST_SHOWN}.complete && {_FIRST_SHOWN}.currentSrc !== ''")
    shown, linked = figure.evaluate(_SHOWN_AND_LINKED)
    assert linked == [shown] and shown.endswith(".dark.svg"), (shown, linked)
    page.locator("[data-theme-toggle]").click()  # 自动 → 浅色
    # The picture chooses again: its currentSrc is empty until the light drawing is chosen.
    wait_until(page, f"() => (src => src.endsWith('.svg') && !src.endsWith('.dark.svg'))({_FIRST_SHOWN}.currentSrc)")
    shown, linked = figure.evaluate(_SHOWN_AND_LINKED)
    assert linked == [shown] and not shown.endswith(".dark.svg"), (shown, linked)
    on_page = figure.locator("img").bounding_box()["width"]
    link = figure.locator(".figure-full").filter(visible=True)
    box = link.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    with page.expect_navigation() as opened:
        link.click()
    assert opened.value.headers["content-type"].startswith("image/svg+xml")
    alone = page.evaluate("document.documentElement.getBoundingClientRect().width")
    assert alone > on_page * 1.2, (alone, on_page)
