"""Marks in the browser (real course): hovering a {mark} outlines the right region of the figure;
presentation mode walks the pointing steps, outlining each, and every step fits the projector
sizes; the speaker window shows the current step's note without scrolling; Esc restores."""

from __future__ import annotations

import re

import pytest
from chromium import wait_until  # tests/chromium.py
from playwright.sync_api import expect

SIZES = [(1280, 800), (1366, 768), (1920, 1080)]

# The outlines on a figure next to the boxes recorded for those marks, both in page pixels.
OUTLINES = """figure => {
  const img = figure.querySelector('.figure-card img').getBoundingClientRect();
  const marks = JSON.parse(figure.dataset.marks);
  return [...figure.querySelectorAll('.mark-outline')].map(o => {
    const r = o.getBoundingClientRect(), m = marks[o.dataset.mark];
    return {name: o.dataset.mark, outline: [r.left, r.top, r.right, r.bottom],
            mark: [img.left + m[0] * img.width, img.top + m[1] * img.height,
                   img.left + m[2] * img.width, img.top + m[3] * img.height]};
  });
}"""

# Everything a projected step must satisfy: nothing scrolls, nothing runs under the controls.
FITS = """() => {
  const state = document.querySelector('.state:not([hidden])');
  const limit = document.querySelector('.stepper-controls').getBoundingClientRect().top;
  const tools = document.querySelector('.teaching-tools').getBoundingClientRect();
  let bottom = 0;
  for (const child of state.children)
    if (child.getClientRects().length) bottom = Math.max(bottom, child.getBoundingClientRect().bottom);
  const img = state.querySelector('.figure-card img').getBoundingClientRect();
  const wide = [...state.querySelectorAll('.state-body > *')].filter(e => e.scrollWidth > e.clientWidth + 1).length;
  return {state: state.id, bottom, limit, toolsTop: tools.top, img: [img.left, img.top, img.right, img.bottom],
          scrollH: document.scrollingElement.scrollHeight, scrollW: document.scrollingElement.scrollWidth,
          innerH: innerHeight, innerW: innerWidth, wide,
          fit: parseFloat(state.style.getPropertyValue('--present-fit') || '1'),
          pointing: [...state.querySelectorAll('[data-teacher] li.is-pointing')].length};
}"""


# Marks are drawn by the real figures, so these tests run on the real course only (no skipped fixture cases).
pytestmark = pytest.mark.parametrize("site", ["real"], indirect=True)


@pytest.fixture
def real(site):
    return site


def _states(html: str) -> list[tuple[str, str]]:
    """Each state of a built page: its id and its HTML (up to the next state)."""
    return [(part.split('"', 1)[0], part) for part in html.split('<section class="state" id="')[1:]]


@pytest.fixture
def pointing(real) -> dict[str, dict[str, int]]:
    """Each lesson whose teacher notes point at its figures (read from the built teacher site, so a lesson added
    to the course is walked too) → its states, in order, each with how many of its notes' items point."""
    found = {}
    for name in real.pages:
        steps = {}
        for state, part in _states((real.teacher_dir / name).read_text(encoding="utf-8")):
            notes = part.split("data-teacher>", 1)[1].split("</aside>", 1)[0] if "data-teacher>" in part else ""
            steps[state] = sum('class="mark-ref"' in item for item in re.findall(r"<li\b.*?</li>", notes, re.S))
        if any(steps.values()):
            found[name.removesuffix(".html")] = steps
    assert found, "no lesson's teacher notes point at a figure"
    return found


@pytest.fixture
def first_two(pointing) -> tuple[str, list[tuple[str, int]]]:
    """The first lesson whose first two states both point, and those two states with their pointing steps."""
    return next((lesson, list(steps.items())[:2]) for lesson, steps in pointing.items()
                if len(steps) >= 2 and all(list(steps.values())[:2]))


