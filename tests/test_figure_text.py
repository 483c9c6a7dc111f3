"""Figure text in the reader's language (figures/i18n.py): every text a figure draws or states goes through its
catalog, every one has an English translation, and a mark keeps its name and, within a stated tolerance, its box
in every language. (Each language's drawings are compared with its own baselines in tests/test_figures.py.)"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from figures import baseline
from figures.i18n import LANGUAGES, LOCALES, SOURCE_LANGUAGE, drawing_in, number, percent, tr, translated
from figures.registry import FIGURES, MODULES
from figures.runner import render

ROOT = Path(__file__).resolve().parent.parent
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
"""Chinese characters and the full-width punctuation that goes with them."""
SLOT = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")
TRANSLATIONS = tuple(language for language in LANGUAGES if language != SOURCE_LANGUAGE)
"""Every language the figures are translated into (each has a catalog)."""


def _unmarked_chinese(path: Path) -> list[str]:
    """Chinese string literals of a module that are not the text of a ``tr``/``tr_later`` call, as 'path:line'.

    An f-string cannot be a message (its text is only known when drawn): its Chinese counts as unmarked."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    marked = {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
              and isinstance(node.func, ast.Name) and node.func.id in ("tr", "tr_later")
              and isinstance(node.args[0], ast.Constant)}
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:40]}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and HAN.search(node.value)
            and id(node) not in marked | docstrings]


def test_every_chinese_text_of_a_figure_module_goes_through_the_catalog():
    shared = [ROOT / "figures" / f"{name}.py" for name in ("style", "inputs", "marks", "runner", "baseline")]
    found = [line for path in [*(Path(m.__file__) for m in MODULES), *shared] for line in _unmarked_chinese(path)]
    assert found == []


def _extracted(tmp_path: Path) -> set[str]:
    """Every figure text marked for the catalog, as Babel's extractor finds it (what update.py refreshes from)."""
    pot = tmp_path / "figures.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "--no-default-keywords", "-k", "tr",
                    "-k", "tr_later", "--no-location", "--omit-header", "-o", str(pot), "figures"],
                   cwd=ROOT, capture_output=True, check=True)
    return {m.id for m in read_po(pot.open("rb")) if m.id}


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_figure_text_has_a_translation_with_the_same_slots(tmp_path, language):
    """New figure text must be translated (python site_builder/locales/update.py adds it to the catalog)."""
    extracted = _extracted(tmp_path)
    catalog = read_po((LOCALES / language / "LC_MESSAGES" / "figures.po").open("rb"))
    translated_ids = {m.id for m in catalog if m.id and m.string}
    assert sorted(extracted - translated_ids) == []
    assert [m.id for m in catalog if m.id and sorted(SLOT.findall(m.id)) != sorted(SLOT.findall(m.string))] == []
    assert [m.id for m in catalog if m.id and HAN.search(m.string)] == []


def test_the_english_catalog_is_found_and_the_source_language_comes_first():
    assert LANGUAGES[0] == SOURCE_LANGUAGE and "en" in TRANSLATIONS


def test_text_and_numbers_follow_the_drawing_language():
    assert tr("第 {layer} 层", layer=2) == "第 2 层"  # nothing set: the source language
    with drawing_in("en"):
        assert tr("第 {layer} 层", layer=2) == "layer 2"
        assert tr("a text nobody translated: {x}", x=1) == "a text nobody translated: 1"
        assert number(1234.5, ",.1f") == "1,234.5"
    with drawing_in("de"):  # no figure catalog: the source text, but German numbers
        assert tr("第 {layer} 层", layer=2) == "第 2 层"
        assert number(1234.5, ",.1f") == "1.234,5" and number(0.125, ".1%") == "12,5%"
    assert translated("参数", "en") == "parameters" and translated("参数", "zh-CN") == "参数"


