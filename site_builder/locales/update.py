"""Refresh the message catalogs from the code and templates: ``python site_builder/locales/update.py``.

Runs Babel's extractor (babel.cfg at the project root) into messages.pot, then
updates each language's messages.po, keeping existing translations; new
messages arrive untranslated (and show in English until translated). The tests
fail while a zh_CN message is untranslated (tests/test_i18n.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LANGUAGES = ("zh_CN", "en")


def main() -> None:
    pot = HERE / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg",
                    "-k", "_", "-k", "ngettext:1,2", "--no-location", "--sort-output", "--omit-header",
                    "-o", str(pot), "."], cwd=ROOT, check=True, capture_output=True)
    template = read_po(pot.open("rb"))
    for language in LANGUAGES:
        po = HERE / language / "LC_MESSAGES" / "messages.po"
        old = read_po(po.open("rb")) if po.is_file() else Catalog(locale=language)
        catalog = Catalog(locale=language, project="verified-lessons", version="1")
        for message in template:
            if message.id:
                kept = old.get(message.id)
                catalog.add(message.id, kept.string if kept else "", flags=message.flags)
        po.parent.mkdir(parents=True, exist_ok=True)
        with po.open("wb") as f:
            write_po(f, catalog, sort_output=True, no_location=True, width=120, omit_header=True)
        untranslated = [m.id for m in catalog if m.id and not m.string]
        print(f"{po.relative_to(ROOT)}: {len(catalog)} messages, {len(untranslated)} untranslated")


if __name__ == "__main__":
    main()
