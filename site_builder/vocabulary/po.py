"""Gettext catalogs (``.po``) read with the standard library alone: what a build needs of them at run time.

Babel writes and refreshes the catalogs (``site_builder/locales/update.py``); reading one back is a few
dictionary entries per message, and Babel's parser with the ``.mo`` round trip gettext wanted cost every
command ~50 ms. The one-line message of ``serve/venv.py`` reads a catalog before any package is installed,
so this module imports nothing outside the standard library.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable

_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")\s*$')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r'\\([\\trn"])')
"""The escapes Babel writes and reads; any other backslash is kept (a message may quote TeX: ``\\frac``)."""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
CONTEXT = "\x04"
"""Between a message's context and its id in a key, as in gettext's compiled catalogs."""


def read_po(text: str) -> tuple[dict[str | tuple[str, int], str], str]:
    """(messages, the header's ``Plural-Forms`` expression or ''): msgid (``context`` + CONTEXT + msgid
    with a context) → msgstr, and a plural's forms as (msgid, n) → msgstr[n]. Entries that are fuzzy,
    untranslated or obsolete (``#~``) are left out, as Babel's compiled catalog leaves them out; of an id
    given twice, the first is kept."""
    messages: dict[str | tuple[str, int], str] = {}
    plural = ""
    entry: dict[str, list[str]] = {}
    fuzzy, last = False, ""
    for line in (*text.splitlines(), ""):
        line = line.strip()
        keyword = _KEYWORD.match(line)
        starts = line.startswith("#") or (keyword and keyword.group(1) in ("msgctxt", "msgid"))
        if not line or (starts and any(k.startswith("msgstr") for k in entry)):  # the entry before is whole
            plural = _add(entry, fuzzy, messages) or plural
            entry, fuzzy, last = {}, False, ""
        if line.startswith("#~"):  # an obsolete entry: its flags go with it
            entry, fuzzy, last = {}, False, ""
        elif line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in (flag.strip() for flag in line[2:].split(","))
        elif keyword:
            last = keyword.group(1)
            entry[last] = [keyword.group(2)]
        elif line.startswith('"') and last:
            entry[last].append(line)
    return messages, plural


def _add(entry: dict[str, list[str]], fuzzy: bool, messages: dict) -> str:
    """Put one entry into ``messages``; the header's plural expression, if it is the header."""
    if "msgid" not in entry:
        return ""
    said = {keyword: _unquoted(pieces) for keyword, pieces in entry.items()}
    msgid = said["msgid"]
    if not msgid:
        forms = re.search(r"^Plural-Forms:.*?plural=([^;\n]+)", said.get("msgstr", ""), re.MULTILINE)
        return forms.group(1).strip() if forms else ""
    if fuzzy:
        return ""
    key = f"{said['msgctxt']}{CONTEXT}{msgid}" if "msgctxt" in said else msgid
    if "msgid_plural" in entry and (key, 0) not in messages:  # an id given twice: the first, as Babel reads it
        # A form left empty says the id's own (singular first), as Babel compiles it.
        messages.update({(key, int(k[7:-1])): text or (said["msgid_plural"] if k != "msgstr[0]" else msgid)
                         for k, text in said.items() if k.startswith("msgstr[")})
    elif said.get("msgstr"):
        messages.setdefault(key, said["msgstr"])
    return ""


def _unquoted(pieces: list[str]) -> str:
    return "".join(_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), piece)
                   for quoted in pieces for piece in _STRING.findall(quoted))


class Catalog(gettext.NullTranslations):
    """One language's messages for gettext's callers (``localize``, Jinja's i18n extension): an entry
    that is missing says the message id, as gettext does."""

    def __init__(self, messages: dict[str | tuple[str, int], str], plural: Callable[[int], int]) -> None:
        super().__init__()
        self._messages, self._plural = messages, plural

    def gettext(self, message: str) -> str:
        return self._one(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._forms(singular, singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return self._one(f"{context}{CONTEXT}{message}", message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._forms(f"{context}{CONTEXT}{singular}", singular, plural, n)

    def _one(self, key: str, message: str) -> str:
        """A message's translation; a message with plural forms says its form for one, as gettext does."""
        found = self._messages.get(key)
        return found if found is not None else self._forms(key, message, message, 1)

    def _forms(self, key: str, singular: str, plural: str, n: int) -> str:
        """The form for ``n``; the plural rule is asked only of a message that has forms (it may import Babel)."""
        found = self._messages.get((key, self._plural(n))) if (key, 0) in self._messages else None
        return found if found is not None else singular if n == 1 else plural
