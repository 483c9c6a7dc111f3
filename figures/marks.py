"""Marks: the named regions of a figure a teacher may point at.

A figure's ``draw`` returns ``{"params": mark("参数条", bar, label), ...}``: a
short Chinese label and what to outline — artists it drew, or a
``data_box(ax, x0, y0, x1, y1)`` in an axes' data coordinates. After the
figure is drawn, ``mark_boxes`` asks matplotlib for each target's extent and
records the union as a box in the SVG's own coordinates (user units = pt,
origin top left), so a page can outline it over the unchanged SVG.

A mark that names something never drawn is the figure author's mistake, not a
bug: it raises ``MarkError`` naming the draw function's ``path:line``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_builder.vocabulary.i18n import _

_NAME = re.compile(r"^[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*$")


@dataclass(frozen=True)
class DataBox:
    """A rectangle in an axes' data coordinates (for regions no single artist covers)."""

    ax: Any
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Mark:
    """One region a teacher may point at."""

    label: str
    """Short Chinese name shown with the outline, e.g. ``参数条``."""
    targets: tuple[Any, ...]
    """Artists (or ``DataBox``es) whose extents together make the region."""


def mark(label: str, *targets: Any) -> Mark:
    """``mark("参数条", bar, text)``: the region covering every target."""
    return Mark(label, tuple(targets))


data_box = DataBox
"""``data_box(ax, x0, y0, x1, y1)``: what figure modules write for a ``DataBox``."""


class MarkError(ValueError):
    """A figure's marks are wrong; carries where (the draw function) and what."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{path}:{line}: {message}")


def draw_location(draw: Any) -> tuple[str, int]:
    """Repository path and line of a draw function (where its marks are declared)."""
    from figures.baseline import shown_path  # not at the top: baseline imports the runner, which imports marks

    draw = inspect.unwrap(draw)
    code = getattr(draw, "__code__", None)  # a function's first line is its own (inspect would read the whole file)
    line = code.co_firstlineno if code else inspect.getsourcelines(draw)[1]
    return shown_path(Path(inspect.getsourcefile(draw) or "?")), line


def mark_boxes(fig: Any, marks: Mapping[str, Any] | None, figure_id: str, draw: Any) -> dict[str, dict[str, Any]]:
    """Each mark's box in SVG user units, ``{name: {"label", "box": [x0, y0, x1, y1]}}``.

    Call after the figure has been saved: extents are only final once drawn.
    """
    if not marks:
        return {}
    path, line = draw_location(draw)
    if not isinstance(marks, Mapping):
        raise MarkError(path, line, _("figure {figure}: draw must return a dict of marks, not {type}",
                                      figure=figure_id, type=type(marks).__name__))
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    height = fig.bbox.height
    drawn = {id(a) for a in fig.findobj()}
    boxes: dict[str, dict[str, Any]] = {}
    for name, entry in marks.items():
        where = _("figure {figure}: mark '{name}'", figure=figure_id, name=name)
        if not isinstance(name, str) or not _NAME.match(name):
            raise MarkError(path, line, _("{where}: a mark name is lowercase letters, digits, '_' and '-'",
                                                  where=where))
        if not isinstance(entry, Mark) or not entry.label.strip() or not entry.targets:
            raise MarkError(path, line, _("{where} must be mark(\"label\", artist, …) with a label and at least "
                                          "one artist or data_box", where=where))
        extents = [_extent(t, fig, renderer, drawn, where, path, line) for t in _flatten(entry.targets)]
        x0 = max(min(e[0] for e in extents), 0.0)
        x1 = min(max(e[2] for e in extents), fig.bbox.width)
        y0 = max(min(e[1] for e in extents), 0.0)
        y1 = min(max(e[3] for e in extents), height)
        if x1 - x0 < 1 or y1 - y0 < 1:
            raise MarkError(path, line, _("{where} covers no visible area of the figure: what it names has no "
                                          "size there (a bar of height 0, something outside the axes' limits); "
                                          "mark a larger artist (its row, its label) or a data_box", where=where))
        # matplotlib's display space has y up; the SVG's has y down.
        boxes[name] = {"label": entry.label, "box": [round(float(v), 2) for v in (x0, height - y1, x1, height - y0)]}
    return dict(sorted(boxes.items()))  # by name: the cache stores sorted JSON, and a cached build must match


def _flatten(targets: Iterable[Any]) -> Iterator[Any]:
    """Containers (what ``barh`` returns) and lists stand for the artists they hold."""
    for target in targets:
        if isinstance(target, list | tuple):
            yield from _flatten(target)
        else:
            yield target


def _extent(target: Any, fig: Any, renderer: Any, drawn: set[int], where: str, path: str,
            line: int) -> tuple[float, float, float, float]:
    if isinstance(target, DataBox):
        if id(target.ax) not in drawn:
            raise MarkError(path, line, _("{where}: its data_box names axes that were never added to the figure",
                                      where=where))
        (x0, y0), (x1, y1) = target.ax.transData.transform([(target.x0, target.y0), (target.x1, target.y1)])
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)
    if not hasattr(target, "get_window_extent"):
        raise MarkError(path, line, _("{where}: {type} is not an artist; name what draw returned (a patch, text, "
                                      "line …) or a data_box", where=where, type=type(target).__name__))
    if id(target) not in drawn or getattr(target, "figure", None) is not fig:
        raise MarkError(path, line, _("{where} names a {type} that was never drawn (it was not added to the "
                                      "figure's axes)", where=where, type=type(target).__name__))
    if not target.get_visible():
        raise MarkError(path, line, _("{where} names a {type} that is invisible", where=where,
                                      type=type(target).__name__))
    box = target.get_window_extent(renderer)
    clip = target.get_clip_box() if target.get_clip_on() else None
    if clip is not None:  # what the axes clip away is not drawn (a log-scale bar starting at 0)
        return max(box.x0, clip.x0), max(box.y0, clip.y0), min(box.x1, clip.x1), min(box.y1, clip.y1)
    return box.x0, box.y0, box.x1, box.y1
