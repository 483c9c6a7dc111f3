"""YAML with line numbers, so config mistakes can name ``path:line``; strict and bounded.

Strict: a key given twice is an error (PyYAML lets the last one win silently), and only
``true``/``false`` are booleans, as in YAML 1.2 (YAML 1.1's ``yes``, ``no``, ``on``, ``off``
stay text). Bounded: nesting deeper than ``MAX_DEPTH`` is refused before anything recurses
into it. Syntax errors are said in the course's language with the line and column of the
cause, and with a hint for the usual slips: a full-width colon typed by an input method, a
tab used for indenting, a ``[`` or ``{`` never closed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from site_builder.vocabulary.i18n import DEFAULT_LANGUAGE, _
from site_builder.vocabulary.problems import Problem

MAX_DEPTH = 20
"""Deepest nesting of lists and mappings accepted (the course's files need four)."""
_BOOL = "tag:yaml.org,2002:bool"


def _yaml12(base: type) -> type:
    """``base`` with YAML 1.2's booleans: ``yes``/``no``/``on``/``off`` resolve to text."""
    loader = type(f"Strict{base.__name__}", (base,), {})
    loader.yaml_implicit_resolvers = {first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL]
                                      for first, resolvers in base.yaml_implicit_resolvers.items()}
    loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    return loader


# libyaml's parser when PyYAML was built with it: front matter of a thousand pages parses 5× faster.
LOADER = _yaml12(getattr(yaml, "CSafeLoader", yaml.SafeLoader))
_WORDING_LOADER = _yaml12(yaml.SafeLoader)


@dataclass(frozen=True)
class Located:
    """A YAML value and the 1-based line it starts on."""

    value: Any
    """The plain Python value (dict, list, str, int, …)."""
    line: int
    """Line where the value starts, counted within the parsed text."""
    children: Any = None
    """For a mapping: key → Located; for a sequence: tuple of Located."""


def load_located(text: str, path: str) -> tuple[Located | None, list[Problem]]:
    """A whole YAML file's ``parse_located``, kept by its path and text: a dev server loads every YAML file of the
    course on each save, and parsing them took a third of a save of the real course (glossary, values, sources,
    each translation's). Page front matter is parsed by ``parse_located`` alone: a thousand pages would push the
    course's files out."""
    located, problems = _kept_file(text, path)
    return located, list(problems)


@functools.lru_cache(maxsize=32)
def _kept_file(text: str, path: str) -> tuple[Located | None, tuple[Problem, ...]]:
    # Shared by every caller: nothing changes a ``Located`` or a ``Problem`` (said in a language only when shown).
    located, problems = parse_located(text, path)
    return located, tuple(problems)


def parse_located(text: str, path: str, first_line: int = 1) -> tuple[Located | None, list[Problem]]:
    """Parse YAML text, keeping the line of every mapping key and list item."""
    try:
        node = _compose(text)
        if node is None:
            return Located({}, first_line, {}), []
        if isinstance(node, yaml.ScalarNode) and (slip := _FULL_WIDTH_KEY.search(text)):
            raise _full_width(slip, text)  # the whole text read as one line of text
        return _locate(node, first_line, {}, set()), []
    except (_Slip, yaml.YAMLError) as error:
        line, message = error.args if isinstance(error, _Slip) else _said(error, text)
        return None, [Problem(path, first_line + line, message)]


class _Slip(Exception):
    """A mistake found by this module: ``args`` are its 0-based line and its message."""


_FULL_WIDTH_KEY = re.compile(r"^[ \t]*(?P<key>[^\s:：#][^:：\n]*?)[ \t]*：", re.MULTILINE)
"""``key：value`` typed with an input method's full-width colon (U+FF1A), which YAML reads as text."""


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset)


def _at(message: str, column: int) -> str:
    """``message`` with the 0-based ``column`` said the way editors count (from 1)."""
    return message + _(" (column {column})", column=column + 1)


def _full_width(slip: re.Match[str], text: str) -> _Slip:
    colon = slip.end() - 1
    message = _("'{key}' is followed by a full-width colon '：': type the ASCII colon ':' and a space instead",
                key=slip.group("key").strip())
    return _Slip(_line_of(text, colon), _at(message, colon - (text.rfind("\n", 0, colon) + 1)))


