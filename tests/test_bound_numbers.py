"""Every number in prose is bound: a hand-typed measured-looking number is a ``path:line`` error
(site_builder/check/bound_numbers.py defines the rule); counts, names, section numbers and what {num},
{example}, code and math hold are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import fake_evidence, lesson, write_site

import build
from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"
ROOT = Path(__file__).resolve().parent.parent
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


def test_the_real_course_passes_the_check():
    evidence, _ = build.measure_and_draw()
    prepared = prepare_site(ROOT, evidence)  # raises ContentError with every problem
    assert prepared.pages


def test_every_kind_of_prose_is_checked(tmp_path):
    """Emphasis, a link's text, a list, a quote, a table, a state's title and caption, a ``more`` block."""
    body = ("**0.11** 和 [0.12](https://example.org/)\n\n- 0.13\n\n> 0.14\n\n| a |\n|---|\n| 0.15 |\n\n"
            ":::{state} b0\n:title: 概率 0.16\n:caption: 概率 0.17\n:provenance: teaching\n\n"
            "::::{more}\n0.18\n::::\n:::\n")
    found = problems(tmp_path, lesson(body))
    assert sorted(found) == sorted([f"{P}:4: number '0.11' {ADVICE}", f"{P}:4: number '0.12' {ADVICE}",
                                    f"{P}:6: number '0.13' {ADVICE}", f"{P}:8: number '0.14' {ADVICE}",
                                    f"{P}:12: number '0.15' {ADVICE}", f"{P}:14: state b0: number '0.16' {ADVICE}",
                                    f"{P}:16: state b0: number '0.17' {ADVICE}",
                                    f"{P}:20: state b0: number '0.18' {ADVICE}"])
