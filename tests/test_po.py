"""The catalogs' reader (site_builder/vocabulary/po.py) says what gettext says with the catalog Babel compiles,
for every message of every catalog of the project and for the .po forms Babel or a translator may write."""

from __future__ import annotations

import gettext
import io
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po as babel_read_po

from site_builder.vocabulary.i18n import translations
from site_builder.vocabulary.po import Catalog, read_po

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = sorted(p for folder in ("site_builder", "figures") for p in (ROOT / folder).rglob("*.po"))

WRITTEN_BY_HAND = r'''# a translator's file: a header with plural forms, flags, contexts, escapes, lines run together
msgid ""
msgstr ""
"Language: en\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#, python-format
msgid "one %(n)s"
msgid_plural "many %(n)s"
msgstr[0] "a single %(n)s"
msgstr[1] "several %(n)s"
msgid "no plural yet"
msgid_plural "no plurals yet"
msgstr[0] ""
msgstr[1] ""

#, fuzzy, python-format
msgid "guessed"
msgstr "a guess"

msgctxt "menu"
msgid "Open"
msgstr "Open the menu"
#: somewhere.py:3
msgid "Open"
msgstr "Open it"

msgid ""
"a message "
"on two lines"
msgstr "with \"quotes\", a tab\tand a line\nbreak, a backslash \\ "
"and more"

msgid "untranslated"
msgstr ""

msgid "TeX"
msgstr "\\frac needs a denominator; \\begin and \left stay as written"

msgid "TeX"
msgstr "the second of an id given twice"

#, fuzzy
#~ msgid "obsolete"
#~ msgstr "gone"
msgid "after an obsolete entry"
msgstr "not fuzzy"
'''


def _babel(text: str, locale: str) -> gettext.GNUTranslations:
    compiled = io.BytesIO()
    write_mo(compiled, babel_read_po(io.StringIO(text), locale=locale))
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _said(catalog: gettext.NullTranslations, ids: list[str]) -> list[str]:
    return [catalog.gettext(i) for i in ids] + [catalog.ngettext(i, i + "s", n) for i in ids for n in range(4)] \
        + [catalog.pgettext("menu", i) for i in ids]


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_message_of_every_catalog_reads_as_babel_compiles_it(po):
    text = po.read_text(encoding="utf-8")
    locale = po.parent.parent.name
    messages, _plural = read_po(text)
    ids = [m.id if isinstance(m.id, str) else m.id[0] for m in babel_read_po(io.StringIO(text), locale=locale) if m.id]
    assert ids and len({k if isinstance(k, str) else k[0] for k in messages}) <= len(ids)
    ours = translations(locale, po.parents[2], po.stem)
    assert _said(ours, ids) == _said(_babel(text, locale), ids)


def test_a_file_written_by_hand_reads_as_babel_compiles_it():
    messages, plural = read_po(WRITTEN_BY_HAND)
    assert plural == "(n != 1)"
    assert messages["a message on two lines"] == 'with "quotes", a tab\tand a line\nbreak, a backslash \\ and more'
    assert messages["menu\x04Open"] == "Open the menu" and messages["Open"] == "Open it"
    assert not {"guessed", "untranslated", "obsolete"} & set(messages)
    assert messages["TeX"] == "\\frac needs a denominator; \\begin and \\left stay as written"
    assert messages["after an obsolete entry"] == "not fuzzy"
    assert messages[("no plural yet", 1)] == "no plurals yet"  # an empty form says the id's own
    catalog = Catalog(messages, gettext.c2py(plural))
    ids = ["one %(n)s", "no plural yet", "guessed", "Open", "a message on two lines", "untranslated", "obsolete",
           "TeX", "after an obsolete entry"]
    assert _said(catalog, ids) == _said(_babel(WRITTEN_BY_HAND, "en"), ids)
