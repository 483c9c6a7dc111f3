"""What every page must be: CJK text without stray spaces, real maths, no sideways scrolling on a
phone, big enough controls, a light page, no errors and nothing fetched from another host."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

PHONE = {"width": 360, "height": 780}
# Controls that must be at least 44 × 44 CSS px. Links inside running text are exempt (WCAG 2.5.8).
CONTROLS = ("button, summary, input, .site-nav a, .stepper-nav a, .state-pager a, .lesson-pager a, .permalink, "
            ".site-title, .search-results a, .not-found-links a")
# Bytes as served (uncompressed), after every figure of the lesson has loaded. The maths font loads
# only on pages with maths; there are no web fonts for text. "shell" is everything but the figures.
BUDGET = {"script": 20_000, "css": 30_000, "font": 200_000, "document": 150_000, "shell": 400_000,
          "figure": 150_000, "figures": 1_200_000}


class _Text(HTMLParser):
    """Text nodes inside <main>, outside code and maths."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = {"main": 0, "pre": 0, "code": 0, "math": 0}
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.depth:
            self.depth[tag] += 1

    def handle_endtag(self, tag):
        if tag in self.depth:
            self.depth[tag] -= 1

    def handle_data(self, data):
        if self.depth["main"] and not (self.depth["pre"] or self.depth["code"] or self.depth["math"]):
            self.texts.append(data)


_HAN = "\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
_STRAY = re.compile(f"[{_HAN}]\\s+[{_HAN}]")


def test_no_stray_spaces_between_chinese_characters(site):
    """A source line break between two Chinese characters would show as a space."""
    for directory in (site.public_dir, site.teacher_dir):
        for path in directory.glob("*.html"):
            parser = _Text()
            parser.feed(path.read_text(encoding="utf-8"))
            stray = [m.group() for text in parser.texts for m in _STRAY.finditer(text)]
            assert stray == [], (path.name, stray[:5])


_FORMULA = re.compile(r"(?m)^\$\$|(?<![\\$])\$[^$\s][^$\n]*\$")
"""A formula in Markdown: a display block's opening ``$$`` at a line's start, or an inline ``$…$``."""
_OUTSIDE_CODE_AND_NOTES = re.compile(r"(?ms)^(`{3,}|~{3,}).*?^\1|`[^`\n]+`|^(:{4,})\{teacher\}.*?^\2$")
"""Fenced code, code spans and teacher notes: where a ``$`` is no formula of the public page."""


def test_math_rendered_with_real_size(site, open_tab):
    """Native MathML drawn with the maths font: every formula has a box of about a letter or more."""
    tab = open_tab(None, js=False)  # every state laid out, so every formula has a box
    # Every page showing maths, and every page whose Markdown has a formula outside code and teacher notes (read
    # from the sources, so that maths lost on the way fails here rather than leaving nothing to look at).
    shown = {n for n in site.pages if "<math" in (site.public_dir / n).read_text(encoding="utf-8")}
    written = {f"{source.stem}.html" for source in (site.content / "pages").glob("*.md")
               if _FORMULA.search(_OUTSIDE_CODE_AND_NOTES.sub("", source.read_text(encoding="utf-8")))}
    assert written and written <= shown, (written, shown)
    seen_root = False
    for name in sorted(shown):
        tab.page.goto(site.url(False, name))
        boxes = tab.page.eval_on_selector_all("main math", """ms => ms.map(m => {
            const r = m.getBoundingClientRect(), em = parseFloat(getComputedStyle(m.parentElement).fontSize);
            return {tex: m.getAttribute('alttext'), w: r.width / em, h: r.height / em,
                    block: m.getAttribute('display') === 'block', font: getComputedStyle(m).fontFamily};
        })""")
        assert boxes, name
        for box in boxes:
            assert box["w"] > 0.25 and box["h"] > 0.4, (name, box)  # a lone "s" is about 0.5em high
            assert box["h"] > 0.9 or not box["block"], (name, box)
            assert "LessonMath" in box["font"], (name, box)
        # A root draws its radical from the font's U+221A, which no character of the formula names: without it
        # the subset held no radical, and √d_h showed as d_h. The sign makes the root wider than what it holds.
        roots = tab.page.eval_on_selector_all("main msqrt", """rs => rs.map(r => {
            const em = parseFloat(getComputedStyle(r).fontSize);
            return (r.getBoundingClientRect().width - r.firstElementChild.getBoundingClientRect().width) / em;
        })""")
        assert all(extra > 0.5 for extra in roots), (name, roots)
        seen_root = seen_root or bool(roots)
    assert seen_root or site.kind == "real"  # the fixture's lesson has one; the course need not


