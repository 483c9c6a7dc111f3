"""``python build.py --help`` and ``list`` speak the course's language (argparse's own words included)."""

import re

import pytest
from sitekit import SITE_YML, write_site

import build
import figures
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.provenance import BADGE_TEXT

HAN = re.compile(r"[\u4e00-\u9fff]")
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n"


@pytest.fixture
def course(tmp_path, monkeypatch):
    def in_language(language: str):
        root = write_site(tmp_path / language, {"x": f"---\ntitle: 一课\n---\n{STATE}"},
                          site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        monkeypatch.setattr(build, "ROOT", root)
    return in_language


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        build.main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [(), ("new",), ("serve",), ("list",), ("check",)])
def test_help_is_in_chinese_for_a_chinese_course(course, capsys, argv):
    course("en")
    english = _help(capsys, *argv)
    course("zh-CN")
    said = _help(capsys, *argv)
    assert said.startswith("用法：python build.py")
    assert "显示这段帮助并退出" in said and "usage:" not in said
    sentences = [line.strip() for line in english.splitlines()  # syntax ({lesson,figure}, a|b) is no sentence
                 if len(re.findall(r"\b[a-z]{3,}\b", line)) >= 3 and not re.search(r"[|{}]", line)]
    assert sentences and [s for s in sentences if s in said] == []  # no English sentence left


@pytest.mark.parametrize("argv", [(), ("new",)])
def test_help_is_in_english_for_an_english_course(course, capsys, argv):
    course("en")
    said = _help(capsys, *argv)
    assert said.startswith("usage: python build.py") and "show this help and exit" in said
    assert not HAN.search(said)


@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_list_figures_says_each_provenance_as_the_badge_does(course, capsys, language):
    course(language)
    assert build.main(["list", "figures"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(figures.FIGURES)
    for figure, line in zip(sorted(figures.FIGURES, key=lambda f: f.id), lines, strict=True):
        assert line.startswith(figure.id) and localize(BADGE_TEXT[figure.provenance], language) in line
