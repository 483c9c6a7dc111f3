"""Figures: no plotted line runs through a drawn text, in any language the figures are drawn in.

A label a line crosses is hard to read (the roofline's "ridge ≈ 295" once sat on the A100's flat roof). The
texts are measured as the baseline PNGs are drawn (96 dpi, no hinting); a line that crosses a word out on
purpose is labelled ``style.STRIKETHROUGH`` and is the one exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from figures import baseline
from figures import style as s
from figures.i18n import LANGUAGES
from figures.registry import FIGURES

ROOT = Path(__file__).resolve().parent.parent


def _crossed(figure, data, language: str) -> list[str]:
    """'line → text' for every text of ``figure`` (drawn in ``language``) that a plotted line runs through."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.lines import Line2D
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    from figures.runner import drawn_figure

    with (matplotlib.rc_context({"text.hinting": "no_hinting"}),
          drawn_figure(figure, data, language) as (fig, _marks)):
        fig.set_dpi(baseline.DPI)
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        lines = [line for line in fig.findobj(Line2D) if line.get_visible() and line.axes is not None
                 and line.get_linestyle() not in ("None", "", " ") and len(line.get_xdata()) > 1
                 and line.get_label() != s.STRIKETHROUGH]
        found = []
        for text in fig.findobj(Text):
            if not (text.get_visible() and text.get_text().strip()):
                continue
            box = (text.get_bbox_patch() or text).get_window_extent(renderer)
            inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)  # a touch is no crossing
            found += [f"{line.get_label()!r} → {text.get_text()!r}" for line in lines
                      if line.get_transform().transform_path(line.get_path()).intersects_bbox(inner, filled=False)]
        return found


@pytest.mark.slow  # draws every figure in every language
def test_no_line_runs_through_a_text(model_results):
    from figures.runner import figure_data
    from site_builder.load.loader import load_content

    content, problems = load_content(ROOT)
    assert content is not None, problems
    records = {r.id: r.data for r in content.records}
    crossed = []
    for figure in FIGURES:
        data, _ = figure_data(figure, model_results, records)
        crossed += [f"{figure.id} ({language}): {c}" for language in LANGUAGES
                    for c in _crossed(figure, data or {}, language)]
    assert crossed == []


def test_a_line_through_a_text_is_found_and_a_strikethrough_is_not():
    """The check itself, on a one-axes figure: a line through a label is found unless it is a strikethrough."""
    from figures.spec import Figure

    def draw(fig, _data):
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 10)
        ax.text(2, 5, "crossed label", va="center")
        ax.plot([0, 10], [5, 5], label="roof")
        ax.text(2, 8, "struck word", va="center")
        ax.plot([2, 4], [8, 8], label=s.STRIKETHROUGH)
        ax.text(2, 2, "clear label", va="center")
        return {}

    figure = Figure("lines-probe", "probe", "probe", "teaching", (), draw, s.SIZE_4_3)
    assert _crossed(figure, {}, LANGUAGES[0]) == ["'roof' → 'crossed label'"]
