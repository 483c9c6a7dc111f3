"""Messages in the course's language: the error cases in Chinese (zh-CN) and English (en), the catalogs
complete, the site's UI strings from the catalogs, and English for anything untranslated."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from sitekit import SITE_YML, fake_evidence, lesson, write_site
from test_load import CASES, STATE, P

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.i18n import LOCALES, Text, _, localize
from site_builder.vocabulary.problems import ContentError

ROOT = Path(__file__).resolve().parent.parent

ZH = {
    "missing front matter": f"{P}:1: 页面需要标题：以一行 '# 标题' 开头，"
                            "或写前置信息：一行 '---'，然后 'title: …'，再一行 '---'",
    "unclosed front matter": f"{P}:1: 前置信息没有结束：在它后面加一行 '---'",
    "missing title": f"{P}:1: 页面需要标题：以一行 '# 标题' 开头，或写前置信息：一行 '---'，然后 'title: …'，"
                     "再一行 '---'",
    "unknown key": f"{P}:3: 未知的前置信息键 'titel'（是不是 'title'？）",
    "bad kind": f"{P}:3: 未知的页面类型 'lessen'（可用：lesson, article, index）",
    "invalid yaml": f"{P}:2: 这里的 '[' 没有闭合：在它结束的地方加上 ']'（第 8 列）",
    "lesson without states": f"{P}:1: 一课至少要有一个 ':::{{state}} b0' 块",
    "state out of order": f"{P}:4: 状态 id 'b1' 应为 'b0'：状态按 b0、b1、… 依次编号",
    "state without title": f"{P}:4: 状态 b0 需要 ':title: …'",
    "bad provenance": f"{P}:6: 状态 b0 需要 ':provenance:'，取值为 teaching, computed, measured, record 之一，"
                      "而不是 'teached'（是不是 'teaching'？）",
    "unknown option": f"{P}:6: 未知的 state 选项 ':figur:'（是不是 'figure'？）",
    "unknown figure": f"{P}:6: 未知的图 'skech'（是不是 'sketch'？）",
    "unclosed directive": f"{P}:4: 指令 '{{state}}' 没有结束：在它的内容后面加一行 ':::'",
    "unknown directive": f"{P}:8: 未知的指令 '{{mroe}}'（是不是 'more'？）",
    "unknown value": f"{P}:8: 未知的数值 'exp.dif'（是不是 'exp.diff'？）",
    "unknown source": f"{P}:8: 未知的来源 'M43'（是不是 'M34'？）（来源列在 content/sources.yml 中）",
    "unknown role": f"{P}:8: 未知的角色 '{{nmu}}'（是不是 'num'？）",
    "a word for a role": f"{P}:8: 未知的角色 '{{value}}'（是不是 'num'？）",
    "broken ref page": f"{P}:8: {{ref}} 指向不存在的页面 'y'",
    "broken ref anchor": f"{P}:8: {{ref}} 指向页面 'x' 上不存在的锚点 '#x-b3'（是不是 'x-b0'？）",
    "raw html": f"{P}:8: 课程里不允许写 HTML；请写 Markdown 或指令（state、more、teacher）；"
                "要把标签当文字显示，请放在`反引号`里",
    "unbound number": f"{P}:8: 状态 b0：数字 '2.2e-15' 是手写的：请用 {{num}}`名称` 引用数值，"
                      "示意数字请用 {example}`…` 标出",
    "unbound bytes": f"{P}:8: 状态 b0：数字 '512 KiB' 是手写的：请用 {{num}}`名称` 引用数值，"
                     "示意数字请用 {example}`…` 标出",
    "unbound percent": f"{P}:4: 数字 '65%' 是手写的：请用 {{num}}`名称` 引用数值，示意数字请用 {{example}}`…` 标出",
    "provenance teaching but measured value":
        f"{P}:6: 状态 b0 声明为 teaching，但用到了 measured 数值 exp.diff：请声明为 measured",
    "provenance measured but nothing measured":
        f"{P}:6: 状态 b0 声明为 measured，但没有用到公式计算或实测的数值或图，也没有用到记录：请声明为 teaching",
    "provenance measured but computed value":
        f"{P}:6: 状态 b0 声明为 measured，但用到了 computed 数值 formula.per_token：请声明为 computed",
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
    pages = {"x": lesson(":::{state} b0\n:title: 一\n:figure: sketch\n:provenance: teaching\n\n正文。\n\n"
                         "::::{more}\n多\n::::\n:::\n")}
    html = {}
    for language in ("zh-CN", "en"):
        root = write_site(tmp_path / language, pages, site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=True)
        html[language] = files["x.html"].decode() + files["numbers.html"].decode()
    for zh, en in (("跳到正文", "Skip to content"),
                   ("<summary>进一步解释</summary>", "<summary>More explanation</summary>"),
                   ("第 1 步，共 1 步", "Step 1 of 1"),
                   ("<h1>数值与出处</h1>", "<h1>Numbers and where they come from</h1>"),
                   ("图与数值</a>", "Figures and values</a>"), ("教师版", "teacher edition"),
                   ('">查看大图<span class="visually-hidden">：草图</span>',
                    '">Open full size<span class="visually-hidden">: 草图</span>')):
        assert zh in html["zh-CN"] and zh not in html["en"], zh
        assert en in html["en"], en
    assert '<html lang="en" data-ui=' in html["en"]


# ------------------------------------------------- no Chinese outside the catalogs --
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
READ_IN_PROSE = {  # Chinese the checks look for in the course's own text: vocabulary, not messages
    "site_builder/parse/positions.py": None,  # position words (左侧, 右下角 …) and their grammar
    "site_builder/check/bound_numbers.py": None,  # Chinese numerals and units (三成, 百分之, 字节, 毫秒 …)
    "site_builder/check/site.py": {"指图"},
    "site_builder/parse/page.py": {"指图"},
    "site_builder/load/glossary.py": None,  # one-character function words, the boundaries of forbidden wordings
    "figures/style.py": {"逐位相同", "对照完整重算", "对数轴"},  # figure text (tr) of the shared logit-difference bars
}


def _code_literals(path: Path) -> list[tuple[int, str]]:
    """String literals of a Python file that are not docstrings, as written (an escape such as \\u4e00 is no word)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)}
    # ast.get_source_segment splits the whole file again for every literal (10 s over the code base);
    # this is its slicing, with the file split once. Offsets count UTF-8 bytes, lines end as Python's do.
    lines = [line.encode() for line in io.StringIO(source, newline="").readlines()]

    def written(node: ast.expr) -> str:
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return lines[first][node.col_offset:node.end_col_offset].decode()
        return (lines[first][node.col_offset:] + b"".join(lines[first + 1:last])
                + lines[last][:node.end_col_offset]).decode()

    return [(node.lineno, written(node)) for node in ast.walk(tree)
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr))
            and id(node) not in docs]


