"""Problems in dependency order: the cause first, and nothing it caused reported as a mistake of its own."""

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError, closest

ARTICLE = "title: 一篇\nkind: article\n"
TARGET = lesson("# 目标页\n\n正文。\n", front=ARTICLE)
CITING = lesson("见 {ref}`target` 与 {ref}`target#b1`。\n\n还有 {ref}`nowhere`。\n", front=ARTICLE)


def _problems(tmp_path, pages: dict[str, str], site_yml: str | None = None) -> list[str]:
    root = write_site(tmp_path / "site", pages, site_yml=site_yml)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [problem.localized("zh-CN") for problem in caught.value.problems]


def test_a_misspelt_title_key_is_the_one_problem_and_references_to_its_page_are_not_missing(tmp_path):
    typo = TARGET.replace("title: ", "titel: ", 1)
    assert _problems(tmp_path, {"citing": CITING, "target": typo}) == [
        "content/pages/target.md:2: 未知的前置信息键 'titel'（是不是 'title'？）",
        "content/pages/citing.md:7: {ref} 指向不存在的页面 'nowhere'",
    ]


def test_a_missing_title_without_a_near_key_is_still_said(tmp_path):
    """With no ``title:`` and no ``# H1`` to take it from (a page's first H1 is its title, issue #29)."""
    untitled = TARGET.replace("title: 一篇\n", "label: X\n", 1).replace("# 目标页\n\n", "", 1)
    assert _problems(tmp_path, {"target": untitled}) == [
        "content/pages/target.md:1: 页面需要标题：以一行 '# 标题' 开头，"
        "或写前置信息：一行 '---'，然后 'title: …'，再一行 '---'"]


def test_a_misspelt_page_in_site_yml_comes_first_and_references_to_the_unlisted_page_are_not_missing(tmp_path):
    site_yml = SITE_YML.format(pages="citing, targt")
    assert _problems(tmp_path, {"citing": CITING, "target": TARGET}, site_yml) == [
        "content/site.yml:4: content/pages/ 里没有页面 'targt'（是不是 'target'？）",
        "content/pages/citing.md:7: {ref} 指向不存在的页面 'nowhere'",
        "content/pages/target.md:1: 页面 'target' 没有列在 site.yml 的 'pages' 中",
    ]


def test_a_page_that_failed_to_load_is_said_before_problems_of_pages_sorted_before_it(tmp_path):
    """'a-citing' sorts before 'z-target' by path; the page that failed to load still comes first."""
    unclosed = TARGET.replace("---\n", "", 2).replace("title:", "---\ntitle:", 1)
    said = _problems(tmp_path, {"a-citing": CITING.replace("target", "z-target"), "z-target": unclosed})
    assert said[0].startswith("content/pages/z-target.md:1: ")
    assert [line.split(":")[0] for line in said[1:]] == ["content/pages/a-citing.md"]
    assert "'nowhere'" in said[1]


def test_a_code_block_left_open_is_said_where_it_opens_and_references_into_its_page_are_not_missing(tmp_path):
    # The fence swallows the state's closer and the states after it: the page's own problem names the block's
    # first line; the page citing an anchor after it is not told that anchor is missing (only its own mistake).
    state = ":::{{state}} {id}\n:title: 第{id}步\n:figure: sketch\n:provenance: teaching\n\n{body}\n:::\n"
    target = lesson(state.format(id="b0", body="```python\nx = 1\n") + state.format(id="b1", body="正文。"),
                    front=ARTICLE)
    assert _problems(tmp_path, {"citing": CITING, "target": target}) == [
        "content/pages/citing.md:7: {ref} 指向不存在的页面 'nowhere'",
        "content/pages/target.md:5: 指令 '{state}' 没有结束：在它的内容后面加一行 ':::'；第 13 行落在第 10 行开始的"
        "代码块里，关不上它：请在第 13 行之前把那个代码块结束",
    ]


def test_a_misspelt_figure_is_one_problem_and_the_look_alike_comes_first(tmp_path):
    # Its marks and the state's declared provenance (which the figure decides) would each have been a problem too.
    state = ":::{state} b0\n:title: 第一步\n:figure: p1ot\n:provenance: measured\n\n见 {mark}`m` 与 {mark}`n`。\n:::\n"
    assert _problems(tmp_path, {"x": lesson(state)}) == ["content/pages/x.md:6: 未知的图 'p1ot'（是不是 'plot'？）"]
    assert closest("r55-bl", ["r55-b0", "r55-b1", "r55-b2", "r55-b3"]) == ["r55-b1", "r55-b0", "r55-b2"]


def test_a_page_saved_in_another_encoding_is_one_problem_and_references_to_it_are_not_missing(tmp_path):
    # Read on with replacement characters, it gave a dozen more: "hand-written number '½'", "unknown term 'ͷά'".
    root = write_site(tmp_path / "site", {"citing": CITING, "target": TARGET})
    (root / "content" / "pages" / "target.md").write_bytes(
        lesson("# 目标页\n\n约 1.5 个键值头维度。\n", front=ARTICLE).encode("gbk"))
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    assert [problem.localized("zh-CN") for problem in caught.value.problems] == [
        "content/pages/citing.md:7: {ref} 指向不存在的页面 'nowhere'",
        "content/pages/target.md:5: 不是 UTF-8 文本：请把文件存成 UTF-8",  # the first byte UTF-8 cannot read
    ]


def test_a_misspelt_option_is_one_problem_though_the_figure_under_it_is_lost_with_it(tmp_path):
    # ':figure:' under the misspelt ':title：' is read as text too: its marks pointed at no figure, one problem each.
    state = ":::{state} b0\n:title：第一步\n:figure: plot\n:provenance: measured\n\n见 {mark}`m` 与 {mark}`n`。\n:::\n"
    assert _problems(tmp_path, {"x": lesson(state)}) == [
        "content/pages/x.md:5: ':title：第一步' 不是选项的写法，会被当作正文：请写成 ':title: …'，名字两边都用半角冒号"]


def test_a_label_on_a_page_with_a_problem_of_its_own_is_still_found_by_a_bare_reference(tmp_path):
    target = lesson("(notes)=\n## 笔记\n\n正文。\n\n![图](images\\gpu.png)\n", front=ARTICLE)
    citing = lesson("见 {ref}`notes` 与 {ref}`nowhere`。\n", front=ARTICLE)
    assert _problems(tmp_path, {"citing": citing, "target": target}) == [
        "content/pages/citing.md:5: {ref} 指向不存在的页面 'nowhere'",
        "content/pages/target.md:10: 图片 'images\\gpu.png' 用 '\\' 分隔文件夹：请改用 '/'，例如 'images/gpu.jpg'",
    ]
