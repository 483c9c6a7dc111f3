"""The hand-typed number check's shortcuts find exactly what its patterns alone find."""

from __future__ import annotations

import random
import re

from site_builder.check import bound_numbers

_ALPHABET = list("0123456789０１.．,/ %％‰eE×x^⁻¹²³-_#:§第每个分之成零点十百千万两三五一二秒钟毫字节小时不变果 aAbB\n")
_ALPHABET += [
    "百分点", "percent", "KiB", "ms", "tok/s", "GHz", "Section ", "½", "节", "章"]


def _texts(count: int) -> list[str]:
    rng = random.Random(30)
    return ["".join(rng.choices(_ALPHABET, k=rng.randint(1, 40))) for _ in range(count)]


def test_the_leading_lookahead_of_the_chinese_pattern_changes_no_match():
    lookahead = re.match(r"\(\?=\[[^\]]*\]\)", bound_numbers._CHINESE.pattern)
    assert lookahead, "the pattern starts with the characters every alternative starts with"
    plain = re.compile(bound_numbers._CHINESE.pattern[lookahead.end():])
    for text in _texts(20000):
        assert [m.span() for m in bound_numbers._CHINESE.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_a_run_without_a_digit_has_no_number_in_digits():
    for text in _texts(20000):
        if not bound_numbers._DIGIT.search(text):
            assert not bound_numbers._NUMBER.search(text), text
