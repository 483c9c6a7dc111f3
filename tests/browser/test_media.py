"""Media and preferences: reduced motion, print, dark mode and the theme chosen before first paint."""

from __future__ import annotations

from chromium import wait_until  # tests/chromium.py
from playwright.sync_api import expect


def lesson_url(site, teacher=False, suffix=""):
    return site.url(teacher, f"{site.lesson}.html{suffix}")


def luminance(css_color: str) -> float:
    r, g, b = (int(x) for x in css_color[css_color.index("(") + 1:css_color.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_motion_only_without_reduced_motion(site, open_tab):
    step = "document.querySelector('[data-step=next]').click(); document.getAnimations().length"
    calm = open_tab(lesson_url(site), reduced_motion="reduce").page
    assert calm.evaluate(step) == 0
    moving = open_tab(lesson_url(site), reduced_motion="no-preference").page
    assert moving.evaluate(step) > 0  # a short fade, nothing else


def test_print_shows_every_state_with_details_open(site, open_tab):
    for teacher in (False, True):
        tab = open_tab(lesson_url(site, teacher))
        page = tab.page
        assert len(tab.visible_states()) == 1
        page.emulate_media(media="print")
        page.evaluate("dispatchEvent(new Event('beforeprint'))")  # what printing fires (emulation does not)
        assert tab.visible_states() == list(site.states), "teacher" if teacher else "public"
        wait_until(page, "() => [...document.querySelectorAll('main img')].every(i => i.complete && i.naturalWidth)")
        for sid in site.states:
            assert page.eval_on_selector(f"#{sid}", "s => s.getBoundingClientRect().height") > 40
        more = page.locator("details.more > :not(summary)")
        for i in range(more.count()):
            expect(more.nth(i)).to_be_visible()  # "进一步解释" is printed expanded
        expect(page.locator(".stepper-controls")).to_be_hidden()
        expect(page.locator(".site-header")).to_be_hidden()


def test_dark_mode_and_dark_or_light_figure_card(site, open_tab):
    page = open_tab(lesson_url(site), color_scheme="dark").page
    body = page.eval_on_selector("body", "b => getComputedStyle(b).backgroundColor")
    text = page.eval_on_selector("body", "b => getComputedStyle(b).color")
    assert luminance(body) < 0.2 < 0.7 < luminance(text)
    if page.locator(".figure-card source[data-dark-source]").count():  # matplotlib's dark variant (test_reader)
        wait_until(page, "() => document.querySelector('.figure-card img').complete")
        assert page.eval_on_selector(".figure-card img", "i => i.currentSrc").endswith(".dark.svg")
    else:
        card = page.eval_on_selector(".figure-card", "c => getComputedStyle(c).backgroundColor")
        assert luminance(card) > 0.95, "a figure without a dark variant stays on a light card in dark mode"


def test_theme_toggle_persists_and_applies_before_first_paint(site, open_tab):
    tab = open_tab(lesson_url(site), color_scheme="light")
    page = tab.page
    toggle = page.locator("[data-theme-toggle]")
    expect(toggle).to_have_text("配色：自动")
    toggle.click()
    toggle.click()
    expect(toggle).to_have_text("配色：深色")
    assert luminance(page.eval_on_selector("body", "b => getComputedStyle(b).backgroundColor")) < 0.2
    # With site.js blocked, the inline head script alone must still apply the stored theme.
    page.route("**/static/site.js", lambda route: route.abort())
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert luminance(page.eval_on_selector("body", "b => getComputedStyle(b).backgroundColor")) < 0.2
    page.unroute("**/static/site.js")
    page.reload()
    page.locator("[data-theme-toggle]").click()
    expect(page.locator("[data-theme-toggle]")).to_have_text("配色：自动")
    assert page.evaluate("document.documentElement.dataset.theme") is None
    assert [e for e in tab.errors if "ERR_FAILED" not in e] == []  # the blocked site.js
