"""A lesson's download (zip, notebook) and its source view exist only when its public text cites a value an
experiment measures or computes: they are made to reproduce those values."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_sites
from site_builder.load.content import Evidence
from site_builder.render.notebook import REPRODUCED

STATE = ":::{{state}} b0\n:title: 一\n:provenance: teaching\n\n正文。\n{note}:::\n"
NOTE = "\n::::{{teacher}}\n老师看的：{cited}\n::::\n"


def _extra(evidence: Evidence) -> tuple[str, str, str]:
    """A value of each kind the registry holds: one an experiment reproduces, and a record."""
    reproduced = next(name for name, v in evidence.values.items() if v.provenance in REPRODUCED)
    record = next(name for name, v in evidence.values.items() if v.provenance not in REPRODUCED)
    return reproduced, record, f"{{num}}`{reproduced}`"


@pytest.fixture
def built(tmp_path):
    evidence = fake_evidence(tmp_path / "fig")
    reproduced, record, cite = _extra(evidence)
    pages = {"cites": lesson(STATE.format(note="") + f"\n差是 {cite}。\n"),
             "record": lesson(STATE.format(note="") + f"\n早先是 {{num}}`{record}`。\n"),
             "none": lesson(STATE.format(note="")),
             "note": lesson(STATE.format(note=NOTE.format(cited=cite)))}
    root = write_site(tmp_path / "course", pages)
    files = render_sites(prepare_site(root, evidence))
    return {teacher: set(made) for teacher, made in files.items()}, files


def _downloads(page_id: str) -> set[str]:
    return {f"{page_id}.source.html", f"downloads/{page_id}.zip"}


def test_only_a_lesson_citing_a_measured_or_computed_value_has_a_source_view_and_a_download(built):
    names, files = built
    for teacher in (False, True):
        assert _downloads("cites") <= names[teacher]
        for page_id in ("record", "none", "note"):  # a record, nothing, or only in a teacher note
            assert not _downloads(page_id) & names[teacher], (page_id, teacher)
            assert {f"{page_id}.html", f"{page_id}.md"} <= names[teacher]


def test_the_page_links_only_the_files_that_exist(built):
    _names, files = built
    cites, none = files[False]["cites.html"].decode(), files[False]["none.html"].decode()
    assert 'href="cites.source.html"' in cites and 'href="downloads/cites.zip"' in cites
    assert "source.html" not in none and "downloads/" not in none
    assert 'href="none.md"' in none  # its Markdown is still published and linked
