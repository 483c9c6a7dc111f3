"""Tests of the figures package: registry, cache, determinism (the manifest: test_figure_baseline.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import figures
import figures.dark
from figures.registry import check_registry
from figures.runner import render
from figures.spec import Figure

ROOT = Path(__file__).resolve().parents[1]
RECORDS = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (ROOT / "content" / "records").glob("*.json")}
"""The course's records, as the build reads them."""
NEEDS_NO_RECORD = sorted(f.id for f in figures.FIGURES if f.provenance != "record")


def _run(code: str) -> str:
    """Run Python in a fresh process (fresh matplotlib state), return its stdout."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return out.stdout


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    import lessonmodel

    return lessonmodel.run_all()


@pytest.fixture(scope="module")
def rendered(results: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("out")
    return out, render(results, RECORDS, out, tmp_path_factory.mktemp("cache"))


# --- registry ---------------------------------------------------------------


def test_every_module_that_defines_figures_is_found_and_the_registry_is_consistent() -> None:
    import ast

    def defines_figures(path: Path) -> bool:
        return any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FIGURES" for t in node.targets)
                   for node in ast.parse(path.read_text(encoding="utf-8")).body)

    defining = sorted(path.stem for path in (ROOT / "figures").glob("*.py") if defines_figures(path))
    assert [m.__name__ for m in figures.registry.MODULES] == [f"figures.{name}" for name in defining]
    assert tuple(f for m in figures.registry.MODULES for f in m.FIGURES) == figures.FIGURES
    assert check_registry(figures.FIGURES) == []
    assert list(figures.BY_ID) == list(figures.FIGURE_IDS) == [f.id for f in figures.FIGURES]


def test_teaching_figures_take_no_data_and_measured_ones_name_experiments() -> None:
    import lessonmodel

    for fig in figures.FIGURES:
        if fig.provenance == "teaching":
            assert fig.inputs == (), fig.id
        elif fig.provenance in ("measured", "computed"):
            assert fig.inputs and set(fig.inputs) <= set(lessonmodel.EXPERIMENTS), fig.id
        else:
            assert fig.provenance == "record" and not set(fig.inputs) & set(lessonmodel.EXPERIMENTS)


def test_check_registry_rejects_a_teaching_figure_with_inputs() -> None:
    bad = Figure("x", "alt", "desc", "teaching", ("kv_bytes",), _draw_line, (4, 3))
    assert check_registry((bad,)) == [
        "figure x: a teaching sketch must take no data, but declares ['kv_bytes']"]


def test_import_figures_does_not_import_matplotlib() -> None:
    out = _run("import sys, figures; print('matplotlib' in sys.modules, len(figures.FIGURES))")
    assert out.split() == ["False", str(len(figures.FIGURES))]


# --- real rendering -----------------------------------------------------------


@pytest.mark.slow  # draws every figure (the rendered fixture)
def test_every_figure_renders_with_real_results(rendered: tuple[Path, Any]) -> None:
    out, result = rendered
    assert result.skipped == {}
    assert sorted(result.figures) == sorted(figures.FIGURE_IDS)
    for fid, entry in result.figures.items():
        svg = (out / entry["file"]).read_bytes()
        assert entry["file"] == f"{fid}.svg"
        assert entry["width"] == 640 and entry["height"] >= 480
        assert len(svg) < 150_000, (fid, len(svg))
        assert b"<metadata" not in svg  # no RDF block
        assert entry["svg_sha256"] == figures.runner.sha256(svg)
        assert set(entry) == {"file", "dark_file", "alt", "description", "provenance", "label", "inputs", "svg_sha256",
                              "data_sha256", "width", "height", "marks", "texts", "drawn_at"}
        assert entry["texts"] and all(isinstance(t, str) and t.strip() for t in entry["texts"])


@pytest.mark.slow  # draws every figure (the rendered fixture)
def test_every_figure_has_a_dark_variant_on_a_dark_card(rendered: tuple[Path, Any]) -> None:
    """The dark variant is the same drawing recoloured: same size, dark background, no white card
    left, and light ink where the light figure has dark ink."""
    out, result = rendered
    for fid, entry in result.figures.items():
        light, dark = (out / entry["file"]).read_text(), (out / entry["dark_file"]).read_text()
        assert entry["dark_file"] == f"{fid}.dark.svg"
        assert light[:400].split("<defs>")[0] == dark[:400].split("<defs>")[0]  # same <svg> size and viewBox
        assert dark.count("<g id=\"text_") == light.count("<g id=\"text_")
        background = re.search(r'fill: (#[0-9a-f]{6})', dark)[1]
        assert background == figures.dark.CARD, fid
        assert "fill: #ffffff" not in dark and "fill: #1a1a1a" not in dark, fid  # no white card, no black ink
        assert "fill: #1a1a1a" in light, fid


def test_dark_mapping_mirrors_lightness_and_keeps_hue() -> None:
    from matplotlib.colors import rgb_to_hsv, to_rgb

    def lightness(hex_colour: str) -> float:
        return sum(to_rgb(hex_colour)) / 3

    ink, card = (figures.dark.dark_rgba((*to_rgb(c), 1.0)) for c in ("#1a1a1a", "#ffffff"))
    assert sum(ink[:3]) / 3 > 0.8 and sum(card[:3]) / 3 < 0.15
    blue = figures.dark.dark_rgba((*to_rgb("#0072B2"), 1.0))
    assert abs(rgb_to_hsv(blue[:3])[0] - rgb_to_hsv(to_rgb("#0072B2"))[0]) < 0.01  # still blue
    assert lightness("#0072B2") < sum(blue[:3]) / 3  # lifted for a dark page


@pytest.mark.slow  # draws every figure but one
def test_missing_record_is_skipped_and_reported(results: dict[str, Any], tmp_path: Path) -> None:
    fig = Figure("timed", "alt", "desc", "record", ("decode_timing",), _draw_line, (4, 3))
    result = render(results, {}, tmp_path / "out", tmp_path / "cache", registry=[fig])
    assert result.figures == {}
    assert result.skipped == {"timed": "figure timed skipped: record 'decode_timing' "
                                       "does not exist (expected content/records/decode_timing.json)"}
    problems: list[str] = []
    done = figures.render_all(results, {}, tmp_path / "o", tmp_path / "c", problems)
    assert sorted(done) == NEEDS_NO_RECORD
    assert len(problems) == len(figures.FIGURES) - len(NEEDS_NO_RECORD)


_RENDER = """
import sys, json, lessonmodel, figures
from pathlib import Path
r = figures.render(lessonmodel.run_all(), {{}}, Path({out!r}), Path({cache!r}))
print(json.dumps({{"drawn": len(r.drawn), "mpl": "matplotlib" in sys.modules}}))
"""


@pytest.mark.slow  # draws every figure in three processes
def test_svgs_are_byte_identical_across_processes_and_warm_build_skips_matplotlib(tmp_path: Path) -> None:
    first = json.loads(_run(_RENDER.format(out=str(tmp_path / "a"), cache=str(tmp_path / "ca"))))
    second = json.loads(_run(_RENDER.format(out=str(tmp_path / "b"), cache=str(tmp_path / "cb"))))
    assert first["drawn"] == second["drawn"] == len(NEEDS_NO_RECORD)  # no records
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    warm = json.loads(_run(_RENDER.format(out=str(tmp_path / "a"), cache=str(tmp_path / "ca"))))
    assert warm == {"drawn": 0, "mpl": False}


# --- cache, with a fake registry --------------------------------------------


def _draw_line(fig: Any, data: Any) -> None:
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, sum(len(str(v)) for v in data.values())])


FAKE = (
    Figure("fake-a", "a", "a", "measured", ("exp_a",), _draw_line, (4, 3)),
    Figure("fake-b", "b", "b", "measured", ("exp_b",), _draw_line, (4, 3)),
    Figure("fake-c", "c", "c", "teaching", (), _draw_line, (4, 3)),
)


def _fake_results(a: float = 1.0, b: float = 2.0) -> dict[str, Any]:
    def exp(x: float) -> dict[str, Any]:
        return {"config": {}, "values": {"x": {"value": x, "unit": "", "description": ""}}, "data": {}}

    return {"source_hash": "fake", "experiments": {"exp_a": exp(a), "exp_b": exp(b)}}


def test_cache_hit_draws_nothing(tmp_path: Path) -> None:
    first = render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE)
    again = render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE)
    assert first.drawn == ("fake-a", "fake-b", "fake-c")
    assert again.drawn == ()
    assert again.figures == first.figures


def test_changed_module_source_redraws_exactly_that_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key hashes the source of the module that holds ``draw``: editing it redraws its figures only."""
    (tmp_path / "drawing_b.py").write_text("def draw(fig, data):\n    fig.add_subplot().plot([0, 1], [1, 0])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import drawing_b

    registry = (*FAKE[:1], Figure("fake-b", "b", "b", "measured", ("exp_b",), drawing_b.draw, (4, 3)))
    render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=registry)
    with (tmp_path / "drawing_b.py").open("a") as module:
        module.write("# edited\n")
    again = render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=registry)
    assert again.drawn == ("fake-b",)


