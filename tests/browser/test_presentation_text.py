"""Presentation at 1280×800: every step's text at 16 px or more (the state gives up figure height and
width before its text shrinks); the speaker window keeps the step's title clear of its sticky bar,
and a presenter remote plugged into the speaker machine walks the pointing steps and the states."""

from __future__ import annotations

import re

PROJECTOR = {"width": 1280, "height": 800}
MIN_TEXT_PX = 16

_SMALLEST_TEXT = """() => {
  const state = document.querySelector('.state:not([hidden])');
  const sizes = [];
  for (const e of state.querySelectorAll('p, li, td, th, pre, figcaption, h3, dd, summary')) {
    if (!e.checkVisibility() || ![...e.childNodes].some(n => n.nodeType === 3 && n.data.trim())) continue;
    sizes.push([parseFloat(getComputedStyle(e).fontSize), e.tagName + ' ' + e.textContent.trim().slice(0, 24)]);
  }
  sizes.sort((a, b) => a[0] - b[0]);
  return sizes[0];
}"""
_AT_LAST_POINT = """(() => {
  const steps = [...document.querySelectorAll('.state:not([hidden]) [data-teacher] li')]
    .filter(li => li.querySelector('a.mark-ref'));
  return !steps.length || steps[steps.length - 1].classList.contains('is-pointing');
})()"""
_TITLE_CLEAR = """() => document.querySelector('.state:not([hidden]) h3').getBoundingClientRect().top
  >= document.querySelector('.stepper-controls').getBoundingClientRect().bottom"""


def _lessons(site) -> list[str]:
    return [name for name in site.pages
            if '<section class="state"' in (site.teacher_dir / name).read_text(encoding="utf-8")]


def test_presentation_text_is_16_px_or_more_on_every_step(site, open_tab):
    tab = open_tab(viewport=PROJECTOR)
    for name in _lessons(site):
        html = (site.teacher_dir / name).read_text(encoding="utf-8")
        for state in re.findall(r'<section class="state" id="([^"]+)"', html):
            tab.page.goto(site.url(True, f"{name}?present=1#{state}"))
            tab.page.wait_for_timeout(300)  # present.js fits the state after load
            size, where = tab.page.evaluate(_SMALLEST_TEXT)
            assert size >= MIN_TEXT_PX - 0.01, (name, state, size, where)
    assert tab.errors == []


def test_a_remote_walks_the_speaker_window_and_the_title_stays_in_view(site, open_tab):
    tab = open_tab(site.url(True, f"{site.lesson}.html?notes=1&speaker=1"), viewport={"width": 960, "height": 720})
    page = tab.page
    page.wait_for_timeout(300)
    seen_states, pointed = [], 0
    for _ in range(40):
        state = page.evaluate("document.querySelector('.state:not([hidden])').id")
        if state not in seen_states:
            seen_states.append(state)
        pointed += page.evaluate("document.querySelectorAll('.state:not([hidden]) li.is-pointing').length")
        assert page.evaluate(_TITLE_CLEAR), (state, "the step's title is under the sticky bar")
        if state == site.states[-1] and page.evaluate(_AT_LAST_POINT):
            break
        page.keyboard.press("PageDown")
        page.wait_for_timeout(80)
    assert seen_states == list(site.states), seen_states
    has_steps = page.evaluate("document.querySelectorAll('[data-teacher] li a.mark-ref').length") > 0
    assert pointed > 0 or not has_steps, "PageDown in the speaker window never walked a pointing step"
    assert tab.errors == []
