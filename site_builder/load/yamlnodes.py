"""YAML with line numbers, so config mistakes can name ``path:line``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from site_builder.vocabulary.i18n import DEFAULT_LANGUAGE, _
from site_builder.vocabulary.problems import Problem

# libyaml's parser when PyYAML was built with it: front matter of a thousand pages parses 5× faster.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Located:
    """A YAML value and the 1-based line it starts on."""

    value: Any
    """The plain Python value (dict, list, str, int, …)."""
    line: int
    """Line where the value starts, counted within the parsed text."""
    children: Any = None
    """For a mapping: key → Located; for a sequence: tuple of Located."""


def load_located(text: str, path: str, first_line: int = 1) -> tuple[Located | None, list[Problem]]:
    """Parse YAML text, keeping the line of every mapping key and list item."""
    try:
        node = _compose(text)
        if node is None:
            return Located({}, first_line, {}), []
        return _locate(node, first_line, {}, set()), []
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = first_line + mark.line if mark else first_line
        reason = getattr(error, "problem", None) or str(error).splitlines()[0]
        return None, [Problem(path, line, _("invalid YAML: {reason}", reason=reason))]


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=LOADER)
    except yaml.YAMLError:
        # libyaml is fast but terse; errors are rare, so let the Python parser word the message.
        return yaml.compose(text, Loader=yaml.SafeLoader)


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
            children[key] = Located(_construct(value_node), first_line + key_node.start_mark.line,
                                    _locate(value_node, first_line, done, open_nodes).children)
        located = Located({k: v.value for k, v in children.items()}, line, children)
    elif isinstance(node, yaml.SequenceNode):
        items = tuple(_locate(item, first_line, done, open_nodes) for item in node.value)
        located = Located([item.value for item in items], line, items)
    else:
        located = Located(_construct(node), line)
    open_nodes.discard(id(node))
    done[id(node)] = located
    return located


def _construct(node: yaml.Node) -> Any:
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


def course_language(root: Path, content_dir: str = "content") -> str:
    """The ``language`` of site.yml, read leniently: messages about a broken site.yml need a language too."""
    try:
        data = yaml.load((root / content_dir / "site.yml").read_text(encoding="utf-8-sig"), Loader=LOADER)
    except (OSError, ValueError, yaml.YAMLError):
        return DEFAULT_LANGUAGE
    language = data.get("language") if isinstance(data, dict) else None
    return language if isinstance(language, str) and language.strip() else DEFAULT_LANGUAGE
