"""Reading a figure's data: small accessors shared by the lesson modules.

``data`` is what the runner passes to ``draw``: {experiment or record id: {config,
values, data}}. Missing keys raise KeyError naming the experiment and key, so a
renamed key in lessonmodel fails loudly instead of drawing an empty plot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.i18n import number


def value(data: Mapping[str, Any], name: str) -> Any:
    """The value of ``<exp>.<key>``, e.g. ``value(data, "training_state.params_bytes")``."""
    exp, _, key = name.partition(".")
    try:
        return data[exp]["values"][key]["value"]
    except KeyError as err:
        raise KeyError(f"figure data has no value {name!r}") from err


def series(data: Mapping[str, Any], exp: str, *path: str) -> Any:
    """``data[exp]["data"][path...]``, e.g. ``series(data, "lesson_data", "first_token_distribution")``."""
    node: Any = data[exp]["data"]
    for i, key in enumerate(path):
        if not isinstance(node, Mapping) or key not in node:
            raise KeyError(f"figure data has no {exp}.data.{'.'.join(path[: i + 1])}")
        node = node[key]
    return node


def kib(n_bytes: float) -> float:
    return n_bytes / 1024


def human_bytes(n_bytes: float) -> str:
    """Binary units, as the lessons write them, in the drawing language: 800 KiB, 3.1 GiB."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= size:
            scaled = n_bytes / size
            return number(scaled, ".0f" if scaled >= 100 or scaled == int(scaled) else ".1f") + f" {unit}"
    return number(n_bytes, ".0f") + " B"
