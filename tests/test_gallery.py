"""The gallery (teacher site) and `build.py list` on the real course: every figure, every value, their uses."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest

import build
import figures
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.numbers import display

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def prepared():
    evidence, _ = build.measure_and_draw()
    return prepare_site(ROOT, evidence)


@pytest.fixture(scope="module")
def gallery(prepared) -> str:
    files = render_site(prepared, teacher=True)
    assert "gallery.html" not in render_site(prepared, teacher=False)
    return files["gallery.html"].decode()


def test_gallery_lists_every_figure_with_thumbnail_provenance_inputs_and_uses(gallery, prepared):
    listed = re.findall(r'<li class="gallery-item" id="figure-([^"]+)"', gallery)
    assert sorted(listed) == sorted(figures.FIGURE_IDS) and len(listed) == len(set(figures.FIGURE_IDS)) >= 17
    item = gallery.split('id="figure-r55-b2"', 1)[1].split("</li>", 1)[0]
    assert '<img src="figures/r55-b2.svg"' in item
    assert 'data-provenance="measured"' in item and "<code>stale_prefix</code>" in item
    assert '<a href="r55.html#r55-b2">R55 · b2</a>' in item
    sketch = gallery.split('id="figure-ledger-s01"', 1)[1].split("</li>", 1)[0]
    assert "无（示意）" in sketch


def test_gallery_lists_every_value_formatted_with_description_and_uses(gallery, prepared):
    values = prepared.evidence.values
    rows = dict(re.findall(r'<tr id="value-([^"]+)"[^>]*>(.*?)</tr>', gallery, re.S))
    assert sorted(rows) == sorted(values)
    for name, value in values.items():
        text = htmllib.unescape(rows[name])
        assert localize(display(value), "zh-CN") in text and value.description in text, name  # 是/否 for booleans
    assert '<a href="r55.html#r55-b2">R55 · b2</a>' in rows["stale_prefix.max_abs_diff"]


def run_list(capsys, what: str) -> list[str]:
    assert build.main(["list", what]) == 0
    return capsys.readouterr().out.splitlines()


def test_list_prints_one_line_per_figure_value_and_source(capsys, prepared):
    lines = run_list(capsys, "figures")
    assert len(lines) == len(figures.FIGURE_IDS)
    assert re.match(r"^r55-b2 +模型实测 ← stale_prefix +\S", next(x for x in lines if x.startswith("r55-b2 ")))
    lines = run_list(capsys, "values")
    assert len(lines) == len(prepared.evidence.values)
    line = next(x for x in lines if x.startswith("equivalence.max_abs_diff "))
    assert display(prepared.evidence.values["equivalence.max_abs_diff"]) in line and "[模型实测]" in line
    lines = run_list(capsys, "sources")
    assert len(lines) == len(prepared.content.sources) and any(x.startswith("M34 ") for x in lines)
