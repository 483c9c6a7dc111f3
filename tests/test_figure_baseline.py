"""Figures are checked by what a reader sees: baseline PNGs, pixel tolerance, data by value class.

Both directions are proven on the real figures: what another CPU or another
build of the same font changes passes; a moved bar, a changed label or a
changed number fails, naming the figure.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import figures
from figures import baseline, manifest
from figures.registry import BY_ID
from figures.report import write_report

ROOT = Path(__file__).resolve().parents[1]
SOME = ("bidirectional", "r55-b2")


@pytest.fixture(scope="module")
def inputs() -> tuple[dict[str, Any], dict[str, Any]]:
    """The real lessonmodel results and content records."""
    import lessonmodel
    from site_builder.load.loader import load_content

    content, problems = load_content(ROOT)
    assert content is not None, problems
    return lessonmodel.run_all(None), {r.id: r.data for r in content.records}


def _check(inputs, ids=SOME, results=None, registry=None, **paths):
    real_results, records = inputs
    chosen = registry or [BY_ID[i] for i in ids]
    return figures.check_figures(chosen, results or real_results, records, **paths)


def _perturbed(results: dict[str, Any], factor: float) -> dict[str, Any]:
    """Every float multiplied by `factor`: what another CPU's last bits look like (factor ≈ 1 + 1e-13)."""
    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node * factor if isinstance(node, float) else node

    return walk(results)


@pytest.mark.slow  # draws every figure and compares its pixels
def test_committed_baselines_and_manifest_match_every_real_figure(inputs) -> None:
    checks, problems = _check(inputs, ids=figures.FIGURE_IDS)
    assert problems == []
    assert {c.id for c in checks} == set(figures.FIGURE_IDS)
    assert all(c.pixels is not None and c.pixels.changed <= baseline.MAX_CHANGED_PIXELS for c in checks)
    assert sorted(p.stem for p in baseline.BASELINE_DIR.glob("*.png")) == sorted(figures.FIGURE_IDS)


def test_last_bit_differences_of_another_cpu_pass(inputs) -> None:
    results, _ = inputs
    checks, problems = _check(inputs, results=_perturbed(results, 1 + 3e-13))
    assert problems == []
    assert all(c.data_changes == () for c in checks)


def test_antialiasing_differences_pass_and_a_shifted_label_fails() -> None:
    # Two builds of one font with the same metrics put every glyph at the same pixel (Agg snaps
    # text to whole pixels) and differ in how edge pixels are shaded: up to CHANGED_LEVEL passes.
    import numpy as np

    image = baseline.png_pixels((baseline.BASELINE_DIR / "bidirectional.png").read_bytes())
    edges = (image.min(axis=-1) > 0.05) & (image.min(axis=-1) < 0.95)  # anti-aliased pixels
    noise = np.random.default_rng(0).uniform(-1, 1, image.shape) * baseline.CHANGED_LEVEL * 0.95
    shaded = np.clip(np.where(edges[..., None], image + noise, image), 0, 1)
    assert edges.sum() > 1000 and not baseline.compare_pixels(image, shaded).fails
    moved = np.roll(image, 1, axis=1)  # everything one pixel to the right: a layout change
    assert baseline.compare_pixels(image, moved).fails


def test_a_changed_number_fails_naming_the_figure_and_the_value(inputs) -> None:
    results, _ = inputs
    changed = copy.deepcopy(results)
    layers = changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"]
    layers[1] *= 1.01  # the bar of layer 2, 1 % longer
    checks, problems = _check(inputs, ids=("bidirectional",), results=changed)
    assert checks[0].pixels.fails
    assert problems[0].startswith("figures/baseline/bidirectional.png: figure bidirectional looks different: ")
    assert problems[1].startswith("figures/manifest.json: figure bidirectional: its data changed: "
                                  "bidirectional.data.old_kv_change_by_layer.bidirectional[1]: 0.630192")
    assert len(problems) == 2


