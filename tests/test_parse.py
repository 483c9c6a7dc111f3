"""What editors do to files: a byte-order mark, Windows line ends, tab indentation, a forgotten closer."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"


S0 = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n"


S1 = ":::{state} b1\n:title: 二\n:provenance: teaching\n\n正文二。\n:::\n"


def prepared(tmp_path, text: str, **kwargs):
    return prepare_site(write_site(tmp_path, {"x": text}, **kwargs), fake_evidence(tmp_path / "fig"))


def problems(tmp_path, text: str) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepared(tmp_path, text)
    return [str(p) for p in caught.value.problems]


def test_a_byte_order_mark_is_stripped_from_pages_and_config(tmp_path):
    root = write_site(tmp_path, {"x": "\ufeff" + lesson(S0 + ":::\n")},
                      site_yml="\ufefftitle: 测试课程\nlanguage: zh-CN\nbase_url: https://example.org/c/\npages: [x]\n")
    site = prepare_site(root, fake_evidence(tmp_path / "fig"))
    assert site.pages["x"].meta.title == "一课"
    assert not site.pages["x"].source.startswith("\ufeff")


def test_windows_line_ends_parse_and_keep_line_numbers(tmp_path):
    text = lesson(S0.replace("正文。", "差值 {num}`exp.dif`。") + ":::\n").replace("\n", "\r\n")
    assert problems(tmp_path, text) == [f"{P}:8: unknown value 'exp.dif' (did you mean 'exp.diff'?)"]
    good = prepared(tmp_path, lesson(S0 + ":::\n").replace("\n", "\r\n"))
    assert "\r" not in good.pages["x"].source


def test_a_tab_indented_list_is_a_warning_with_its_line(tmp_path):
    site = prepared(tmp_path, lesson(S0 + "\n\t- 一\n\t- 二\n:::\n"))
    assert [str(w) for w in site.warnings] == [
        f"{P}:10: warning: this list is indented with a tab, so it is shown as a code block; start the list at "
        "the margin, or indent with spaces"]


def test_tabs_elsewhere_are_not_warned(tmp_path):
    site = prepared(tmp_path, lesson(S0 + "\n- 一\n\t- 嵌套\n\n\tcode = 1\n:::\n"))
    assert site.warnings == ()


def test_a_state_left_open_is_one_problem_at_its_opener(tmp_path):
    assert problems(tmp_path, lesson(S0 + "\n" + S1)) == [
        f"{P}:4: directive '{{state}}' is never closed: add a line ':::' after its content"]


def test_an_inner_directive_left_open_is_one_problem_and_the_state_still_closes(tmp_path):
    text = lesson(S0 + "\n::::{teacher}\n备注\n:::\n\n" + S1)
    assert problems(tmp_path, text) == [
        f"{P}:10: directive '{{teacher}}' is never closed: add a line '::::' after its content"]


def test_the_last_state_left_open_is_one_problem(tmp_path):
    assert problems(tmp_path, lesson(S0 + ":::\n\n" + S1[:-4])) == [
        f"{P}:11: directive '{{state}}' is never closed: add a line ':::' after its content"]
