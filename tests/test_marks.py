"""Marks: figures name regions, {mark} points at them, position words are checked against their boxes.

Unit tests of the position vocabulary, every mistake a teacher or a figure author can make with
its exact ``path:line: message``, and the figure runner recording boxes from matplotlib's extents.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sitekit import fake_evidence, lesson, write_site

import figures
from figures.marks import MarkError, data_box, mark
from figures.runner import render
from figures.spec import Figure
from site_builder.engine.builder import Engine
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import FigureMark
from site_builder.parse.positions import PositionWord, position_words, word_holds
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
# A figure with a block across the top, a box in the bottom left and one at the far right.
MARKS = (FigureMark("params", "参数条", (0.1, 0.05, 0.75, 0.3)),
         FigureMark("request", "新请求", (0.05, 0.7, 0.4, 0.95)),
         FigureMark("side", "侧栏", (0.85, 0.3, 0.98, 0.7)))


def evidence(tmp_path: Path):
    base = fake_evidence(tmp_path / "fig")
    figs = dict(base.figures)
    figs["sketch"] = replace(figs["sketch"], marks=MARKS)
    return replace(base, figures=figs)


def state(note: str, *, figure: str = ":figure: sketch\n", caption: str = "") -> str:
    return lesson(f":::{{state}} b0\n:title: 一\n{figure}{caption}:provenance: teaching\n\n正文。\n\n"
                  f"::::{{teacher}}\n{note}\n::::\n:::\n")


def problems(tmp_path: Path, text: str) -> list[str]:
    root = write_site(tmp_path, {"x": text})
    with pytest.raises(ContentError) as caught:
        prepare_site(root, evidence(tmp_path))
    return [str(p) for p in caught.value.problems]


def prepared(tmp_path: Path, text: str):
    return prepare_site(write_site(tmp_path, {"x": text}), evidence(tmp_path))


# ------------------------------------------------------------ vocabulary --
@pytest.mark.parametrize("clause, words", [
    ("先指左侧的", ["左侧"]), ("最后指右下角的", ["右下角"]), ("停在最右侧的", ["最右侧"]),
    ("先指顶部的", ["顶部"]), ("再指中间的", ["中间"]), ("从左上角的", ["左上角"]),
    ("顺着箭头往下指", []), ("沿箭头向上到", []), ("进入下一步前指", []), ("以上几项里的", []),
    ("从左到右看", []), ("它上方的", ["上方"]), ("底部的", ["底部"]), ("底下的", []),
])
def test_position_words_are_found_and_directions_of_motion_are_not(clause, words):
    assert [w.text for w in position_words(clause)] == words


@pytest.mark.parametrize("text, name, holds", [
    ("顶部", "params", True), ("上方", "params", True), ("左侧", "params", False),  # a wide block at the top
    ("左上角", "params", False),  # centred horizontally: not in a corner
    ("底部", "request", True), ("左下角", "request", True), ("右下角", "request", False),
    ("下方", "request", True), ("左侧", "request", True),  # lower left, both offsets large: either word is fair
    ("右侧", "side", True), ("最右侧", "side", True), ("最右侧", "params", False), ("中间", "side", False),
])
def test_words_against_boxes(text, name, holds):
    word = position_words(text)[0]
    mark_ = next(m for m in MARKS if m.name == name)
    assert word_holds(word, mark_, MARKS) is holds


def test_relative_word_after_a_mark():
    below = PositionWord("下方", False, "下")
    params, request = MARKS[0], MARKS[1]
    assert word_holds(below, request, MARKS, relative_to=params)
    assert not word_holds(below, params, MARKS, relative_to=request)


# --------------------------------------------------------------- mistakes --
def test_unknown_mark_lists_the_figures_marks(tmp_path):
    found = problems(tmp_path, state("**指图与推进（不朗读）**\n\n1. 先指{mark}`parms`。"))
    assert found == [f"{P}:14: figure sketch has no mark 'parms' (did you mean 'params'?) "
                     "(its marks: params, request, side)"]


def test_mark_on_a_state_with_no_figure(tmp_path):
    found = problems(tmp_path, state("1. 先指{mark}`params`。", figure=""))
    assert found == [f"{P}:11: {{mark}}`params` points at no figure: state b0 has no ':figure:'; "
                     "name the figure as {mark}`figure-id:params`"]


def test_mark_outside_a_state_needs_a_figure_id(tmp_path):
    text = lesson("见{mark}`params`，或{mark}`sketch:params`。\n\n" + state("正文")[len("---\ntitle: 一课\n---\n"):])
    found = problems(tmp_path, text)
    assert found == [f"{P}:4: {{mark}}`params` points at no figure: it stands outside any state; "
                     "name the figure as {mark}`figure-id:params`"]


def test_mark_of_an_unknown_figure(tmp_path):
    assert problems(tmp_path, state("1. 指{mark}`skech:params`。")) == [
        f"{P}:12: {{mark}}`skech:params`: unknown figure 'skech' (did you mean 'sketch'?)"]


def test_position_word_that_is_false_is_an_error_and_all_are_reported(tmp_path):
    note = ("**指图与推进（不朗读）**\n\n1. 先指左侧的{mark}`params`。\n2. 再指右下角的{mark}`request`。\n"
            "3. 最后指最右侧的{mark}`side`，和它左边的{mark}`request`。")
    found = problems(tmp_path, state(note))
    assert found == [
        f"{P}:14: '左侧' does not describe mark 'params' (参数条): in figure sketch it sits "
        "上方 (centre at about 42%, 18%)",
        (f"{P}:15: '右下角' does not describe mark 'request' (参数条): in figure sketch it sits "
         "下方 (centre at about 22%, 82%)").replace("(参数条)", "(新请求)"),
    ]


def test_position_stated_after_the_mark_is_checked(tmp_path):
    note = "1. {mark}`request`在右下角，{mark}`side`位于最右侧，{mark}`params`下面是别的。"
    found = problems(tmp_path, state(note))
    assert found == [f"{P}:12: '右下角' does not describe mark 'request' (新请求): in figure sketch it sits "
                     "下方 (centre at about 22%, 82%)"]


def test_position_word_in_a_caption_is_checked_too(tmp_path):
    found = problems(tmp_path, state("1. 指{mark}`side`。", caption=":caption: 左侧是{mark}`side`。\n"))
    assert found == [f"{P}:7: '左侧' does not describe mark 'side' (侧栏): in figure sketch it sits "
                     "右侧 (centre at about 92%, 50%)"]


def test_true_sentences_pass_and_render_labels_linked_to_the_figure(tmp_path):
    note = ("**指图与推进（不朗读）**\n\n1. 先指顶部的{mark}`params`。\n2. 再指左下角的{mark}`request`，"
            "然后是最右侧的{mark}`side`。\n3. 学生说出结论后推进。")
    site = prepared(tmp_path, state(note))
    assert site.warnings == ()
    html = render_site(site, teacher=True)["x.html"].decode()
    assert ('<a class="mark-ref" href="#x-b0-fig" data-figure="sketch" data-mark="params">参数条</a>' in html)
    assert 'data-figure="sketch" data-marks="{&#34;params&#34;:[0.1,0.05,0.75,0.3,&#34;参数条&#34;]' in html
    markdown = render_site(site, teacher=True)["x.md"].decode()
    assert "先指顶部的参数条。" in markdown


def test_pointing_list_without_marks_is_a_warning_not_an_error(tmp_path):
    site = prepared(tmp_path, state("**指图与推进（不朗读）**\n\n1. 先指上面的方块。\n2. 再指下面的方块。"))
    assert [str(w) for w in site.warnings] == [
        f"{P}:14: warning: state b0: the 指图 list names no {{mark}}: write each pointing step with {{mark}}`name` "
        "so the presentation can outline it"]


# ------------------------------------------------------------ the runner --
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
    assert str(caught.value) == (f"tests/test_marks.py:{line}: figure t-stray: mark 'stray' names a Rectangle "
                                 "that was never drawn (it was not added to the figure's axes)")
    assert list((tmp_path / "out").iterdir()) == [] and list((tmp_path / "cache").iterdir()) == []


def test_build_reports_a_figure_mark_error_as_a_problem_before_writing(monkeypatch):
    import build

    def broken(*_args, **_kwargs):
        raise MarkError("figures/rc_v1.py", 21, "figure rc-v1-b0: mark 'params' names a Rectangle that was never drawn")

    monkeypatch.setattr(figures, "render_all", broken)
    written = []
    monkeypatch.setattr(Engine, "_write", lambda *a, **k: written.append(a))
    with pytest.raises(ContentError) as caught:
        build.build(quiet=True)
    assert [str(p) for p in caught.value.problems] == [
        "figures/rc_v1.py:21: figure rc-v1-b0: mark 'params' names a Rectangle that was never drawn"]
    assert written == []
    assert build.main([]) == 1  # the command line prints it and exits 1, no traceback


def test_marks_survive_the_dev_servers_fresh_process_round_trip(tmp_path):
    import json
    from dataclasses import asdict

    from site_builder.load.evidence import evidence_from_json

    original = evidence(tmp_path)
    again = evidence_from_json(json.loads(json.dumps(asdict(original))))
    assert again.figures["sketch"].marks == MARKS and again == original


@pytest.mark.parametrize("note, message", [
    ("1. 先指{mark}`parms`。", "图 sketch 没有标记 'parms'（是不是 'params'？）"),
    ("1. 先指{mark}`params`。", "{mark}`params` 没有可指的图：状态 b0 没有 ':figure:'"),
], ids=["unknown mark", "state without figure"])
def test_build_with_a_bad_mark_writes_nothing_and_exits_1(tmp_path, monkeypatch, capsys, note, message):
    import build

    text = state(note, figure="" if "没有可指的图" in message else ":figure: sketch\n")
    root = write_site(tmp_path, {"x": text})
    monkeypatch.setattr(build, "ROOT", root)
    monkeypatch.setattr(build, "measure_all", lambda clean=False, progress=None: build.Measured(evidence(tmp_path),
                                                                                               {}, {}, {}))
    written = []
    monkeypatch.setattr(Engine, "_write", lambda *a, **k: written.append(a))
    assert build.main([]) == 1
    err = capsys.readouterr().err
    assert f"{P}:" in err and message in err and "站点没有改动" in err  # the course is Chinese
    assert written == []


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
