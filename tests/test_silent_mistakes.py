"""Mistakes that used to be published without a word: an unclosed inline ``$``, an option given twice in a
directive, a lesson still holding the ``new lesson`` skeleton's placeholder text."""

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, write_site
from test_check import STATE

from site_builder.check.placeholders import placeholder_problems
from site_builder.engine.pipeline import prepare_site
from site_builder.serve.scaffold import new_lesson
from site_builder.vocabulary.problems import ContentError
from site_builder.write.verify import verify_output

P = "content/pages/x.md"


def _problems(tmp_path, text: str) -> list[str]:
    root = write_site(tmp_path / "site", {"x": text})
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [problem.localized("zh-CN") for problem in caught.value.problems]


@pytest.mark.parametrize("prose", ["记作 $x_t，然后", "记作 $\\alpha 与", "长句子 $W^{(l)} 没有闭合"])
def test_an_unclosed_inline_formula_is_an_error_on_its_line(tmp_path, prose):
    assert _problems(tmp_path, lesson(STATE.replace("正文。", prose))) == [
        f"{P}:8: 行内公式的 '$' 没有闭合：在公式后面紧接着加一个 '$'（前面不留空格）；要写美元符号请写 \\$"]


@pytest.mark.parametrize("prose", ["价格是 $5 或 $ 10。", "变量 $HOME 在这里。", "公式 $x_t$ 已闭合。"])
def test_prices_lone_dollars_and_closed_formulas_are_not(tmp_path, prose):
    root = write_site(tmp_path / "site", {"x": lesson(STATE.replace("正文。", prose))})
    assert "x" in prepare_site(root, fake_evidence(tmp_path / "fig")).pages


def test_an_option_given_twice_in_a_state_is_an_error_naming_both_lines(tmp_path):
    lines = STATE.splitlines(keepends=True)
    title = next(i for i, line in enumerate(lines) if line.startswith(":title:"))
    twice = "".join(lines[:title + 1] + [":title: 第二个标题\n"] + lines[title + 1:])
    first = title + 4  # the page's front matter is 3 lines; lines count from 1
    assert _problems(tmp_path, lesson(twice)) == [
        f"{P}:{first + 1}: 选项 ':title:' 写了两次（第一次在第 {first} 行）：只保留其中一行"]


@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_an_untouched_skeleton_builds_with_warnings_and_check_refuses_it(tmp_path, language):
    root = write_site(tmp_path / "site", {"x": lesson(STATE)},
                      site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
    page = new_lesson(root, "y")
    prepared = prepare_site(root, fake_evidence(tmp_path / "fig"))
    warned = [w for w in prepared.warnings if w.path == "content/pages/y.md"]
    text = page.read_text(encoding="utf-8").splitlines()
    assert [text[w.line - 1].startswith(("title:", "summary:")) for w in warned[:2]] == [True, True]
    assert len(warned) >= 3 and all(w.message == warned[0].message for w in warned)
    (tmp_path / "public").mkdir()
    (tmp_path / "teacher").mkdir()
    refused = verify_output(prepared, tmp_path / "public", tmp_path / "teacher")
    assert [p.as_warning() for p in refused if p.path == "content/pages/y.md"] == warned  # an error there
    said = warned[0].localized(language)  # a warning says it is one, in the course's language
    assert said.startswith("content/pages/y.md:") and said.split(": ", 1)[1].startswith(
        {"zh-CN": "警告：", "en": "warning: "}[language]), said


def test_a_skeleton_line_the_teacher_rewrote_is_no_longer_a_placeholder(tmp_path):
    root = write_site(tmp_path / "site", {"x": lesson(STATE)})
    page = new_lesson(root, "y")
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [i for i, line in enumerate(lines, 1) if line.startswith("title:")]
    page.write_text("".join("title: 我自己的标题\n" if line.startswith("title:") else line for line in lines),
                    encoding="utf-8")
    from site_builder.load.content import SourceFile

    said = placeholder_problems([SourceFile("content/pages/y.md", page.read_text(encoding="utf-8"))])
    assert kept and kept[0] not in {p.line for p in said} and said
