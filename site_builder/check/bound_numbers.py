"""Which numbers in prose are typed by hand: the one definition of the rule "every number is bound".

A number that looks measured must come from ``{num}`` (the build's value) or be marked ``{example}``.
The check stage passes the prose runs of lesson and article pages here (``ParsedPage.texts``: headings,
paragraphs, lists, tables, state titles and captions, ``more`` blocks); code, math, roles and teacher
notes are not prose runs, so what they hold is never flagged.

Flagged (the rule a teacher can predict):

- a decimal (``0.35``, ``.35``), a fraction (``1/3``, ``½``), a number with an exponent (``2.2e-15``,
  ``2.22×10⁻¹⁵``, ``10^-15``);
- a number written in digits and followed by a unit: a percentage (``65%``, ``‰``, ``3 个百分点``),
  a size in bytes (``512 KiB``, ``13B``, ``64 字节``), a duration (``3 ms``, ``0.5 秒``, ``2 小时``),
  a rate or a frequency (``30 tok/s``, ``312 TFLOPS``, ``1.4 GHz``, ``16 GB/s``, ``100 Gbit/s``, ``25 Gbps``,
  ``16 GT/s``; ``3 μs`` with either micro sign);
- Chinese numerals that state a proportion or a decimal (``三成``, ``三成五``, ``百分之三十``,
  ``五分之一``, ``零点三五``, ``三十%``, ``三个百分点``) or stand right before a unit (``三毫秒``,
  ``两字节``), unless ``第`` or ``每`` comes first (``第一秒``, ``每一秒``).

Exempt, because they count or name something rather than measure it:

- a whole number with no unit: a count (``4096 个 token``, ``两层``), a year (``2024 年``), an id;
  a measure word makes a count (``两个字节``, ``512 个字节``), and whole multiples are counts
  (``2 倍``, ``两倍``; ``1.5 倍`` is a decimal); a date is written ``2024-01-05`` or ``2024 年 1 月``
  (``2024/01`` reads as a fraction);
- a number glued to a name: after a Latin letter, ``_`` or ``#`` (``fp16``, ``A100``, ``b0``, ``Qwen2.5``,
  ``v3.11``), or after ``-``, ``.``, ``:`` or ``/`` that follow a letter or digit (``Llama-2-7B``,
  ``GPT-3.5``, ``arXiv:2309.06180``);
- a version or an address with two dots or more (``3.11.2``, ``127.0.0.1``); a bare ``3.11`` is a
  decimal, so write ``v3.11`` or put it in code;
- a section, figure, page or ordinal number: right after ``第``, ``§`` or the word Section, Sec., Chapter,
  Fig., Figure, Table, Eq., Appendix, p., pp. or page, in either case (``section 2.7`` after a citation;
  a range such as ``§2.1–2.2`` too), or right before ``节`` or
  ``章`` (``2.3 节``); ``图``/``表`` are no labels (代表 0.35), so write ``图 2-1`` or ``第 2.1 节``;
- the number that starts a heading or a state title (``## 2.3 注意力``), unless it starts with 0 or
  has a unit (``## 0.35 的概率`` and ``## 65% 的显存`` are flagged).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_CN = "〇零一二两三四五六七八九十百千万亿"

_PERCENT = r"[%％‰]|个\s*百分点|百分点|percent"
_CJK_UNITS = r"字节|纳秒|微秒|毫秒|秒钟|秒|分钟|小时"
_NUMBER = re.compile(
    r"(?<![\d.．,])(?:\d+(?:,\d{3})*(?:[.．]\d+)*|(?<![A-Za-z])[.．]\d+)"  # 4096, 1,024, 0.35, .35, 3.11.2
    r"(?P<power>[eE][-+−]?\d+"                                       # 2.2e-15
    r"|\s*[×xX*·]\s*10(?:\^[-+−]?\d+|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"            # 2.22×10⁻¹⁵, 1.5 x 10^-3
    r"|\^[-+−]?\d+|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"                             # 10^-15, 10⁻¹⁵
    r"(?P<fraction>\s*[/／⁄]\s*\d+(?:[.．]\d+)*)?"                      # 1/3
)
_UNIT = re.compile(
    rf"\s*(?:{_PERCENT}|{_CJK_UNITS}"
    r"|(?:[KMGTPE]i?B|kB|B)(?:/s|ps)?|[Bb]ytes?(?:/s)?"
    r"|[kKMGTP]?(?:bit|b)(?:/s|ps)|[kKMGTP]?bits?/s|[MGT]T/s"
    r"|ns|[µμu]s|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?"
    r"|tok(?:en)?s?/s|it/s|[KMGTP]?FLOP(?:s|S|/s)?|[kMG]?Hz)"
    r"(?![A-Za-z0-9])")
_GLUED = re.compile(r"(?:[A-Za-z_#]|[A-Za-z0-9][-.:/])$")
"""The text before a number that makes it part of a name (fp16, Llama-2-7B, arXiv:2309.06180, #0072B2)."""
_LABEL = re.compile(r"(?:[§第]|(?<![A-Za-z])(?i:Section|Sec\.|Chapter|Fig\.|Figure|Table|Eq\.|Appendix|pp?\.|page))\s*"
                    r"(?:\d+(?:[.．]\d+)*\s*[-–—~至到]\s*)?$")
"""The text before a section, figure or ordinal number (§2.1–2.2, 第 3 层, Table 2)."""
_LABEL_AFTER = re.compile(r"\s*[节章]")
_LOOK_BACK = 40
"""Characters before a number that may make it a name or a label (``Appendix 2.1–``)."""
_HEADING_NUMBER = re.compile(r"[1-9１-９]")
"""How the number that starts a heading begins (## 2.3 注意力; ## 0.35 的概率 is a value)."""
_CHINESE = re.compile(
    # Every alternative starts with a numeral or a digit: said first, it lets the regular expression engine
    # skip to those characters instead of trying each alternative at every position (4× faster).
    rf"(?=[{_CN}\d])"
    rf"(?:(?<![第{_CN}\d])[{_CN}\d]+分之[{_CN}\d]+"                       # 百分之三十, 五分之一
    rf"|(?<![第{_CN}])[一二两三四五六七八九十]成[一二三四五六七八九]?"   # 三成, 三成五
    r"(?!不变|[果员本就分功为型立绩品熟长年人形交像批套组对块])"        # …but not 一成不变, 这一成果
    rf"|零点[{_CN}]+"                                                   # 零点三五
    rf"|(?<![第每{_CN}])[{_CN}]+\s*(?:{_PERCENT}|{_CJK_UNITS}))"         # 三十%, 三个百分点, 三毫秒
)
_DIGIT = re.compile(r"\d")
"""What every match of ``_NUMBER`` holds."""
_VULGAR = re.compile(r"[¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]")


def hand_typed(text: str, *, heading: bool = False) -> list[str]:
    """The hand-typed numbers in one prose run, as written (with their unit), in order.

    ``heading``: the run starts a heading or a state title, whose leading number is exempt.
    """
    start = len(text) - len(text.lstrip()) if heading else -1  # where a heading's own number stands
    # Most prose runs hold no digit, and so no number in digits: they are not scanned for one.
    numbers = _NUMBER.finditer(text) if _DIGIT.search(text) else ()
    found = [(m.start(), shown) for m in numbers if (shown := _measured(text, m, start))]
    found += [(m.start(), m.group()) for pattern in (_CHINESE, _VULGAR) for m in pattern.finditer(text)]
    return [number.strip() for _, number in sorted(found)]


def _measured(text: str, match: re.Match, heading_start: int) -> str:
    """The number as shown in the problem (with its unit), or ``''`` when it counts or names something."""
    # A bounded look back keeps a long run of numbers linear (a label and a range fit in it).
    before, after = text[max(0, match.start() - _LOOK_BACK):match.start()], match.end()
    if _GLUED.search(before) or _LABEL.search(before) or _LABEL_AFTER.match(text, after):
        return ""
    unit = _UNIT.match(text, after)
    shown = match.group() + (unit.group() if unit else "")
    if match["power"] or match["fraction"] or unit:
        return shown
    if match.start() == heading_start and _HEADING_NUMBER.match(shown) and re.match(r"[.．]?(?:\s|$)", text[after:]):
        return ""
    return shown if len(re.findall("[.．]", shown)) == 1 else ""  # 3.11.2 is a version; 4096 a count


def unbound_numbers(texts: Iterable[tuple[str, int, str]], heading_lines: set[int]) -> Iterator[tuple[str, int, str]]:
    """(number, line, state id) for each hand-typed number in a page's prose runs (``ParsedPage.texts``).

    ``heading_lines``: the lines of the page's headings and state titles; the first run on such a
    line starts the heading.
    """
    seen: set[int] = set()
    for text, line, state in texts:
        heading = line in heading_lines and line not in seen
        seen.add(line)
        for number in hand_typed(text, heading=heading):
            yield number, line, state