def test_a_changed_label_fails(inputs, monkeypatch) -> None:
    from figures import style

    # One character of the corner label (drawn from the figure's provenance, so change its text there).
    drawn = style.corner_label
    monkeypatch.setattr(style, "corner_label",
                        lambda kind, *language: "模型实验" if kind == "measured" else drawn(kind, *language))
    checks, problems = _check(inputs, registry=[BY_ID["bidirectional"]])
    assert checks[0].pixels.fails and checks[0].data_changes == ()
    assert problems == [
        f"figures/baseline/bidirectional.png: figure bidirectional looks different: {checks[0].pixels.changed} "
        f"pixels changed (tolerance {baseline.MAX_CHANGED_PIXELS}); look at it (build.py check --report DIR), "
        "then accept it with: python build.py figures --accept"]


def test_an_exact_value_must_match_bit_for_bit(inputs) -> None:
    results, _ = inputs
    changed = copy.deepcopy(results)
    entry = changed["experiments"]["stale_prefix"]["values"]["legal_max_abs_diff"]
    assert entry["class"] == "exact"
    entry["value"] = 1e-300  # far inside any rounding tolerance, but not 0
    checks, problems = _check(inputs, ids=("r55-b2",), results=changed)
    assert checks[0].data_changes == ("stale_prefix.values.legal_max_abs_diff.value: 0.0 → 1e-300",)
    assert problems[-1] == ("figures/manifest.json: figure r55-b2: its data changed: "
                            "stale_prefix.values.legal_max_abs_diff.value: 0.0 → 1e-300")


def test_missing_and_corrupt_baselines_say_how_to_regenerate(inputs, tmp_path) -> None:
    (tmp_path / "r55-b2.png").write_bytes(b"not a png at all")
    _, problems = _check(inputs, baseline_dir=tmp_path)
    assert problems == [
        f"{tmp_path}/bidirectional.png: no baseline image; look at the figure, then create it with: "
        "python build.py figures --accept",
        f"{tmp_path}/r55-b2.png: cannot read the baseline image (cannot identify image file "
        f"'{tmp_path}/r55-b2.png'); regenerate it with: python build.py figures --accept",
    ]


