"""values.yml descriptions are text with named slots, never format strings: every other brace, an
unknown slot, a width or a repeated slot in the key is one ``path:line`` message in the course's language."""

from __future__ import annotations

import pytest
from sitekit import time_limit

from site_builder.load.content import SourceFile
from site_builder.load.value_text import parse_value_text

PATH = "content/values.yml"
NOT_A_SLOT = ("content/values.yml:3: '{key}'：'{brace}' 不是这个键的占位名（可用：{names}）："
              "占位写成 {{name}}，名字取自键，不要用别的花括号")


@pytest.mark.parametrize(("entry", "said"), [
    ("t.ms_p{n}: 提示 {a, b} 个", NOT_A_SLOT.format(key="t.ms_p{n}", brace="{a, b}", names="{n}")),
    ("t.ms_p{n}: 提示 { 个", NOT_A_SLOT.format(key="t.ms_p{n}", brace="{", names="{n}")),
    ("t.ms_p{n}: 提示 {n:>200000000} 个", NOT_A_SLOT.format(key="t.ms_p{n}", brace="{n:>200000000}", names="{n}")),
    ("t.ms_p{n}: 提示 {m} 个", NOT_A_SLOT.format(key="t.ms_p{n}", brace="{m}", names="{n}")),
    ("t.ms: 一共 {n} 个", NOT_A_SLOT.format(key="t.ms", brace="{n}", names="无")),
    ("t.ms_p{n}_q{n}: 提示 {n} 个",
     "content/values.yml:3: 't.ms_p{n}_q{n}'：键里每个 {name} 占位只能出现一次，也不能有别的花括号"),
    ("t.ms_p{n: 提示", "content/values.yml:3: 't.ms_p{n'：键里每个 {name} 占位只能出现一次，也不能有别的花括号"),
])
def test_a_brace_that_is_not_a_slot_is_one_line(entry, said):
    with time_limit(5):
        text, problems = parse_value_text(SourceFile(PATH, f"values:\n\n  {entry}\n"))
    assert [p.localized("zh-CN") for p in problems] == [said]
    assert text.patterns == ()


def test_a_slot_repeated_in_the_text_is_filled_each_time_and_nothing_else_is_read():
    text, problems = parse_value_text(SourceFile(PATH, "values:\n  t.ms_p{n}: 提示 {n} 个，即 {n} 个 token\n"))
    assert problems == []
    assert text.describe("t.ms_p{n}".replace("{n}", "64")) == "提示 64 个，即 64 个 token"