_PROBLEMS = {
    "could not find expected ':'": _("a line here is not 'key: value': add ':' and a space after the key"),
    "mapping values are not allowed here": _("a second ': ' on one line: put text that contains ': ' in quotes"),
    "found unexpected end of stream": _("a quote is not closed: end the text with the same quote it starts with"),
}
"""PyYAML's words for the common mistakes, and what to say instead."""


def _said(error: yaml.YAMLError, text: str) -> tuple[int, str]:
    """(0-based line, message in the course's language) for a PyYAML error: the cause's line, not where
    the parser gave up."""
    problem = str(getattr(error, "problem", "") or "")
    mark, context = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
    line, column = (mark.line, mark.column) if mark else (0, None)
    slip = _FULL_WIDTH_KEY.search(text)
    if slip and _line_of(text, slip.start()) <= line:
        return _full_width(slip, text).args
    tab = re.search(r"^ *\t", text, re.MULTILINE)
    if tab and ("'\\t'" in problem or "tab character" in problem):
        return _line_of(text, tab.start()), _at(_("this line is indented with a tab: YAML indents with spaces only"),
                                                tab.end() - 1 - tab.start())
    if problem in ("found unexpected end of stream", "could not find expected ':'") and context is not None:
        line, column = context.line, context.column  # where the open quote, or the key without ': ', is
    lines = text.split("\n")
    # An indented line whose first ': ' is refused (not a second one on it) was read as the line above continued.
    if problem == "mapping values are not allowed here" and mark and lines[line][:1] in (" ", "\t") \
            and (first := re.search(r":(?=\s|$)", lines[line])) and first.start() == column:
        return line, _at(_("this line is indented, so it continues the text of the line above, where ': ' is not "
                           "allowed: if it is a key of its own, line it up with the key above; else put the text in "
                           "quotes"), 0)
    closing = re.match(r"(?:did not find )?expected ',' or '([\]}])'", problem)
    if closing and context is not None:
        opening = "[" if closing.group(1) == "]" else "{"
        return context.line, _at(_("the '{opening}' here is never closed: add '{closing}' where it ends",
                                   opening=opening, closing=closing.group(1)), context.column)
    said = _PROBLEMS.get(problem) or _("invalid YAML: {reason}", reason=problem or str(error).splitlines()[0])
    return line, said if column is None else _at(said, column)


def _compose(text: str) -> yaml.Node | None:
    if _indicators(text) > MAX_DEPTH:  # else it cannot nest that deep: no need to walk its events
        _check_depth(text)
    try:
        return yaml.compose(text, Loader=LOADER)
    except yaml.YAMLError:
        # libyaml is fast but terse; errors are rare, so let the Python parser word the message.
        return yaml.compose(text, Loader=_WORDING_LOADER)


_BLOCK_ENTRY = re.compile(r"-(?=\s|\Z)")


