"""Strict, bounded YAML: every slip is one ``path:line`` message in the course's language, at the line
of the cause (with its column), with a hint for the usual ones; deep nesting, repeated keys and YAML
1.1's yes/no/on/off never pass silently; the previous sites stay as they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, time_limit, write_site

from site_builder.engine.builder import Engine, Output
from site_builder.load.content import SourceFile
from site_builder.load.frontmatter import split_page
from site_builder.load.loader import load_content
from site_builder.load.yamlnodes import MAX_DEPTH, load_located
from site_builder.vocabulary.problems import ContentError

PAGE = lesson(":::{state} b0\n:title: 开始\n:provenance: teaching\n\n正文。\n:::\n")


def _said(root: Path) -> list[str]:
    content, problems = load_content(root)
    return [p.localized("zh-CN") for p in problems]


@pytest.mark.parametrize(("site_yml", "said"), [
    ("title: 课\nlanguage：zh-CN\nbase_url: https://example.org/\npages: [a]\n",
     "content/site.yml:2: 'language' 后面是全角冒号 '：'：请改为半角冒号 ':' 加一个空格（第 9 列）"),
    ("title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [a\n\n\n",
     "content/site.yml:4: 这里的 '[' 没有闭合：在它结束的地方加上 ']'（第 8 列）"),
    ("title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages:\n\t- a\n",
     "content/site.yml:5: 这一行用制表符缩进：YAML 只能用空格缩进（第 1 列）"),
    ("title: 课\ntitle: 另一个\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [a]\n",
     "content/site.yml:2: 'title' 出现了两次（第一次在第 1 行）：只保留一个"),
    ("title: ~\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [a]\n",
     "content/site.yml:1: 'title' 是空的（YAML 把 '~' 和 'null' 读作“无”）：写上文字；"
     "如果要的就是 '~' 或 'null'，请加引号"),
    ("title: true\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [a]\n",
     "content/site.yml:1: 'title' 被读作布尔值 true，而不是文字：请加引号"),
    ("title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: " + "[" * 1000 + "a" + "]" * 1000 + "\n",
     f"content/site.yml:4: 嵌套超过 {MAX_DEPTH} 层：请减少嵌套层数"),
])
def test_each_slip_in_site_yml_is_one_line_at_its_cause(tmp_path, site_yml, said):
    write_site(tmp_path, {"a": PAGE}, site_yml=site_yml)
    assert _said(tmp_path) == [said]


def test_yes_and_no_stay_text_as_in_yaml_1_2(tmp_path):
    write_site(tmp_path, {"a": lesson(PAGE.split("---\n", 2)[2], front="title: yes\nsummary: no\n")})
    content, problems = load_content(tmp_path)
    assert problems == []
    assert content.pages[0].text.startswith("---\ntitle: yes\n")
    located, problems = load_located("a: yes\nb: on\nc: true\nd: false\n", "x.yml")
    assert located.value == {"a": "yes", "b": "on", "c": True, "d": False}


def test_front_matter_slips_name_the_page_line():
    for text, said in [("---\ntitle: 一课\ntitle: 二课\n---\n正文\n",
                        "content/pages/a.md:3: 'title' 出现了两次（第一次在第 2 行）：只保留一个"),
                       ("---\ntitle：一课\n---\n正文\n",
                        "content/pages/a.md:2: 'title' 后面是全角冒号 '：'：请改为半角冒号 ':' 加一个空格（第 6 列）"),
                       ("---\ntitle: ~\n---\n正文\n", "content/pages/a.md:2: 'title' 是空的（YAML 把 '~' 和 'null' "
                        "读作“无”）：写上文字；如果要的就是 '~' 或 'null'，请加引号")]:
        _split, problems = split_page(SourceFile("content/pages/a.md", text))
        assert [p.localized("zh-CN") for p in problems] == [said]


def test_deep_nesting_in_front_matter_is_one_line_fast():
    deep = "x:\n" + "".join(" " * i + "a:\n" for i in range(1, 1000))
    with time_limit(5):
        _split, problems = split_page(SourceFile("content/pages/a.md", f"---\ntitle: 一课\n{deep}---\n"))
    assert [p.localized("zh-CN") for p in problems] == \
        [f"content/pages/a.md:{3 + MAX_DEPTH}: 嵌套超过 {MAX_DEPTH} 层：请减少嵌套层数"]


def test_a_deeply_nested_record_is_one_line(tmp_path):
    write_site(tmp_path, {"a": PAGE})
    (tmp_path / "content" / "records" / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert _said(tmp_path) == ["content/records/deep.json:1: 嵌套太深：记录只需要几层"]


def test_an_unclosed_quote_points_at_where_it_opens():
    _located, problems = load_located('a: 1\nb: "text\nc: 2\n', "x.yml")
    assert [p.localized("zh-CN") for p in problems] == \
        ["x.yml:2: 引号没有闭合：文字结尾要用与开头相同的引号（第 4 列）"]


def test_a_key_without_its_space_and_an_indented_key_are_said_at_their_own_line():
    # PyYAML gives up a line later on the first (where it expected the ':') and calls the second "a second ': '".
    for text, said in [("label: L\ntitle:一课\nkind: lesson\n",
                        "x.yml:2: 这里有一行不是“键: 值”的形式：在键后加上 ':' 和一个空格（第 1 列）"),
                       ("label: L\n  title: 一课\nkind: lesson\n",
                        "x.yml:2: 这一行有缩进，会被读成上一行文字的延续，而那里不能出现 ': '：如果它是单独的一个键，"
                        "请与上面的键对齐；否则请把文字放进引号（第 1 列）"),
                       ("- id: M34\n  title: Attention: is all\n",  # in a list entry: a second ': ' indeed
                        "x.yml:2: 同一行里出现了第二个 ': '：含有 ': ' 的文字请加引号（第 19 列）")]:
        _located, problems = load_located(text, "x.yml")
        assert [p.localized("zh-CN") for p in problems] == [said]


def test_a_page_id_with_a_line_break_and_control_characters_are_refused(tmp_path):
    write_site(tmp_path, {"a": PAGE.replace("正文。", "正文\x1b[31m。\x07")})
    (tmp_path / "content" / "pages" / "ev\n.md").write_text(PAGE, encoding="utf-8")
    said = _said(tmp_path)
    assert "content/pages/a.md:8: 含有控制字符 U+001B：请删除" in said
    assert "content/pages/ev\\n.md: 文件名含有控制字符或换行：请给文件改名" in said


def test_a_yaml_slip_leaves_both_sites_as_they_were(tmp_path):
    write_site(tmp_path, {"a": PAGE})
    outputs = (Output(False, tmp_path / "_site"), Output(True, tmp_path / "_site-teacher"))
    Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))
    before = {p: p.read_bytes() for p in sorted(tmp_path.glob("_site*/**/*")) if p.is_file()}
    (tmp_path / "content" / "site.yml").write_text(SITE_YML.format(pages="a").replace("language:", "language："),
                                                  encoding="utf-8")
    with pytest.raises(ContentError):
        Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))
    assert {p: p.read_bytes() for p in sorted(tmp_path.glob("_site*/**/*")) if p.is_file()} == before


def test_a_text_loaded_again_gives_the_same_answer_in_a_list_of_its_own():
    """``load_located`` keeps its answers by path and text (a dev server loads every YAML file on each save): what a
    caller does with the problems it got does not reach the next caller."""
    first, problems = load_located("a: 1\na: 2\n", "content/x.yml")
    problems.clear()
    again, problems_again = load_located("a: 1\na: 2\n", "content/x.yml")
    assert first is again is None and len(problems_again) == 1 and problems_again[0].line == 2
    assert load_located("a: 1\n", "content/x.yml")[0].children["a"].line == 1
