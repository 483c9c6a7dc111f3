"""Accessibility: axe-core on both builds with and without JS, language, figures, provenance badges."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from site_builder.content import BADGE_TEXT

AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                                    "best-practice"]},
               "resultTypes": ["violations"]}


def axe_violations(tab, axe_source: str) -> list[str]:
    tab.page.add_script_tag(content=axe_source)
    result = tab.page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(json.dumps(n["target"]) for n in v["nodes"][:4])
            for v in result["violations"]]


def check_axe(open_tab, axe_source, url, **options):
    # axe is injected as a script tag, which the pages' CSP would (rightly) refuse.
    tab = open_tab(url, bypass_csp=True, **options)
    assert axe_violations(tab, axe_source) == [], url


def test_axe_public_js_every_page(site, open_tab, axe_source):
    for name in site.pages:
        check_axe(open_tab, axe_source, site.url(False, name))


@pytest.mark.parametrize("teacher,js", [(False, False), (True, True), (True, False)],
                         ids=["public-nojs", "teacher-js", "teacher-nojs"])
def test_axe_lesson_and_index(site, open_tab, axe_source, teacher, js):
    for name in (f"{site.lesson}.html", "index.html"):
        check_axe(open_tab, axe_source, site.url(teacher, name), js=js)


def test_axe_dark_mode_notes_shown_and_presentation(site, open_tab, axe_source):
    check_axe(open_tab, axe_source, site.url(False, f"{site.lesson}.html#{site.states[-1]}"), color_scheme="dark")
    check_axe(open_tab, axe_source, site.url(True, f"{site.lesson}.html?notes=1"), color_scheme="dark")
    check_axe(open_tab, axe_source, site.url(True, f"{site.lesson}.html?present=1"))


def test_lang_on_every_page(site):
    for directory in (site.public_dir, site.teacher_dir):
        for path in directory.glob("*.html"):
            assert '<html lang="zh-CN">' in path.read_text(encoding="utf-8"), path


def test_figures_have_alt_and_long_description(site, open_tab):
    tab = open_tab(site.url(False, f"{site.lesson}.html"), js=False)
    images = tab.page.locator("main img")
    assert images.count() > 0
    for i in range(images.count()):
        image = images.nth(i)
        assert (image.get_attribute("alt") or "").strip(), "short alt text"
        described = image.get_attribute("aria-describedby")
        assert described and tab.page.locator(f"#{described}").count() == 1
        expect(image).to_have_accessible_description(tab.page.locator(f"#{described}").text_content().strip())
        assert image.get_attribute("width") and image.get_attribute("height"), "space reserved: no layout shift"


def test_provenance_badges_match_the_data(site, open_tab):
    for name in site.pages:
        tab = open_tab(site.url(False, name), js=False)
        rows = tab.page.eval_on_selector_all(".badge", """els => els.map(b => ({
            own: b.dataset.provenance, text: b.textContent.trim(),
            holder: (b.closest('figure, section.state') || {dataset: {}}).dataset.provenance || null,
            isFigure: !!b.closest('figcaption'), isState: !!b.closest('.state-meta')}))""")
        for row in rows:
            assert row["text"] == BADGE_TEXT[row["own"]], (name, row)
            if row["isFigure"] or row["isState"]:
                assert row["own"] == row["holder"], (name, row)
        tab.page.context.close()