def test_no_chinese_in_code_scripts_or_templates_outside_the_catalogs():
    """A Chinese word the build says belongs in the zh_CN catalog (``_()``), not in a literal."""
    from figures.registry import MODULES

    drawings = {Path(m.__file__).resolve() for m in MODULES}  # the course's figures draw its words
    found = []
    for path in sorted([*ROOT.glob("site_builder/**/*.py"), ROOT / "build.py", *ROOT.glob("figures/*.py")]):
        name = path.relative_to(ROOT).as_posix()
        allowed = READ_IN_PROSE.get(name, set())
        if path.resolve() in drawings or allowed is None:
            continue
        found += sorted({f"{name}:{line}: {word}" for line, text in _code_literals(path)
                         for word in HAN.findall(text) if word not in allowed})
    for path in sorted([*ROOT.glob("site_builder/static/*.js"), *ROOT.glob("site_builder/templates/*")]):
        text = re.sub(r"/\*.*?\*/|(?<![:\"'])//[^\n]*|\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.S)
        found += [f"{path.relative_to(ROOT).as_posix()}: {word}" for word in HAN.findall(text)]
    assert found == []


# ------------------------------------- the newer checks, in Chinese and in English --
def _said(tmp_path: Path, language: str, pages: dict, **kwargs) -> list[str]:
    root = write_site(tmp_path / language, pages, site_yml=SITE_YML.format(pages=", ".join(pages)).replace(
        "zh-CN", language), **kwargs)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [p.localized(language) for p in caught.value.problems]


def test_glossary_problems_read_in_the_course_language(tmp_path):
    from test_load import GLOSSARY

    body = STATE.replace("正文。", "{term}`KV缓存` 不认得；头维不行。")
    glossary = GLOSSARY + "- id: C D\n  term: 丙\n  definition: 三。\n  defintion: 四。\n"
    assert _said(tmp_path, "zh-CN", {"x": lesson(body)}, glossary=glossary) == [
        "content/glossary.yml:10: 术语 id 'C D' 只能用小写字母、数字和 '-'",
        "content/glossary.yml:13: 未知的术语表键 'defintion'（是不是 'definition'？）",
        f"{P}:8: '头维' 是术语表禁止的写法：请写 '头维度'",
        f"{P}:8: 未知的术语 'KV缓存'（是不是 'KV 缓存'？）（术语列在 content/glossary.yml 中）"]
    assert _said(tmp_path, "en", {"x": lesson(body)}, glossary=glossary) == [
        "content/glossary.yml:10: term id 'C D' must be lower-case letters, digits and '-'",
        "content/glossary.yml:13: unknown glossary key 'defintion' (did you mean 'definition'?)",
        f"{P}:8: '头维' is a forbidden variant in the glossary: write '头维度'",
        f"{P}:8: unknown term 'KV缓存' (did you mean 'KV 缓存'?) (terms are listed in content/glossary.yml)"]


def test_mark_and_record_problems_read_in_the_course_language(tmp_path):
    body = STATE.replace("正文。", "见{mark}`params`。")
    assert _said(tmp_path, "zh-CN", {"x": lesson(body)}) == [
        f"{P}:8: {{mark}}`params` 没有可指的图：状态 b0 没有 ':figure:'；请写明图的 id，如 {{mark}}`figure-id:params`"]
    assert _said(tmp_path, "en", {"x": lesson(body)}) == [
        f"{P}:8: {{mark}}`params` points at no figure: state b0 has no ':figure:'; name the figure as "
        "{mark}`figure-id:params`"]
    record = {"old": {"id": "old", "title": "旧", "date": "2025-01-01", "values": {},
                      "compare": [{"value": "x", "with": "bench.decode_ms", "rule": "<=", "bound": 2}]}}
    assert _said(tmp_path / "r", "zh-CN", {"x": lesson(STATE)}, records=record) == [
        "content/records/old.json: 与 'bench.decode_ms' 的比较：计时数值取决于机器及其负载，只作记录，不做比较"]


def test_search_link_figure_and_scaffold_messages_read_in_the_course_language(monkeypatch, tmp_path):
    import figures.manifest
    from site_builder.render import search_index
    from site_builder.serve.scaffold import new_lesson
    from site_builder.vocabulary.problems import SearchIndexError
    from site_builder.write import verify

    pinned = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert search_index._INSTALL.removeprefix("pip install ") in pinned  # the hint installs the pinned binary
    monkeypatch.setitem(sys.modules, "pagefind_bin", None)  # as on a machine without pagefind
    with pytest.raises(SearchIndexError) as missing:
        search_index._executable()
    said = missing.value.args[0]
    assert localize(said, "zh-CN") == f"没有安装 pagefind 包：{search_index._INSTALL}"
    assert localize(said, "en") == f"the pagefind package is not installed: {search_index._INSTALL}"

    def no_binary():
        raise FileNotFoundError("pagefind")

    monkeypatch.setitem(sys.modules, "pagefind_bin", types.SimpleNamespace(get_executable=no_binary))
    with pytest.raises(SearchIndexError) as empty:  # the package without its binary (a wheel for another platform)
        search_index._executable()
    assert localize(empty.value.args[0], "en") == f"the pagefind package has no binary: {search_index._INSTALL}"
    link = verify._check_link("x.html", "y.html#b0", {"x.html"}, {})
    assert (localize(link, "zh-CN"), localize(link, "en")) == (
        "链接指向不存在的文件 'y.html#b0'", "link to missing file 'y.html#b0'")
    _, problem = figures.manifest.read_manifest(tmp_path / "manifest.json")
    assert localize(problem, "zh-CN").endswith(": 不存在；请先看过各图，再用以下命令创建："
                                               "python build.py figures --accept")
    assert localize(problem, "en").endswith(": does not exist; look at the figures, then create it with: "
                                            "python build.py figures --accept")
    with pytest.raises(ValueError) as taken:
        new_lesson(write_site(tmp_path / "s", {"x": lesson(STATE)}), "x")
    assert localize(taken.value.args[0], "zh-CN") == "content/pages/x.md 已经存在：请换一个 id"


def test_the_dev_server_page_before_any_build_follows_the_language():
    from site_builder.serve.devhttp import missing_site

    assert "<h1>构建失败</h1>" in missing_site("zh-CN").decode()
    english = missing_site("en").decode()
    assert '<html lang="en">' in english and "<h1>Build failed</h1>" in english and not HAN.search(english)


def test_build_py_new_and_list_speak_the_course_language(tmp_path, monkeypatch, capsys):
    import build

    for language, expected in (("zh-CN", "已创建 content/pages/y.md，并把 'y' 列进 content/site.yml"),
                               ("en", "created content/pages/y.md and listed 'y' in content/site.yml")):
        root = write_site(tmp_path / language, {"x": lesson(STATE)},
                          site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        monkeypatch.setattr(build, "ROOT", root)
        assert build.main(["new", "lesson", "y"]) == 0
        assert capsys.readouterr().out.startswith(expected)
        assert build.main(["list", "sources"]) == 0
        assert capsys.readouterr().err == {"zh-CN": "2 个来源\n", "en": "2 sources\n"}[language]
        # the new lesson is written in the course's language too, and builds as it is
        skeleton = (root / "content" / "pages" / "y.md").read_text(encoding="utf-8")
        assert bool(HAN.search(skeleton)) == (language == "zh-CN")
        assert "y" in prepare_site(root, fake_evidence(tmp_path / "fig")).pages


def test_no_function_hides_the_message_marker():
    """``x, _ = …`` inside a function makes ``_`` local there, so a ``_("…")`` in it fails when that path runs."""
    found = []
    for path in sorted([*ROOT.glob("site_builder/**/*.py"), ROOT / "build.py", *ROOT.glob("figures/*.py")]):
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == "_"]
            hidden = any(isinstance(n.ctx, ast.Store) for n in names if not _in_comprehension(function, n))
            called = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
                         for n in ast.walk(function))
            if hidden and called:
                found.append(f"{path.relative_to(ROOT)}:{function.lineno}: {function.name}")
    assert found == []


def _in_comprehension(function: ast.AST, name: ast.Name) -> bool:
    """A name bound in a comprehension or generator is local to it, not to the function."""
    return any(isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
               and any(n is name for n in ast.walk(node)) for node in ast.walk(function))
