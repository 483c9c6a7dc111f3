"""Finding one's way: the page row names pages by their short titles (front matter ``label``), on a phone
it keeps the current page in view and says which ends have more; a short link to a state (#b2) works;
code in lessons has a copy button; the evidence section is a summary with its details folded."""

from __future__ import annotations

import re

from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}


def _labels(site) -> dict[str, str]:
    """Page file → its short title: the ``label`` of each page's front matter, else its title (the
    registry the page row is made from)."""
    from conftest import FIXTURE, ROOT

    folder = (FIXTURE if site.kind == "fixture" else ROOT) / "content" / "pages"
    labels = {}
    for source in sorted(folder.glob("*.md")):
        front = source.read_text(encoding="utf-8").split("---", 2)[1]
        fields = dict(re.findall(r"^(label|title): *(.+?) *$", front, re.M))
        labels[f"{source.stem}.html"] = fields.get("label") or fields["title"]
    return labels


def test_the_page_row_names_pages_by_their_short_titles_and_shows_where_you_are(site, open_tab):
    labels = _labels(site)
    assert labels
    tab = open_tab(viewport=PHONE)
    for name, label in labels.items():
        tab.page.goto(site.url(False, name))
        link = tab.page.locator(f".site-nav a[href$='{name}']").first
        assert link.inner_text().strip() == label, (name, label)
        assert link.get_attribute("aria-current") == "page"
        row = tab.page.locator(".site-nav ul")
        box, view = link.bounding_box(), row.bounding_box()
        assert view["x"] - 1 <= box["x"] and box["x"] + box["width"] <= view["x"] + view["width"] + 1, name
        more = row.get_attribute("data-more")
        scroll = tab.page.evaluate("(() => { const r = document.querySelector('.site-nav ul');"
                                   " return [r.scrollLeft > 1, r.scrollLeft + r.clientWidth < r.scrollWidth - 1]; })()")
        assert more == {(True, True): "both", (True, False): "start", (False, True): "end",
                        (False, False): "none"}[tuple(scroll)], (name, more, scroll)
    assert tab.errors == []


def test_a_short_link_to_a_state_opens_it(site, open_tab):
    state = site.states[-1]
    short = state.removeprefix(f"{site.lesson}-")
    tab = open_tab(site.url(False, f"{site.lesson}.html#{short}"))
    assert tab.visible_states() == [state]
    top = tab.page.evaluate(f"document.getElementById('{state}').getBoundingClientRect().top")
    assert 0 <= top < 900
    assert tab.errors == []


def test_code_in_lessons_has_a_copy_button(site, open_tab):
    pages = [n for n in site.pages if re.search(r'class="[^"]*prose[^"]*"[^>]*>(?:(?!</div>).)*<pre',
                                                 (site.public_dir / n).read_text(encoding="utf-8"), re.S)]
    if not pages:
        return  # this site's lessons have no code outside states; the states' code is checked below
    tab = open_tab(permissions=["clipboard-read", "clipboard-write"])
    for name in pages:
        tab.page.goto(site.url(False, name))
        tab.page.evaluate("document.querySelectorAll('[hidden=\"until-found\"]').forEach(e => { e.hidden = false; });"
                          "document.querySelectorAll('main details').forEach(d => { d.open = true; })")
        blocks = tab.page.locator("main .prose pre")
        assert blocks.count() and tab.page.locator("main .code-block .copy-code").count() == blocks.count(), name
        block = tab.page.locator("main .code-block:visible").first
        block.locator(".copy-code").click()
        expect(block.locator(".copy-code")).to_have_text("已复制")
        assert tab.page.evaluate("navigator.clipboard.readText()") == block.locator("pre").text_content()
    assert tab.errors == []


def test_the_evidence_section_is_a_summary_with_details_folded(site, open_tab):
    tab = open_tab()
    found = 0
    for name in site.pages:
        html = (site.public_dir / name).read_text(encoding="utf-8")
        if 'class="evidence-details"' not in html:
            continue
        tab.page.goto(site.url(False, name))
        details = tab.page.locator(".page-evidence details.evidence-details")
        assert details.count() == 1 and details.get_attribute("open") is None, name
        assert tab.page.locator(".evidence-details .evidence-conditions").first.is_hidden(), name
        found += 1
    if site.kind == "real":
        assert found, "the real course's lessons cite values: no folded evidence details found"
