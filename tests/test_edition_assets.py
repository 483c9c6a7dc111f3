"""What every edition of a course in several languages shares is published once, at the site's root.

The static assets (style sheet, scripts), the math font and the experiments' code are the same in every
language: a translation's pages link the root's copies (``../static/site.css``) instead of carrying their
own. Only what is the edition's own (its pages, figures drawn in its language, its search index) is in its
folder. The small course is tests/editionkit.py's; the real course is the one ``python build.py`` builds.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import shutil
from pathlib import Path

from editionkit import R1_EN, course_evidence, write_course
from fontTools.ttLib import TTFont

from site_builder.engine import pipeline
from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.render.mathfont import FONT_PATH, math_characters
from site_builder.vocabulary.urls import site_root

FORMULA = r"$\beta_t = \sum_i \gamma_i$"
"""Only the English page has a formula: the one font must hold its characters."""
_ASSET = re.compile(r'(?:href|src)="([^"#?]*\.(?:css|js|svg|woff2|py))"')


def _bytes(payload: bytes | Path) -> bytes:
    return payload if isinstance(payload, bytes) else Path(payload).read_bytes()


def _sites(tmp_path: Path):
    english = R1_EN.replace("Opening: why a cache can be reused", f"Opening: why a cache can be reused, {FORMULA}")
    assert english != R1_EN
    root = write_course(tmp_path, en_pages={"r1": english})
    prepared = prepare_site(root, course_evidence(root / "fig"))
    return prepared, {teacher: render_site(prepared, teacher=teacher) for teacher in (False, True)}


def test_a_translation_links_the_root_s_static_assets_and_one_math_font(tmp_path):
    prepared, sites = _sites(tmp_path)
    (edition,) = prepared.editions
    prefix = edition.content.config.prefix
    for teacher, files in sites.items():
        assert not [name for name in files if name.startswith((f"{prefix}static/", f"{prefix}code/"))], teacher
        assert [name for name in files if name.endswith(".woff2")] == [FONT_PATH], teacher
        for name in (n for n in files if n.startswith(prefix) and n.endswith(".html") and n != f"{prefix}404.html"):
            for link in _ASSET.findall(_bytes(files[name]).decode()):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), link))
                assert target in files, (teacher, name, link)
                if target.startswith("static/"):
                    assert link == f"{edition.content.config.up}{target}", (teacher, name, link)
        page = _bytes(files[f"{prefix}r1.html"]).decode()
        assert f'href="../{FONT_PATH}"' in page and 'href="../static/math/math.css"' in page
        chars = math_characters([page])
        assert {"β", "∑", "γ"} <= set(chars)
        held = TTFont(io.BytesIO(_bytes(files[FONT_PATH]))).getBestCmap()
        assert not [c for c in chars if ord(c) not in held], teacher  # the source's pages have no formula


def test_a_translation_s_404_page_links_its_pages_and_the_shared_assets_from_the_site_s_path(tmp_path):
    prepared, sites = _sites(tmp_path)
    (edition,) = prepared.editions
    config = edition.content.config
    top, own = site_root(config.root_url), site_root(config.base_url)
    assert own == f"{top}{config.prefix}"
    page = _bytes(sites[False][f"{config.prefix}404.html"]).decode()
    assert f'href="{top}static/site.css"' in page and f'src="{top}static/search.js"' in page
    assert f'href="{own}index.html"' in page
    assert f'data-root="{own}"' in page  # the search box looks in the edition's own index


def test_no_file_of_an_edition_is_a_copy_of_a_file_at_the_root(real_course, real_public, real_teacher):
    """Every site the real course publishes: no file in a translation's folder has the bytes of a file at
    the root (the search index Pagefind writes later into each edition's folder is that edition's own)."""
    prefixes = tuple(edition.content.config.prefix for edition in real_course.editions)
    assert prefixes
    for files in (real_public, real_teacher):
        root = {hashlib.sha256(_bytes(payload)).hexdigest(): name for name, payload in files.items()
                if not name.startswith(prefixes)}
        copies = [(name, root[digest]) for name, payload in files.items() if name.startswith(prefixes)
                  if (digest := hashlib.sha256(_bytes(payload)).hexdigest()) in root]
        assert not copies, copies


def test_a_changed_style_sheet_reloads_the_pages_of_every_edition(tmp_path, monkeypatch):
    """The dev server: every edition's pages load the root's static/, so each is reloaded when it changes."""
    root = write_course(tmp_path / "course")
    evidence = course_evidence(root / "fig")
    engine = Engine(root, (Output(False, root / "out"),), serving=True)
    prepared = engine.build(evidence).prepared
    static = tmp_path / "static"
    shutil.copytree(pipeline.STATIC, static)
    with (static / "site.css").open("a", encoding="utf-8") as sheet:
        sheet.write(".changed { color: red; }\n")
    monkeypatch.setattr(pipeline, "STATIC", static)
    report = engine.build(evidence)
    assert report.changed_files == ("static/site.css",)
    for edition in (prepared, *prepared.editions):
        pages = {f"{edition.content.config.prefix}{page_id}.html" for page_id in edition.pages}
        assert pages <= set(report.changed_urls), (pages, report.changed_urls)


def test_a_figure_redrawn_in_a_translation_reloads_that_edition_s_pages_showing_it(tmp_path):
    """The dev server: a translation's figures are its own (``en/figures/``), so are the tabs to reload."""
    root = write_course(tmp_path / "course")
    evidence = course_evidence(root / "fig")
    engine = Engine(root, (Output(False, root / "out"),), serving=True)
    (edition,) = engine.build(evidence).prepared.editions
    prefix = edition.content.config.prefix
    figure = next(iter(evidence.editions[edition.content.config.language].figures.values()))
    drawing = Path(evidence.editions[edition.content.config.language].figure_dir) / figure.file
    drawing.write_text("<svg xmlns='http://www.w3.org/2000/svg'><g/></svg>", encoding="utf-8")
    report = engine.build(evidence)
    assert report.changed_files == (f"{prefix}figures/{figure.file}",)
    showing = {f"{prefix}{page_id}.html" for page_id, page in edition.pages.items()
               if f"figures/{figure.file}" in (root / "out" / f"{prefix}{page_id}.html").read_text(encoding="utf-8")}
    assert showing and set(report.changed_urls) == showing | {f"{prefix}figures.html", f"{prefix}gallery.html"}
