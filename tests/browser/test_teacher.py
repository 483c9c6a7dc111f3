"""Teacher build: notes toggle, ?notes= override, presentation mode and the speaker window.
The public build carries no notes at all."""

from __future__ import annotations

import re

from playwright.sync_api import expect

NOTE_MARKERS = ("data-teacher", "teacher-note", "教师备注")


def lesson_url(site, teacher=True, suffix=""):
    return site.url(teacher, f"{site.lesson}.html{suffix}")


def test_public_site_carries_no_notes(site):
    teacher_html = (site.teacher_dir / f"{site.lesson}.html").read_text(encoding="utf-8")
    notes = re.findall(r'<aside class="teacher-note" data-teacher>(.*?)</aside>', teacher_html, re.S)
    assert notes, "the teacher build of the lesson has notes"
    phrases = {p for note in notes for p in re.findall(r"[\u4e00-\u9fff，：]{8,}", re.sub(r"<[^>]+>", "", note))}
    phrases.discard("教师备注")
    for path in site.public_dir.rglob("*"):
        if path.suffix not in (".html", ".md", ".txt", ".json", ".js", ".xml"):
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        for marker in NOTE_MARKERS + tuple(phrases):
            if path.suffix == ".js" and marker in ("data-teacher", "teacher-note"):
                continue  # the shared script knows the selector; it is not a note
            assert marker not in text, f"{path.relative_to(site.public_dir)} contains {marker!r}"


def test_notes_hidden_by_default_toggle_remembered(site, open_tab):
    tab = open_tab(lesson_url(site))
    page = tab.page
    note = page.locator(f"#{site.states[0]} [data-teacher]")
    toggle = page.locator("[data-notes-toggle]").first
    expect(note).to_be_hidden()  # safe to project
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(note).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(page.locator(f"#{site.states[0]} [data-teacher]")).to_be_visible()  # remembered
    page.goto(lesson_url(site, suffix="?notes=0"))
    expect(page.locator(f"#{site.states[0]} [data-teacher]")).to_be_hidden()  # one window overrides
    expect(page.locator("[data-notes-toggle]").first).to_have_attribute("aria-pressed", "false")
    page.goto(lesson_url(site))
    expect(page.locator(f"#{site.states[0]} [data-teacher]")).to_be_visible()  # the override was not saved
    assert tab.errors == []


def test_notes_query_shows_them_and_nojs_teacher_page_shows_notes(site, open_tab):
    tab = open_tab(lesson_url(site, suffix="?notes=1"))
    expect(tab.page.locator(f"#{site.states[0]} [data-teacher]")).to_be_visible()
    nojs = open_tab(lesson_url(site), js=False)
    expect(nojs.page.locator(f"#{site.states[0]} [data-teacher]")).to_be_visible()


def test_presentation_mode_clicker_keys(site, open_tab):
    tab = open_tab(lesson_url(site, suffix="?present=1"), viewport={"width": 1280, "height": 720})
    page = tab.page
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator("[data-present-toggle]").first).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f"#{site.states[0]} [data-teacher]")).to_be_hidden()
    # PageDown first walks the state's pointing steps (note items naming a {mark}), then moves on
    pointing = page.locator(f"#{site.states[0]} [data-teacher] li:has(a.mark-ref)").count()
    for _ in range(pointing):
        page.keyboard.press("PageDown")
        assert tab.visible_states() == [site.states[0]]
    page.keyboard.press("PageDown")
    assert tab.visible_states() == [site.states[1]]
    page.keyboard.press("End")
    assert tab.visible_states() == [site.states[-1]]
    page.keyboard.press("PageUp")
    assert tab.visible_states() == [site.states[-2]]
    page.keyboard.press("Home")
    assert tab.visible_states() == [site.states[0]]
    # the state is large: its heading is bigger than in reading mode
    size = page.eval_on_selector(f"#{site.states[0]} h3", "h => parseFloat(getComputedStyle(h).fontSize)")
    assert size >= 30
    page.keyboard.press("Escape")
    expect(page.locator(".site-header")).to_be_visible()
    assert "present" not in page.evaluate("location.search")  # a reload reads, it does not present again
    page.keyboard.press("PageDown")  # reading mode again: PageDown scrolls
    assert tab.visible_states() == [site.states[0]]
    page.locator("[data-present-toggle]").first.click()
    expect(page.locator(".site-header")).to_be_hidden()
    assert tab.errors == []


def test_speaker_window_follows_the_projector(site, open_tab):
    projector = open_tab(lesson_url(site, suffix="?present=1"))
    speaker = projector.page.context.new_page()  # same browser profile, like a second window
    speaker.goto(lesson_url(site, suffix="?notes=1"))
    expect(speaker.locator(f"#{site.states[0]} [data-teacher]")).to_be_visible()
    projector.page.bring_to_front()
    pointing = projector.page.locator(f"#{site.states[0]} [data-teacher] li:has(a.mark-ref)").count()
    for _ in range(pointing + 1):  # the pointing steps first, then the next state
        projector.page.keyboard.press("PageDown")
    expect(speaker.locator(f"#{site.states[1]} h3")).to_be_visible()
    expect(speaker).to_have_url(re.compile(rf"#{site.states[1]}$"))
    speaker.get_by_role("button", name="上一步").click()  # and the other way round
    expect(projector.page.locator(f"#{site.states[0]} h3")).to_be_visible()
    assert projector.visible_states() == [site.states[0]]


def test_notes_shown_while_presenting_are_fitted_above_the_controls(site, open_tab):
    """Presenting turns the notes off; a teacher who turns them on (a laptop, not a projector) gets the state with
    its notes fitted again, and the controls stay in reach: before, the notes ran under them."""
    tab = open_tab(lesson_url(site, suffix="?present=1"), viewport={"width": 1920, "height": 1080})
    page = tab.page
    toggle = page.locator("[data-notes-toggle]").first
    toggle.click()
    state = f"#{tab.visible_states()[0]}"
    expect(page.locator(f"{state} [data-teacher]")).to_be_visible()
    bottom = page.eval_on_selector(state, "s => Math.max(...[...s.querySelectorAll('*')].map("
                                          "e => e.getBoundingClientRect().bottom))")
    controls = page.eval_on_selector(".is-enhanced .stepper-controls", "c => c.getBoundingClientRect().top")
    assert bottom <= controls + 1, (bottom, controls)
    toggle.click()  # and still clickable
    expect(page.locator(f"{state} [data-teacher]")).to_be_hidden()
    assert tab.errors == []
