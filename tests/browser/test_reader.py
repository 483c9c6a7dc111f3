"""Reader experience, measured in Chromium at 390 and 1280 px: tables and figures fit (or scroll
with a cue), figure labels are readable on a phone, dark figures in dark mode, no layout shift,
a 404 that works at any depth, and the page chrome (header, step indicator, evidence, contents)."""

from __future__ import annotations

import http.server
import re
from pathlib import Path

import pytest
from chromium import wait_until  # tests/chromium.py

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])


def _settle(page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 300))))")


# -------------------------------------------------------------------- tables --
_TABLES = """vw => [...document.querySelectorAll('main table')].map(t => {
    const box = t.closest('.table-scroll'), r = (box || t).getBoundingClientRect(), s = getComputedStyle(box || t);
    return {page: location.pathname, boxed: !!box, left: r.left, right: r.right,
            overflows: box ? box.scrollWidth > box.clientWidth + 1 : false,
            scrolls: s.overflowX === 'auto' || s.overflowX === 'scroll',
            cue: (s.backgroundImage.match(/gradient/g) || []).length,
            focusable: box ? box.tabIndex === 0 && !!box.getAttribute('aria-label') : false};
})"""


@VIEWPORTS
def test_tables_fit_the_page_or_scroll_with_a_cue(site, open_tab, viewport):
    tab = open_tab(None, viewport=viewport, js=False)  # every state laid out: a hidden state's table has no box
    seen = 0
    for name in site.pages:
        tab.page.goto(site.url(False, name))
        for table in tab.page.evaluate(_TABLES, viewport["width"]):
            seen += 1
            assert table["boxed"], table
            assert table["left"] >= 0 and table["right"] <= viewport["width"], table  # never off the page
            if table["overflows"]:  # only as a last resort, and then visibly and by keyboard
                assert table["scrolls"] and table["cue"] >= 2 and table["focusable"], table
    assert seen == sum(_main(site, name).count("<table") for name in site.pages)  # every table was looked at


def _main(site, name: str) -> str:
    """The HTML of a public page's ``<main>``."""
    return (site.public_dir / name).read_text(encoding="utf-8").split("<main", 1)[1]


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's figures and tables
def test_real_tables_wrap_instead_of_scrolling(site, open_tab):
    """On the desktop the course's tables fit by wrapping (one scrolls only if even its narrowest layout
    is wider than its box), and a table wider than the text column grows into the margin rather than
    cramming into the column. On a phone they keep their natural width and scroll (issue 26;
    tests/browser/test_phone_layout.py)."""
    tables = [name for name in site.pages if "<table" in _main(site, name)]
    if not tables:
        pytest.skip("the course has no table")
    tab = open_tab(None, viewport=DESKTOP, js=False)  # every state laid out: a hidden state's table has no box
    for name in tables:
        tab.page.goto(site.url(False, name))
        column = tab.page.eval_on_selector(".prose p", "p => p.getBoundingClientRect().width")
        layouts = tab.page.eval_on_selector_all(".table-scroll", """bs => bs.map(b => {
            const t = b.querySelector('table'), width = w => { t.style.width = w;
                const r = t.getBoundingClientRect().width; t.style.width = ''; return r; };
            return [width('min-content'), width('max-content'), b.clientWidth]; })""")
        for table, (narrowest, natural, box) in zip(tab.page.evaluate(_TABLES, DESKTOP["width"]), layouts,
                                                    strict=True):
            assert not table["overflows"] or narrowest > box, (name, table, narrowest)
            if natural > column + 1:
                assert table["right"] - table["left"] > column + 1, (name, table, natural, column)


