"""Position words next to a ``{mark}``, checked against where the mark is drawn.

A teacher writes “先指左侧的{mark}`query`” or “Start with the {mark}`query` on the left”; the figure
knows where ``query`` is. Each language has its own words (``VOCABULARIES``, one table each); what a
word means is the same in every language. On a figure whose centre is (0.5, 0.5) and whose y grows
downwards (a mark's centre is (cx, cy), its offset from the figure's centre is (dx, dy)):

- a side (左侧, 上方, 右边 …; on the left, upper half, right edge …): the offset points that way by at
  least ``MARGIN``, and is the *dominant* one: at least ``DOMINANCE`` times the offset along the other
  axis. A wide bar in the top left quarter is 上方 or 左上, not 左侧.
- a corner (左上角 …; upper left, lower right corner …): both offsets point that way by at least ``MARGIN``.
- top or bottom (顶部, 底端; at the top, bottom bar …): the centre lies in the top or bottom third.
- the middle (中间, 中央; in the middle …): both offsets are within ``CENTRE``.
- the far end of a side (最右侧, 最上方; far right, leftmost …): the side holds, and no other mark of the
  figure lies further that way (by centre, within ``TIE``).

Directions of motion are not positions and are not checked (向上, 往下, 以上; to the right, towards the
bottom), nor are words that need something to be relative to (bare 上/下 as in 上一步; above, below).

Where the words stand differs by language. Chinese puts them before the mark (左侧的{mark}`a`) or after
it with 在 (“{mark}`a`在右下角”), and a side word opening the clause right after another mark is relative
to that mark (“{mark}`a`上方的{mark}`b`”: b is above a). English puts them after the mark (“{mark}`a`
at the top”) or before it (“the upper-left {mark}`a`”); words between two marks are the first mark's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from site_builder.load.content import FigureMark
from site_builder.vocabulary.i18n import _

MARGIN = 0.08
"""How far (fraction of the figure) a centre must sit from the middle to be on a side."""
DOMINANCE = 0.6
"""A single-direction word needs its offset ≥ this × the offset along the other axis."""
CENTRE = 0.2
"""The middle: both offsets within this."""
TIE = 0.02
"""最… / far …: another mark further out by less than this still counts as level."""

_SIDES = {"left": (0, -1), "right": (0, 1), "up": (1, -1), "down": (1, 1)}  # (axis: 0 = x, 1 = y), sign
_CORNERS = ("up left", "up right", "down left", "down right")


@dataclass(frozen=True)
class Vocabulary:
    """One language's position words: what they mean and where a sentence puts them."""

    words: Mapping[str, tuple[str, bool]]
    """Word (its parts separated by single spaces, lower case) → (meaning, whether it is a far end). The
    meaning is a side (``left``, ``right``, ``up``, ``down``), a corner (``up left`` …), ``top``, ``bottom``
    or ``centre``."""
    names: Mapping[str, str]
    """Meaning → the word error messages use for it (one the table reads back with that meaning)."""
    not_after: tuple[str, ...]
    """What, right before a word, makes it a direction of motion."""
    stated: re.Pattern[str]
    """The words right after a mark that state where it is (group 1: where position words are read)."""
    relative: bool
    """A side word opening the clause right after a mark places the next mark relative to it (zh); when
    False, words between two marks are the first mark's (en: “{mark}`a` at the top and {mark}`b`”)."""
    whole_words: bool
    """Words must stand alone: no letter, digit or hyphen joined on either side (“top” is not in “stop”)."""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Longest first: at one place in the text, 左上角 wins over 左上 and “upper left” over “upper …”.
        alternatives = "|".join(r"[\s-]+".join(map(re.escape, word.split(" ")))
                                for word in sorted(self.words, key=len, reverse=True))
        guard = r"(?<![\w-])" if self.whole_words else ""
        guard += "".join(f"(?<!{re.escape(before)})" for before in self.not_after)
        end = r"(?![\w-])" if self.whole_words else ""
        object.__setattr__(self, "pattern", re.compile(f"{guard}(?:{alternatives}){end}" if self.words else r"(?!)",
                                                       re.IGNORECASE))


def _table(entries: Iterable[tuple[Iterable[str], str, bool]]) -> dict[str, tuple[str, bool]]:
    """(words, meaning, far end) rows → word → (meaning, far end)."""
    return {word: (meaning, extreme) for words, meaning, extreme in entries for word in words}


