"""One formatting policy for every number a reader sees: prose, captions, tables.

Figures are drawn from the same values, so nothing can disagree.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from site_builder.vocabulary.i18n import _

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
SIGNIFICANT = 3
"""Significant figures for measured quantities."""


def format_number(number: Any, unit: str = "") -> str:
    """Format a value for a reader: ``2.22×10⁻¹⁵``, ``800 KiB``, ``1.23 ms``, ``12.3×``, ``yes``.

    A boolean is a message (是/否 in a Chinese course): callers that show it say it in the
    course's language (``SiteView.say``)."""
    if isinstance(number, bool):
        return _("yes") if number else _("no")
    if unit == "B":
        return format_bytes(number)
    text = _plain(number)
    if unit == "x":
        return f"{text}×"
    return f"{text} {unit}" if unit else text


def format_bytes(count: float) -> str:
    """Binary units, as the arithmetic of KV sizes is binary: 800 KiB, 3.125 GiB."""
    size, unit = float(count), 0
    while abs(size) >= 1024 and unit < len(_BINARY_UNITS) - 1:
        size, unit = size / 1024, unit + 1
    digits = f"{size:.4g}" if unit else f"{int(count):,}"
    return f"{digits} {_BINARY_UNITS[unit]}"


def format_scientific(number: float) -> str:
    """``2.22×10⁻¹⁵``: typographic scientific notation, never ``e-15``."""
    mantissa, exponent = f"{number:.{SIGNIFICANT - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _plain(number: Any) -> str:
    if isinstance(number, int):
        return f"{number:,}"
    number = float(number)
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else str(number)
    if abs(number) < 1e-3 or abs(number) >= 1e6:
        return format_scientific(number)
    text = f"{number:.{SIGNIFICANT}g}"
    return format_scientific(number) if "e" in text else text


class Named(Protocol):
    """A value as the content model holds it (load/content.py ``Value``): what ``display`` reads."""

    value: Any
    unit: str


def display(value: Named) -> str:
    """The text a reader sees for a named value."""
    return format_number(value.value, value.unit)


VALUE_CLASSES = ("exact", "rounding", "timing")


def class_text(value_class: str, rtol: float = 0.0, atol: float = 0.0) -> str:
    """What the numbers page says about how a value is compared."""
    return {"exact": _("exact: bit for bit the same on every machine"),
            "rounding": _("rounding: the last bits may differ between CPUs; within {rtol} relative and {atol} "
                          "absolute counts as the same", rtol=format_number(rtol), atol=format_number(atol)),
            "timing": _("timing: varies with the machine and its load; recorded, never compared")}.get(value_class, "")


def agrees(a: float, b: float, value_class: str, rtol: float, atol: float) -> bool:
    """Whether two values are the same as their class allows (never called for timing values)."""
    if value_class == "rounding":
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b