# ------------------------------------------------------------------- figures --
def _label_sizes_pt(svg: str) -> list[float]:
    """Font size (in the SVG's user units, pt) of every text label matplotlib drew as paths:
    each ``<g id="text_N">`` starts with the glyph transform ``scale(s -s)`` (glyphs are 100 units)
    or, for mathtext, ``<use ... scale(s)``; the first scale is the label's base size."""
    sizes = []
    for group in re.split(r'<g id="text_\d+">', svg)[1:]:
        match = re.search(r"scale\(([\d.]+)", group)
        if match:
            sizes.append(float(match[1]) * 100)
    return sizes


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's figures and tables
def test_figure_labels_at_least_12px_on_a_phone(site, open_tab):
    tab = open_tab(None, viewport=PHONE)
    checked = 0
    for name in site.pages:
        tab.page.goto(site.url(False, name))
        for figure in tab.page.eval_on_selector_all("main figure img", """imgs => imgs.map(i => ({
                src: i.getAttribute('src'), width: i.getBoundingClientRect().width,
                left: i.getBoundingClientRect().left, right: i.getBoundingClientRect().right}))"""):
            if not figure["width"]:  # in a hidden state: shown later at the same width
                continue
            svg = (site.public_dir / figure["src"]).read_text(encoding="utf-8")
            view_width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg)[1])
            smallest = min(_label_sizes_pt(svg)) * figure["width"] / view_width
            assert smallest >= 12, (name, figure["src"], round(smallest, 2))
            assert figure["left"] >= 0 and figure["right"] <= PHONE["width"], (name, figure)
            checked += 1
    assert checked >= 5


@VIEWPORTS
def test_no_figure_overflows_and_every_figure_has_a_home(site, open_tab, viewport):
    tab = open_tab(None, viewport=viewport)
    for name in site.pages:
        tab.page.goto(site.url(False, name))
        wide = tab.page.eval_on_selector_all(
            "main figure",
            f"fs => fs.filter(f => f.getBoundingClientRect().right > {viewport['width']}).map(f => f.id)")
        assert wide == [], name
        # An inline {fig} link lands on a figure (with caption and badge), never on a bare SVG file.
        for href in tab.page.eval_on_selector_all("a.fig-ref", "as => as.map(a => a.getAttribute('href'))"):
            assert not href.endswith(".svg"), (name, href)
            page_name, _, anchor = href.partition("#")
            target = site.public_dir / (page_name or name)
            assert f'<figure class="figure" id="{anchor}"' in target.read_text(encoding="utf-8"), (name, href)
    figures_page = (site.public_dir / "figures.html").read_text(encoding="utf-8")
    for svg in (site.public_dir / "figures").glob("*.svg"):
        if not svg.name.endswith(".dark.svg"):
            assert f'src="figures/{svg.name}"' in figures_page, svg.name


def test_figures_lazy_below_the_fold_with_size_set(site, open_tab):
    for name in site.pages:
        html = (site.public_dir / name).read_text(encoding="utf-8")
        images = re.findall(r"<img [^>]*>", html.split("<main", 1)[1])
        figures = [i for i in images if "figures/" in i]
        for i, img in enumerate(figures):
            assert re.search(r'width="\d+" height="\d+"', img), (name, img)
            assert ('loading="lazy"' in img) == (i > 0), (name, i)  # the first one is in the first screen


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's figures and tables
def test_dark_variant_served_in_dark_mode_and_by_the_theme_toggle(site, open_tab):
    first = "main figure img"
    dark = open_tab(site.url(False, f"{site.lesson}.html"), color_scheme="dark").page
    wait_until(dark, "() => document.querySelector('main figure img').complete")
    assert dark.eval_on_selector(first, "i => i.currentSrc").endswith(".dark.svg")
    card = dark.eval_on_selector(".figure-card", "c => getComputedStyle(c).backgroundColor")
    light = open_tab(site.url(False, f"{site.lesson}.html"), color_scheme="light").page
    wait_until(light, "() => document.querySelector('main figure img').complete")
    assert not light.eval_on_selector(first, "i => i.currentSrc").endswith(".dark.svg")
    # The site's own toggle overrides the system: 自动 → 浅色 → 深色.
    toggle = light.locator("[data-theme-toggle]")
    toggle.click()
    toggle.click()
    wait_until(light, "() => document.querySelector('main figure img').currentSrc.endsWith('.dark.svg')")
    dark.locator("[data-theme-toggle]").click()  # 浅色 on a dark system
    wait_until(dark, "() => !document.querySelector('main figure img').currentSrc.endsWith('.dark.svg')")
    assert "255, 255, 255" not in card  # no white card behind the dark figure


# --------------------------------------------------------------- layout shift --
_CLS_OBSERVER = """
window.__cls = 0; window.__moved = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) {
    window.__cls += e.value;
    window.__moved.push(...e.sources.map(s => s.node && (s.node.id || s.node.className || s.node.nodeName)));
  }
}).observe({type: 'layout-shift', buffered: true});
"""
SLOW_CPU = 4
"""Chromium's CPU slowed 4×, as Lighthouse's mobile run does: the parser yields and paints part-way."""