_ZH_SIDES = {"左": "left", "右": "right", "上": "up", "下": "down"}
_ZH_CORNERS = {"左上": "up left", "右上": "up right", "左下": "down left", "右下": "down right"}
_ZH_SUFFIXES = ("侧", "边", "方", "部", "端", "角", "半")
ZH = Vocabulary(
    words=_table([
        *(([f"{zh}{s}" for s in _ZH_SUFFIXES], side, False) for zh, side in _ZH_SIDES.items()),
        *(([f"最{zh}{s}" for s in ("", *_ZH_SUFFIXES)], side, True) for zh, side in _ZH_SIDES.items()),
        *(([f"{far}{zh}{s}" for far in ("", "最") for s in ("", *_ZH_SUFFIXES)], corner, False)
          for zh, corner in _ZH_CORNERS.items()),
        *(([f"{far}{zh}{s}" for s in ("部", "端")], end, far == "最")
          for zh, end in (("顶", "top"), ("底", "bottom")) for far in ("", "最")),
        (["中间", "中央", "正中"], "centre", False),
    ]),
    names={"left": "左侧", "right": "右侧", "up": "上方", "down": "下方", "centre": "中间",
           **{corner: zh for zh, corner in _ZH_CORNERS.items()}},
    not_after=("向", "往", "朝", "以"),
    stated=re.compile(r"^\s*(?:在|位于|处于|就在)(.*)"),
    relative=True,
    whole_words=False,
)

_EN_PARTS = ("side", "edge", "half", "end", "part", "panel", "column", "row", "bar", "plot", "chart", "area")
"""What a figure's side is said of (the left half, upper panel, bottom row): an adjective alone is not
enough, as in “the right answer”, “a lower bound”, “the top token”."""
_EN_UPPER = {"upper": "up", "lower": "down"}
_EN_ENDS = {"top": "up", "bottom": "down"}
EN = Vocabulary(
    words=_table([
        *(([f"on the {side}", f"{side} hand side", *(f"{side} {part}" for part in _EN_PARTS)], side, False)
          for side in ("left", "right")),
        *(([f"far {side}", f"{side}most"], side, True) for side in ("left", "right")),
        *(([f"{word} {part}" for part in _EN_PARTS], side, False) for word, side in _EN_UPPER.items()),
        *(([f"{end} half"], side, False) for end, side in _EN_ENDS.items()),  # a half, not a third
        *(([f"{word}most"], side, True) for word, side in _EN_UPPER.items()),
        *(([f"{v} {h}", f"{v} {h} corner", f"{v} {h} hand corner"], f"{side} {h}", False)
          for v, side in {**_EN_UPPER, **_EN_ENDS}.items() for h in ("left", "right")),
        *(([f"at the {end}", *(f"{end} {part}" for part in _EN_PARTS if part != "half")], end, False)
          for end in _EN_ENDS),
        *(([f"at the very {end}", f"{end}most"], end, True) for end in _EN_ENDS),
        ([f"{word} {part}" for word in ("middle", "centre", "center", "central") for part in _EN_PARTS]
         + [f"{at} the {word}" for at in ("in", "at") for word in ("middle", "centre", "center")], "centre", False),
    ]),
    names={"left": "on the left", "right": "on the right", "up": "in the upper half", "down": "in the lower half",
           "centre": "in the middle",
           **{f"{side} {h}": f"in the {v} {h} corner" for v, side in _EN_UPPER.items() for h in ("left", "right")}},
    not_after=("to the ", "towards the ", "toward the ", "into the "),
    stated=re.compile(r"^\s*(?:(?:is|sits|lies|stands)\s+)?((?:at|on|in|near)\b.*)", re.IGNORECASE),
    relative=False,
    whole_words=True,
)

VOCABULARIES = {"zh": ZH, "en": EN}
"""Position words by language (the primary subtag of a BCP 47 tag)."""
_NO_WORDS = Vocabulary({}, {}, (), re.compile(r"(?!)"), relative=False, whole_words=True)


def vocabulary(language: str) -> Vocabulary:
    """The position words of ``language`` (a tag such as ``zh-CN``); a language with no table has none, and
    its marks' positions are not checked."""
    return VOCABULARIES.get(language.split("-")[0].lower(), _NO_WORDS)