def test_broken_manifest_is_one_problem(inputs, tmp_path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text("{ not json")
    assert _check(inputs, manifest_path=path)[1] == [
        f"{path}: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 3 (char 2)); "
        "regenerate it with: python build.py figures --accept"]
    path.write_text(json.dumps({"figures": {}}))
    assert "has no 'figures' and 'inputs' objects" in _check(inputs, manifest_path=path)[1][0]


def test_missing_reference_font_fails_instead_of_comparing_a_fallback(inputs, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(baseline, "REFERENCE_FONT", "No Such Font Sans")
    why = ("the figures are compared as drawn with the font 'No Such Font Sans', which is not "
           f"installed here ({baseline.FONT_HINT}; then delete matplotlib's font cache)")
    assert _check(inputs)[1] == [f"figures/baseline: {why}"]
    results, records = inputs
    with pytest.raises(ValueError, match="nothing accepted: the figures are compared as drawn with the font"):
        figures.accept_figures([BY_ID["r55-b2"]], results, records, manifest_path=tmp_path / "m.json",
                               baseline_dir=tmp_path / "b")
    assert not (tmp_path / "b").exists() and not (tmp_path / "m.json").exists()


def test_accept_lists_what_it_accepts_and_keeps_unchanged_images(inputs, tmp_path) -> None:
    results, records = inputs
    registry = [BY_ID[i] for i in SOME]
    paths = {"manifest_path": tmp_path / "manifest.json", "baseline_dir": tmp_path / "baseline"}
    (tmp_path / "baseline").mkdir()
    (tmp_path / "baseline" / "gone.png").write_bytes(b"")
    first = figures.accept_figures(registry, results, records, **paths)
    assert first == ["accepted bidirectional: new baseline image, data changed (1: bidirectional: not in the "
                     "manifest yet)",
                     "accepted r55-b2: new baseline image, data changed (1: stale_prefix: not in the manifest yet)",
                     "removed " + str(tmp_path / "baseline" / "gone.png") + ": no figure gone is drawn"]
    png = (tmp_path / "baseline" / "r55-b2.png").read_bytes()
    text = paths["manifest_path"].read_text()
    assert figures.accept_figures(registry, _perturbed(results, 1 + 3e-13), records, **paths) == []
    assert (tmp_path / "baseline" / "r55-b2.png").read_bytes() == png
    assert paths["manifest_path"].read_text() == text  # another CPU's last bits change no line
    changed = copy.deepcopy(results)
    changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"][1] *= 1.05
    said = figures.accept_figures(registry, changed, records, **paths)
    assert len(said) == 1 and said[0].startswith("accepted bidirectional: picture changed (")
    assert "bidirectional.data.old_kv_change_by_layer.bidirectional[1]: 0.630192" in said[0]
    assert figures.check_figures(registry, changed, records, **paths)[1] == []


def test_report_shows_baseline_new_and_difference(inputs, tmp_path) -> None:
    results, _ = inputs
    changed = copy.deepcopy(results)
    changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"][1] *= 1.05
    checks, problems = _check(inputs, results=changed)
    page = write_report(checks, problems, tmp_path / "report").read_text()
    assert page.count('<section class="figure"') == 1 and 'id="bidirectional"' in page
    for suffix in ("baseline", "new", "diff"):
        assert f'src="bidirectional-{suffix}.png"' in page
        assert (tmp_path / "report" / f"bidirectional-{suffix}.png").stat().st_size > 1000
    assert "bidirectional.data.old_kv_change_by_layer.bidirectional[1]: 0.630192" in page


def test_report_when_the_baseline_is_missing(inputs, tmp_path) -> None:
    shutil.copy(baseline.BASELINE_DIR / "r55-b2.png", tmp_path / "r55-b2.png")
    checks, problems = _check(inputs, baseline_dir=tmp_path)
    page = write_report(checks, problems, tmp_path / "report").read_text()
    assert page.count('<section class="figure"') == 1 and '<div class="missing">none</div>' in page


def test_quantize_keeps_exact_values_and_rounds_rounding_ones() -> None:
    doc = {"values": {"a": {"value": 0.1 + 0.2, "class": "exact"}, "b": {"value": 0.1 + 0.2, "class": "rounding"}},
           "data": {"xs": [1 / 3, 2, True, "s"]}}
    assert manifest.quantize(doc) == {
        "values": {"a": {"value": 0.30000000000000004, "class": "exact"}, "b": {"value": 0.3, "class": "rounding"}},
        "data": {"xs": [0.333333333333, 2, True, "s"]}}


@pytest.mark.slow  # `build.py check` in a project copy
def test_build_check_end_to_end_names_each_figure_and_writes_the_report(tmp_path) -> None:
    """In a copy of the project: a changed label, a corrupt and a missing baseline; nothing else edited."""
    import subprocess
    import sys

    from test_determinism import PROJECT, _copy_project, _environment

    work = _copy_project(tmp_path / "project", PROJECT)
    drawing = work / "figures" / "misc.py"
    drawing.write_text(drawing.read_text("utf-8").replace("旧位置的 K/V 变了吗", "旧位置的 K/V 改了吗"), "utf-8")
    (work / "figures" / "baseline" / "r55-b2.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    (work / "figures" / "baseline" / "char-stream.png").unlink()
    result = subprocess.run([sys.executable, "build.py", "check", "--report", "report"], cwd=work,
                            env=_environment("0", "UTC"), capture_output=True, text=True, timeout=600)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()  # in the course's language (Chinese)
    assert any(line.startswith("figures/baseline/bidirectional.png: 图 bidirectional 看起来不同了：") for line in lines)
    assert any(line.startswith("figures/baseline/r55-b2.png: 无法读取基准图（")
               and line.endswith("请用以下命令重新生成：python build.py figures --accept") for line in lines)
    assert ("figures/baseline/char-stream.png: 没有基准图；请先看过这张图，再用以下命令创建："
            "python build.py figures --accept") in lines
    page = (work / "report" / "index.html").read_text("utf-8")
    assert 'id="bidirectional"' in page and (work / "report" / "bidirectional-diff.png").exists()
    assert page.count('<section class="figure"') == 3
