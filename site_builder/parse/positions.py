"""Position words next to a ``{mark}``, checked against where the mark is drawn.

A teacher writes “先指左侧的{mark}`query`”; the figure knows where ``query``
is. The words and their meaning, on a figure whose centre is (0.5, 0.5) and
whose y grows downwards (a mark's centre is (cx, cy), its offset from the
figure's centre is (dx, dy)):

- 左/右/上/下 with 侧、边、方、部、端、半 (左侧, 上方, 右边 …): the offset points
  that way by at least ``MARGIN``, and is the *dominant* one: at least
  ``DOMINANCE`` times the offset along the other axis. A wide bar in the top
  left quarter is 上方 or 左上, not 左侧.
- 左上/右上/左下/右下 (角): both offsets point that way by at least ``MARGIN``.
- 顶部/顶端, 底部/底端: the centre lies in the top or bottom third.
- 中间/中央/正中: both offsets are within ``CENTRE``.
- 最 + a direction (最右侧, 最上方 …): the direction holds, and no other mark of
  the figure lies further that way (by centre, within ``TIE``).
- Right after another mark (“{mark}`a`上方的{mark}`b`”) a single direction is
  relative: b lies that way from a.

Directions of motion are not positions and are not checked: 向上, 往下, 朝右,
以上, 以下; nor are bare 上/下 (上一步, 下一层).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from site_builder.load.content import FigureMark
from site_builder.vocabulary.i18n import _

MARGIN = 0.08
"""How far (fraction of the figure) a centre must sit from the middle to be on a side."""
DOMINANCE = 0.6
"""A single-direction word needs its offset ≥ this × the offset along the other axis."""
CENTRE = 0.2
"""中间: both offsets within this."""
TIE = 0.02
"""最…: another mark further out by less than this still counts as level."""

_WORD = re.compile(r"(?<![向往朝以])(最)?(左上|右上|左下|右下|左|右|上|下|顶|底)(侧|边|方|部|端|角|半)?|中间|中央|正中")
_SIDES = {"左": (0, -1), "右": (0, 1), "上": (1, -1), "下": (1, 1)}  # (axis: 0 = x, 1 = y), sign
_NAMES = {"左": "左侧", "右": "右侧", "上": "上方", "下": "下方"}


@dataclass(frozen=True)
class PositionWord:
    """A position word found in the clause before a mark."""

    text: str
    """As written, e.g. ``最右侧``."""
    extreme: bool
    """Written with 最."""
    base: str
    """左, 右, 上, 下, 左上 …, 顶, 底 or 中."""


def position_words(clause: str) -> list[PositionWord]:
    """Position words in a clause (directions of motion and bare 上/下 are skipped)."""
    words = []
    for match in _WORD.finditer(clause):
        text = match.group(0)
        if text in ("中间", "中央", "正中"):
            words.append(PositionWord(text, False, "中"))
            continue
        extreme, base, suffix = bool(match.group(1)), match.group(2), match.group(3)
        if base in ("顶", "底") and suffix not in ("部", "端"):
            continue
        if len(base) == 1 and base not in ("顶", "底") and not suffix and not extreme:
            continue  # 上一步, 下一层, 左 alone: not a position
        words.append(PositionWord(text, extreme, base))
    return words


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
    if relative_to is not None and len(word.base) == 1 and word.base in _SIDES and not word.extreme:
        rx, ry = _centre(relative_to.box)
        axis, sign = _SIDES[word.base]
        return ((cx - rx) if axis == 0 else (cy - ry)) * sign > 0
    dx, dy = cx - 0.5, cy - 0.5
    if word.base == "中":
        return abs(dx) <= CENTRE and abs(dy) <= CENTRE
    if word.base in ("顶", "底"):
        holds = cy <= 1 / 3 if word.base == "顶" else cy >= 2 / 3
        side = "上" if word.base == "顶" else "下"
    elif len(word.base) == 2:
        holds = all(_offset_holds(side, dx, dy, dominant=False) for side in word.base)
        side = ""
    else:
        side = word.base
        holds = _offset_holds(side, dx, dy, dominant=True)
    if holds and word.extreme and side:
        axis, sign = _SIDES[side]
        mine = (cx, cy)[axis] * sign
        holds = all(_centre(o.box)[axis] * sign <= mine + TIE for o in others if o.name != mark.name)
    return holds


def describe(mark: FigureMark) -> str:
    """Where a mark is, in the words the checker accepts (for error messages)."""
    cx, cy = _centre(mark.box)
    dx, dy = cx - 0.5, cy - 0.5
    vertical = "上" if dy <= -MARGIN else "下" if dy >= MARGIN else ""
    horizontal = "左" if dx <= -MARGIN else "右" if dx >= MARGIN else ""
    if vertical and horizontal:
        for side in (vertical, horizontal):
            if _offset_holds(side, dx, dy, dominant=True):
                return _at(_NAMES[side], cx, cy)
        return _at(horizontal + vertical, cx, cy)
    side = vertical or horizontal
    return _at(_NAMES[side] if side else "中间", cx, cy)


def _at(word: str, cx: float, cy: float) -> str:
    """A position word (one the checker accepts: the prose is Chinese) with the centre it stands for."""
    return _("{word} (centre at about {x}, {y})", word=word, x=f"{cx:.0%}", y=f"{cy:.0%}")
