"""The engine's parsed pages between processes: source digest → the parsed page, as JSON lines.

A new process would otherwise parse every page again (about 1.4 s of CPU at 1000 pages). One file, one
line per page: the source digest, the SHA-256 of that digest and the entry, and the entry, tab-separated.
An entry is the page's outline (everything but its tokens) and its token runs, two JSON texts joined by
a tab (JSON escapes the tabs of strings). The outline is decoded when the page is read back; the tokens,
nine tenths of the bytes, when the page is first rendered (``StoredTokens``): a build that renders
a few pages (an edit in a new process) checks every page but decodes the tokens of those alone.

An entry is used only when it still has its digest and its outline decodes into the types a parse makes;
anything else is parsed again (and written anew), so the store can only miss, never serve a page its
source would not parse to. The tokens of an entry with its digest are the text ``encode`` wrote for that
source. JSON, not pickle: reading it runs no code. Pages with problems or warnings are not kept (they
are rare, and their messages are i18n objects): they are parsed again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from site_builder.load.frontmatter import PageMeta
from site_builder.parse.page import ParsedPage, RoleUse, StateSource
from site_builder.vocabulary.atomic import write_atomic

_CLASSES = {cls.__name__: cls for cls in (ParsedPage, PageMeta, StateSource, RoleUse)}
"""The dataclasses a parsed page is made of: the only ones an entry may name."""
_TOKEN_FIELDS = tuple(f.name for f in dataclasses.fields(Token))
_TOKEN = operator.attrgetter(*_TOKEN_FIELDS)
_CHILDREN = _TOKEN_FIELDS.index("children")
_SCALAR_FIELDS = operator.attrgetter(*(name for name in _TOKEN_FIELDS
                                        if name not in ("attrs", "map", "meta", "children")))
_SCALARS = frozenset({str, int, bool, type(None)})
"""What JSON gives back as it was (a float may not: NaN)."""


class _NotKept(Exception):
    """The page holds something this store does not write (it is parsed again next time)."""


def encode(page: ParsedPage) -> bytes:
    """The page as an entry: its outline and its token runs, each one line of JSON (UTF-8), joined by a tab. A tuple is
    an array, a token ``{"k": [fields]}``, a dataclass ``{"c": name, "f": [fields]}``, a token run in the outline
    ``{"r": its index among the runs}``. Raises ``_NotKept`` for a value JSON would not give back as it is."""
    runs: list[tuple[Token, ...]] = []

    def run(tokens: tuple[Token, ...]) -> _Run:
        runs.append(tuple(tokens))
        return _Run(len(runs) - 1)

    # The tokens stand in the page's blocks alone: the runs between states, and a state's four parts.
    blocks = tuple(dataclasses.replace(b, caption=run(b.caption), body=run(b.body), more=run(b.more),
                                       teacher=run(b.teacher)) if isinstance(b, StateSource) else run(b)
                   for b in page.blocks)
    outline = _json(dataclasses.replace(page, blocks=blocks))
    return f"{outline}\t{_json(runs)}".encode()


def _json(value: Any) -> str:
    return json.dumps(value, default=_encoded, ensure_ascii=False, separators=(",", ":"), check_circular=False)


@dataclasses.dataclass(frozen=True)
class _Run:
    """Where a token run stood in the outline."""

    index: int


def _encoded(value: Any) -> dict:
    """What ``json`` cannot write by itself (it writes tuples as arrays, and a page holds no list
    outside its tokens)."""
    if type(value) is _Run:
        return {"r": value.index}
    if type(value) is Token:
        # Most tokens have no attributes and no meta: checked inline, as a call per field would cost
        # about as much as the encoding itself (180,000 tokens at 1000 pages).
        attrs, meta = value.attrs, value.meta
        if not (_SCALARS.issuperset(map(type, _SCALAR_FIELDS(value)))
                and (type(attrs) is dict and not attrs or _plain(attrs)) and _plain(value.map)
                and (type(meta) is dict and not meta or _plain(meta))):
            raise _NotKept(value)
        return {"k": _TOKEN(value)}
    if type(value) is _CLASSES.get(type(value).__name__):
        fields = [getattr(value, f.name) for f in dataclasses.fields(value)]
        if any(type(field) in (list, dict) or isinstance(field, str) and type(field) is not str for field in fields):
            raise _NotKept(value)  # JSON would give back a tuple, or a plain str (Markup, say)
        return {"c": type(value).__name__, "f": fields}
    raise _NotKept(value)


def encode_kept(page: ParsedPage) -> bytes:
    """``encode(page)``, or ``b''`` when the page holds what the store does not write."""
    try:
        return encode(page)
    except _NotKept:
        return b""


def _plain(value: Any) -> bool:
    """Whether JSON gives ``value`` back equal and of the same types (lists, not tuples)."""
    if type(value) in _SCALARS:
        return True
    if type(value) is list:
        return _SCALARS.issuperset(map(type, value)) or all(map(_plain, value))
    if type(value) is dict:
        return {str}.issuperset(map(type, value)) and (_SCALARS.issuperset(map(type, value.values()))
                                                      or all(map(_plain, value.values())))
    return False


def decode(text: bytes, lazy: bool = False) -> ParsedPage:
    """The page ``encode`` wrote; raises ``ValueError`` (and its kin) for anything else. ``lazy``: the tokens are
    decoded when first used (``StoredTokens``), not now."""
    outline, tokens = text.split(b"\t")
    runs = _Runs(tokens)
    page = _decoded(json.loads(outline), runs)
    if type(page) is not ParsedPage:
        raise ValueError("not a parsed page")
    if not lazy:
        runs.decoded()
        page = dataclasses.replace(page, blocks=tuple(map(_materialized, page.blocks)))
    return page


def _decoded(value: Any, runs: _Runs) -> Any:
    if type(value) is list:
        return tuple(_decoded(item, runs) for item in value)
    if type(value) is not dict:
        return value
    if "r" in value:
        return StoredTokens(runs, value["r"])
    return _CLASSES[value["c"]](*(_decoded(item, runs) for item in value["f"]))


def _materialized(block: StoredTokens | StateSource) -> tuple[Token, ...] | StateSource:
    if type(block) is StoredTokens:
        return block.tokens
    return dataclasses.replace(block, caption=block.caption.tokens, body=block.body.tokens, more=block.more.tokens,
                               teacher=block.teacher.tokens)


class _Runs:
    """A page's token runs as stored, decoded all at once on first use."""

    __slots__ = ("text", "runs")

    def __init__(self, text: bytes) -> None:
        self.text, self.runs = text, None

    def decoded(self) -> list[tuple[Token, ...]]:
        if self.runs is None:
            self.runs = [tuple(_token(token["k"]) for token in run) for run in json.loads(self.text)]
            self.text = b""
        return self.runs


