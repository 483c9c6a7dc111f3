"""Accessibility: axe-core on both builds with and without JS, language, figures, provenance badges."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from playwright.sync_api import expect

from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.provenance import BADGE_TEXT

AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                                    "best-practice"]},
               "resultTypes": ["violations"]}


def axe_violations(tab, axe_source: str) -> list[str]:
    tab.page.add_script_tag(content=axe_source)
    result = tab.page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(json.dumps(n["target"]) for n in v["nodes"][:4])
            for v in result["violations"]]


def check_axe(open_tab, axe_source, url, js=True, **options):
    # axe is injected as a script tag, which the pages' CSP would (rightly) refuse. For the no-JS
    # page, axe still needs JavaScript: the page is served with every <script> removed instead.
    tab = open_tab(None, bypass_csp=True, **options)
    if not js:
        tab.page.route(lambda u: u.split("?")[0].split("#")[0].endswith(".html"), _without_scripts)
    tab.page.goto(url)
    assert axe_violations(tab, axe_source) == [], url


def _without_scripts(route):
    response = route.fetch()
    html = re.sub(r"<script\b[^>]*>.*?</script>", "", response.text(), flags=re.S)
    route.fulfill(response=response, body=html)


def page_kinds(site) -> list[str]:
    """One page of each template: this lesson, index, numbers, sources, 404, a source view, an article."""
    chosen = [f"{site.lesson}.html", "index.html", "numbers.html", "sources.html", "404.html",
              f"{site.lesson}.source.html"]
    article = next((n for n in site.pages if 'class="article"' in (site.public_dir / n).read_text(encoding="utf-8")
                    and n != "index.html"), None)
    return chosen + ([article] if article else [])


def test_axe_public_js_every_kind_of_page(site, open_tab, axe_source):
    tab = open_tab(None, bypass_csp=True)
    for name in page_kinds(site):
        tab.page.goto(site.url(False, name))
        assert axe_violations(tab, axe_source) == [], name


@pytest.mark.parametrize("teacher,js", [(False, False), (True, True), (True, False)],
                         ids=["public-nojs", "teacher-js", "teacher-nojs"])
def test_axe_lesson(site, open_tab, axe_source, teacher, js):
    check_axe(open_tab, axe_source, site.url(teacher, f"{site.lesson}.html"), js=js)


def test_axe_dark_mode_notes_shown_and_presentation(site, open_tab, axe_source):
    check_axe(open_tab, axe_source, site.url(False, f"{site.lesson}.html#{site.states[-1]}"), color_scheme="dark")
    check_axe(open_tab, axe_source, site.url(True, f"{site.lesson}.html?notes=1"), color_scheme="dark")
    check_axe(open_tab, axe_source, site.url(True, f"{site.lesson}.html?present=1"))


def test_lang_on_every_page(site):
    for directory in (site.public_dir, site.teacher_dir):
        for path in directory.glob("*.html"):
            assert '<html lang="zh-CN" ' in path.read_text(encoding="utf-8"), path


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


class _Badges(HTMLParser):
    """Each badge with the provenance of the figure or state it sits in (and whether it is a caption's)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []  # open figure/section/figcaption/p tags and provenance
        self.badges: list[dict] = []
        self._badge: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("figure", "section", "figcaption", "p"):
            self.stack.append((tag + "." + (a.get("class") or ""), a.get("data-provenance")))
        if tag == "span" and "badge" in (a.get("class") or "").split():
            holder = next((prov for name, prov in reversed(self.stack)
                           if name.startswith(("figure.", "section.state")) and prov), None)
            where = next((name for name, _ in reversed(self.stack)), "")
            self._badge = {"own": a.get("data-provenance"), "holder": holder, "text": "",
                           "checked": where.startswith("figcaption") or where.startswith("p.state-meta")}

    def handle_endtag(self, tag):
        if tag in ("figure", "section", "figcaption", "p") and self.stack:
            self.stack.pop()
        if tag == "span" and self._badge is not None:
            self.badges.append(self._badge)
            self._badge = None

    def handle_data(self, data):
        if self._badge is not None:
            self._badge["text"] += data


def test_provenance_badges_match_the_data(site):
    checked = 0
    for directory in (site.public_dir, site.teacher_dir):
        for path in directory.glob("*.html"):
            parser = _Badges()
            parser.feed(path.read_text(encoding="utf-8"))
            for badge in parser.badges:
                assert badge["text"].strip() == localize(BADGE_TEXT[badge["own"]], "zh-CN"), (path.name, badge)
                if badge["checked"]:
                    assert badge["own"] == badge["holder"], (path.name, badge)
                    checked += 1
    assert checked, "no state or figure badges found"
