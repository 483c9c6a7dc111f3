"""Moving between states shifts nothing unasked, whatever moved it: keys, buttons, a hash change with no
input (a link from elsewhere, the address bar), Back and Forward; and every state starts at the same place."""

from __future__ import annotations

import pytest

MAX_SHIFT = 0.02
_OBSERVE = """window.__shift = 0; window.__moved = []; new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;  // as CLS counts: a shift within 0.5 s of a key or a tap was asked for
    window.__shift += entry.value;
    window.__moved.push(...entry.sources.map(s => s.node && (s.node.id || s.node.className || s.node.nodeName)));
  }
}).observe({type: 'layout-shift'});"""
_TOP = "Math.round(document.querySelector('section.state:not([hidden]) h3').getBoundingClientRect().top)"


def _shift(page) -> float:
    page.wait_for_timeout(400)  # the fade and the next frame
    return page.evaluate("window.__shift")


@pytest.mark.parametrize("width", [390, 1280])
def test_moving_between_states_shifts_nothing(site, open_tab, width):
    tab = open_tab(site.url(False, f"{site.lesson}.html"), viewport={"width": width, "height": 800})
    page = tab.page
    page.wait_for_timeout(500)
    page.evaluate(_OBSERVE)
    tops = [page.evaluate(_TOP)]
    for _ in site.states[1:]:
        page.keyboard.press("ArrowRight")
        tops.append(page.evaluate(_TOP))
    assert len(set(tops)) == 1, f"states start at different heights (drift per step): {tops}"
    page.locator('[data-step="prev"]').click()
    page.locator('[data-step="next"]').click()
    by_input = _shift(page)
    for state in (site.states[0], site.states[-1], site.states[len(site.states) // 2]):
        page.evaluate(f"location.hash = '#{state}'")
        _shift(page)
    page.go_back()
    page.go_back()
    page.go_forward()
    total = _shift(page)
    assert by_input <= MAX_SHIFT and total <= MAX_SHIFT, (by_input, total, page.evaluate("window.__moved"))
    assert tab.errors == []
