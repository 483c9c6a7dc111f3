"""Rendering pages in forked workers gives exactly the files of rendering them in one process."""

from __future__ import annotations

from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import PARALLEL_MIN_PAGES, prepare_site, render_site

STATE = ":::{state} b0\n:title: 第{n}课\n:provenance: teaching\n\n正文 $x_{n}$，见 {ref}`p0`。\n:::\n"


def test_parallel_render_equals_serial(tmp_path):
    pages = {f"p{n}": lesson(STATE.replace("{n}", str(n)), front=f"title: 第{n}课\n")
             for n in range(PARALLEL_MIN_PAGES + 3)}
    prepared = prepare_site(write_site(tmp_path, pages), fake_evidence(tmp_path / "fig"))
    for teacher in (False, True):
        assert render_site(prepared, teacher, workers=2) == render_site(prepared, teacher, workers=1)