def overlap(a, b) -> float:
    """Intersection area over the smaller box's area."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / smaller


def assert_outlines(page, figure, names):
    found = page.locator(figure).evaluate(OUTLINES)
    assert sorted(o["name"] for o in found) == sorted(set(names))
    for o in found:
        # the outline is the mark's box plus a few pixels of air: it covers it, and not much more
        assert overlap(o["outline"], o["mark"]) > 0.95, o
        assert o["outline"][0] <= o["mark"][0] and o["outline"][2] >= o["mark"][2], o
        assert (o["outline"][2] - o["outline"][0]) <= (o["mark"][2] - o["mark"][0]) + 12, o


def _named_in_prose(real) -> tuple[str, str]:
    """The first lesson state whose public prose names a mark (a caption or the body): (lesson, state id)."""
    for name in real.pages:
        for state, part in _states((real.public_dir / name).read_text(encoding="utf-8")):
            if 'class="mark-ref"' in part.split("</section>", 1)[0]:
                return name.removesuffix(".html"), state
    pytest.fail("no state's prose names a mark: a caption's or the body's {mark} is not rendered as a link")


@pytest.mark.parametrize("teacher", [False, True], ids=["public", "teacher"])
def test_hover_and_focus_outline_the_mark(real, open_tab, teacher, pointing):
    lesson, state = _named_in_prose(real)
    tab = open_tab(real.url(teacher, f"{lesson}.html?notes=1#{state}"))
    page = tab.page
    figure = f"#{state}-fig"
    refs = page.locator(f"#{state} a.mark-ref:visible")
    shown = page.locator(f"#{state} a.mark-ref:not([data-teacher] a):visible").count()  # the prose's own
    assert shown >= 1 and refs.count() >= shown + (pointing.get(lesson, {}).get(state, 0) if teacher else 0)
    assert page.locator(figure).evaluate(OUTLINES) == []
    for i in range(refs.count()):
        ref = refs.nth(i)
        ref.hover()
        assert_outlines(page, figure, [ref.get_attribute("data-mark")])
    page.mouse.move(0, 0)
    assert page.locator(figure).evaluate(OUTLINES) == []
    refs.first.focus()
    assert_outlines(page, figure, [refs.first.get_attribute("data-mark")])
    # the outline follows the image when the page is resized
    page.set_viewport_size({"width": 700, "height": 900})
    assert_outlines(page, figure, [refs.first.get_attribute("data-mark")])
    assert tab.errors == []


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_presentation_walks_pointing_steps_and_every_step_fits(real, open_tab, size, pointing):
    width, height = size
    tab = open_tab(viewport={"width": width, "height": height})
    page = tab.page
    measured = 0
    for lesson in pointing:
        page.goto(real.url(True, f"{lesson}.html?present=1"))
        page.wait_for_load_state("load")
        states = page.eval_on_selector_all("section.state", "els => els.map(e => e.id)")
        for state in states:
            assert tab.visible_states() == [state]
            steps = page.locator(f"#{state} [data-teacher] li:has(a.mark-ref)")
            assert steps.count() == pointing[lesson][state], state  # the page's script sees the built notes' steps
            if not page.locator(f"#{state} .figure-card img").count():  # no figure to point at or fit around
                page.keyboard.press("PageDown")
                continue
            for point in range(-1, steps.count()):
                fits = page.evaluate(FITS)
                where = f"{state} step {point} at {width}×{height}: {fits}"
                assert fits["state"] == state and fits["pointing"] == (point >= 0), where
                assert fits["scrollH"] <= fits["innerH"] and fits["scrollW"] <= fits["innerW"], where
                assert fits["bottom"] <= fits["limit"] + 0.5 and fits["bottom"] <= fits["toolsTop"] + 0.5, where
                assert fits["img"][1] >= 0 and fits["img"][3] <= fits["limit"], where
                assert fits["wide"] == 0 and fits["fit"] >= 0.5, where
                if point >= 0:
                    names = steps.nth(point).locator("a.mark-ref").evaluate_all("els => els.map(e => e.dataset.mark)")
                    assert_outlines(page, f"#{state}-fig", names)
                    status = page.locator("[data-point-status]").inner_text()
                    assert f"指图 {point + 1}/{steps.count()}" in status
                else:
                    assert page.locator(f"#{state}-fig").evaluate(OUTLINES) == []
                measured += 1
                page.keyboard.press("PageDown")
        # PageUp walks back: from a state's start to the previous state's last step, then its steps
        page.keyboard.press("End")
        assert page.locator("li.is-pointing").count() == 1  # End on the last state: nothing moves
        for _ in range(page.locator(f"#{states[-1]} [data-teacher] li:has(a.mark-ref)").count()):
            page.keyboard.press("PageUp")
        assert page.locator("li.is-pointing").count() == 0 and tab.visible_states() == [states[-1]]
        page.keyboard.press("PageUp")
        previous = page.locator(f"#{states[-2]} [data-teacher] li:has(a.mark-ref)")
        assert tab.visible_states() == [states[-2]]
        for back in range(1, min(previous.count(), 2) + 1):  # its last step, then the one before
            expect(previous.nth(previous.count() - back)).to_have_class("is-pointing")
            page.keyboard.press("PageUp")
    assert measured and tab.errors == []


def test_speaker_window_shows_the_current_note_and_step_without_scrolling(real, open_tab, first_two):
    lesson, states = first_two
    (first, _), (second, _) = states
    projector = open_tab(real.url(True, f"{lesson}.html?present=1"), viewport={"width": 1280, "height": 800})
    speaker = projector.page.context.new_page()
    speaker.set_viewport_size({"width": 960, "height": 720})
    speaker.goto(real.url(True, f"{lesson}.html?notes=1&speaker=1"))
    speaker.wait_for_load_state("load")

    def in_view(selector):
        box = speaker.locator(selector).first.bounding_box()
        return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 80) <= 720

    assert in_view(f"#{first} [data-teacher]")  # no one scrolled: the note is there when the window opens
    projector.page.bring_to_front()
    for state, steps in states:
        for point in range(steps):
            projector.page.keyboard.press("PageDown")
            # the channel delivers asynchronously: wait for this step, then check it is the only one
            expect(speaker.locator(f"#{state} [data-teacher] li").nth(point)).to_have_class(re.compile("is-pointing"))
            current = speaker.locator(f"#{state} [data-teacher] li.is-pointing")
            expect(current).to_have_count(1)
            assert in_view(f"#{state} [data-teacher] li.is-pointing"), (state, point)
            names = current.locator("a.mark-ref").evaluate_all("els => els.map(e => e.dataset.mark)")
            assert_outlines(speaker, f"#{state}-fig", names)  # the speaker sees the same outline
        projector.page.keyboard.press("PageDown")
        if state == first:
            expect(speaker.locator(f"#{second} h3")).to_be_visible()
            assert in_view(f"#{second} [data-teacher]")
    assert projector.errors == []


def test_escape_restores_notes_and_scroll(real, open_tab, first_two):
    lesson, [(state, _), _] = first_two
    tab = open_tab(real.url(True, f"{lesson}.html?notes=1"), viewport={"width": 1280, "height": 800})
    page = tab.page
    page.evaluate("window.scrollTo(0, 400)")
    wait_until(page, "scrollY === 400")
    expect(page.locator(f"#{state} [data-teacher]")).to_be_visible()
    named = set(page.locator(f"#{state} [data-teacher] li:has(a.mark-ref)").first.locator("a.mark-ref")
                .evaluate_all("els => els.map(e => e.dataset.mark)"))
    page.locator("[data-present-toggle]").first.click()
    expect(page.locator(f"#{state} [data-teacher]")).to_be_hidden()
    page.keyboard.press("PageDown")
    assert page.locator(f"#{state}-fig .mark-outline").count() == len(named)  # the first step's marks
    page.keyboard.press("Escape")
    expect(page.locator(".site-header")).to_be_visible()
    expect(page.locator(f"#{state} [data-teacher]")).to_be_visible()
    assert page.evaluate("scrollY") == 400
    assert page.locator(f"#{state}-fig .mark-outline").count() == 0
    assert page.locator(f"#{state} li.is-pointing").count() == 0
    assert page.evaluate(f"document.querySelector('#{state}-fig img').style.height") == ""
    assert tab.errors == []


# Every place marks-place.js may put a label (best first); then, for each mark of a figure shown alone (once its
# label is placed), each place's label box in viewport pixels, the place chosen, the layer that clips the label
# and the label's padding.
LABEL_PLACES = ["", "label-under", "label-end", "label-under label-end", "label-after", "label-before", "label-inside"]
PLACED = """async (figure, places) => { const all = [];
 for (const mark of Object.keys(JSON.parse(figure.dataset.marks))) {
  await window.lessonMarks.show(figure, [mark]);
  const outline = figure.querySelector('.mark-outline'), label = outline.querySelector('.mark-outline-label');
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const chosen = outline.className.replace('mark-outline', '').trim(), found = {};
  for (const place of places) { outline.className = `mark-outline ${place}`; found[place] = box(label); }
  const measured = {mark, chosen, places: found, frame: box(figure.querySelector('.mark-layer')),
                    pad: parseFloat(getComputedStyle(label).paddingLeft)};
  window.lessonMarks.clear(figure);
  all.push(measured);
 }
 return all;
}"""


def _each_figure_with_marks(page, urls):
    """(url, figure) for each figure with marks on these pages, on the first page that shows it (a figure is as
    wide in every page's column), in the state that shows it (one state is laid out at a time: they share a place)."""
    drawn = set()
    for url in urls:
        page.goto(url)
        for state in page.evaluate("() => [...document.querySelectorAll('.state')].map(s => s.id)") or [None]:
            if state:
                page.evaluate("id => { location.hash = id; }", state)
                wait_until(page, f"!document.getElementById('{state}').hidden")
            figures = page.locator(f"#{state} figure[data-marks]" if state else "figure[data-marks]")
            for i in range(figures.count()):
                if (figure := figures.nth(i)).get_attribute("data-figure") not in drawn:
                    drawn.add(figure.get_attribute("data-figure"))
                    yield url, figure


def _ink(ink, origin, rect) -> int:
    """Pixels of ink (a screenshot's mask, taken at ``origin``) under the rectangle ``rect``."""
    left, top = max(0, round(rect[0] - origin[0])), max(0, round(rect[1] - origin[1]))
    right, bottom = max(left, round(rect[2] - origin[0])), max(top, round(rect[3] - origin[1]))
    return int(ink[top:bottom, left:right].sum())


@pytest.mark.parametrize("width", [1280, 390])
def test_a_mark_label_covers_no_more_of_its_figure_than_its_best_place(real, open_tab, width):
    """Every mark of every figure, shown alone: its label is whole inside the figure, and covers no more of what
    the figure shows (read from a screenshot) than the best of the places it could take, give or take 2 % of its
    area; so a label covers an axis, a line or a word only where every place would."""
    import io

    import numpy as np
    from PIL import Image

    lessons = [name for name in real.pages if "data-marks=" in (real.public_dir / name).read_text(encoding="utf-8")]
    assert lessons, "no page shows a figure with marks"
    tab = open_tab(None, viewport={"width": width, "height": 1400})
    page, checked, worse = tab.page, 0, []
    for name, figure in _each_figure_with_marks(page, [real.url(False, name) for name in lessons]):
        # in view whole (centred at once: the page scrolls smoothly), where nothing else covers it
        img = figure.locator(".figure-card img")
        img.evaluate("i => i.scrollIntoView({block: 'center', behavior: 'instant'})")
        expect(img).to_have_js_property("complete", True)
        shot = img.screenshot()
        # The screenshot is the image's enclosing rectangle of whole pixels: its first pixel is at the floor of a
        # fractional position (a caption above two lines high puts the image at y = 355.73, and the row at 355).
        image = img.evaluate("i => { const r = i.getBoundingClientRect(); "
                             "return [Math.floor(r.left), Math.floor(r.top)]; }")
        pixels = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), dtype=np.int32)
        packed = (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]
        colours, counts = np.unique(packed, return_counts=True)
        background = np.array([(colours[counts.argmax()] >> shift) & 255 for shift in (16, 8, 0)])
        # ink as marks-place.js counts it: a channel more than 80 away from the figure's most common colour
        ink = (np.abs(pixels - background) > 80).any(axis=2)
        for found in figure.evaluate(PLACED, LABEL_PLACES):
            (left, top, right, bottom), pad = found["frame"], found["pad"]
            whole = {place: r for place, r in found["places"].items()  # as marks-place.js: text inside the layer
                     if place == "label-inside" or (r[1] >= top and r[3] <= bottom and r[0] + pad >= left
                                                    and r[2] - pad <= right)}
            assert found["chosen"] in whole, (name, found)
            covered = {place: _ink(ink, image, r) for place, r in whole.items()}
            label = found["places"][found["chosen"]]
            if covered[found["chosen"]] > min(covered.values()) + 0.02 * (label[2] - label[0]) * (label[3] - label[1]):
                worse.append((name, found["mark"], found["chosen"], covered))
            checked += 1
    assert checked and worse == [], worse
    assert tab.errors == []
