"""The stepper: the no-JS page first, then one state at a time with keys, buttons and the URL hash."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def lesson_url(site, teacher=False, suffix=""):
    return site.url(teacher, f"{site.lesson}.html{suffix}")


# ---------------------------------------------------------------- no JS --
def test_nojs_every_state_visible_in_order(site, open_tab):
    tab = open_tab(lesson_url(site), js=False)
    page = tab.page
    ids = page.eval_on_selector_all("section.state", "els => els.map(e => e.id)")
    assert tuple(ids) == site.states
    assert tab.visible_states() == list(site.states)
    hrefs = page.eval_on_selector_all(".stepper-nav a", "as => as.map(a => a.getAttribute('href'))")
    assert hrefs == [f"#{s}" for s in site.states]
    expect(page.locator(".stepper-controls")).to_be_hidden()
    expect(page.locator("[data-search]")).to_be_hidden()  # needs JS: not shown as a dead control
    expect(page.locator(".stepper-nav a[aria-current]")).to_have_count(0)  # every step is on screen
    for sid in site.states:  # each state has its permalink
        expect(page.locator(f"#{sid} .permalink")).to_have_attribute("href", f"#{sid}")


def test_nojs_deep_link_lands(site, open_tab):
    last = site.states[-1]
    tab = open_tab(lesson_url(site, suffix=f"#{last}"), js=False)
    expect(tab.page.locator(f"#{last} h3")).to_be_in_viewport()


# ------------------------------------------------------------------- JS --
def test_one_state_at_a_time(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    assert tab.visible_states() == [site.states[0]]
    for sid in site.states[1:]:
        expect(page.locator(f"#{sid}")).to_have_attribute("hidden", "until-found")
    expect(page.locator(".stepper-nav a").first).to_have_attribute("aria-current", "step")
    expect(page.locator(".stepper-nav a[aria-current]")).to_have_count(1)
    status = page.locator("[data-status]")
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_text(re.compile(rf"^第 1 步，共 {len(site.states)} 步：\S"))
    expect(page.get_by_role("button", name="上一步")).to_be_disabled()
    expect(page.get_by_role("button", name="下一步")).to_be_enabled()
    assert tab.errors == []


def test_deep_link_to_state_and_to_element_inside(site, open_tab):
    last = site.states[-1]
    tab = open_tab(lesson_url(site, suffix=f"#{last}"))
    assert tab.visible_states() == [last]
    expect(tab.page.locator(f".stepper-nav a[href='#{last}']")).to_have_attribute("aria-current", "step")
    expect(tab.page.locator(f"#{last} h3")).to_be_in_viewport()
    # a link to something inside a state (its heading, its figure's description) opens that state
    inner = tab.page.eval_on_selector(
        f"#{site.states[1]}", "s => (s.querySelector('[id$=\"-desc\"]') || s.querySelector('[id]')).id")
    tab.page.goto(lesson_url(site, suffix=f"#{inner}"))  # same document: the hashchange path
    assert tab.visible_states() == [site.states[1]]
    tab.page.reload()  # a fresh load: the start-up path
    assert tab.visible_states() == [site.states[1]]


def test_arrow_keys_sync_hash_without_history_growth(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    start = page.evaluate("history.length")
    n = len(site.states)
    page.keyboard.press("ArrowRight")
    assert tab.visible_states() == [site.states[1]]
    expect(page).to_have_url(re.compile(rf"#{site.states[1]}$"))
    expect(page.locator("[data-status]")).to_contain_text(f"第 2 步，共 {n} 步")
    for _ in range(n + 1):  # past the end: stays on the last state, no wrap-around
        page.keyboard.press("ArrowRight")
    assert tab.visible_states() == [site.states[-1]]
    expect(page.get_by_role("button", name="下一步")).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    assert tab.visible_states() == [site.states[-2]]
    assert page.evaluate("history.length") == start  # replaceState, not pushState
    page.reload()
    assert tab.visible_states() == [site.states[-2]]


def test_buttons_step_and_stop_at_the_ends(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    prev, nxt = page.get_by_role("button", name="上一步"), page.get_by_role("button", name="下一步")
    prev.click(force=True)  # disabled at the start: nothing happens
    assert tab.visible_states() == [site.states[0]]
    nxt.click()
    assert tab.visible_states() == [site.states[1]]
    expect(page).to_have_url(re.compile(rf"#{site.states[1]}$"))
    prev.click()
    assert tab.visible_states() == [site.states[0]]
    for _ in site.states[1:]:
        nxt.click()
    nxt.click(force=True)  # disabled at the end: no wrap-around
    assert tab.visible_states() == [site.states[-1]]
    expect(nxt).to_have_attribute("aria-disabled", "true")
    expect(nxt).to_be_focused()  # aria-disabled, not disabled: focus is not dropped at the end


def test_keys_ignored_with_modifiers_in_form_controls_and_pagedown_scrolls(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    for key in ("Shift+ArrowRight", "Alt+ArrowRight", "Control+ArrowRight", "Meta+ArrowRight"):
        page.keyboard.press(key)
        assert tab.visible_states() == [site.states[0]], key
    page.keyboard.press("PageDown")  # reading mode: the page scrolls, the stepper does not move
    page.keyboard.press("End")
    assert tab.visible_states() == [site.states[0]]
    page.locator("#site-search-input").focus()  # a form control (public build's search box)
    page.keyboard.press("ArrowRight")
    assert tab.visible_states() == [site.states[0]]


def test_focus_kept_when_its_state_hides(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    page.locator(f"#{site.states[0]} .permalink").focus()
    page.keyboard.press("ArrowRight")
    assert tab.visible_states() == [site.states[1]]
    assert page.evaluate("document.activeElement.id") == f"{site.states[1]}-title"


def test_link_clicks_are_navigation_and_back_works(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    page.locator(".stepper-nav a").last.click()
    assert tab.visible_states() == [site.states[-1]]
    expect(page.locator(".stepper-nav a").last).to_have_attribute("aria-current", "step")
    page.locator(f"#{site.states[-1]} .state-pager a").first.click()  # "← 上一步：…" inside the state
    assert tab.visible_states() == [site.states[-2]]
    page.go_back()
    assert tab.visible_states() == [site.states[-1]]
    page.go_back()  # back to the bare URL: the first state
    assert tab.visible_states() == [site.states[0]]
    assert tab.errors == []
