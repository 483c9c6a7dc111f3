"""Figures (figures/): registry, drawing, dark variants, caches, marks, pixel baselines."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import figures
import figures.dark
from figures import baseline, manifest
from figures.marks import MarkError, data_box, mark
from figures.registry import BY_ID, check_registry
from figures.report import write_report
from figures.runner import render
from figures.spec import Figure

# ---------------------------------------------------------------------------
# Figures are checked by what a reader sees: baseline PNGs, pixel tolerance, data by value class.
#
# Both directions are proven on the real figures: what another CPU or another
# build of the same font changes passes; a moved bar, a changed label or a
# changed number fails, naming the figure.


ROOT = Path(__file__).resolve().parents[1]


SOME = ("bidirectional", "r55-b2")


@pytest.fixture(scope="module")
def inputs(model_results) -> tuple[dict[str, Any], dict[str, Any]]:
    """The real lessonmodel results and content records."""
    from site_builder.load.loader import load_content

    content, problems = load_content(ROOT)
    assert content is not None, problems
    return model_results, {r.id: r.data for r in content.records}


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


@pytest.mark.slow  # draws every figure in every language and compares its pixels
def test_committed_baselines_and_manifest_match_every_real_figure(inputs, tmp_path) -> None:
    """Each language's drawings against its own baselines (a translation's are in a subfolder), and the report
    ``build.py check --report DIR`` writes for them: a page that says nothing changed (tests/test_docs.py counts on
    this for the documented ``check --report figure-report``; the end-to-end test below runs the option itself)."""
    checks, problems = _check(inputs, ids=figures.FIGURE_IDS, languages=figures.LANGUAGES)
    assert problems == []
    assert {(c.language, c.id) for c in checks} == {(language, fid) for language in figures.LANGUAGES
                                                    for fid in figures.FIGURE_IDS}
    assert all(c.pixels is not None and c.pixels.changed <= baseline.MAX_CHANGED_PIXELS for c in checks)
    for language in figures.LANGUAGES:
        folder = baseline.baseline_folder(baseline.BASELINE_DIR, language)
        assert sorted(p.stem for p in folder.glob("*.png")) == sorted(figures.FIGURE_IDS), language
    page = write_report(checks, problems, tmp_path / "figure-report").read_text("utf-8")
    assert "<p>0 figure(s) changed." in page and '<section class="figure"' not in page and "Other problems" not in page
    assert [p.name for p in (tmp_path / "figure-report").iterdir()] == ["index.html"]


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
    assert edges.sum() > 1000 and baseline.changed_pixels(image, shaded) <= baseline.MAX_CHANGED_PIXELS
    moved = np.roll(image, 1, axis=1)  # everything one pixel to the right: a layout change
    assert baseline.changed_pixels(image, moved) > baseline.MAX_CHANGED_PIXELS


def test_a_changed_number_fails_naming_the_figure_and_the_value(inputs) -> None:
    results, _ = inputs
    changed = copy.deepcopy(results)
    layers = changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"]
    layers[1] *= 1.01  # the bar of layer 2, 1 % longer
    checks, problems = _check(inputs, ids=("bidirectional",), results=changed)
    assert checks[0].pixels.fails
    assert problems[0].startswith("figures/baseline/bidirectional.png: figure bidirectional looks different: ")
    assert problems[1].startswith("figures/manifest.json: figure bidirectional: its data changed: ")
    assert _change(problems[1], LAYER_2) == pytest.approx((layers[1] / 1.01, layers[1]), rel=1e-9)
    assert len(problems) == 2


LAYER_2 = "bidirectional.data.old_kv_change_by_layer.bidirectional[1]"


def _change(said: str, where: str) -> tuple[float, float]:
    """The old and the new number a message gives for ``where`` (``where: old → new``)."""
    old, new = re.search(re.escape(where) + r": ([-+.\deE]+) → ([-+.\deE]+)", said).groups()
    return float(old), float(new)


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
    layers = changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"]
    layers[1] *= 1.05
    said = figures.accept_figures(registry, changed, records, **paths)
    assert len(said) == 1 and said[0].startswith("accepted bidirectional: picture changed (")
    assert _change(said[0], LAYER_2) == pytest.approx((layers[1] / 1.05, layers[1]), rel=1e-9)
    assert figures.check_figures(registry, changed, records, **paths)[1] == []


def test_report_shows_baseline_new_and_difference(inputs, tmp_path) -> None:
    results, _ = inputs
    changed = copy.deepcopy(results)
    layers = changed["experiments"]["bidirectional"]["data"]["old_kv_change_by_layer"]["bidirectional"]
    layers[1] *= 1.05
    checks, problems = _check(inputs, results=changed)
    page = write_report(checks, problems, tmp_path / "report").read_text()
    assert page.count('<section class="figure"') == 1 and 'id="bidirectional"' in page
    for suffix in ("baseline", "new", "diff"):
        assert f'src="bidirectional-{suffix}.png"' in page
        assert (tmp_path / "report" / f"bidirectional-{suffix}.png").stat().st_size > 1000
    assert _change(page, LAYER_2) == pytest.approx((layers[1] / 1.05, layers[1]), rel=1e-9)


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

    from test_engine import PROJECT, _copy_project, _environment

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
    # the English drawing changed too: its catalog does not know the edited text, so it is drawn as written
    assert any(line.startswith("figures/baseline/en/bidirectional.png: 图 en/bidirectional 看起来不同了：")
               for line in lines)
    assert 'id="en/bidirectional"' in page and (work / "report" / "en-bidirectional-diff.png").exists()
    assert page.count('<section class="figure"') == 4


# ---------------------------------------------------------------------------
# Tests of the figures package: registry, cache, determinism (the manifest: the baseline tests above).


RECORDS = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (ROOT / "content" / "records").glob("*.json")}
"""The course's records, as the build reads them."""