def _indicators(text: str) -> int:
    """How many collections ``text`` can start at most: each starts at its own '[', '{', ':' (a mapping's first
    value), '?' (an explicit key) or '-' before a blank (a block list's first item); site.yml's list of a
    thousand ids in brackets has a handful."""
    return sum(map(text.count, "[{:?")) + len(_BLOCK_ENTRY.findall(text))


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` from the parser's event stream, which needs no recursion
    (composing and constructing recurse once per level: a thousand levels end in a ``RecursionError``)."""
    too_deep = _("nested more than {limit} levels deep: flatten the structure", limit=MAX_DEPTH)
    depth = 0
    try:
        for event in yaml.parse(text, Loader=LOADER):
            depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
            if depth > MAX_DEPTH:
                raise _Slip(event.start_mark.line, too_deep)
    except yaml.YAMLError as error:  # libyaml's own limit (it reads a flow collection ahead), or a syntax error
        mark = getattr(error, "problem_mark", None)
        if "nesting depth" in str(getattr(error, "problem", "")):
            raise _Slip(mark.line if mark else 0, too_deep) from None


def _locate(node: yaml.Node, first_line: int, done: dict[int, Located], open_nodes: set[int]) -> Located:
    # Aliases make the node graph a DAG (or a cycle): ``done`` keeps the walk linear
    # (no billion-laughs blow-up), ``open_nodes`` turns a cycle into an error, not a RecursionError.
    if id(node) in done:
        return done[id(node)]
    if id(node) in open_nodes:
        raise yaml.constructor.ConstructorError(None, None, _("an alias refers to itself"), node.start_mark)
    open_nodes.add(id(node))
    line = first_line + node.start_mark.line
    if isinstance(node, yaml.MappingNode):
        children = {}
        for key_node, value_node in node.value:
            key = _construct(key_node)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(None, None, _("a key must be plain text, not a list or "
                                                          "mapping"), key_node.start_mark) from None
            if key in children:
                raise _Slip(key_node.start_mark.line, _("'{key}' is given twice (first on line {line}): keep one",
                                                        key=key, line=children[key].line))
            # A text or list of texts is what it is located as (site.yml's pages: a thousand ids, built once).
            plain = _plain(value_node)
            value = None if plain else _construct(value_node)
            found = _locate(value_node, first_line, done, open_nodes)
            children[key] = Located(found.value if plain else value, first_line + key_node.start_mark.line,
                                    found.children)
        located = Located({k: v.value for k, v in children.items()}, line, children)
    elif isinstance(node, yaml.SequenceNode):
        # A text item is located at once (site.yml's pages: a thousand ids, on every save).
        items = tuple(Located(item.value, first_line + item.start_mark.line)
                      if item.tag == _STR and isinstance(item, yaml.ScalarNode)
                      else _locate(item, first_line, done, open_nodes) for item in node.value)
        located = Located([item.value for item in items], line, items)
    else:
        located = Located(_construct(node), line)
    open_nodes.discard(id(node))
    done[id(node)] = located
    return located


_STR, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq"


def _plain(node: yaml.Node) -> bool:
    """A scalar, or a list of texts without a tag of its own: its value is its items' values."""
    return isinstance(node, yaml.ScalarNode) or (node.tag == _SEQ and isinstance(node, yaml.SequenceNode) and all(
        item.tag == _STR and isinstance(item, yaml.ScalarNode) for item in node.value))


def _construct(node: yaml.Node) -> Any:
    if node.tag == _STR and isinstance(node, yaml.ScalarNode):  # what the constructor returns for text
        return node.value
    loader = LOADER("")
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError:
        raise
    except Exception as error:  # PyYAML's constructors raise ValueError etc. on values like 2001-13-45
        raise yaml.constructor.ConstructorError(None, None, _("cannot read this value ({error})", error=str(error)),
                                                node.start_mark) from None
    finally:
        loader.dispose()


def not_text(value: Any, key: str) -> str:
    """What to say when YAML read ``key``'s value as nothing or as a boolean where text is expected, or ``''``."""
    if value is None:
        return _("'{key}' is empty (YAML reads '~' and 'null' as nothing): write the text, in quotes if it is "
                 "'~' or 'null'", key=key)
    if isinstance(value, bool):
        return _("'{key}' is read as {value}, not as text: put it in quotes", key=key,
                 value=str(value).lower())
    return ""


def course_language(root: Path, content_dir: str = "content") -> str:
    """The ``language`` of site.yml, read leniently: messages about a broken site.yml need a language too."""
    site_yml = root / content_dir / "site.yml"
    if not site_yml.is_file():  # opening a FIFO would block until someone writes to it
        return DEFAULT_LANGUAGE
    try:
        return _language_in(site_yml.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return DEFAULT_LANGUAGE


@functools.lru_cache(maxsize=4)
def _language_in(text: str) -> str:
    """site.yml's ``language`` in ``text``. Kept by the text itself: every message asks for the language, and
    parsing a 1000-page site.yml for each of them cost about a third of a second per build."""
    try:
        data = yaml.load(text, Loader=LOADER)
    except yaml.YAMLError:
        return DEFAULT_LANGUAGE
    language = data.get("language") if isinstance(data, dict) else None
    return language if isinstance(language, str) and language.strip() else DEFAULT_LANGUAGE
