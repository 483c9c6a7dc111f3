"""Reader-language text for the numbers page: ``content/values.yml``.

lessonmodel and the records describe their values in English (they are also read as JSON by
programs); the course's readers read Chinese. This optional file gives each group (experiment
or record) a title and each value a description in the course's language::

    groups:
      equivalence: 缓存路径与完整重算是否一致
    values:
      equivalence.max_abs_diff: 所有前缀、偏移和 KV 头数下，两条路径的 logit 最大绝对差
      decode_timing.cached_ms_p{prompt}: 缓存路径，提示 {prompt} 个 token：每生成一个 token 的耗时中位数

    records:
      equivalence_early:
        date: 不详
        machine: 未记录

``records`` gives a record's reader-visible texts (``RECORD_TEXT_KEYS``) in the reader's language, for a
record that was written in another (a translation's records are the source's); a record with no entry
keeps its own text. A record id that does not exist, or a text the record does not have, is a ``path:line``
problem.

A ``{name}`` in a key matches digits and may be repeated in the text. A value with no entry
keeps its English description; an entry that matches no value is reported with ``path:line``.
The text is text with named slots, never a format string: a brace that is not a slot of its key
(``{a, b}``, a lone ``{``, a width such as ``{n:>9}``) is a ``path:line`` problem.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from site_builder.load.yamlnodes import Located, load_located
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem, suggest

if TYPE_CHECKING:  # content.py imports this module
    from site_builder.load.content import Record, SourceFile

KEYS = ("groups", "values", "records")
RECORD_TEXT_KEYS = ("date", "machine", "conditions", "command")
"""The fields of a record readers see beside its values (its title is the group title, under ``groups``)."""
_PLACEHOLDER = re.compile(r"\\\{([a-z_]+)\\\}")
_SLOT = re.compile(r"\{([a-z_]+)\}")
_BRACES = re.compile(r"\{[^{}\n]*\}|[{}]")


@dataclass(frozen=True)
class ValueText:
    """Titles and descriptions in the reader's language; empty when the file is absent."""

    groups: tuple[tuple[str, str, int], ...] = ()
    """(group name, title, line) for every group entry."""
    patterns: tuple[tuple[str, str, int], ...] = ()
    """(key as written, description template, line) for every value entry."""
    records: tuple[tuple[str, int, tuple[tuple[str, str, int], ...]], ...] = ()
    """(record id, line, its (field, text, line)s) for every record entry."""
    path: str = ""

    def group_title(self, group: str) -> str:
        return next((title for name, title, _line in self.groups if name == group), "")

    def record_line(self, record: str, key: str) -> int:
        """The line of record ``record``'s ``key`` text in this file (0: the file does not give it)."""
        return next((line for record_id, _line, entries in self.records if record_id == record
                     for said_key, _text, line in entries if said_key == key), 0)

    def describe(self, name: str) -> str:
        """The description of value ``name``, or "" when the file has none."""
        for key, text, _line in self.patterns:
            if pattern := _key_regex(key):
                if match := pattern.fullmatch(name):
                    return _filled(text, match.groupdict())
            elif key == name:
                return _filled(text, {})
        return ""


def _filled(text: str, slots: dict[str, str]) -> str:
    return _SLOT.sub(lambda slot: slots[slot.group(1)], text)


@functools.lru_cache(maxsize=1024)
def _key_regex(key: str) -> re.Pattern[str] | None:
    """The expression of a key with ``{name}`` slots; ``None`` for a key without, which matches only itself.

    Kept, and ``None`` for most keys: ``describe`` tries every key for each value it is asked about, and each
    site's numbers page, search and gallery ask about every value. Escaping and matching every key anew each
    time was a third of the real course's build, and ``check_value_text`` alone took 0.6–1.1 s of every save."""
    escaped = re.escape(key)
    source = _PLACEHOLDER.sub(r"(?P<\1>\\d+)", escaped)
    return re.compile(source) if source != escaped else None