class StoredTokens(Sequence):
    """A token run of a page read back from the store, decoded on first use; in every other way the tuple it
    stands for (equal to it, added to it, the same ``repr``)."""

    __slots__ = ("_runs", "_index")
    __hash__ = None  # as the tuple's: tokens are not hashable

    def __init__(self, runs: _Runs, index: int) -> None:
        self._runs, self._index = runs, index

    @property
    def tokens(self) -> tuple[Token, ...]:
        return self._runs.decoded()[self._index]

    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, index: int | slice) -> Token | tuple[Token, ...]:
        return self.tokens[index]

    def __iter__(self) -> Iterator[Token]:
        return iter(self.tokens)

    def __add__(self, other: Sequence[Token]) -> tuple[Token, ...]:
        return self.tokens + tuple(other)

    def __radd__(self, other: Sequence[Token]) -> tuple[Token, ...]:
        return tuple(other) + self.tokens

    def __eq__(self, other: object) -> bool:
        return self.tokens == (other.tokens if type(other) is StoredTokens else other)

    def __repr__(self) -> str:
        return repr(self.tokens)


def _token(fields: list) -> Token:
    children = fields[_CHILDREN]
    if children is not None:
        fields[_CHILDREN] = [_token(child["k"]) for child in children]
    return Token(*fields)


def entry(parsed: tuple[ParsedPage | None, list]) -> bytes:
    """A parse (page and problems) as the store keeps it; ``b''`` for one it does not keep (a page that failed,
    has problems or warnings, or holds what JSON would not give back)."""
    page, problems = parsed
    return encode_kept(page) if page is not None and not problems and not page.warnings else b""


def read_entry(text: bytes | None, lazy: bool = False) -> tuple[ParsedPage, list] | None:
    """The parse an ``entry`` holds, or ``None`` (none kept, or not one this code reads: it is parsed again).
    ``lazy``: see ``decode``."""
    try:
        return (decode(text, lazy), []) if text else None
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def load(file: Path | None) -> dict[str, bytes]:
    """Source digest → the entry, for the entries that still have their recorded digest. Bytes, not text: most of
    an entry is tokens that may never be decoded."""
    try:
        lines = file.read_bytes().split(b"\n") if file else []
    except OSError:
        return {}
    entries = {}
    for line in lines:
        key, sha, text = (line.split(b"\t", 2) + [b"", b""])[:3]
        if text and _digest(key, text) == sha:
            entries[key.decode("ascii", "replace")] = text
    return entries


def save(file: Path, entries: dict[str, bytes]) -> None:
    """Keep ``entries`` (source digest → entry), each with the SHA-256 of its key and entry."""
    write_atomic(file, b"".join(b"%s\t%s\t%s\n" % (key.encode(), _digest(key.encode(), text), text)
                                for key, text in entries.items()))


def _digest(key: bytes, text: bytes) -> bytes:
    """An entry's digest covers its key too: a line moved to another key is not that key's page."""
    digest = hashlib.sha256(key)
    digest.update(b"\t")
    digest.update(text)
    return digest.hexdigest().encode()
