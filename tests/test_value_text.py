"""content/values.yml: Chinese titles and descriptions for numbers.html, checked against the values."""

from __future__ import annotations

from site_builder.load.content import SourceFile
from site_builder.load.value_text import check_value_text, parse_value_text

TEXT = """groups:
  timing: 计时记录
values:
  exp.diff: 两条路径的最大差
  timing.cached_ms_p{p}: 提示 {p} 个 token 时的耗时
  timing.cached_ms_p{p}_n1: 提示 {p} 个 token、只生成 1 个时的耗时
  exp.renamed: 这个数值已经不存在
"""


def test_descriptions_by_name_and_by_pattern():
    text, problems = parse_value_text(SourceFile("content/values.yml", TEXT))
    assert problems == []
    assert text.describe("exp.diff") == "两条路径的最大差"
    assert text.describe("timing.cached_ms_p1024") == "提示 1024 个 token 时的耗时"
    assert text.describe("timing.cached_ms_p8_n1") == "提示 8 个 token、只生成 1 个时的耗时"
    assert text.describe("exp.other") == ""
    assert text.group_title("timing") == "计时记录" and text.group_title("exp") == ""


def test_entries_that_describe_nothing_are_reported_with_their_line():
    text, _ = parse_value_text(SourceFile("content/values.yml", TEXT + "  bad: 1\n"))
    names = {"exp.diff", "timing.cached_ms_p8", "timing.cached_ms_p8_n1"}
    problems = [str(p) for p in check_value_text(text, names, {"exp"})]
    assert problems == ["content/values.yml:7: no value matches 'exp.renamed'",
                        "content/values.yml:2: no experiment or record named 'timing'"]
    _, shape = parse_value_text(SourceFile("content/values.yml", "values:\n  exp.diff: [1]\ntypo: x\n"))
    assert [str(p) for p in shape] == ["content/values.yml:3: unknown key 'typo' (allowed: groups, values)",
                                       "content/values.yml:2: 'exp.diff' needs a line of text"]


def test_a_course_without_the_file_keeps_the_producers_text():
    text, problems = parse_value_text(None)
    assert problems == [] and text.describe("exp.diff") == ""