def test_changed_data_redraws_exactly_the_figures_that_use_it(tmp_path: Path) -> None:
    first = render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE)
    again = render(_fake_results(a=10.0), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE)
    assert again.drawn == ("fake-a",)
    assert again.figures["fake-a"]["data_sha256"] != first.figures["fake-a"]["data_sha256"]
    assert again.figures["fake-b"] == first.figures["fake-b"]


def test_torn_cache_entry_is_redrawn(tmp_path: Path) -> None:
    render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE[:1])
    for svg in (tmp_path / "cache").glob("*.svg"):
        svg.write_bytes(b"<svg/>")
    assert render(_fake_results(), {}, tmp_path / "out", tmp_path / "cache", registry=FAKE[:1]).drawn == ("fake-a",)


# --- manifest and baselines: tests/test_figure_baseline.py -------------------------------


def test_corner_labels_say_what_the_site_badges_say() -> None:
    """A figure's corner label and its badge on the page both come from its provenance."""
    from site_builder.vocabulary.i18n import localize
    from site_builder.vocabulary.provenance import BADGE_TEXT, PROVENANCES, corner_label

    assert {figure.provenance for figure in figures.FIGURES} <= set(PROVENANCES)
    for figure in figures.FIGURES:  # figures draw Chinese: the badge's translation, never its English msgid
        label = corner_label(figure.provenance)
        assert label == localize(BADGE_TEXT[figure.provenance], "zh-CN") != str(BADGE_TEXT[figure.provenance])
