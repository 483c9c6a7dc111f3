"""The real course: every pointing step names a real region of its figure, and every position
word written next to a mark is true of where matplotlib drew it.

The seed notes pointed at things the figures do not show (a parameter block "on the left", an
A/B request "bottom right", a distribution "far right", a Q box in r55 b1, T values on a byte
axis, a head-connection diagram in a bar chart). The last test puts those sentences back against
the real figures and expects the build to refuse them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import write_site

import build
from site_builder.check.site import resolve_mark, state_figure
from site_builder.engine.pipeline import prepare_site
from site_builder.parse.page import StateSource
from site_builder.parse.positions import position_words, word_holds
from site_builder.vocabulary.problems import ContentError

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ("rc-v1", "r55", "kv-bytes")


@pytest.fixture(scope="module")
def prepared():
    evidence, _ = build.measure_and_draw()
    return prepare_site(ROOT, evidence)


def _mark_uses(prepared):
    for page in prepared.pages.values():
        for use in page.roles:
            if use.name == "mark":
                figure_id, name = resolve_mark(use.target, state_figure(page, use.state))
                yield page, use, prepared.evidence.figures[figure_id], name


def test_every_state_with_a_figure_has_a_pointing_list_that_names_marks(prepared):
    assert prepared.warnings == ()
    for page_id in LESSONS:
        page = prepared.pages[page_id]
        states = [b for b in page.blocks if isinstance(b, StateSource) and b.figure]
        lists = {state: marks for _, marks, state in page.pointing}
        assert {s.id for s in states} <= set(lists), f"{page_id}: a state without a 指图 list"
        for state in states:
            assert lists[state.id] >= 2, f"{page_id} {state.id}: its 指图 list names {lists[state.id]} marks"
            figure = prepared.evidence.figures[state.figure]
            assert len(figure.marks) >= 3, f"figure {figure.id} declares too few marks to point at"


def test_every_referenced_mark_exists_and_every_position_word_agrees_with_its_box(prepared):
    checked_words = 0
    uses = list(_mark_uses(prepared))
    assert len(uses) >= 60
    for page, use, figure, name in uses:
        mark = figure.mark(name)
        assert mark is not None, f"{page.meta.path}:{use.line}: {figure.id} has no mark {name}"
        for word in position_words(use.clause):
            relative = figure.mark(resolve_mark(use.after_mark, figure.id)[1]) if use.after_mark else None
            assert word_holds(word, mark, figure.marks, relative), f"{page.meta.path}:{use.line}: {word.text} {name}"
            checked_words += 1
    assert checked_words >= 15  # the notes do use position words; the check is not vacuous


def test_every_mark_box_lies_inside_its_figure(prepared):
    for figure in prepared.evidence.figures.values():
        for mark in figure.marks:
            left, top, right, bottom = mark.box
            assert 0 <= left < right <= 1 and 0 <= top < bottom <= 1, (figure.id, mark)
            assert (right - left) * (bottom - top) < 0.9, f"{figure.id}:{mark.name} covers the whole figure"


# The seed's sentences, as {mark} notes on the real figures: each must be refused.
SEED_MISMATCHES = [
    ("rc-v1-b0", "先指左侧的{mark}`params`。", "'左侧' does not describe mark 'params'"),
    ("rc-v1-b0", "最后指右下角的{mark}`request`。", "'右下角' does not describe mark 'request'"),
    ("rc-v1-b1", "停在最右侧的{mark}`distribution`。", "'最右侧' does not describe mark 'distribution'"),
    ("rc-v1-b3", "指上方的{mark}`output`。", "'上方' does not describe mark 'output'"),
    ("r55-b1", "先指{mark}`q`。", "figure r55-b1 has no mark 'q'"),
    ("kv-bytes-measured", "先指{mark}`t-values`。", "figure kv-bytes-measured has no mark 't-values'"),
    ("kv-bytes-gqa", "先指{mark}`mha-heads`。", "figure kv-bytes-gqa has no mark 'mha-heads'"),
]


@pytest.mark.parametrize("figure_id, sentence, message", SEED_MISMATCHES, ids=[m[0] for m in SEED_MISMATCHES])
def test_the_seed_mismatches_are_refused_against_the_real_figures(prepared, tmp_path, figure_id, sentence, message):
    evidence = prepared.evidence
    provenance = evidence.figures[figure_id].provenance
    page = (f"---\ntitle: 一课\n---\n:::{{state}} b0\n:title: 一\n:figure: {figure_id}\n:provenance: {provenance}\n\n"
            f"正文。\n\n::::{{teacher}}\n**指图与推进（不朗读）**\n\n1. {sentence}\n::::\n:::\n")
    root = write_site(tmp_path, {"x": page})
    with pytest.raises(ContentError) as caught:
        prepare_site(root, evidence)
    found = [str(p) for p in caught.value.problems]
    assert len(found) == 1 and found[0].startswith(f"content/pages/x.md:14: {message}"), found


# The six places the seed notes misdescribed their figures, and what the course now says there.
FIXED = [
    ("rc-v1", "b0", "顶部的{mark}`params`", "左侧"),
    ("rc-v1", "b0", "底部的{mark}`request`", "右下角"),
    ("rc-v1", "b1", "底部的{mark}`distribution`", "最右侧"),
    ("rc-v1", "b4", "{mark}`output`：箭头朝右", "向上的箭头"),
    ("r55", "b1", "图里没有画 Q", "这一列新算出的 Q"),
    ("kv-bytes", "b1", "两根轴都是字节数", "横轴上的几个 T"),
    ("kv-bytes", "b6", "{mark}`mha-bars`", "连着自己的一组"),
    ("kv-bytes", "b6", "灰色虚线条", "query 头与 KV 头的对应关系"),
]


@pytest.mark.parametrize("page_id, state_id, now, before", FIXED, ids=[f"{f[0]}-{f[1]}-{f[3]}" for f in FIXED])
def test_the_six_seed_mismatches_are_gone(page_id, state_id, now, before):
    text = (ROOT / "content" / "pages" / f"{page_id}.md").read_text(encoding="utf-8")
    start = text.index(f":::{{state}} {state_id}\n")
    state = text[start:text.index("\n:::\n", start)]
    assert now in state and before not in state
