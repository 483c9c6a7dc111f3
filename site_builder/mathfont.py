"""The math font each site ships: STIX Two Math cut down to the glyphs that site's formulas use.

``render_site`` reads the characters inside every ``<math>`` it rendered and subsets the font to
them (plus the math-italic letters Chromium substitutes for one-letter ``<mi>``; the MATH table's
size variants and stretchy parts come along by the subsetter's closure). A page without maths
never links the font; a page with maths preloads it (base.html.j2), so it is usually there before
the first paint, and ``font-display: swap`` keeps the text readable if it is not.

Subsetting takes about 1.5 s, so results are kept in memory and, when ``CACHE_DIR`` is set
(build.py sets it to .cache/math-font), on disk, keyed by the character set.
"""

from __future__ import annotations

import functools
import hashlib
import re
import tempfile
from pathlib import Path

from .mathrender import subset_math_font

CACHE_DIR: Path | None = None
"""Where subsets are kept between builds; None keeps them in this process only."""
FONT_PATH = "static/math/stix-two-math.woff2"
"""The font's place in the site (static/math/math.css points at it)."""
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_TAG = re.compile(r"<[^>]+>")
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&#x27;": "'"}


def math_characters(html_pages: list[str]) -> str:
    """Every character drawn inside ``<math>`` on these pages, and the italic forms of its letters."""
    chars: set[str] = set()
    for html in html_pages:
        for formula in _MATH.findall(html):
            text = _TAG.sub("", formula)
            for entity, char in _ENTITIES.items():
                text = text.replace(entity, char)
            chars.update(text)
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
    """The WOFF2 subset holding ``chars``; byte-identical for the same characters."""
    key = hashlib.sha256(chars.encode()).hexdigest()[:32]
    cached = CACHE_DIR / f"{key}.woff2" if CACHE_DIR else None
    if cached is not None and cached.is_file():
        return cached.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        data = subset_math_font([chars], Path(tmp) / "font.woff2").read_bytes()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f".{cached.name}.tmp")
        partial.write_bytes(data)
        partial.replace(cached)
    return data
