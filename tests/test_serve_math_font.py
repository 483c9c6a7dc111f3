"""The dev server serves the committed math font whole: a fresh clone's first preview does not wait for
fontTools to cut it. A published build still cuts it to the formulas' characters."""

from pathlib import Path

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import STATIC
from site_builder.render import mathfont

FONT = Path(mathfont.FONT_PATH)
PAGE = "---\ntitle: 一课\n---\n:::{state} b0\n:title: 一\n:provenance: teaching\n\n面积是 $x^2 + y$。\n:::\n"


@pytest.fixture
def project(tmp_path):
    return write_site(tmp_path, {"x": PAGE})


def test_the_dev_server_serves_the_committed_math_font_without_cutting_it(project, monkeypatch):
    def refuse(chars):
        raise AssertionError(f"the dev server cut the math font to {chars!r}")

    monkeypatch.setattr(mathfont, "subset_font", refuse)
    mathfont.math_font.cache_clear()
    out = project / "out"
    Engine(project, (Output(False, out),), serving=True).build(fake_evidence(project / "figs"))
    assert "<math" in (out / "x.html").read_text(encoding="utf-8")
    assert (out / FONT).read_bytes() == (STATIC / FONT.relative_to("static")).read_bytes()


def test_a_published_build_still_cuts_it_to_the_formulas(project):
    mathfont.math_font.cache_clear()
    out = project / "out"
    Engine(project, (Output(False, out),)).build(fake_evidence(project / "figs"))
    cut = (out / FONT).read_bytes()
    assert cut[:4] == b"wOF2" and len(cut) < (STATIC / FONT.relative_to("static")).stat().st_size