_MEASURED = """({cls: window.__cls, moved: window.__moved,
  escaped: [...document.querySelectorAll('.badge')].filter(b => b.offsetParent)
    .map(b => { const box = b.getBoundingClientRect(), range = document.createRange();
                range.selectNodeContents(b); const text = range.getBoundingClientRect();
                return {page: location.pathname, text: b.textContent, out: Math.max(box.left - text.left,
                        text.right - box.right)}; })
    .filter(b => b.out > 1)})"""
"""A page's layout shift so far, what moved, and its badges whose text escapes their box."""


_PARSED_AND_PAINTED = """new Promise(parsed => document.readyState === 'loading'
    ? document.addEventListener('readystatechange', parsed, {once: true}) : parsed())
  .then(() => new Promise(painted => requestAnimationFrame(() => requestAnimationFrame(painted))))"""
"""Parsing ended ('interactive': the deferred scripts still wait for site.js), then two frames painted."""
_SETTLED = "document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 100))))"
"""The fonts arrived, a frame painted and 100 ms more: time for a late shift to be counted."""


class _SlowTab:
    """A tab at one viewport counting layout shifts, which opens each document as a slow phone does: Chromium's
    CPU slowed ``SLOW_CPU``× until the load event, and site.js held back until two frames after parsing ended, so
    the parsed page is painted before the script runs and whatever the script changes is a shift."""

    def __init__(self, browser, viewport: dict) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.page.add_init_script(_CLS_OBSERVER)
        self._cdp = self.context.new_cdp_session(self.page)
        self._held = []
        self.page.route("**/static/site.js", lambda route: self._held.append(route))

    def open(self, url: str) -> None:
        page = self.page
        self._cdp.send("Emulation.setCPUThrottlingRate", {"rate": SLOW_CPU})
        page.goto(url, wait_until="commit")
        page.evaluate(_PARSED_AND_PAINTED)
        assert self._held, f"{url}: site.js was not requested"
        self._held.pop().continue_()
        page.wait_for_load_state("load")
        # Chromium pauses a slowed renderer by spinning in a signal handler: a slowed tab keeps a core busy even
        # while it only waits. The waits for the fonts and the measuring that follow run at full speed: a shift
        # from here on counts by the layout it changes, whenever it comes.
        self._cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        page.evaluate(_SETTLED)


@pytest.fixture(scope="module", params=[PHONE, DESKTOP], ids=["390", "1280"])
def settled(request, site, browser) -> dict[str, dict]:
    """Every page, and every state of every lesson opened by a link to it, loaded at one viewport on a
    slow CPU with its scripts arriving after the first paint, then measured: its layout shift (and what
    moved) and its escaped badges. One walk serves the two tests below."""
    tab = _SlowTab(browser, request.param)
    measured = {}
    for i, name in enumerate(site.pages + site.linked_states):
        path, _, state = name.partition("#")  # a query of its own: a new document, even for the same page
        tab.open(site.url(False, f"{path}?walk={i}" + (f"#{state}" if state else "")))
        measured[name] = tab.page.evaluate(_MEASURED)
    tab.context.close()
    return measured


def test_no_layout_shift_on_any_page(settled):
    """Cumulative layout shift (PerformanceObserver, as Lighthouse counts it) ≤ 0.02 on every page and
    every linked state, after scripts, fonts and images have all arrived on a slow phone."""
    shifted = {name: found for name, found in settled.items() if found["cls"] > 0.02}
    assert shifted == {}, shifted


def test_a_presentation_opened_by_its_link_shifts_nothing(site, browser):
    """Every linked state opened presenting (?present=1#state) on the teacher site, on a slow CPU with the
    scripts after the first paint: the states stay hidden until present.js has fitted the current one to
    the screen, so shrinking it is no shift (before: up to 0.44 at 1280 px). At a laptop's width only, not a
    phone's: presenting is for a projector (the README's teacher walk-through), and test_pointing.py fits every
    step at three projector sizes."""
    tab = _SlowTab(browser, DESKTOP)
    page = tab.page
    shifted = {}
    for i, name in enumerate(site.linked_states):
        path, _, state = name.partition("#")
        tab.open(site.url(True, f"{path}?present=1&walk={i}#{state}"))
        assert page.evaluate("document.documentElement.dataset.fitted") == "", name  # fitted, shown
        if (cls := page.evaluate("window.__cls")) > 0.02:
            shifted[name] = (cls, page.evaluate("window.__moved"))
    tab.context.close()
    assert site.linked_states and shifted == {}, shifted


