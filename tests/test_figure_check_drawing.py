"""What ``build.py check`` compares with the baselines: the PNG saved from the very drawing the site's SVG comes
from (``draw_variants(..., baseline=True)``) is the PNG a figure drawn on its own gives (``baseline.draw_png``), so
checking the one is checking the other; and the check takes those PNGs instead of drawing the figures again."""

from __future__ import annotations

from pathlib import Path

import pytest

import figures
from figures import baseline
from figures.registry import FIGURES
from figures.runner import draw_variants, figure_data

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def records():
    from site_builder.load.loader import load_content

    content, problems = load_content(ROOT)
    assert content is not None, problems
    return {r.id: r.data for r in content.records}


def _marked_and_plotted():
    """A figure with marks and one drawn from data (axes, ticks, legends): both kinds a drawing can be."""
    marked = next(f for f in FIGURES if f.provenance == "teaching")
    plotted = next(f for f in FIGURES if f.provenance == "measured")
    return marked, plotted


@pytest.mark.parametrize("language", figures.LANGUAGES)
def test_the_png_saved_beside_the_svg_is_the_png_drawn_alone(model_results, records, language):
    for figure in _marked_and_plotted():
        data, why = figure_data(figure, model_results, records)
        assert data is not None, why
        light, dark, _marks, _texts, png = draw_variants(figure, data, language, baseline=True)
        assert png == baseline.draw_png(figure, data, language), figure.id
        assert (light, dark) == draw_variants(figure, data, language)[:2]  # saving the PNG changes no SVG


def test_the_check_compares_the_pngs_it_is_given(model_results, records, monkeypatch):
    figure = _marked_and_plotted()[1]
    data, _why = figure_data(figure, model_results, records)
    drawn = {(figure.id, language): baseline.draw_png(figure, data, language) for language in figures.LANGUAGES}
    monkeypatch.setattr(baseline, "draw_png", lambda *args: pytest.fail("drawn again"))
    checks, problems = figures.check_figures([figure], model_results, records, languages=figures.LANGUAGES,
                                             drawn=drawn)
    assert problems == []
    assert [(c.language, c.new_png) for c in checks] == [(language, drawn[figure.id, language])
                                                         for language in figures.LANGUAGES]


def test_a_png_it_is_given_is_compared_by_its_pixels(model_results, records):
    figure = _marked_and_plotted()[1]
    other = next(f for f in FIGURES if f.id != figure.id)
    data, _why = figure_data(other, model_results, records)
    wrong = {(figure.id, figures.LANGUAGES[0]): baseline.draw_png(other, data or {}, figures.LANGUAGES[0])}
    checks, problems = figures.check_figures([figure], model_results, records, drawn=wrong)
    assert checks[0].pixels.fails and f"figure {figure.id} looks different" in problems[0]
