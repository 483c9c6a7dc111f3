"""Messages in the course's language: the error cases in Chinese (zh-CN) and English (en), the catalogs
complete, the site's UI strings from the catalogs, and English for anything untranslated."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from sitekit import SITE_YML, fake_evidence, lesson, write_site
from test_errors import CASES, P, STATE

from site_builder import ContentError, prepare_site, render_site
from site_builder.i18n import LOCALES, Text, _, localize

ROOT = Path(__file__).resolve().parent.parent

ZH = {
    "missing front matter": f"{P}:1: 页面必须以前置信息开头：一行 '---'，然后 'title: …'，再一行 '---'",
    "unclosed front matter": f"{P}:1: 前置信息没有结束：在它后面加一行 '---'",
    "missing title": f"{P}:1: 前置信息缺少 'title'",
    "unknown key": f"{P}:3: 未知的前置信息键 'titel'（是不是 'title'？）",
    "bad kind": f"{P}:3: 未知的页面类型 'lessen'（可用：lesson, article, index）",
    "invalid yaml": f"{P}:2: YAML 格式错误：expected ',' or ']', but got '<stream end>'",
    "lesson without states": f"{P}:1: 一课至少要有一个 ':::{{state}} b0' 块",
    "state out of order": f"{P}:4: 状态 id 'b1' 应为 'b0'：状态按 b0、b1、… 依次编号",
    "state without title": f"{P}:4: 状态 b0 需要 ':title: …'",
    "bad provenance": f"{P}:6: 状态 b0 需要 ':provenance:'，取值为 teaching, computed, measured, record 之一，而不是 'teached'"
                      "（是不是 'teaching'？）",
    "unknown option": f"{P}:6: 未知的状态选项 ':figur:'（是不是 'figure'？）",
    "unknown figure": f"{P}:6: 未知的图 'skech'（是不是 'sketch'？）",
    "unclosed directive": f"{P}:4: 指令 '{{state}}' 没有结束：在它的内容后面加一行 ':::'",
    "unknown directive": f"{P}:8: 未知的指令 '{{mroe}}'（是不是 'more'？）",
    "unknown value": f"{P}:8: 未知的数值 'exp.dif'（是不是 'exp.diff'？）",
    "unknown source": f"{P}:8: 未知的来源 'M43'（是不是 'M34'？）（来源列在 content/sources.yml 中）",
    "unknown role": f"{P}:8: 未知的角色 '{{nmu}}'（是不是 'num'？）",
    "broken ref page": f"{P}:8: {{ref}} 指向不存在的页面 'y'",
    "broken ref anchor": f"{P}:8: {{ref}} 指向页面 'x' 上不存在的锚点 '#x-b3'（是不是 'x-b0'？）",
    "raw html": f"{P}:8: 课程里不允许写 HTML；请写 Markdown 或指令（state、more、teacher）；要把标签当文字显示，请放在`反引号`里",
    "unbound number": f"{P}:8: 状态 b0：数字 '2.2e-15' 是手写的：请用 {{num}}`名称` 引用数值，示意数字请用 {{example}}`…` 标出",
    "unbound bytes": f"{P}:8: 状态 b0：数字 '512 KiB' 是手写的：请用 {{num}}`名称` 引用数值，示意数字请用 {{example}}`…` 标出",
    "unbound percent": f"{P}:4: 数字 '65%' 是手写的：请用 {{num}}`名称` 引用数值，示意数字请用 {{example}}`…` 标出",
    "provenance teaching but measured value": f"{P}:6: 状态 b0 声明为 teaching，但用到了 measured 数值 exp.diff：请声明为 measured",
    "provenance measured but nothing measured": f"{P}:6: 状态 b0 声明为 measured，但没有用到公式计算或实测的数值或图，也没有用到记录：请声明为 teaching",
    "provenance measured but computed value": f"{P}:6: 状态 b0 声明为 measured，但用到了 computed 数值 formula.per_token：请声明为 computed",
    "provenance teaching but computed figure": f"{P}:7: 状态 b0 声明为 teaching，但用到了 图 table：请声明为 computed",
    "figure label disagrees with badge": f"{P}:6: 图 mislabelled：角标“模型实测”与它的徽章“公式计算”不一致",
    "provenance teaching but measured figure": f"{P}:7: 状态 b0 声明为 teaching，但用到了 图 plot：请声明为 measured",
    "bad math": f"{P}:8: 无法渲染公式 '\\frac{{a}}{{b'：括号不配对：有 1 个 '{{' 没有闭合",
    "duplicate anchor": f"{P}:6: 本页有重复的锚点 '#a'",
    "nested state": f"{P}:6: 状态必须位于页面顶层，不能放在别的块里面",
}


def localized(tmp_path: Path, text: str, language: str) -> list[str]:
    root = write_site(tmp_path, {"x": text}, site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [p.localized(language) for p in caught.value.problems]


def test_every_error_case_has_its_chinese_text():
    assert sorted(ZH) == sorted(c[0] for c in CASES)


@pytest.mark.parametrize(("name", "text", "english"), CASES, ids=[c[0] for c in CASES])
def test_error_cases_read_in_chinese_for_zh_cn_and_in_english_for_en(tmp_path, name, text, english):
    assert ZH[name] in localized(tmp_path / "zh", text, "zh-CN")
    assert english in localized(tmp_path / "en", text, "en")


def test_the_build_command_prints_problems_in_the_course_language(tmp_path, monkeypatch, capsys):
    import build

    monkeypatch.setattr(build, "measure_all",
                        lambda *args, **kwargs: build.Measured(fake_evidence(tmp_path / "fig"), {}, {}, {}))
    for language, expected in (("zh-CN", ["content/pages/x.md:8: 未知的数值 'exp.dif'（是不是 'exp.diff'？）",
                                          "1 个问题；站点没有改动。"]),
                               ("en", ["content/pages/x.md:8: unknown value 'exp.dif' (did you mean 'exp.diff'?)",
                                       "1 problem(s); the site was not changed."])):
        root = write_site(tmp_path / language, {"x": lesson(STATE.replace("正文。", "{num}`exp.dif`"))},
                          site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        monkeypatch.setattr(build, "ROOT", root)
        assert build.main([]) == 1
        assert capsys.readouterr().err.splitlines() == expected


def test_untranslated_and_plain_messages_fall_back_to_english():
    assert localize(_("a message nobody translated yet: {x}", x=1), "zh-CN") == "a message nobody translated yet: 1"
    assert localize("a plain string from another module", "zh-CN") == "a plain string from another module"
    assert localize(_("unknown value '{name}'", name="a") + " (plain)", "fr") == "unknown value 'a' (plain)"
    text = _("unknown value '{name}'", name="a\nb")
    assert isinstance(text, Text) and str(text) == "unknown value 'a\nb'"


def test_every_message_in_code_and_templates_has_a_chinese_translation(tmp_path):
    """New messages marked with _() must be translated (python site_builder/locales/update.py adds them)."""
    pot = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_",
                    "-k", "ngettext:1,2", "--no-location", "--omit-header", "-o", str(pot), "."],
                   cwd=ROOT, capture_output=True, check=True)
    extracted = {m.id for m in read_po(pot.open("rb")) if m.id}
    catalog = read_po((LOCALES / "zh_CN" / "LC_MESSAGES" / "messages.po").open("rb"))
    translated = {m.id for m in catalog if m.id and m.string}
    assert sorted(extracted - translated) == []


def test_site_ui_strings_follow_the_language(tmp_path):
    pages = {"x": lesson(":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n\n::::{more}\n多\n::::\n:::\n")}
    html = {}
    for language in ("zh-CN", "en"):
        root = write_site(tmp_path / language, pages, site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=True)
        html[language] = files["x.html"].decode() + files["numbers.html"].decode()
    for zh, en in (("跳到正文", "Skip to content"), ("<summary>进一步解释</summary>", "<summary>More explanation</summary>"),
                   ("第 1 步，共 1 步", "Step 1 of 1"), ("<h1>数值与出处</h1>", "<h1>Numbers and where they come from</h1>"),
                   ("图与数值</a>", "Figures and values</a>"), ("教师版", "teacher edition")):
        assert zh in html["zh-CN"] and zh not in html["en"], zh
        assert en in html["en"], en
    assert '<html lang="en" data-ui=' in html["en"]