@pytest.mark.parametrize("teacher", [False, True], ids=["public", "teacher"])
def test_no_horizontal_overflow_on_a_phone(site, open_tab, teacher):
    tab = open_tab(None, viewport=PHONE)
    suffixes = {f"{site.lesson}.html": ["", f"#{site.states[-1]}"]}
    for name in site.pages:
        for suffix in suffixes.get(name, [""]):
            tab.page.goto(site.url(teacher, name + suffix))
            if teacher and name == f"{site.lesson}.html":
                tab.page.locator("[data-notes-toggle]").first.click()
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{name}{suffix}: page is {width}px wide"
            wide = tab.page.evaluate("""w => [...document.querySelectorAll('main *')].filter(e => {
                const r = e.getBoundingClientRect();
                return r.width && r.right > w + 1 && !e.closest('pre, table, .math-display, math');
            }).slice(0, 3).map(e => e.tagName + '.' + e.className)""", PHONE["width"])
            assert wide == [], f"{name}{suffix}"


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 900}], ids=["phone", "desktop"])
def test_touch_targets_at_least_44px(site, open_tab, viewport):
    for teacher in (False, True):
        tab = open_tab(site.url(teacher, f"{site.lesson}.html"), viewport=viewport)
        if not teacher:
            tab.page.fill("#site-search-input", "的")  # open the results so their links are measured too
            tab.page.wait_for_selector("[data-search-list] a")
        small = tab.page.eval_on_selector_all(CONTROLS, """els => els.filter(e => e.checkVisibility())
            .map(e => [e.tagName + '.' + e.className + ' ' + e.textContent.trim().slice(0, 12),
                       e.getBoundingClientRect().width, e.getBoundingClientRect().height])
            .filter(([, w, h]) => w < 44 || h < 44)""")
        assert small == [], ("teacher" if teacher else "public", small)


def test_page_weight_budget(site, open_tab):
    tab = open_tab(None)
    for name in (f"{site.lesson}.html", "index.html"):
        tab.page.goto(site.url(False, name))
        tab.page.wait_for_load_state("networkidle")
        entries = tab.page.evaluate("""() => [
            {name: location.href, type: 'document',
             size: performance.getEntriesByType('navigation')[0].encodedBodySize},
            ...performance.getEntriesByType('resource').map(r => ({name: r.name, type: r.initiatorType,
                                                                    size: r.encodedBodySize}))]""")
        kinds = dict.fromkeys(("script", "css", "font", "document", "shell", "figures"), 0)
        for entry in entries:
            path = urlsplit(entry["name"]).path
            if "/figures/" in path:
                assert entry["size"] <= BUDGET["figure"], (path, entry["size"])
                kinds["figures"] += entry["size"]
                continue
            kind = {"js": "script", "css": "css", "woff2": "font", "svg": "image"}.get(path.rsplit(".", 1)[-1],
                                                                                        entry["type"])
            kinds[kind] = kinds.get(kind, 0) + entry["size"]
            kinds["shell"] += entry["size"]
        over = {k: v for k, v in kinds.items() if k in BUDGET and v > BUDGET[k]}
        assert over == {}, (name, kinds)


