"""Control characters in a page, found in its bytes first: the first one is named with its line, after
multi-byte text too; tabs and Windows line ends are not control characters here."""

import pytest
from sitekit import lesson, state, write_site

from site_builder.load.loader import load_content


def _problems(root, body: str) -> list[str]:
    write_site(root, {"a": lesson(body)})
    return [str(p) for p in load_content(root)[1]]


@pytest.mark.parametrize("control", ["\x00", "\x07", "\x0b", "\x1b", "\x1f", "\x7f"])
def test_the_first_control_character_is_named_with_its_line(tmp_path, control):
    body = state() + "中文第一行。\n中文第二行" + control + "。\x07\n"
    line = lesson(body).split("\n").index("中文第二行" + control + "。\x07") + 1
    assert _problems(tmp_path, body) == [
        f"content/pages/a.md:{line}: contains the control character U+{ord(control):04X}: delete it"]


def test_tabs_and_windows_line_ends_are_not_control_characters(tmp_path):
    assert _problems(tmp_path, state().replace("\n", "\r\n") + "表格\t对齐。\r\n") == []
