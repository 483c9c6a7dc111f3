"""`new figure ID --from EXPERIMENT` builds as it is for every registered experiment, whatever the scale of
its values (zeros beside millions, booleans, integers): its marks all cover a visible area."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import lessonmodel
from figures.runner import draw_variants, figure_data
from figures.scaffold import new_figure

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def results():
    return lessonmodel.run_all(ROOT / ".cache" / "lessonmodel")  # cached by the model's code and config


def _figure(path: Path):
    spec = importlib.util.spec_from_file_location(f"skeleton_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [figure] = module.FIGURES
    return figure


@pytest.mark.parametrize("catalog", ["zh_CN", "en"])
@pytest.mark.parametrize("experiment", sorted(lessonmodel.EXPERIMENTS))
def test_a_measured_skeleton_draws_every_value_of_any_experiment_with_a_visible_mark(
        tmp_path, results, experiment, catalog):
    path = new_figure("skeleton-probe", (experiment,), tmp_path, catalog=catalog)
    figure = _figure(path)
    data, missing = figure_data(figure, results, {})
    assert missing == ""
    svg, dark_svg, marks, *_ = draw_variants(figure, data)  # raises MarkError for a mark covering nothing visible
    values = results["experiments"][experiment]["values"]
    assert sorted(marks) == sorted(values) and svg and dark_svg
    assert all(mark["box"][2] - mark["box"][0] >= 1 and mark["box"][3] - mark["box"][1] >= 1
               for mark in marks.values())
