"""Refresh the message catalogs from the code and templates: ``python site_builder/locales/update.py``.

Runs Babel's extractor (babel.cfg at the project root) into messages.pot, then
updates each language's messages.po, keeping existing translations; new
messages arrive untranslated (and show in English until translated). The tests
fail while a zh_CN message is untranslated (tests/test_i18n.py). Then the same for
the figures' text (``tr``/``tr_later``, figures/i18n.py) into figures/locales/:
an untranslated figure text is drawn in Chinese, and tests/test_figure_text.py fails.
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
FIGURE_LOCALES = ROOT / "figures" / "locales"
FIGURE_LANGUAGES = ("en",)
"""The figures' own catalogs (figures/i18n.py): their text is written in Chinese, so only other languages have one."""


def main() -> None:
    refresh(["-F", "babel.cfg", "-k", "_", "-k", "ngettext:1,2"], ".", HERE, "messages", LANGUAGES)
    refresh(["--no-default-keywords", "-k", "tr", "-k", "tr_later"], "figures", FIGURE_LOCALES, "figures",
            FIGURE_LANGUAGES)


def refresh(options: list[str], source: str, locales: Path, domain: str, languages: tuple[str, ...]) -> None:
    """Extract ``domain``'s messages from ``source`` (with pybabel's ``options``) into ``locales/<domain>.pot``,
    then update each language's ``.po`` from it."""
    pot = locales / f"{domain}.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", *options, "--no-location",
                    "--sort-output", "--omit-header", "-o", str(pot), source], cwd=ROOT, check=True,
                   capture_output=True)
    template = read_po(pot.open("rb"))
    for language in languages:
        po = locales / language / "LC_MESSAGES" / f"{domain}.po"
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
