"""The math font each site ships: STIX Two Math cut down to the glyphs that site's formulas use.

The build reads the characters inside every ``<math>`` of a site's HTML and subsets the font to
them (plus the math-italic letters Chromium substitutes for one-letter ``<mi>``; the MATH table's
size variants and stretchy parts come along by the subsetter's closure). A page without maths
never links the font; a page with maths preloads it (base.html.j2), so it is usually there before
the first paint, and ``font-display: swap`` keeps the text readable if it is not.
``static/math/math.css`` holds the ``@font-face`` rule.

Subsetting takes about 0.4 s, so results are kept in memory and, when ``CACHE_DIR`` is set
(build.py sets it to .cache/math-font), on disk, keyed by the character set and verified by
the digest of their bytes when read.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import html
import importlib.util
import io
import re
from collections.abc import Mapping
from pathlib import Path

from site_builder.vocabulary.atomic import write_atomic

CACHE_DIR: Path | None = None
"""Where subsets are kept between builds; None keeps them in this process only."""
FONT_PATH = "static/math/stix-two-math.woff2"
"""The font's place in the site (static/math/math.css points at it)."""
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_TAG = re.compile(r"<[^>]+>")
_DRAWN_FOR_ELEMENT = {"<msqrt": "\u221a", "<mroot": "\u221a"}
"""Glyphs the browser draws for an element rather than for a character of it: a root's radical sign (U+221A,
stretched by its MATH variants). Without it in the subset, √d_h showed as d_h."""


def math_font_for(formulas: Mapping[str, str]) -> dict[str, bytes]:
    """The site's math font, cut to the characters of every HTML file's formulas (``formula_characters``);
    nothing when no page has maths (the committed full subset is copied but never linked)."""
    chars = _characters(frozenset(formulas.values()))
    return {FONT_PATH: math_font(chars)} if chars else {}


@functools.lru_cache(maxsize=4)
def _characters(formulas: frozenset[str]) -> str:
    """Every character of ``formulas``, sorted: kept by the formulas, as a save changes a page's at most."""
    return "".join(sorted(set("".join(formulas))))


def formula_characters(files: Mapping[str, bytes | Path]) -> dict[str, str]:
    """Each HTML file's formula characters (``math_characters``)."""
    return {name: math_characters([(data if isinstance(data, bytes) else data.read_bytes()).decode()])
            for name, data in files.items() if name.endswith(".html")}


def math_characters(pages: list[str]) -> str:
    """Every character drawn inside ``<math>`` on these pages, the glyphs drawn for its elements, and the italic
    forms of its letters."""
    chars: set[str] = set()
    for page in pages:
        for formula in _MATH.findall(page):
            chars.update(html.unescape(_TAG.sub("", formula)))
            chars.update(glyph for tag, glyph in _DRAWN_FOR_ELEMENT.items() if tag in formula)
    chars |= {italic for c in chars if (italic := _math_italic(c))}
    return "".join(sorted(chars - {"\n", " "}))


def _math_italic(char: str) -> str:
    """The Mathematical Italic letter Chromium draws for a one-letter ``<mi>`` (Unicode §22.2)."""
    code = ord(char)
    if char == "h":
        return "\u210e"  # PLANCK CONSTANT stands in for the missing italic h
    for first, last, italic_first in ((0x41, 0x5A, 0x1D434), (0x61, 0x7A, 0x1D44E),
                                      (0x391, 0x3A9, 0x1D6E2), (0x3B1, 0x3C9, 0x1D6FC)):
        if first <= code <= last:
            return chr(italic_first + code - first)
    return ""


@functools.lru_cache(maxsize=8)
def math_font(chars: str) -> bytes:
    """The WOFF2 subset holding ``chars``; byte-identical for the same characters. A subset kept on
    disk is used only when its bytes still have the digest its name records; otherwise it is made again."""
    key = hashlib.sha256(chars.encode()).hexdigest()[:32]
    for kept in CACHE_DIR.glob(f"{key}-*.woff2") if CACHE_DIR and CACHE_DIR.is_dir() else ():
        with contextlib.suppress(OSError):  # unreadable, or a folder where a file was: made again below
            data = kept.read_bytes()
            if kept.stem.endswith("-" + hashlib.sha256(data).hexdigest()[:32]):
                return data
            kept.unlink()
    data = subset_font(chars)
    if CACHE_DIR is not None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs the next build time
            write_atomic(CACHE_DIR / f"{key}-{hashlib.sha256(data).hexdigest()[:32]}.woff2", data)
    return data


def subset_font(chars: str) -> bytes:
    """A WOFF2 of STIX Two Math (shipped inside the ziamath package) holding ``chars`` and ASCII."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # ssty (script-size glyphs), dtls, flac, …
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]  # keep the OFL copyright and names
    options.notdef_outline = True
    options.hinting = False  # -30 % size; Chromium's rasterizer does not need TrueType hints
    options.recalc_timestamp = False  # deterministic output
    # find_spec, not import: importing ziamath pulls in its whole typesetter.
    spec = importlib.util.find_spec("ziamath")
    if spec is None or spec.origin is None:
        raise RuntimeError("ziamath is not installed; it ships STIXTwoMath-Regular.ttf")
    # Lazy, as fontTools' own pyftsubset loads it: only the tables and glyphs the subset keeps are decoded
    # (the same bytes, in half the time of decoding all 6,400 glyphs).
    font = TTFont(Path(spec.origin).parent / "fonts" / "STIXTwoMath-Regular.ttf", recalcTimestamp=False, lazy=True)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted({ord(c) for c in chars} | set(range(0x20, 0x7F))))
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.flavor = "woff2"
    font.save(buffer)
    return buffer.getvalue()
