"""What an experiment returns: frozen values and data plus the config that made them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lessonmodel.config import ModelConfig

EXACT, ROUNDING, TIMING = "exact", "rounding", "timing"
ROUNDING_TOLERANCE = {"rtol": 1e-9, "atol": 1e-12}
"""Default tolerance of a `rounding` value: |a - b| <= atol + rtol * |b|. Last-bit
differences between CPUs are about 1e-16 relative; any real change is far larger."""

VALUE_CLASSES = {
    EXACT: "compared bit for bit: counts, bytes, booleans, and floats the fixed-order "
           "kernels make exactly equal on every machine",
    ROUNDING: "a float whose last bits may differ between CPUs (exp, tanh, sin and cos round "
              "differently per instruction set); compared within a stated tolerance",
    TIMING: "a duration: depends on the machine and its load; recorded, never compared",
}
"""How a value may be compared, by class (also written into the results document)."""


@dataclass(frozen=True)
class Value:
    """One named number a page may cite as `<experiment>.<key>`."""

    key: str
    """Name inside the experiment, e.g. 'max_abs_diff'."""
    value: float | int | bool
    """The measured or computed number."""
    unit: str
    """'' for pure numbers, 'B' for bytes, 'ms' for milliseconds."""
    description: str
    """English one-liner saying what was measured."""
    kind: str = ""
    """Value class: 'exact', 'rounding' or 'timing'. Empty means the natural class:
    exact for ints and bools, rounding for floats. A float is 'exact' only when the
    computation guarantees it on every machine (a bitwise zero of the fixed-order core)."""

    @property
    def value_class(self) -> str:
        if self.kind:
            return self.kind
        import numpy as np  # here, not above: the runner reads cached results without NumPy

        return ROUNDING if isinstance(self.value, float | np.floating) else EXACT

    def __post_init__(self) -> None:
        assert self.kind in ("", *VALUE_CLASSES), f"{self.key}: unknown value class {self.kind!r}"


@dataclass(frozen=True)
class Result:
    """The outcome of one experiment."""

    title: str
    """Short English title."""
    model: ModelConfig
    """The model configuration the experiment ran."""
    parameters: Mapping[str, Any]
    """Experiment parameters beyond the model config (prompts, offsets, ...)."""
    values: tuple[Value, ...]
    """Citable numbers."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """JSON-able arrays and tables for figures."""
    provenance: str = "measured"
    """``measured`` (the values come from running the model) or ``computed`` (a formula applied to
    declared inputs such as published configs; no model run)."""


Experiment = Callable[[ModelConfig], Result]
"""An experiment: runs the model (or a formula) on a config and returns its ``Result``."""


def experiment(run: Experiment) -> Experiment:
    """Mark ``run`` as an experiment: ``runner.EXPERIMENTS`` finds it in its module, by this mark, under its
    function name, which is also how pages cite its values (``<name>.<key>``). Nothing else lists it."""
    run.is_experiment = True  # type: ignore[attr-defined]
    return run


def to_jsonable(obj: Any) -> Any:
    """Plain Python data from NumPy scalars/arrays, tuples and dataclass-free mappings."""
    import numpy as np

    def plain(obj: Any) -> Any:
        if isinstance(obj, Mapping):
            return {str(k): plain(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [plain(v) for v in obj]
        if isinstance(obj, np.ndarray):
            return plain(obj.tolist())
        if isinstance(obj, np.bool_ | bool):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating | float):
            f = float(obj)
            if not np.isfinite(f):
                raise ValueError(f"non-finite number {f!r} cannot go into the results document")
            return f
        return obj
    return plain(obj)


def result_document(result: Result, name: str, source: str) -> dict[str, Any]:
    """The results document's entry of experiment ``name``."""
    # A computed result does not depend on the lesson model, so its conditions are its own inputs only.
    config = result.model.to_dict() if result.provenance == "measured" else {}
    clash = set(config) & set(result.parameters)
    assert not clash, f"experiment parameters shadow model fields: {clash}"
    return {
        "title": result.title,
        "command": f"python -m lessonmodel run {name}",
        "source": source,
        "provenance": result.provenance,
        "config": to_jsonable({**config, **result.parameters}),
        "values": {v.key: {"value": to_jsonable(v.value), "unit": v.unit, "description": v.description,
                           "class": v.value_class} | (ROUNDING_TOLERANCE if v.value_class == ROUNDING else {})
                   for v in result.values},
        "data": to_jsonable(result.data),
    }
