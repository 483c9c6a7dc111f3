"""The pair cutter on arrays (render/search.py ``_cut``) against the rule written out one run at a time."""

from __future__ import annotations

import random
import re

from site_builder.render import search

_CHINESE = "".join(f"{chr(low)}-{chr(high)}" for low, high in search._CJK)
_MARKS = "".join(f"{chr(low)}-{chr(high)}" for low, high in search._CJK_PUNCT)
_SHARED = "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in search._SHARED_PUNCT) + "]"
_NEAR = f"[{_CHINESE}{_MARKS}]"
_RULE = re.compile(f"([{_CHINESE}]+)|([{_MARKS}]|(?<={_NEAR}){_SHARED}|{_SHARED}(?={_NEAR}))")


def _by_rule(text: str) -> str:
    """A run of Chinese as its overlapping pairs (one character as itself), a Chinese mark alone (a curly quote, …
    or — only beside Chinese), spaces around both."""
    def piece(match: re.Match) -> str:
        run = match.group(1)
        if run is None:
            return f" {match.group(2)} "
        return f" {' '.join(run[k:k + 2] for k in range(len(run) - 1)) if len(run) > 1 else run} "
    return _RULE.sub(piece, text)


def test_the_cut_is_the_rule_at_every_edge():
    # Each range's first and last character and their neighbours outside it, spaces, Latin, NUL, a lone surrogate.
    ranges = search._CJK + search._CJK_PUNCT + search._SHARED_PUNCT
    edges = {chr(c + step) for low, high in ranges for c in (low, high) for step in (-1, 0, 1)}
    alphabet = sorted(edges | set("键值缓存 a1\n\t\x00\ud800"))
    rng = random.Random(30)
    texts = ["", "键", "键值", "键值缓存", "第 5 节，RoPE。", "“缓存”……——", "the “cache” of it’s — “KV”。"] + \
        ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    assert [search._cut(text) for text in texts] == [_by_rule(text) for text in texts]


def test_a_text_holding_the_joining_nul_is_cut_alone():
    parts = [("<p>", "键值\x00缓存"), ("<p>", "缓存与 KV")]
    assert search._blocks(parts) == [search._block(tag, _by_rule(text)) for tag, text in parts]


def test_curly_quotes_dashes_and_ellipses_are_set_apart_beside_chinese_only():
    assert search.search_terms("的“缓存”。") == "的 “ 缓存 ” 。"
    assert search.search_terms("称为“KV cache”（见下）") == "称为 “ KV cache ” （ 见下 ）"
    assert search.search_terms("the “cache” of it’s — done…") == "the “cache” of it’s — done…"
