"""A BibTeX file (``content/references.bib``) read as sources, for MyST's ``{cite}`key```.

Only what the sources page shows is read: ``title``, ``author``, ``year`` and ``url`` (or ``doi``). A key
becomes a source id by the rule of ``sources.yml`` (letters, digits and ``-``): every other run of
characters is one ``-`` (``Vaswani.2017`` → ``Vaswani-2017``), and ``{cite}`` looks keys up the same way.
"""

from __future__ import annotations

import re

from site_builder.load.content import Source, SourceFile
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem

_ENTRY = re.compile(r"@([A-Za-z]+)\s*\{\s*([^,\s]+)\s*,")
_FIELD = re.compile(r"\s*([A-Za-z_-]+)\s*=\s*")


def source_id(key: str) -> str:
    """The source id of a BibTeX key."""
    return re.sub(r"[^A-Za-z0-9-]+", "-", key.strip()).strip("-")


def cited_ids(target: str) -> list[str]:
    """The source ids a ``{cite}`` names (``a,b`` cites two)."""
    return [source_id(key) for key in target.split(",") if key.strip()]


def load_bibtex(source: SourceFile) -> tuple[tuple[Source, ...], list[Problem]]:
    """Each entry of a BibTeX file as a source; an entry without a title or that cannot be read is a problem."""
    found, problems, text = [], [], source.text
    for entry in _ENTRY.finditer(text):
        if entry.group(1).lower() in ("comment", "preamble", "string"):
            continue
        line = text.count("\n", 0, entry.start()) + 1
        fields = _fields(text, entry.end())
        if fields is None or not fields.get("title"):
            problems.append(Problem(source.path, line, _("BibTeX entry '{key}' has no title, or a brace or quote "
                                                         "that does not close", key=entry.group(2))))
            continue
        url = fields.get("url") or (f"https://doi.org/{fields['doi']}" if fields.get("doi") else "")
        found.append(Source(source_id(entry.group(2)), fields["title"], line, fields.get("author", ""),
                            fields.get("year", ""), url if url.startswith(("https://", "http://")) else ""))
    return tuple(found), problems


def _fields(text: str, at: int) -> dict[str, str] | None:
    """The ``name = {value}`` (or ``"value"``, or a bare word) fields from ``at`` to the entry's closing brace."""
    fields: dict[str, str] = {}
    while (field := _FIELD.match(text, at)) is not None:
        value, at = _value(text, field.end())
        if value is None:
            return None
        fields[field.group(1).lower()] = " ".join(value.replace("{", "").replace("}", "").split())
        at += len(text[at:]) - len(text[at:].lstrip())
        if text[at:at + 1] == ",":
            at += 1
    return fields


def _value(text: str, at: int) -> tuple[str | None, int]:
    if text[at:at + 1] == "{":
        depth = 0
        for end in range(at, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                return text[at + 1:end], end + 1
        return None, at
    if text[at:at + 1] == '"':
        end = text.find('"', at + 1)
        return (text[at + 1:end], end + 1) if end > 0 else (None, at)
    word = re.match(r"[^,}\s]+", text[at:])
    return (word.group(), at + word.end()) if word else (None, at)
