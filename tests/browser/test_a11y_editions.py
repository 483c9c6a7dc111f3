"""Accessibility of the translated editions: axe-core on every page of each edition folder (public and
teacher, light and dark), each page's language, and badges in the edition's language.

An edition is a folder of the built site with its own index.html (``en/`` for English); its pages are
whatever the build wrote there, so a page added to the course is checked without touching this file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from conftest import serve
from test_a11y import _Badges, axe_violations

from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.provenance import BADGE_TEXT

_LANG = re.compile(r'<html lang="([^"]+)"')
# 404 pages link their assets from the site's deployed path (they are served for any missing URL).
_DEPLOYED_CSS = re.compile(r'<link rel="stylesheet" href="(/[^"]*)static/site\.css"')


def _lang(path: Path) -> str:
    match = _LANG.search(path.read_text(encoding="utf-8"))
    assert match, path
    return match.group(1)


def edition_pages(directory: Path) -> list[str]:
    """Every HTML page of every edition folder of a built site, as names relative to the site root."""
    folders = sorted(d for d in directory.iterdir() if d.is_dir() and (d / "index.html").is_file())
    return [f"{d.name}/{p.name}" for d in folders for p in sorted(d.glob("*.html"))]


@pytest.fixture
def translated(site) -> list[str]:
    """The translated editions' pages; a skip only for a site whose ``site.yml`` declares no translation."""
    declared = yaml.safe_load((site.content / "site.yml").read_text(encoding="utf-8")).get("translations")
    if not declared:
        pytest.skip(f"{site.kind} site: site.yml declares no translation")
    pages = edition_pages(site.public_dir)
    assert {page.split("/", 1)[0] for page in pages} == set(declared), (declared, pages)
    return pages


@pytest.fixture
def deployed(site, tmp_path):
    """``url(teacher, name)``: both sites served under the path they are deployed at, as the 404s expect."""
    match = _DEPLOYED_CSS.search((site.public_dir / "404.html").read_text(encoding="utf-8"))
    base = match.group(1).strip("/") if match else ""
    urls, servers = {}, []
    for teacher, directory in ((False, site.public_dir), (True, site.teacher_dir)):
        root = tmp_path / ("teacher" if teacher else "public") if base else directory
        if base:
            (root / base).parent.mkdir(parents=True)
            (root / base).symlink_to(directory, target_is_directory=True)
        url, server = serve(root)
        urls[teacher] = f"{url}/{base}".rstrip("/")
        servers.append(server)
    yield lambda teacher, name: f"{urls[teacher]}/{name}"
    for server in servers:
        server.shutdown()


@pytest.mark.parametrize("teacher,scheme", [(False, "light"), (False, "dark"), (True, "light"), (True, "dark")],
                         ids=["public-light", "public-dark", "teacher-light", "teacher-dark"])
def test_axe_every_page_of_every_edition(site, translated, deployed, open_tab, axe_source, teacher, scheme):
    tab = open_tab(None, bypass_csp=True, color_scheme=scheme)
    pages = edition_pages(site.teacher_dir) if teacher else translated
    failures = {}
    for name in pages:
        tab.page.goto(deployed(teacher, name))
        violations = axe_violations(tab, axe_source)
        if violations:
            failures[name] = violations
    assert failures == {}


def test_each_edition_page_is_in_its_own_language(site, translated):
    root_lang = _lang(site.public_dir / "index.html")
    for directory in (site.public_dir, site.teacher_dir):
        for name in edition_pages(directory):
            edition_lang = _lang(directory / name.split("/")[0] / "index.html")
            assert edition_lang != root_lang, name
            assert _lang(directory / name) == edition_lang, name


def test_edition_badges_speak_the_edition_language(site, translated):
    badges = 0
    for directory in (site.public_dir, site.teacher_dir):
        for name in edition_pages(directory):
            path = directory / name
            parser = _Badges()
            parser.feed(path.read_text(encoding="utf-8"))
            for badge in parser.badges:
                assert badge["text"].strip() == localize(BADGE_TEXT[badge["own"]], _lang(path)), (name, badge)
                badges += 1
    assert badges, "no badges on any edition page"