def test_a_percent_tick_keeps_the_decimal_that_tells_it_apart():
    # Ticks 2.5 % apart once read "0% 2% 5% 8% 10% 12% 15%": evenly spaced ticks with uneven labels.
    assert [percent(k * 0.025) for k in range(7)] == ["0%", "2.5%", "5%", "7.5%", "10%", "12.5%", "15%"]
    assert [percent(k * 0.1) for k in range(4)] == ["0%", "10%", "20%", "30%"]  # 0.1 * 3 is 0.30000000000000004
    assert [percent(k * 0.0025) for k in range(4)] == ["0%", "0.25%", "0.5%", "0.75%"]
    assert [percent(v) for v in (-1e-17, 0.00125, 0.00375)] == ["0%", "0.125%", "0.375%"]


def test_a_long_corner_label_takes_two_lines_and_a_short_one_stays():
    from figures.style import CORNER_LINE, corner_lines
    from site_builder.vocabulary.provenance import PROVENANCES, corner_label

    for provenance in PROVENANCES:
        chinese, english = corner_label(provenance, SOURCE_LANGUAGE), corner_label(provenance, "en")
        assert corner_lines(chinese) == chinese  # the committed Chinese baselines keep their corner
        lines = corner_lines(english).split("\n")
        assert " ".join(lines) == english and (len(lines) == 2) == (len(english) > CORNER_LINE)
        assert max(map(len, lines)) <= max(CORNER_LINE, len(english) // 2 + 4)


@pytest.fixture(scope="module")
def drawn(model_results, tmp_path_factory) -> dict[str, Any]:
    """Every registered figure rendered in every language: language → its ``Rendered``.

    From the build's figure cache (``sitekit.filled_caches``: drawn once per run, as ``python build.py`` draws them,
    and keyed by each figure's code and data), so the text tested is the text the site ships, and the figures are
    not drawn again here: drawing itself, cached or not, is tested in tests/test_figures.py."""
    from sitekit import filled_caches

    from site_builder.load.loader import load_content

    content, problems = load_content(ROOT)
    assert content is not None, problems
    records = {r.id: r.data for r in content.records}
    cache = filled_caches() / "figures"
    return {language: render(model_results, records, tmp_path_factory.mktemp(language), cache, language=language)
            for language in LANGUAGES}


@pytest.mark.slow  # draws every figure in every language
@pytest.mark.parametrize("language", TRANSLATIONS)
def test_a_translated_figure_says_everything_in_its_language(drawn, language):
    chinese = drawn[SOURCE_LANGUAGE].figures
    for fid, entry in drawn[language].figures.items():
        said = [entry["alt"], entry["description"], entry["label"], *entry["texts"],
                *(m["label"] for m in entry["marks"].values())]
        assert [text for text in said if HAN.search(text)] == [], fid
        assert entry["alt"] != chinese[fid]["alt"] and entry["description"] != chinese[fid]["description"]


CENTRE_TOLERANCE = 1 / 8
"""How far a mark's centre may lie from its centre in the source language: a fraction of the figure's width
(horizontally) and height (vertically)."""
OVERLAP_FLOOR = 1 / 2
"""How much the two boxes must overlap: their intersection over their union."""
# Why these: a mark outlines the same artists in every language; only the text among them is wider or narrower.
# A left-aligned text grows at its right end, so its centre moves by half its growth: a label that is a quarter
# of the figure wider (the widest difference a short Chinese label makes, e.g. 头维度 → "head dimension", or a
# shorter English subtitle where the corner label is wider) moves the centre by an eighth. A mark that outlined
# something else (the next row of bars, the other panel) would lie a whole row or panel away and barely overlap
# its source box, while one whose text changed width keeps at least half of its box in common (the part that is
# not text, and the text's start).


def _centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _overlap(a: list[float], b: list[float]) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    inter = max(min(a[2], b[2]) - max(a[0], b[0]), 0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0)
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.mark.slow  # draws every figure in every language
@pytest.mark.parametrize("language", TRANSLATIONS)
def test_marks_have_the_same_names_and_nearly_the_same_boxes_in_every_language(drawn, language):
    source, translation = drawn[SOURCE_LANGUAGE].figures, drawn[language].figures
    assert sorted(translation) == sorted(source) == sorted(f.id for f in FIGURES if f.id in source)
    far = []
    for fid, entry in source.items():
        assert sorted(translation[fid]["marks"]) == sorted(entry["marks"]), fid
        width, height = entry["width"] * 3 / 4, entry["height"] * 3 / 4  # CSS px → pt, the boxes' unit
        for name, mark in entry["marks"].items():
            box, other = mark["box"], translation[fid]["marks"][name]["box"]
            (x, y), (ox, oy) = _centre(box), _centre(other)
            if (abs(x - ox) > CENTRE_TOLERANCE * width or abs(y - oy) > CENTRE_TOLERANCE * height
                    or _overlap(box, other) < OVERLAP_FLOOR):
                far.append(f"{fid}:{name}: {box} → {other}")
    assert far == []


def _text_boxes(figure, data, language: str) -> tuple[list[tuple[str, tuple[float, ...]]], tuple[float, float]]:
    """Every visible text of ``figure`` drawn as its baseline PNG is (96 dpi, no hinting) in ``language``, with its
    extent in pixels (a label's rounded box where it has one), and the figure's size."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from figures.runner import drawn_figure

    with (matplotlib.rc_context({"text.hinting": "no_hinting"}),
          drawn_figure(figure, data, language) as (fig, _marks)):
        fig.set_dpi(baseline.DPI)
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        boxes = []
        for text in fig.findobj(Text):
            if text.get_visible() and text.get_text().strip():
                patch = text.get_bbox_patch()
                box = (patch or text).get_window_extent(renderer)
                boxes.append((text.get_text(), (box.x0, box.y0, box.x1, box.y1)))
        return boxes, (fig.bbox.width, fig.bbox.height)


EDGE = 4
"""Pixels a text keeps from the figure's edge: closer, it reads as cut off (rc-v1-choice's English top-p line ended
3 px from the right edge)."""


def _crowded(boxes: list[tuple[str, tuple[float, ...]]], size: tuple[float, float]) -> tuple[set[int], set[tuple]]:
    """(texts reaching within ``EDGE`` of the figure's edge or past it, pairs of texts overlapping by more than a pixel
    each way), by index."""
    width, height = size
    past = {i for i, (_, (x0, y0, x1, y1)) in enumerate(boxes) if x0 < EDGE or y0 < EDGE or x1 > width - EDGE
            or y1 > height - EDGE}
    pairs = {(i, j) for i, (_, a) in enumerate(boxes) for j, (_, b) in enumerate(boxes) if i < j
             and min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1}
    return past, pairs


@pytest.mark.slow  # draws every figure in every language
@pytest.mark.parametrize("language", TRANSLATIONS)
def test_translated_text_fits_where_the_source_text_fits(model_results, language):
    """No translated text reaches the figure's edge or another text where the Chinese one does not.

    A figure draws the same texts in the same order in every language, so they are compared one by one; what
    the Chinese figure already has (an axis's tick beyond its limits counted as past the edge, a label touching
    a tick) is the source's, judged by its own baseline."""
    from figures.runner import figure_data
    from site_builder.load.loader import load_content

    content, _ = load_content(ROOT)
    records = {r.id: r.data for r in content.records}
    found = []
    for figure in FIGURES:
        data, _ = figure_data(figure, model_results, records)
        source, size = _text_boxes(figure, data or {}, SOURCE_LANGUAGE)
        translation, _size = _text_boxes(figure, data or {}, language)
        assert len(source) == len(translation), figure.id
        (past, pairs), (was_past, were_pairs) = _crowded(translation, size), _crowded(source, size)
        found += [f"{figure.id}: {translation[i][0]!r} runs past or touches the edge" for i in sorted(past - was_past)]
        found += [f"{figure.id}: {translation[i][0]!r} overlaps {translation[j][0]!r}"
                  for i, j in sorted(pairs - were_pairs)]
    assert found == []
