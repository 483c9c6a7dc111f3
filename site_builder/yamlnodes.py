"""YAML with line numbers, so config mistakes can name ``path:line``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from .problems import Problem


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
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = first_line + mark.line if mark else first_line
        reason = getattr(error, "problem", None) or str(error).splitlines()[0]
        return None, [Problem(path, line, f"invalid YAML: {reason}")]
    if node is None:
        return Located({}, first_line, {}), []
    return _locate(node, first_line), []


def _locate(node: yaml.Node, first_line: int) -> Located:
    line = first_line + node.start_mark.line
    if isinstance(node, yaml.MappingNode):
        children = {}
        for key_node, value_node in node.value:
            key = _construct(key_node)
            children[key] = Located(_construct(value_node), first_line + key_node.start_mark.line,
                                    _locate(value_node, first_line).children)
        return Located({k: v.value for k, v in children.items()}, line, children)
    if isinstance(node, yaml.SequenceNode):
        items = tuple(_locate(item, first_line) for item in node.value)
        return Located([item.value for item in items], line, items)
    return Located(_construct(node), line)


def _construct(node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()