def parse_value_text(source: SourceFile | None) -> tuple[ValueText, list[Problem]]:
    """Read ``content/values.yml`` (None: the file does not exist)."""
    if source is None:
        return ValueText(), []
    located, problems = load_located(source.text, source.path)
    if located is None or not isinstance(located.value, dict):
        return ValueText(), problems + ([] if located is None else [Problem(source.path, 1, _("must be a mapping"))])
    problems += [Problem(source.path, item.line, _("unknown key '{key}'", key=key)
                         + _(" (allowed: {names})", names=", ".join(KEYS)))
                 for key, item in located.children.items() if key not in KEYS]
    parts: dict[str, list[tuple[str, str, int]]] = {"groups": [], "values": []}
    for part in ("groups", "values"):
        node = located.children.get(part)
        if node is None:
            continue
        if not isinstance(node.value, dict):
            problems.append(Problem(source.path, node.line, _("'{part}' must map names to text", part=part)))
            continue
        for key, item in node.children.items():
            if not isinstance(item.value, str) or not item.value.strip():
                problems.append(Problem(source.path, item.line, _("'{key}' needs a line of text", key=key)))
            elif part == "values" and (wrong := _slot_problem(str(key), item.value)):
                problems.append(Problem(source.path, item.line, wrong))
            else:
                parts[part].append((str(key), item.value.strip(), item.line))
    records = _record_texts(located.children.get("records"), source.path, problems)
    return ValueText(tuple(parts["groups"]), tuple(parts["values"]), records, source.path), problems


def _record_texts(node: Located | None, path: str,
                  problems: list[Problem]) -> tuple[tuple[str, int, tuple[tuple[str, str, int], ...]], ...]:
    """``records``: record id → {field: text}; a field readers do not see is reported here."""
    if node is None:
        return ()
    if not isinstance(node.value, dict):
        problems.append(Problem(path, node.line, _("'{part}' must map names to text", part="records")))
        return ()
    entries = []
    for record_id, entry in node.children.items():
        if not isinstance(entry.value, dict):
            problems.append(Problem(path, entry.line, _("'{key}' must map {names} to text", key=record_id,
                                                        names=", ".join(RECORD_TEXT_KEYS))))
            continue
        texts = []
        for key, item in entry.children.items():
            if key not in RECORD_TEXT_KEYS:
                problems.append(Problem(path, item.line, _("unknown key '{key}'", key=key)
                                        + _(" (allowed: {names})", names=", ".join(RECORD_TEXT_KEYS))))
            elif not isinstance(item.value, str) or not item.value.strip():
                problems.append(Problem(path, item.line, _("'{key}' needs a line of text", key=key)))
            else:
                texts.append((str(key), item.value.strip(), item.line))
        entries.append((str(record_id), entry.line, tuple(texts)))
    return tuple(entries)


def with_record_texts(records: tuple[Record, ...], text: ValueText) -> tuple[tuple[Record, ...], list[Problem]]:
    """``records`` with ``text``'s texts in place of their own; a text for no record, or for a field the record
    does not have, is a problem (the record's own text would otherwise show unnoticed)."""
    known = {record.id: record for record in records}
    problems, texts = [], {}
    for record_id, line, entries in text.records:
        if record_id not in known:
            problems.append(Problem(text.path, line, _("no record named '{record}'", record=record_id)
                                    + suggest(record_id, known) + _(" (records are content/records/*.json)")))
            continue
        problems += [Problem(text.path, key_line, _("record '{record}' has no '{key}' to translate",
                                                    record=record_id, key=key))
                     for key, _said, key_line in entries if key not in known[record_id].data]
        texts[record_id] = {key: said for key, said, _line in entries if key in known[record_id].data}
    return tuple(replace(r, data={**r.data, **texts[r.id]}) if r.id in texts else r for r in records), problems


def _slot_problem(key: str, text: str) -> str:
    """What is wrong with the braces of a value entry ('' if nothing): every ``{name}`` of the text must be a
    slot of the key, each slot named once in the key, and no other brace anywhere."""
    slots = _SLOT.findall(key)
    if len(slots) != len(set(slots)) or not all(map(_SLOT.fullmatch, _BRACES.findall(key))):
        return _("'{key}': a key may hold each {{name}} slot once, and no other brace", key=key)
    for brace in _BRACES.findall(text):
        if _SLOT.fullmatch(brace) is None or _SLOT.fullmatch(brace).group(1) not in slots:
            return _("'{key}': '{brace}' is not a slot of the key (slots: {names}): write a slot as {{name}} "
                     "with a name from the key, and no other braces", key=key, brace=brace,
                     names=", ".join(f"{{{s}}}" for s in slots) or _("none"))
    return ""


def check_value_text(text: ValueText, value_names: set[str], groups: set[str]) -> list[Problem]:
    """Entries that describe nothing: a renamed value would otherwise lose its text silently."""
    problems = []
    for key, _text, line in text.patterns:
        if not (any(map(pattern.fullmatch, value_names)) if (pattern := _key_regex(key)) else key in value_names):
            problems.append(Problem(text.path, line, _("no value matches '{key}'", key=key)))
    for group, _title, line in text.groups:
        if group not in groups:
            problems.append(Problem(text.path, line, _("no experiment or record named '{group}'", group=group)))
    return problems
