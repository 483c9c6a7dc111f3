"""The highlighter's one-search scanner (markdown/highlight.py ``Scanner``) gives Pygments' own tokens.

Every language here is highlighted by the scanner and by Pygments' lexer of the same options, on the
project's own files of that kind and on random cuts of them (unclosed strings, stray brackets: Pygments'
error recovery), and the HTML must be the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from site_builder.markdown import highlight as highlighter

ROOT = Path(__file__).parents[1]
SAMPLES = {
    "python": sorted((ROOT / "site_builder").rglob("*.py"))[::7],  # a file in seven, from every stage's folder
    "javascript": sorted((ROOT / "site_builder" / "static").glob("*.js")),
    "css": sorted((ROOT / "site_builder" / "static").glob("*.css")),
    "html": sorted((ROOT / "site_builder" / "templates").glob("*.j2")),
    "markdown": sorted((ROOT / "docs").glob("*.md")),
    "bash": [ROOT / "Makefile"],
    "toml": sorted(ROOT.glob("*.toml")),
}
HARD = ["", "\n", "x", "'''unclosed", '"\\', "def f(:\n  ))]]\n\t\x00\x7f é 中文 $$ `` ",
        "f'{a!r:>{w}}' rb'\\x' 0x_1 1e-3j"]


def _texts(files: list[Path], seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files] + HARD
    for text in list(texts):
        for _ in range(3 if len(text) > 50 else 0):
            start = rng.randrange(len(text))
            end = rng.randrange(start, min(len(text), start + 400) + 1)
            texts += [text[start:end], text[:start] + text[end:]]
    return texts


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_scanner_gives_pygments_tokens(lang: str) -> None:
    lexer = highlighter._lexer(lang)
    assert isinstance(lexer.__dict__.get("get_tokens_unprocessed"), highlighter.Scanner)  # the fast path ran
    pygments_own = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    formatter = HtmlFormatter(nowrap=True)
    for text in _texts(SAMPLES[lang], seed=len(lang)):
        assert highlight(text, lexer, formatter) == highlight(text, pygments_own, formatter), text[:80]


def test_python_states_are_joined() -> None:
    """Python, the course's language for code, has every state searched at once (none rule by rule)."""
    lexer = highlighter._lexer("python")
    assert all(highlighter.Scanner(lexer).first_rule(state).__name__ == "at_once" for state in lexer._tokens)


def test_unjoinable_rules_are_tried_one_by_one() -> None:
    """A back reference keeps its state on Pygments' rule-by-rule search, with the same tokens."""
    from pygments.lexer import RegexLexer
    from pygments.token import Name, String, Text

    class Quoted(RegexLexer):
        tokens = {"root": [(r"(['\"]).*?\1", String), (r"\w+", Name), (r"\s+", Text)]}

    lexer = Quoted(stripnl=False, ensurenl=False)
    scanner = highlighter.Scanner(lexer)
    assert scanner.first_rule("root").__name__ == "one_by_one"
    text = "a 'b\" c' \"d\" e ' f"
    assert list(scanner(text)) == list(lexer.get_tokens_unprocessed(text))


@pytest.mark.parametrize("pattern", [r"(a)(b|c)", r"[(](x)", r"[]()](y)", r"[^]()]+(z)", r"\((w)\)", r"(?P<n>a+)b",
                                     r"(?:(a)|(?=(b)))c", r"[\](](v)", r"(?<=(q))r"])
def test_uncaptured_matches_the_same(pattern: str) -> None:
    """Groups become non-capturing; characters in sets and escaped brackets stay characters."""
    import re

    plain = re.compile(highlighter._uncaptured(pattern))
    assert plain.groups == 0
    for text in ["ab", "ac", "(x", "]y", ")y", "(z", "a]z", "(w)", "aab", "bc", "c", "]v", "(v", "qr", "zz"]:
        own, mine = re.compile(pattern).search(text), plain.search(text)
        assert (own and own.span()) == (mine and mine.span()), (pattern, text)