NEEDS_NO_RECORD = sorted(f.id for f in figures.FIGURES if f.provenance != "record")


def _run(code: str) -> str:
    """Run Python in a fresh process (fresh matplotlib state), return its stdout."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return out.stdout


@pytest.fixture(scope="module")
def results(model_results) -> dict[str, Any]:
    """``lessonmodel.run_all()`` uncached (conftest's, once per session)."""
    return model_results


@pytest.fixture(scope="module")
def drawn_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The figure cache ``rendered`` fills: a test that needs every figure drawn again from these results, but not
    the drawing itself under test, reads them from here."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def rendered(results: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, drawn_cache: Path) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("out")
    return out, render(results, RECORDS, out, drawn_cache)


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


@pytest.mark.slow  # the rendered fixture: every figure drawn (here they come from its cache)
def test_missing_record_is_skipped_and_reported(results: dict[str, Any], rendered, drawn_cache: Path,
                                                tmp_path: Path) -> None:
    fig = Figure("timed", "alt", "desc", "record", ("decode_timing",), _draw_line, (4, 3))
    result = render(results, {}, tmp_path / "out", tmp_path / "cache", registry=[fig])
    assert result.figures == {}
    assert result.skipped == {"timed": "figure timed skipped: record 'decode_timing' "
                                       "does not exist (expected content/records/decode_timing.json)"}
    done = render(results, {}, tmp_path / "o", drawn_cache)
    assert sorted(done.figures) == NEEDS_NO_RECORD
    assert len(done.skipped) == len(figures.FIGURES) - len(NEEDS_NO_RECORD)


_RENDER = """
import sys, json, figures
from pathlib import Path
sketches = [f for f in figures.FIGURES if not f.inputs][:2]
r = figures.render({{}}, {{}}, Path({out!r}), Path({cache!r}), registry=sketches)
print(json.dumps({{"drawn": len(r.drawn), "mpl": "matplotlib" in sys.modules}}))
"""


@pytest.mark.slow  # two new processes, one importing matplotlib and drawing
def test_a_warm_render_in_a_new_process_does_not_import_matplotlib(tmp_path: Path) -> None:
    """What a figure cache hit saves: matplotlib's import and the drawing. (That every figure is drawn to the same
    bytes in another process, with another hash seed and time zone, is test_engine.py's
    test_real_course_builds_are_byte_identical: it compares both sites, figures included, after two clean builds.)"""
    first = json.loads(_run(_RENDER.format(out=str(tmp_path / "out"), cache=str(tmp_path / "cache"))))
    assert first == {"drawn": 2, "mpl": True}
    warm = json.loads(_run(_RENDER.format(out=str(tmp_path / "out"), cache=str(tmp_path / "cache"))))
    assert warm == {"drawn": 0, "mpl": False}


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


def test_corner_labels_say_what_the_site_badges_say() -> None:
    """A figure's corner label and its badge on the page both come from its provenance."""
    from site_builder.vocabulary.i18n import localize
    from site_builder.vocabulary.provenance import BADGE_TEXT, PROVENANCES, corner_label

    assert {figure.provenance for figure in figures.FIGURES} <= set(PROVENANCES)
    for figure in figures.FIGURES:  # figures draw Chinese: the badge's translation, never its English msgid
        label = corner_label(figure.provenance)
        assert label == localize(BADGE_TEXT[figure.provenance], "zh-CN") != str(BADGE_TEXT[figure.provenance])


def _draw_with_marks(fig, _data):
    from matplotlib.patches import Rectangle

    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.axis("off")
    block = ax.add_patch(Rectangle((1, 7), 8, 2, color="#0072B2"))
    return {"block": mark("上方的块", block), "corner": mark("右下角", data_box(ax, 8, 0, 10, 2))}


def _draw_with_a_stray_artist(fig, _data):
    from matplotlib.patches import Rectangle

    ax = fig.add_axes((0, 0, 1, 1))
    ax.add_patch(Rectangle((0, 0), 1, 1))
    stray = Rectangle((0.2, 0.2), 0.5, 0.5)  # made, never added to the axes
    return {"drawn": mark("画了的", ax.patches[0]), "stray": mark("没画的", stray)}


def test_runner_records_boxes_in_svg_coordinates(tmp_path):
    fig = Figure("t-marks", "测试", "测试", "teaching", (), _draw_with_marks, (4.0, 3.0))
    result = render({}, {}, tmp_path / "out", tmp_path / "cache", registry=[fig])
    boxes = result.figures["t-marks"]["marks"]
    # 4 × 3 in at 72 pt: the SVG is 288 × 216 user units, y down from the top.
    assert boxes["block"] == {"label": "上方的块", "box": pytest.approx([28.8, 21.6, 259.2, 64.8], abs=0.6)}
    assert boxes["corner"] == {"label": "右下角", "box": pytest.approx([230.4, 172.8, 288.0, 216.0], abs=0.1)}
    # the recorded boxes survive a cache hit
    again = render({}, {}, tmp_path / "out", tmp_path / "cache", registry=[fig])
    assert again.drawn == () and again.figures["t-marks"]["marks"] == boxes


def test_a_mark_naming_an_artist_never_drawn_is_a_path_line_error_and_nothing_is_written(tmp_path):
    fig = Figure("t-stray", "测试", "测试", "teaching", (), _draw_with_a_stray_artist, (4.0, 3.0))
    with pytest.raises(MarkError) as caught:
        render({}, {}, tmp_path / "out", tmp_path / "cache", registry=[fig])
    line = _draw_with_a_stray_artist.__code__.co_firstlineno
    assert str(caught.value) == (f"tests/test_figures.py:{line}: figure t-stray: mark 'stray' names a Rectangle "
                                 "that was never drawn (it was not added to the figure's axes)")
    assert list((tmp_path / "out").iterdir()) == [] and list((tmp_path / "cache").iterdir()) == []


def test_manifest_names_marks_added_removed_or_moved_beyond_the_tolerance():
    from figures.manifest import MARK_TOLERANCE_PT, marks_changes

    old = {"a": [0.0, 0.0, 10.0, 10.0], "gone": [1.0, 1.0, 2.0, 2.0]}
    assert marks_changes(old, {"a": [0.0, 0.0, 10.0 + MARK_TOLERANCE_PT, 10.0], "gone": [1.0, 1.0, 2.0, 2.0]}) == []
    assert marks_changes(old, {"a": [0.0, 0.0, 15.0, 10.0], "b": [0.0, 0.0, 1.0, 1.0]}) == [
        "b: new", "gone: removed", "a: moved [0.0, 0.0, 10.0, 10.0] → [0.0, 0.0, 15.0, 10.0]"]


def test_committed_manifest_holds_every_figures_marks():
    import json

    import build
    from figures.manifest import MANIFEST_PATH, mark_boxes, marks_changes

    accepted = json.loads(MANIFEST_PATH.read_text("utf-8"))["figures"]
    drawn = build.measure_all().drawn
    for fid, entry in drawn.items():
        assert entry["marks"], f"{fid} declares no marks"
        assert marks_changes(accepted[fid]["marks"], mark_boxes(entry)) == [], fid
