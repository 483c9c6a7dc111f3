"""A command line ``python build.py`` cannot read is one line in the course's language, its cause first:
none of argparse's own English (``usage:``, ``error:``, ``invalid choice``) reaches a Chinese course."""

import re

import pytest
from sitekit import SITE_YML, write_site

import build
from site_builder.serve.cli import parse_error

HAN = re.compile(r"[\u4e00-\u9fff]")
ARGPARSE_WORDS = re.compile(r"usage|error|invalid|argument|choose|expected|required|unrecognized|ambiguous"
                            r"|explicit|could match", re.I)


@pytest.fixture
def course(tmp_path, monkeypatch):
    def in_language(language: str):
        root = write_site(tmp_path / language, {"x": "---\ntitle: 一课\n---\n正文。\n"},
                          site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
        monkeypatch.setattr(build, "ROOT", root)
    return in_language


def _refused(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        build.main(list(argv))
    assert done.value.code == 2
    said = capsys.readouterr()
    assert said.out == ""
    return said.err


# Each of argparse's messages this command line can meet, and how our line begins (its cause).
SLIPS = [
    (("lst",), "未知的命令 'lst'（是不是 'list'？）；命令有：build, check"),
    (("new", "lessn", "r56"), "'lessn' 不是 new 的可选值（是不是 'lesson'？）；可选：lesson, figure, experiment"),
    (("list", "valus"), "'valus' 不是 list 的可选值（是不是 'values'？）"),
    (("serve", "--port", "80a"), "'80a' 不是整数：--port 要的是整数"),
    (("serve", "--port"), "--port 后面缺少它的值"),
    (("serve", "--teacher=yes"), "--teacher 不带值，却给了 'yes'"),
    (("new",), "缺少参数：KIND, ID"),
    (("build", "extra"), "多余的参数：extra"),
    (("serve", "--teachr"), "多余的参数：--teachr（是不是 '--teacher'？）（说明：python build.py serve --help）"),
    (("build", "--teachr"), "多余的参数：--teachr（说明：python build.py build --help）"),  # not an option of build
    (("serve", "--h"), "--h 可能是 --help, --host；请写全"),
    (("figures", "--report", "d"), "--report 是 check 的选项（说明：python build.py check --help）"),  # where it is
]


@pytest.mark.parametrize("argv, cause", SLIPS, ids=[" ".join(argv) for argv, _cause in SLIPS])
def test_a_refused_command_line_is_one_chinese_line_cause_first(course, capsys, argv, cause):
    course("zh-CN")
    said = _refused(capsys, *argv)
    [line] = said.splitlines()
    assert line.startswith(cause)
    assert "--help）" in line  # where to read more, last
    assert not ARGPARSE_WORDS.search(line)


@pytest.mark.parametrize("argv", [("lst",), ("new",), ("serve", "--port", "80a")])
def test_an_english_course_gets_the_same_line_in_english(course, capsys, argv):
    course("en")
    [line] = _refused(capsys, *argv).splitlines()
    assert not HAN.search(line) and not line.startswith("usage:") and "error:" not in line
    assert line.endswith("--help)")


def test_a_message_we_have_no_words_for_stays_as_argparse_wrote_it():
    assert parse_error("argument --x: a new complaint", "python build.py") == "--x: a new complaint"
    assert parse_error("a new complaint", "python build.py") == "a new complaint"
