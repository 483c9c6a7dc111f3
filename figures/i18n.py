"""Figure text in the language a figure is drawn in: ``tr("第 {n} 层", n=1)``.

The figures are written in the first course's language, Chinese (``SOURCE_LANGUAGE``): their text is the
message id. Every other language has a gettext catalog, ``figures/locales/<catalog>/LC_MESSAGES/figures.po``
(``en``), read by the site's machinery (``site_builder.vocabulary.i18n.translations``, another domain) and
refreshed with the site's catalogs by ``python site_builder/locales/update.py``; a message it does not
translate is drawn in Chinese.

- In a drawing function, ``tr(text, **params)`` is the text in the language being drawn (the runner sets it
  with ``drawing_in``), with ``{name}`` slots filled; slots keep a translation free to reorder the words.
- The figure spec's alt text and description are made at import, before any language is known: they are
  written ``tr_later(text)`` (only marked for the catalog) and translated by the runner with ``translated``.
- A number drawn as text goes through ``number(value, spec)``: the language's decimal and group symbols;
  a value a page also cites goes through ``shown(value, unit)``, the page's own text for it.

``tr`` and ``tr_later`` are this domain's extraction keywords; they are not Babel's defaults (``_``, ``N_``),
so the site's catalog never collects figure text, nor this one the site's messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from site_builder.vocabulary.i18n import catalog_name, translations
from site_builder.vocabulary.numbers import format_number
from site_builder.vocabulary.provenance import FIGURE_LANGUAGE

LOCALES = Path(__file__).with_name("locales")
DOMAIN = "figures"
SOURCE_LANGUAGE = FIGURE_LANGUAGE
"""The language the figures are written in; its drawings are the baselines in figures/baseline/."""
LANGUAGES: tuple[str, ...] = (SOURCE_LANGUAGE, *sorted(
    po.parents[1].name for po in LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po")))
"""Every language the figures are drawn in: the source, then each language with a catalog (``en``)."""

_drawing: ContextVar[str] = ContextVar("the language figures are drawn in", default=SOURCE_LANGUAGE)


@contextmanager
def drawing_in(language: str) -> Iterator[None]:
    """While drawing a figure: ``tr`` and ``number`` speak ``language``."""
    token = _drawing.set(language)
    try:
        yield
    finally:
        _drawing.reset(token)


def is_source(language: str) -> bool:
    """Whether ``language`` is the one the figures are written in (no catalog, no subfolder of its own)."""
    return catalog_name(language) == catalog_name(SOURCE_LANGUAGE)


def translated(text: str, language: str) -> str:
    """``text`` (source text, a message id) in ``language``; itself where the catalog has no translation."""
    return text if is_source(language) else translations(language, LOCALES, DOMAIN).gettext(text)


def tr(text: str, /, **params: Any) -> str:
    """``text`` in the language being drawn, its ``{name}`` slots filled from ``params`` (a text without
    params is not a format string: its braces, e.g. mathtext's, stay as written)."""
    said = translated(text, _drawing.get())
    return said.format(**params) if params else said


def tr_later(text: str) -> str:
    """Mark ``text`` for the catalog, unchanged: it is translated later, with ``translated``."""
    return text


def number(value: float, spec: str = "") -> str:
    """``format(value, spec)`` written with the drawing language's decimal and group symbols."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    locale = catalog_name(_drawing.get())
    return format(value, spec).translate({ord("."): get_decimal_symbol(locale), ord(","): get_group_symbol(locale)})


def percent(value: float, _position: object = None) -> str:
    """An axis tick as a percentage, with the decimals it needs, up to three (2.5 %, not 2 %; 0.25 %, not 0.2 %)."""
    value = 0.0 if abs(value) < 1e-12 else value  # no "-0%" for a tick a hair below zero
    decimals = next((d for d in (0, 1, 2) if abs(value * 10 ** (d + 2) - round(value * 10 ** (d + 2))) < 1e-6), 3)
    return number(value, f".{decimals}%")


def shown(value: float, unit: str = "") -> str:
    """A value cited on a page, drawn as the page writes it (``format_number``: three significant figures,
    ``2.22×10⁻¹⁵``, binary byte units): the figure and the table or sentence beside it round alike."""
    return format_number(value, unit)


def catalog_digest(language: str) -> str:
    """The bytes of ``language``'s catalog as text ('' for the source language): part of a drawing's cache key."""
    import hashlib

    po = LOCALES / catalog_name(language) / "LC_MESSAGES" / f"{DOMAIN}.po"
    return "" if is_source(language) or not po.is_file() else hashlib.sha256(po.read_bytes()).hexdigest()
