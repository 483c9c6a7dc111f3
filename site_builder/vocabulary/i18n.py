"""Messages in the course's language: gettext catalogs (``locales/<lang>/LC_MESSAGES/messages.po``, ``po.py``).

Message ids are English. Code marks a message with ``_("unknown value '{name}'", name=name)``,
which returns a ``Text``: a ``str`` holding the English text (so ``str(problem)``,
comparisons and logs stay as they were) that also remembers its message ids and
parameters, so an edge (the terminal, the dev server's overlay) can say it in the
course's language with ``localize(text, language)``. A message without a translation,
or a plain string, comes out in English. Templates use Jinja's i18n extension with
the same catalogs (``install(env, language)``).
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import Markup

from site_builder.vocabulary.po import Catalog, read_po

LOCALES = Path(__file__).parents[1] / "locales"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "zh-CN"
"""The language of a course whose site.yml cannot be read (the first course is Chinese)."""


class Text(str):
    """English text that can also be said in another language (see the module docstring)."""

    parts: tuple[tuple[str, dict[str, Any] | None], ...]
    """(message id, parameters) pieces; parameters ``None`` marks a literal that is never translated."""

    def __new__(cls, msgid: str, /, **params: Any) -> Text:
        return cls._of(((msgid, params),))

    @classmethod
    def _of(cls, parts: tuple[tuple[str, dict[str, Any] | None], ...]) -> Text:
        text = super().__new__(cls, "".join(_say(part, None) for part in parts))
        text.parts = parts
        return text

    def __add__(self, other: str) -> Text:  # type: ignore[override]
        return Text._of(self.parts + _parts(other))

    def __radd__(self, other: str) -> Text:
        return Text._of(_parts(other) + self.parts)

    def map(self, change: Callable[[str], str]) -> Text:
        """The same message with ``change`` applied to every literal and parameter (not to message ids)."""
        return Text._of(tuple((change(m), None) if p is None else (m, {k: _change(v, change) for k, v in p.items()})
                              for m, p in self.parts))

    def localized(self, translate: Callable[[str], str]) -> str:
        return "".join(_say(part, translate) for part in self.parts)


def _change(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, Text):
        return value.map(change)
    return change(value) if isinstance(value, str) else value


def _parts(value: str) -> tuple[tuple[str, dict[str, Any] | None], ...]:
    return value.parts if isinstance(value, Text) else ((str(value), None),)


def _say(part: tuple[str, dict[str, Any] | None], translate: Callable[[str], str] | None) -> str:
    msgid, params = part
    if params is None:
        return msgid
    template = translate(msgid) if translate else msgid  # always a format string: literal braces are doubled
    return template.format(**{k: v.localized(translate) if translate and isinstance(v, Text) else v
                              for k, v in params.items()})


_ = Text
"""Mark a message for translation (the name Babel's extractor looks for)."""


def catalog_name(language: str) -> str:
    """The catalog folder for a site's ``language`` (``zh-CN`` → ``zh_CN``; ``en-GB`` → ``en``)."""
    return "zh_CN" if language.lower().startswith("zh") else language.replace("-", "_").split("_")[0].lower()


@functools.cache
def translations(language: str, locales: Path = LOCALES, domain: str = DOMAIN) -> gettext.NullTranslations:
    """The catalog for ``language`` (read from its .po file), or none (message ids as they are).

    ``locales`` and ``domain``: another set of catalogs read the same way (the figures' own, figures/i18n.py)."""
    po = locales / catalog_name(language) / "LC_MESSAGES" / f"{domain}.po"
    if not po.is_file():
        return gettext.NullTranslations()
    messages, plural = read_po(po.read_text(encoding="utf-8"))
    return Catalog(messages, gettext.c2py(plural) if plural else lambda n: _plural_rule(catalog_name(language))(n))


@functools.cache
def _plural_rule(locale: str) -> Callable[[int], int]:
    """CLDR's plural rule for a catalog without a Plural-Forms header (Babel writes none): asked for only
    when a message has plural forms, so a command that says none does not import Babel."""
    from babel.messages.plurals import get_plural

    return gettext.c2py(get_plural(locale).plural_expr)


def localize(text: str, language: str) -> str:
    """``text`` in ``language``: translated if it is a ``Text`` with a catalog entry, else as it is."""
    return text.localized(translations(language).gettext) if isinstance(text, Text) else str(text)


def install(env: Any, language: str) -> None:
    """Give a Jinja environment (with ``jinja2.ext.i18n``) the catalog of ``language``.

    ``{{ _("…") }}`` then means what the extension's new-style gettext means in an autoescaping
    environment (the translation is markup, its ``%(name)s`` variables are escaped), but a message
    without variables is translated once per site instead of on every page: the extension's
    context call on each of a page's ~90 messages was a sixth of rendering.
    """
    catalog = translations(language)
    env.install_gettext_translations(catalog, newstyle=True)
    translated = functools.lru_cache(maxsize=None)(lambda message: Markup(catalog.gettext(message)) % {})

    def template_gettext(message: str, **variables: Any) -> Markup:
        return Markup(catalog.gettext(message)) % variables if variables else translated(message)

    env.globals["_"] = template_gettext