@dataclass(frozen=True)
class PositionWord:
    """A position word found in the text around a mark."""

    text: str
    """As written, e.g. ``最右侧``, ``lower right``."""
    extreme: bool
    """A far end (最…, far …, …most)."""
    base: str
    """What it means: ``left``, ``right``, ``up``, ``down``, a corner (``up left`` …), ``top``, ``bottom``
    or ``centre``."""


def position_words(text: str, language: str) -> list[PositionWord]:
    """Position words in ``text``, written in ``language`` (directions of motion are skipped)."""
    table = vocabulary(language)
    found = []
    for match in table.pattern.finditer(text):
        base, extreme = table.words[re.sub(r"[\s-]+", " ", match.group(0).lower())]
        found.append(PositionWord(match.group(0), extreme, base))
    return found


def words_about(clause: str, following: str, after: FigureMark | None,
                language: str) -> list[tuple[PositionWord, FigureMark | None]]:
    """What the words around a mark say of it: each with the mark it is relative to (``None``: the figure).
    ``clause``: the text before the mark, back to punctuation or ``after`` (the mark it directly follows);
    ``following``: the text after it, to the next punctuation or role."""
    table = vocabulary(language)
    stated = table.stated.match(following)
    said = [(word, None) for word in position_words(stated.group(1) if stated else "", language)]
    if after is not None and not table.relative:
        return said  # “{mark}`a` at the top and {mark}`b`”: the words are a's
    return [(word, after if after is not None and clause.strip().startswith(word.text) else None)
            for word in position_words(clause, language)] + said


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _offset_holds(side: str, dx: float, dy: float, *, dominant: bool) -> bool:
    axis, sign = _SIDES[side]
    along, across = (dx, dy) if axis == 0 else (dy, dx)
    if along * sign < MARGIN:
        return False
    return not dominant or abs(along) >= DOMINANCE * abs(across)


def word_holds(word: PositionWord, mark: FigureMark, others: Iterable[FigureMark],
               relative_to: FigureMark | None = None) -> bool:
    """Whether ``word`` is true of ``mark`` (among the figure's ``others``)."""
    cx, cy = _centre(mark.box)
    if relative_to is not None and word.base in _SIDES and not word.extreme:
        rx, ry = _centre(relative_to.box)
        axis, sign = _SIDES[word.base]
        return ((cx - rx) if axis == 0 else (cy - ry)) * sign > 0
    dx, dy = cx - 0.5, cy - 0.5
    if word.base == "centre":
        return abs(dx) <= CENTRE and abs(dy) <= CENTRE
    if word.base in ("top", "bottom"):
        holds = cy <= 1 / 3 if word.base == "top" else cy >= 2 / 3
        side = "up" if word.base == "top" else "down"
    elif word.base in _CORNERS:
        holds = all(_offset_holds(side, dx, dy, dominant=False) for side in word.base.split())
        side = ""
    else:
        side = word.base
        holds = _offset_holds(side, dx, dy, dominant=True)
    if holds and word.extreme and side:
        axis, sign = _SIDES[side]
        mine = (cx, cy)[axis] * sign
        holds = all(_centre(o.box)[axis] * sign <= mine + TIE for o in others if o.name != mark.name)
    return holds


def place_word(mark: FigureMark, language: str) -> str:
    """Where a mark is, as a word of ``language`` that the checker accepts of it."""
    cx, cy = _centre(mark.box)
    dx, dy = cx - 0.5, cy - 0.5
    vertical = "up" if dy <= -MARGIN else "down" if dy >= MARGIN else ""
    horizontal = "left" if dx <= -MARGIN else "right" if dx >= MARGIN else ""
    # The corner when both sides hold (右上 says more than 上方 of a mark at 80 %, 25 %; of one at 58 %, 10 %,
    # 上方 says it better), else the side that does, else the corner both offsets point to, else the centre.
    dominant = [side for side in (vertical, horizontal) if side and _offset_holds(side, dx, dy, dominant=True)]
    corner = f"{vertical} {horizontal}" if vertical and horizontal else ""
    meaning = corner if len(dominant) == 2 else dominant[0] if dominant else corner or "centre"
    return vocabulary(language).names.get(meaning, meaning)


def describe(mark: FigureMark, language: str) -> str:
    """Where a mark is, as a word of ``language`` and its centre in per cent (for error messages)."""
    cx, cy = _centre(mark.box)
    return _("{word} (centre at about {x}, {y})", word=place_word(mark, language), x=f"{cx:.0%}", y=f"{cy:.0%}")