def test_no_console_errors_and_no_other_hosts(site, open_tab):
    for teacher in (False, True):
        tab = open_tab(None)
        origin = urlsplit(site.url(teacher)).netloc
        for name in site.pages:
            if name == "404.html":  # links from the deployed root path: test_reader serves it there
                continue
            tab.page.goto(site.url(teacher, name))
            if name == f"{site.lesson}.html":
                tab.page.keyboard.press("ArrowRight")
                tab.page.emulate_media(media="print")  # lays out every state: all images and fonts load
                tab.page.wait_for_load_state("networkidle")
                tab.page.emulate_media(media="screen")
        if not teacher and (site.public_dir / "pagefind").is_dir():  # (a missing index fails test_search)
            tab.page.fill("#site-search-input", "缓存")
            tab.page.wait_for_selector("[data-search-results]:not([hidden])")
        foreign = [u for u in tab.requests if urlsplit(u).scheme not in ("data", "blob")
                   and urlsplit(u).netloc != origin]
        assert foreign == []
        assert tab.errors == []


def test_prev_next_lessons_and_404(site, open_tab):
    tab = open_tab(site.url(False, f"{site.lesson}.html"), js=False)
    page = tab.page
    lessons = [n for n in site.pages if "data-stepper" in (site.public_dir / n).read_text(encoding="utf-8")
               and "kind-lesson" in (site.public_dir / n).read_text(encoding="utf-8")]
    nxt = page.locator(".lesson-pager a[rel=next]")
    if nxt.count():
        target = nxt.get_attribute("href")
        assert target in lessons
        nxt.click()
        assert page.locator(".lesson-pager a[rel=prev]").get_attribute("href") == f"{site.lesson}.html"
    page.goto(site.url(False, "404.html"))  # clicked through from a nested path in test_reader
    assert page.locator("h1").text_content() == "找不到这一页"
    # root-relative from base_url's path: right at any depth and on any host serving that path
    assert re.search(r"^/[^/]+/index\.html$", page.locator(".not-found-links a").first.get_attribute("href"))


def test_one_inline_script_allowed_by_its_hash(site):
    """The theme script in <head> is the only inline script, and the CSP allows exactly it."""
    for directory in (site.public_dir, site.teacher_dir):
        for path in directory.glob("*.html"):
            html = path.read_text(encoding="utf-8")
            inline = re.findall(r"<script>(.*?)</script>", html, re.S)
            assert len(inline) == 1, path.name
            digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
            policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)
            assert f"'sha256-{digest}'" in policy and "unsafe-inline" not in policy, path.name
            assert html.index("Content-Security-Policy") < html.index("<script"), path.name
            # 404.html links from base_url's path (served at any depth); every other page relatively.
            root = re.search(r'<script src="(/[^"]*/)static/', html)[1] if path.name == "404.html" else ""
            for src in re.findall(r'<script src="([^"]+)"', html):
                assert src.startswith(root + "static/"), (path.name, src)


def test_cjk_typography(site, open_tab):
    """About 36 characters a line, line height about 1.75, no slanted Chinese emphasis."""
    page = open_tab(site.url(False, f"{site.lesson}.html"), js=False).page
    body = page.locator(".state-body p").first.evaluate("""e => { const s = getComputedStyle(e);
        const em = e.appendChild(document.createElement('em'));
        return {chars: e.getBoundingClientRect().width / parseFloat(s.fontSize),
                leading: parseFloat(s.lineHeight) / parseFloat(s.fontSize), em: getComputedStyle(em).fontStyle,
                autospace: s.textAutospace, lang: e.closest('[lang]').lang}; }""")
    assert 33 <= body["chars"] <= 37, body
    assert 1.65 <= body["leading"] <= 1.85, body
    assert body["em"] == "normal" and body["lang"] == "zh-CN", body
    assert body["autospace"] in ("normal", ""), body  # set explicitly: Chromium's default is no-autospace
