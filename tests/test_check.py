"""Checks (site_builder/check): hand-typed numbers, marks and position words, paths out of the site or
the output folder, URLs in prose and maths, invisible controls."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from sitekit import (
    assert_no_unsafe_url,
    both_sites,
    fake_evidence,
    lesson,
    problems_of,
    state,
    write_site,
)

import build
import figures
from figures.marks import MarkError
from site_builder.engine.builder import Engine
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import FigureMark
from site_builder.parse.positions import PositionWord, position_words, word_holds
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import UnsafeOutputError
from site_builder.write.writer import write_site as write_output

P = "content/pages/x.md"


STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"


ADVICE = "is written by hand: cite a value with {num}`name`, or mark an illustration with {example}`…`"


ADVICE_ZH = "是手写的：请用 {num}`名称` 引用数值，示意数字请用 {example}`…` 标出"


def problems(tmp_path: Path, text: str, language: str = "en") -> list[str]:
    """The problems of a one-page site, in ``language`` (none when it builds)."""
    root = write_site(tmp_path, {"x": text})
    try:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    except ContentError as error:
        return [p.localized(language) for p in error.problems]
    return []


HAND_TYPED = [  # (prose, the number as the problem shows it)
    ("概率占 0.35。", "0.35"),
    ("概率占 .35。", ".35"),
    ("概率占 ０．３５。", "０．３５"),
    ("快了 2.5 倍。", "2.5"),
    ("概率是 0.35（实测）。", "0.35"),
    ("大约 1/3 的位置。", "1/3"),
    ("显存的三成五放缓存。", "三成五"),
    ("百分之三十的显存。", "百分之三十"),
    ("两成的请求。", "两成"),
    ("五分之一的时间。", "五分之一"),
    ("概率是零点三五。", "零点三五"),
    ("开场 65% 的显存。", "65%"),
    ("涨了 3 个百分点。", "3 个百分点"),
    ("涨了三个百分点。", "三个百分点"),
    ("每个 token 要 512 KiB。", "512 KiB"),
    ("每步 3 ms。", "3 ms"),
    ("一步要三毫秒。", "三毫秒"),
    ("误差是 2.2e-15。", "2.2e-15"),
    ("误差是 2.22×10⁻¹⁵。", "2.22×10⁻¹⁵"),
    ("它有 13B 参数。", "13B"),
    ("每秒 30 tok/s。", "30 tok/s"),
    ("用 Python 3.11 跑。", "3.11"),
    ("大约 ½ 的权重。", "½"),
]


@pytest.mark.parametrize(("text", "number"), HAND_TYPED, ids=[c[1] for c in HAND_TYPED])
def test_a_hand_typed_number_in_a_state_is_an_error_at_its_line(tmp_path, text, number):
    found = problems(tmp_path, lesson(STATE.replace("正文。", text)))
    assert found == [f"{P}:8: state b0: number '{number}' {ADVICE}"]


@pytest.mark.parametrize(("text", "number"), HAND_TYPED, ids=[c[1] for c in HAND_TYPED])
def test_a_hand_typed_number_outside_a_state_is_an_error_at_its_line(tmp_path, text, number):
    found = problems(tmp_path, lesson(f"开场。\n\n{text}\n\n" + STATE))
    assert found == [f"{P}:6: number '{number}' {ADVICE}"]


def test_the_problem_reads_in_the_course_language(tmp_path):
    found = problems(tmp_path, lesson(STATE.replace("正文。", "显存的三成五放缓存。")), "zh-CN")
    assert found == [f"{P}:8: 状态 b0：数字 '三成五' {ADVICE_ZH}"]


def test_each_number_of_a_line_is_reported(tmp_path):
    found = problems(tmp_path, lesson(STATE.replace("正文。", "占 0.35，近三成，共 1/3。")))
    assert sorted(f.split("'")[1] for f in found) == sorted(["0.35", "三成", "1/3"])


EXEMPT = [  # counts, names, versions, section and ordinal numbers
    "第 2 层，第 2.3 节，见 2.3 节与 §2.1–2.2，Table 2.1 和 Fig. 3.2。",
    "2024 年的记录，共 4096 个 token，两层，十个头，2 倍。",
    "fp16 是两个字节，512 个字节。",
    "GPT-2、Llama-2-7B、Qwen2.5-7B、Mistral-7B-v0.1、OPT-13B、A100 和 b0。",
    "版本 v1、v3.11、Python3.11、3.11.2，地址 127.0.0.1，论文 arXiv:2309.06180。",
    "一成不变的这一成果，两两成对，十分之重要。",
    "第一秒和每一秒，一半的人。",
    "1,024 个位置，编号 0、1、2。",
    "见 Pope 等人的 section 2.7、p. 12 与 pp. 3.1–3.4，chapter 4.2。",
]


@pytest.mark.parametrize("text", EXEMPT)
def test_exempt_forms_pass(tmp_path, text):
    assert problems(tmp_path, lesson(STATE.replace("正文。", text))) == []


def test_heading_state_title_and_list_numbers_pass(tmp_path):
    body = ("## 2.3 注意力\n\n1. 第一项\n2. 第二项\n\n### 1. 开场\n\n"
            + STATE.replace(":title: 一", ":title: 1.2 开场"))
    assert problems(tmp_path, lesson(body)) == []


def test_a_heading_starting_with_a_measured_number_is_flagged(tmp_path):
    assert problems(tmp_path, lesson("## 0.35 的概率\n\n## 65% 的显存\n\n" + STATE)) == [
        f"{P}:4: number '0.35' {ADVICE}", f"{P}:6: number '65%' {ADVICE}"]


BOUND = [
    "差值 {num}`exp.diff`，每 token {num}`exp.bytes`。",
    "示意 {example}`0.35`、{example}`三成五`、{example}`512 KiB`。",
    "代码 `p = 0.35` 和 `1/3`。",
    "公式 $p = 0.35$，以及\n\n$$\nq = 1/3 \\approx 33\\%\n$$",
    "```python\nshare = 0.35  # 三成五, 65%\n```",
    "    indented = 0.35",
]


@pytest.mark.parametrize("text", BOUND)
def test_num_example_code_and_math_are_not_flagged(tmp_path, text):
    assert problems(tmp_path, lesson(f"{text}\n\n" + STATE)) == []


def test_every_kind_of_prose_is_checked(tmp_path):
    """Emphasis, a link's text, a list, a quote, a table, a state's title and caption, a ``more`` block: each at
    its line."""
    body = ("**0.11** 和 [0.12](https://example.org/)\n\n- 0.13\n\n> 0.14\n\n| a |\n|---|\n| 0.15 |\n\n"
            ":::{state} b0\n:title: 概率 0.16\n:caption: 概率 0.17\n:provenance: teaching\n\n"
            "::::{more}\n0.18\n::::\n:::\n")
    found = problems(tmp_path, lesson(body))
    assert sorted(found) == sorted([f"{P}:4: number '0.11' {ADVICE}", f"{P}:4: number '0.12' {ADVICE}",
                                    f"{P}:6: number '0.13' {ADVICE}", f"{P}:8: number '0.14' {ADVICE}",
                                    f"{P}:12: number '0.15' {ADVICE}", f"{P}:15: state b0: number '0.16' {ADVICE}",
                                    f"{P}:16: state b0: number '0.17' {ADVICE}",
                                    f"{P}:20: state b0: number '0.18' {ADVICE}"])


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
                                 "data:text/html,x", "vbscript:x"])
def test_script_url_in_math_is_refused_with_its_line(tmp_path, url):
    write_site(tmp_path, {"x": lesson(state(body=f"公式 $\\href{{{url}}}{{x}}$。"))})
    assert problems_of(tmp_path) == [
        f"{P}:8: cannot render math '\\href{{{url}}}{{x}}': link '{url}' is not allowed: \\href takes an https:// "
        "URL or a page of this site"]


def test_https_link_in_math_builds_and_both_sites_are_clean(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="公式 $\\href{https://example.org/}{x}$。"))})
    files = both_sites(tmp_path)
    assert '<mrow href="https://example.org/">' in files["_site/x.html"]
    assert '<mrow href="https://example.org/">' in files["_site-teacher/x.html"]
    assert_no_unsafe_url(files)


@pytest.mark.parametrize(("markdown", "message"), [
    ("[下载](ftp://example.org/x)", "link 'ftp://example.org/x' uses a scheme the site does not allow: give a full "
                                    "https:// URL, or link to a page with {ref}`id`"),
    ("<tel:123>", "link 'tel:123' uses a scheme the site does not allow: give a full https:// URL, or link to a page "
                  "with {ref}`id`"),
])
def test_markdown_links_with_other_schemes_are_refused(tmp_path, markdown, message):
    write_site(tmp_path, {"x": lesson(state(body=markdown))})
    assert problems_of(tmp_path) == [f"{P}:8: {message}"]


RLO = "\u202e"


@pytest.mark.parametrize(("pages", "site", "expected"), [
    ({"x": lesson(state(), front=f"title: 一课{RLO}txt.exe\n")}, None,
     f"{P}:2: front matter 'title' contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): "
     "delete them"),
    ({"x": lesson(state(), front="title: 一课\nlabel: R\u200b55\n")}, None,
     f"{P}:3: front matter 'label' contains invisible control characters (U+200B ZERO WIDTH SPACE): delete them"),
    ({"x": lesson(state(title=f"状态{RLO}一"))}, None,
     f"{P}:5: state b0 title contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): delete them"),
    ({"x": lesson(f"## 小节{RLO}\n\n" + state())}, None,
     f"{P}:4: heading contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): delete them"),
    ({"x": lesson("## 小节 {#sec\u2066}\n\n" + state())}, None,
     f"{P}:4: heading contains invisible control characters (U+2066 LEFT-TO-RIGHT ISOLATE): delete them"),
    ({"x": lesson(state())}, f"title: 课{RLO}\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x]\n",
     "content/site.yml:1: site.yml 'title' contains invisible control characters (U+202E RIGHT-TO-LEFT "
     "OVERRIDE): delete them"),
])
def test_invisible_controls_in_titles_headings_and_ids_are_errors(tmp_path, pages, site, expected):
    write_site(tmp_path, pages, site_yml=site)
    assert problems_of(tmp_path) == [expected]


# A figure with a block across the top, a box in the bottom left and one at the far right.
MARKS = (FigureMark("params", "参数条", (0.1, 0.05, 0.75, 0.3)),
         FigureMark("request", "新请求", (0.05, 0.7, 0.4, 0.95)),
         FigureMark("side", "侧栏", (0.85, 0.3, 0.98, 0.7)))


def evidence(tmp_path: Path):
    base = fake_evidence(tmp_path / "fig")
    figs = dict(base.figures)
    figs["sketch"] = replace(figs["sketch"], marks=MARKS)
    return replace(base, figures=figs)


def state_marks(note: str, *, figure: str = ":figure: sketch\n", caption: str = "") -> str:
    return lesson(f":::{{state}} b0\n:title: 一\n{figure}{caption}:provenance: teaching\n\n正文。\n\n"
                  f"::::{{teacher}}\n{note}\n::::\n:::\n")


def problems_marks(tmp_path: Path, text: str) -> list[str]:
    root = write_site(tmp_path, {"x": text})
    with pytest.raises(ContentError) as caught:
        prepare_site(root, evidence(tmp_path))
    return [str(p) for p in caught.value.problems]


def prepared(tmp_path: Path, text: str):
    return prepare_site(write_site(tmp_path, {"x": text}), evidence(tmp_path))


@pytest.mark.parametrize("clause, words", [
    ("先指左侧的", ["左侧"]), ("最后指右下角的", ["右下角"]), ("停在最右侧的", ["最右侧"]),
    ("先指顶部的", ["顶部"]), ("再指中间的", ["中间"]), ("从左上角的", ["左上角"]),
    ("顺着箭头往下指", []), ("沿箭头向上到", []), ("进入下一步前指", []), ("以上几项里的", []),
    ("从左到右看", []), ("它上方的", ["上方"]), ("底部的", ["底部"]), ("底下的", []),
])
def test_position_words_are_found_and_directions_of_motion_are_not(clause, words):
    assert [w.text for w in position_words(clause, "zh-CN")] == words


@pytest.mark.parametrize("text, name, holds", [
    ("顶部", "params", True), ("上方", "params", True), ("左侧", "params", False),  # a wide block at the top
    ("左上角", "params", False),  # centred horizontally: not in a corner
    ("底部", "request", True), ("左下角", "request", True), ("右下角", "request", False),
    ("下方", "request", True), ("左侧", "request", True),  # lower left, both offsets large: either word is fair
    ("右侧", "side", True), ("最右侧", "side", True), ("最右侧", "params", False), ("中间", "side", False),
])
def test_words_against_boxes(text, name, holds):
    word = position_words(text, "zh-CN")[0]
    mark_ = next(m for m in MARKS if m.name == name)
    assert word_holds(word, mark_, MARKS) is holds


def test_relative_word_after_a_mark():
    below = PositionWord("下方", False, "down")
    params, request = MARKS[0], MARKS[1]
    assert word_holds(below, request, MARKS, relative_to=params)
    assert not word_holds(below, params, MARKS, relative_to=request)


def test_unknown_mark_lists_the_figures_marks(tmp_path):
    found = problems_marks(tmp_path, state_marks("**指图与推进（不朗读）**\n\n1. 先指{mark}`parms`。"))
    assert found == [f"{P}:14: figure sketch has no mark 'parms' (did you mean 'params'?) "
                     "(its marks: params, request, side)"]


def test_mark_on_a_state_with_no_figure(tmp_path):
    found = problems_marks(tmp_path, state_marks("1. 先指{mark}`params`。", figure=""))
    assert found == [f"{P}:11: {{mark}}`params` points at no figure: state b0 has no ':figure:'; "
                     "name the figure as {mark}`figure-id:params`"]


def test_mark_outside_a_state_needs_a_figure_id(tmp_path):
    text = lesson("见{mark}`params`，或{mark}`sketch:params`。\n\n"
                  + state_marks("正文")[len("---\ntitle: 一课\n---\n"):])
    found = problems_marks(tmp_path, text)
    assert found == [f"{P}:4: {{mark}}`params` points at no figure: it stands outside any state; "
                     "name the figure as {mark}`figure-id:params`"]


def test_mark_of_an_unknown_figure(tmp_path):
    assert problems_marks(tmp_path, state_marks("1. 指{mark}`skech:params`。")) == [
        f"{P}:12: {{mark}}`skech:params`: unknown figure 'skech' (did you mean 'sketch'?)"]


def test_position_word_that_is_false_is_an_error_and_all_are_reported(tmp_path):
    note = ("**指图与推进（不朗读）**\n\n1. 先指左侧的{mark}`params`。\n2. 再指右下角的{mark}`request`。\n"
            "3. 最后指最右侧的{mark}`side`，和它左边的{mark}`request`。")
    found = problems_marks(tmp_path, state_marks(note))
    assert found == [
        f"{P}:14: '左侧' does not describe mark 'params' (参数条): in figure sketch it sits "
        "上方 (centre at about 42%, 18%)",
        (f"{P}:15: '右下角' does not describe mark 'request' (参数条): in figure sketch it sits "
         "左下 (centre at about 22%, 82%)").replace("(参数条)", "(新请求)"),
    ]


def test_position_stated_after_the_mark_is_checked(tmp_path):
    note = "1. {mark}`request`在右下角，{mark}`side`位于最右侧，{mark}`params`下面是别的。"
    found = problems_marks(tmp_path, state_marks(note))
    assert found == [f"{P}:12: '右下角' does not describe mark 'request' (新请求): in figure sketch it sits "
                     "左下 (centre at about 22%, 82%)"]


def test_position_word_in_a_caption_is_checked_too(tmp_path):
    found = problems_marks(tmp_path, state_marks("1. 指{mark}`side`。", caption=":caption: 左侧是{mark}`side`。\n"))
    assert found == [f"{P}:7: '左侧' does not describe mark 'side' (侧栏): in figure sketch it sits "
                     "右侧 (centre at about 92%, 50%)"]


def test_true_sentences_pass_and_render_labels_linked_to_the_figure(tmp_path):
    note = ("**指图与推进（不朗读）**\n\n1. 先指顶部的{mark}`params`。\n2. 再指左下角的{mark}`request`，"
            "然后是最右侧的{mark}`side`。\n3. 学生说出结论后推进。")
    site = prepared(tmp_path, state_marks(note))
    assert site.warnings == ()
    html = render_site(site, teacher=True)["x.html"].decode()
    assert ('<a class="mark-ref" href="#x-b0-fig" data-figure="sketch" data-mark="params">参数条</a>' in html)
    assert 'data-figure="sketch" data-marks="{&#34;params&#34;:[0.1,0.05,0.75,0.3,&#34;参数条&#34;]' in html
    markdown = render_site(site, teacher=True)["x.md"].decode()
    assert "先指顶部的参数条。" in markdown


@pytest.mark.parametrize("announced", ["**指图与推进（不朗读）**", "**Pointing and pacing (not read aloud)**"])
def test_pointing_list_without_marks_is_a_warning_not_an_error(tmp_path, announced):
    site = prepared(tmp_path, state_marks(f"{announced}\n\n1. 先指上面的方块。\n2. 再指下面的方块。"))
    assert [str(w) for w in site.warnings] == [
        f"{P}:14: warning: state b0: the 指图 list names no {{mark}}: write each pointing step with {{mark}}`name` "
        "so the presentation can outline it"]


def test_build_reports_a_figure_mark_error_as_a_problem_before_writing(monkeypatch):

    def broken(*_args, **_kwargs):
        raise MarkError("figures/rc_v1.py", 21, "figure rc-v1-b0: mark 'params' names a Rectangle that was never drawn")

    monkeypatch.setattr(figures, "render_languages", broken)
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

    text = state_marks(note, figure="" if "没有可指的图" in message else ":figure: sketch\n")
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


# ---------------------------------------------------------------------------
# Content cannot reach outside content/, and nothing the build writes lands outside its output folder.
#
# Policy: pictures come only from the figures the build draws (``:figure:`` in a state, ``{fig}`` on
# its own line), so Markdown images are refused outright; relative links that climb out of the site
# (``../``) or absolute host paths (``/etc/…``) are refused; every id (page, record, figure, source,
# value) is matched against a registry, never used as a path; files linked in from outside
# ``content/`` are refused; the writer refuses output paths with ``..`` or a leading ``/``.


def _state(body: str = "正文。", figure: str = "") -> str:
    return (":::{state} b0\n:title: 一\n" + (f":figure: {figure}\n" if figure else "")
            + ":provenance: teaching\n\n" + body + "\n:::\n")


def problems_paths(root, pages, **kwargs) -> list[str]:
    write_site(root, pages, **kwargs)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(root / "fig"))
    return [str(p) for p in caught.value.problems]


OUTSIDE = ("must be a file in this page's folder or below, e.g. 'images/gpu.jpg' (no URL, no absolute path, "
           "no '..')")


INLINE_IMAGE = ("an image must stand alone in its paragraph: put '![alt text](images/file.png \"caption\")' on a "
                "line of its own, with blank lines around it")


@pytest.mark.parametrize("body, expected", [
    ("![x](../../etc/passwd)", f"{P}:8: image '../../etc/passwd' {OUTSIDE}"),
    ("![x](/etc/passwd)", f"{P}:8: image '/etc/passwd' {OUTSIDE}"),
    ("![x](images\\gpu.png)", f"{P}:8: image 'images\\gpu.png' separates folders with '\\': write '/' instead, as "
                             "in 'images/gpu.jpg'"),
    ("![x](figures/plot.svg)", f"{P}:8: image 'figures/plot.svg' not found: put the file at "
                               "content/pages/figures/plot.svg"),
    ("![x](https://tracker.example/p.gif)", f"{P}:8: image 'https://tracker.example/p.gif' {OUTSIDE}"),
    ("![x][r]\n\n[r]: ../../../etc/shadow", f"{P}:8: image '../../../etc/shadow' {OUTSIDE}"),
    ("[x](../../etc/passwd)", f"{P}:8: link '../../etc/passwd' leaves the site: link to a page with "
                              "{ref}`id`, or give a full https:// URL"),
    ("[x](/etc/passwd)", f"{P}:8: link '/etc/passwd' leaves the site: link to a page with {{ref}}`id`, "
                         "or give a full https:// URL"),
    ("[x](a/../../b.html#c)", f"{P}:8: link 'a/../../b.html#c' leaves the site: link to a page with "
                              "{ref}`id`, or give a full https:// URL"),
    ("{fig}`../../etc/passwd`", f"{P}:8: unknown figure '../../etc/passwd'"),
    ("{ref}`../../etc/passwd`", f"{P}:8: {{ref}} to unknown page '../../etc/passwd'"),
    ("{src}`../sources`", f"{P}:8: unknown source '../sources' (sources are listed in content/sources.yml)"),
    ("{num}`../exp.diff`", f"{P}:8: unknown value '../exp.diff' (did you mean 'exp.diff'?)"),
])
def test_references_out_of_the_site_are_errors_with_lines(tmp_path, body, expected):
    assert expected in problems_paths(tmp_path, {"x": lesson(_state(body))})


def test_state_figure_with_a_path_is_an_unknown_figure(tmp_path):
    found = problems_paths(tmp_path, {"x": lesson(_state(figure="../../etc/passwd"))})
    assert f"{P}:6: unknown figure '../../etc/passwd'" in found


def test_image_in_a_caption_is_refused_too(tmp_path):
    page = lesson(":::{state} b0\n:title: 一\n:figure: sketch\n:caption: ![x](../../etc/passwd)\n"
                  ":provenance: teaching\n\n正文。\n:::\n")
    assert f"{P}:7: {INLINE_IMAGE}" in problems_paths(tmp_path, {"x": page})


def test_links_inside_the_site_and_to_the_web_are_fine(tmp_path):
    body = "[数值](numbers.html) [节](numbers.html#exp.diff) [外](https://example.org/a/../b) [本页](#x-b0)"
    write_site(tmp_path, {"x": lesson(_state(body))})
    html = render_site(prepare_site(tmp_path, fake_evidence(tmp_path / "fig")), teacher=False)["x.html"].decode()
    assert 'href="numbers.html"' in html and 'href="https://example.org/a/../b"' in html


@pytest.mark.parametrize("front, expected", [
    ("id: ../../etc/x", f"{P}:3: page id '../../etc/x' must be lowercase letters, digits and '-'"),
    ("id: a/b", f"{P}:3: page id 'a/b' must be lowercase letters, digits and '-'"),
])
def test_page_ids_cannot_be_paths(tmp_path, front, expected):
    found = problems_paths(tmp_path, {"x": f"---\ntitle: 一\n{front}\n---\n{_state()}"})
    assert expected in found


def test_site_config_cannot_list_a_page_outside_pages(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, ../../etc/passwd]\n"
    found = problems_paths(tmp_path, {"x": lesson(_state())}, site_yml=site)
    assert found == ["content/site.yml:4: no page '../../etc/passwd' in content/pages/"]


def test_record_ids_cannot_be_paths(tmp_path):
    record = {"id": "../../x", "title": "t", "date": "2025-01-01", "values": {}}
    found = problems_paths(tmp_path, {"x": lesson(_state())}, records={"old": record})
    assert found == ["content/records/old.json:2: record id must equal the file name 'old' and use [a-z0-9_]"]


def test_record_file_names_must_be_ids(tmp_path):
    write_site(tmp_path, {"x": lesson(_state())})
    (tmp_path / "content" / "records" / "Bad Name.json").write_text(
        json.dumps({"title": "t", "date": "2025-01-01", "values": {}}), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))
    assert [str(p) for p in caught.value.problems] == [
        "content/records/Bad Name.json:1: record id must equal the file name 'Bad Name' and use [a-z0-9_]"]


@pytest.mark.parametrize("where", ["pages/y.md", "records/leak.json", "sources.yml"])
def test_files_linked_from_outside_content_are_refused(tmp_path, where):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("---\ntitle: 秘密\n---\n" + _state("秘密内容。"), encoding="utf-8")
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, y]\n"
    write_site(tmp_path / "site", {"x": lesson(_state())}, site_yml=site)
    link = tmp_path / "site" / "content" / where
    link.unlink(missing_ok=True)
    os.symlink(secret, link)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path / "site", fake_evidence(tmp_path / "fig"))
    # one error per refused file: no "no page 'y'", no "must start with front matter" about its (unread) text
    assert [str(p) for p in caught.value.problems if where in p.path] == [
        f"content/{where}: is a link to a file outside content/: copy the file here instead"]


def test_links_within_the_content_folder_are_allowed(tmp_path):
    write_site(tmp_path, {"x": lesson(_state())})
    pages = tmp_path / "content" / "pages"
    (pages / "draft.txt").write_text(lesson(_state()), encoding="utf-8")
    (pages / "x.md").unlink()
    os.symlink("draft.txt", pages / "x.md")
    prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))


@pytest.mark.parametrize("name", ["../evil.html", "figures/../../evil.svg", "/tmp/evil.html", "a/../../evil"])
def test_writer_refuses_paths_that_leave_the_output_folder(tmp_path, name):
    with pytest.raises(ValueError, match="would leave the site folder"):
        write_output({"index.html": b"ok", name: b"evil"}, tmp_path / "out" / "_site")
    assert not list(tmp_path.rglob("evil*"))
    assert not (tmp_path / "out" / "_site").exists(), "a refused write must not swap anything in"


def test_figure_file_with_a_path_cannot_write_outside_the_site(tmp_path):
    from dataclasses import replace

    write_site(tmp_path, {"x": lesson(_state(figure="sketch"))})
    evidence = fake_evidence(tmp_path / "fig")
    (tmp_path / "evil.svg").write_text("<svg/>", encoding="utf-8")
    figures = {**evidence.figures, "sketch": replace(evidence.figures["sketch"], file="../evil.svg")}
    prepared = prepare_site(tmp_path, replace(evidence, figures=figures))
    # caught twice: the page linking it breaks the URL allowlist, and the writer refuses the file's path
    with pytest.raises(UnsafeOutputError, match=r'<img src="figures/../evil.svg">'):
        render_site(prepared, teacher=False)
    with pytest.raises(ValueError, match="would leave the site folder"):
        write_output({"figures/../evil.svg": tmp_path / "evil.svg"}, tmp_path / "out" / "_site")
    assert not (tmp_path / "out" / "evil.svg").exists()