# ------------------------------------------------------------------------ 404 --
class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """Like GitHub Pages: the site lives under a sub-path, and any missing path gets /404.html."""

    prefix = "/"

    def log_message(self, *args) -> None:
        pass

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__missing__")
        return super().translate_path("/" + path[len(self.prefix):])

    def send_head(self):
        path = Path(self.translate_path(self.path.split("?")[0]))
        if path.is_file():
            return super().send_head()
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None


def test_404_from_a_nested_path_loads_its_css_and_links_work(tmp_path, open_tab):
    """Served like GitHub Pages (the site under /course/, 404.html for any missing path), from a
    site whose base_url is that server: the 404 page at a/b/c/ is styled and its links work."""
    from conftest import serve_fixture_under

    root, _public, server = serve_fixture_under("/course/", type("H", (_PagesHandler,), {"prefix": "/course/"}),
                                                tmp_path)
    try:
        tab = open_tab(None)
        response = tab.page.goto(root + "a/b/c/no-such-page.html")
        assert response.status == 404
        assert tab.page.locator("h1").text_content() == "找不到这一页"
        styled = tab.page.eval_on_selector("body", "b => getComputedStyle(b).fontFamily")
        assert "CJK Quotes" in styled  # site.css arrived
        assert tab.page.evaluate("document.documentElement.classList.contains('js')")
        assert tab.page.locator("[data-theme-toggle]").is_visible()  # site.js ran
        assert tab.errors == [] or all("404" in e and "no-such-page" in e for e in tab.errors), tab.errors
        tab.page.locator(".not-found-links a").first.click()
        assert tab.page.url == root + "index.html"
        assert "找不到" not in tab.page.locator("h1").text_content()
    finally:
        server.shutdown()


# ---------------------------------------------------------------- page chrome --
def test_compact_phone_header(site, open_tab):
    """In every edition (the language switcher's links): a translated title is longer than the source's."""
    page = open_tab(site.url(False, f"{site.lesson}.html"), viewport=PHONE).page
    editions = page.eval_on_selector_all("a[data-edition]", "as => as.map(a => a.href)")
    for url in [page.url, *editions]:
        page.goto(url)
        height = page.eval_on_selector(".site-header", "h => h.getBoundingClientRect().height")
        assert height <= 110, (url, height)
        current = page.eval_on_selector(".site-nav [aria-current=page]", "a => a.getBoundingClientRect().right")
        assert current <= PHONE["width"], url  # the current page's link is scrolled into view


def test_one_step_indicator_and_one_evidence_section(site, open_tab):
    page = open_tab(None).page  # one tab for every page: nothing here clicks, so nothing is stored
    for name in site.pages:
        page.goto(site.url(False, name))
        headings = page.eval_on_selector_all("h2", "hs => hs.map(h => h.textContent.replace('#', '').trim())")
        assert headings.count("本页证据与条件") <= 1, (name, headings)
        if name != f"{site.lesson}.html":
            continue
        visible = page.evaluate("""() => [...document.querySelectorAll('main *')].filter(e => e.checkVisibility()
            && [...e.childNodes].some(n => n.nodeType === 3 && /第\\s*\\d+\\s*步/.test(n.textContent)))
            .map(e => e.className)""")
        assert visible == ["stepper-status"] or visible == [""], visible  # the status line (its span)
        ids = page.evaluate("""() => [...document.querySelectorAll('main *')].filter(e => e.checkVisibility()
            && /^b\\d+$/.test(e.textContent.trim())).length""")
        assert ids == 0  # no internal state id shown


def test_contents_beside_the_text_on_desktop_only(site, open_tab):
    wide = open_tab(site.url(False, f"{site.lesson}.html"), viewport=DESKTOP).page
    toc = wide.locator(".page-toc")
    assert toc.count() == 1 and toc.is_visible()
    assert wide.locator(".page-toc-title").text_content() == "本页目录"
    box = toc.bounding_box()
    text = wide.locator("main .prose").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= text["x"], (box, text)  # in the margin
    for href in wide.eval_on_selector_all(".page-toc a", "as => as.map(a => a.getAttribute('href'))"):
        assert wide.locator(f"[id='{href[1:]}']").count() == 1, href
    narrow = open_tab(site.url(False, f"{site.lesson}.html"), viewport=PHONE).page
    assert not narrow.locator(".page-toc").is_visible()


