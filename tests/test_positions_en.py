"""Position words in English (site_builder/parse/positions.py): found as whole words, checked against the
mark's box in the English figure like the Chinese ones, reported with path:line.

The course is tests/editionkit.py's: figure ``marked`` has ``left`` in the upper left, ``right`` in the
upper right and ``middle`` at the bottom; expected lines are found in the texts the tests wrote.
"""

from __future__ import annotations

import itertools

import pytest
from editionkit import R1_EN, R1_ZH, course_evidence, line_of, write_course

from site_builder.engine.pipeline import prepare_site
from site_builder.load.content import FigureMark
from site_builder.parse.positions import VOCABULARIES, place_word, position_words, word_holds
from site_builder.vocabulary.problems import ContentError

EN_NOTE = "Point at {mark}`left` first, then at {mark}`right`, then move on."
ZH_NOTE = "先指{mark}`left`，再指{mark}`right`，然后翻页。"


@pytest.mark.parametrize("text, words", [
    ("Start with the formula at the top", ["at the top"]),
    ("in the lower right corner", ["lower right corner"]),
    ("from the Upper-Left", ["Upper-Left"]),
    ("on the far right", ["far right"]),
    ("the rightmost bar", ["rightmost"]),
    ("the left-hand side and the bottom row", ["left-hand side", "bottom row"]),
    ("in the middle", ["in the middle"]),
    ("in the upper half", ["upper half"]),
])
def test_english_position_words_are_found(text, words):
    assert [w.text for w in position_words(text, "en")] == words


@pytest.mark.parametrize("text", [
    "the leftover entries", "stop here", "the desktop bar", "on the leftover bar", "the topmost-ranked token",
    "the top-p cut", "the right answer", "a lower bound", "the top token",  # part of a longer word, or no place
    "follow it to the right", "move towards the bottom row", "look up to the upper right",  # directions of motion
    "the layer above", "the chart below",  # relative to something unnamed
])
def test_english_words_inside_longer_words_motion_and_other_senses_are_not_positions(text):
    assert position_words(text, "en") == []


def _problems(tmp_path, en_note: str = EN_NOTE, zh_note: str = ZH_NOTE) -> tuple[list[str], dict[str, str]]:
    """The problems of the two-language course with these teacher notes in page r1, and r1's texts by path."""
    pages = {"content/en/pages/r1.md": R1_EN.replace(EN_NOTE, en_note),
             "content/pages/r1.md": R1_ZH.replace(ZH_NOTE, zh_note)}
    root = write_course(tmp_path, {"r1": pages["content/en/pages/r1.md"]})
    (root / "content" / "pages" / "r1.md").write_text(pages["content/pages/r1.md"], encoding="utf-8")
    try:
        prepare_site(root, course_evidence(root / "fig"))
    except ContentError as error:
        return [str(p) for p in error.problems], pages
    return [], pages


@pytest.mark.parametrize("path, notes, wrong, said", [
    ("content/en/pages/r1.md", {"en_note": "Point at {mark}`left` in the upper left corner first, then at "
                                           "{mark}`right` in the lower right corner, then move on."},
     "lower right corner", "in the upper right corner"),
    ("content/pages/r1.md", {"zh_note": "先指左上角的{mark}`left`，再指右下角的{mark}`right`，然后翻页。"},
     "右下角", "右上"),
])
def test_a_wrong_position_word_is_an_error_with_path_and_line_in_either_language(tmp_path, path, notes, wrong, said):
    problems, pages = _problems(tmp_path, **notes)
    label = "right box" if path.startswith("content/en/") else "右框"
    assert problems == [f"{path}:{line_of(pages[path], '{mark}`right`')}: '{wrong}' does not describe mark 'right' "
                        f"({label}): in figure marked it sits {said} (centre at about 80%, 25%)"]


def test_true_english_words_and_words_inside_longer_ones_are_not_errors(tmp_path):
    note = ("Start with the upper-left {mark}`left`, then {mark}`middle` at the bottom and {mark}`right` "
            "(the words between two marks are the first one's); {mark}`right` is on the far right. "
            "Then {mark}`right` on the leftover bar, {mark}`middle` at the stop bar, and move on.")
    zh_note = "先指{mark}`left`，再指{mark}`right`和{mark}`middle`，然后翻页。"
    assert _problems(tmp_path, note, zh_note)[0] == []
    wrong = note.replace("leftover", "left")  # the same sentence with the short word is checked, and false
    assert [p.split(": ", 1)[1] for p in _problems(tmp_path / "short", wrong, zh_note)[0]] == [
        "'on the left' does not describe mark 'right' (right box): in figure marked it sits in the upper right corner "
        "(centre at about 80%, 25%)"]


def test_each_language_describes_a_mark_in_a_word_it_reads_back_as_true():
    edges = (0.0, 0.3, 0.45, 0.7, 1.0)
    spans = list(itertools.combinations(edges, 2))
    boxes = [(x0, y0, x1, y1) for x0, x1 in spans for y0, y1 in spans]
    marks = [FigureMark(f"m{i}", "", box) for i, box in enumerate(boxes)]
    for language, mark in itertools.product(VOCABULARIES, marks):
        (word,) = position_words(place_word(mark, language), language)
        assert word_holds(word, mark, [mark]), (language, mark.box, word)


def test_a_mark_is_described_by_its_corner_only_when_both_of_its_sides_would_be():
    from site_builder.load.content import FigureMark
    from site_builder.parse.positions import place_word

    def at(x: float, y: float) -> FigureMark:
        return FigureMark("m", "m", (x - 0.05, y - 0.05, x + 0.05, y + 0.05))

    said = [place_word(at(x, y), "zh-CN") for x, y in ((0.8, 0.25), (0.22, 0.82), (0.58, 0.1))]
    assert said == ["右上", "左下", "上方"]
    assert place_word(at(0.8, 0.25), "en") == "in the upper right corner"