def test_cjk_quotes_from_the_cjk_font_and_balanced_headings(site, open_tab):
    page = open_tab(site.url(False, f"{site.lesson}.html"), viewport=PHONE).page
    # Between two Han characters (at a paragraph's end, text-spacing-trim would halve it on purpose).
    quote = page.evaluate("""() => { const p = document.createElement('p'), s = document.createElement('span');
        s.textContent = '\u201c'; p.append('中', s, '文'); document.querySelector('main .prose').append(p);
        const w = s.getBoundingClientRect().width / parseFloat(getComputedStyle(s).fontSize);
        p.remove(); return w; }""")
    assert quote > 0.8, quote  # full width (a Latin face draws it about 0.4 em wide)
    wrap = page.eval_on_selector("h1", "h => getComputedStyle(h).textWrap || getComputedStyle(h).textWrapStyle")
    assert "balance" in wrap


# ------------------------------------------------------------------ math font --
def test_math_font_is_cut_to_the_formulas_and_loaded_only_with_them(site, open_tab):
    """The site's math font holds every character its formulas draw (and little else), only
    pages with maths link it, and it swaps in rather than blocking text."""
    from fontTools.ttLib import TTFont

    from site_builder.render.mathfont import FONT_PATH, math_characters

    pages = {name: (site.public_dir / name).read_text(encoding="utf-8") for name in site.pages}
    needed = math_characters(list(pages.values()))
    assert needed, "both sites have formulas"
    font = TTFont(site.public_dir / FONT_PATH)
    missing = [c for c in needed if ord(c) not in font.getBestCmap()]
    assert missing == []
    assert (site.public_dir / FONT_PATH).stat().st_size < 60_000
    for name, html in pages.items():
        assert ("math.css" in html) == ("<math" in html), name
    assert "font-display: swap" in (site.public_dir / "static/math/math.css").read_text(encoding="utf-8")
    with_math = next(name for name, html in pages.items() if "<math" in html)
    tab = open_tab(site.url(False, with_math))
    _settle(tab.page)
    assert tab.page.evaluate("[...document.fonts].some(f => f.family.includes('LessonMath') && f.status === 'loaded')")


# --------------------------------------------------------------- numbers page --
def test_numbers_page_is_short_on_a_phone_and_deep_links_open_their_value(site, open_tab):
    html = (site.public_dir / "numbers.html").read_text(encoding="utf-8")
    name = re.search(r'<dl class="value-anchor" id="([^"]+)"', html)[1]
    page = open_tab(site.url(False, "numbers.html"), viewport=PHONE).page
    assert page.evaluate("document.documentElement.scrollHeight") < 4 * PHONE["height"]  # folded groups
    page.goto(site.url(False, f"numbers.html#{name}"))
    _settle(page)
    opened = page.eval_on_selector(f"[id='{name}']", """d => [d.parentElement.open, d.closest('.value-group').open,
        d.parentElement.querySelector('summary').getBoundingClientRect().top,
        d.parentElement.querySelector('summary').textContent]""")
    assert opened[0] and opened[1] and 0 <= opened[2] < PHONE["height"], opened
    if site.kind == "real":  # described in Chinese (content/values.yml), not lessonmodel's English
        # Nothing on the page marked English but the links to the English edition (switcher, hreflang).
        assert [tag for tag in re.findall(r'<[^>]*\slang="en"[^>]*>', html) if "data-edition" not in tag] == []
        assert re.search("[\u4e00-\u9fff]", opened[3]), opened[3]
        # No Chinese text marked English on any page (a record's conditions are the course's own text).
        for other in site.pages:
            page.goto(site.url(False, other))
            mislabelled = page.evaluate("""() => [...document.querySelectorAll('[lang="en"]')]
                .map(e => e.textContent).filter(t => /[\u4e00-\u9fff]/.test(t))""")
            assert mislabelled == [], (other, mislabelled)


def test_every_badge_holds_its_text(settled):
    """A badge's words stay inside its box on every page (an inline-block inherits its line's hanging
    indent: on the numbers page that once moved the text out of its badge, onto the fold triangle)."""
    assert [badge for found in settled.values() for badge in found["escaped"]] == []
