"""Timing study: milliseconds per generated token with and without a KV cache.

Four ways to generate N tokens greedily after a P-token prompt:
- cached:    one batched prefill of the prompt, then N - 1 decode steps (preallocated cache);
- recompute: no cache; the full forward over the whole text for every new token
             (what nanoGPT, minGPT and llm.c do);
- naive:     like cached, but the cache grows by np.concatenate (copies every step);
- tokenwise: the preallocated cache, but the prompt is fed one token at a time.
Time per generated token = total time (prefill included) / N, after an untimed
warm-up at every prompt length; repeats are interleaved and rotate which method
runs first. Timings depend on the machine, BLAS threads and load; the record
states them.

The study runs the model with `kernels="blas"` (NumPy's `@`, OpenBLAS): that is
how fast inference computes, and what these milliseconds are about. The
experiments use the fixed-order kernels instead, whose bitwise guarantees cost
time (lessonmodel/kernels.py).
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lessonmodel.cache import make_cache, make_concat_cache
from lessonmodel.config import ModelConfig
from lessonmodel.model import decode_step, forward, prefill
from lessonmodel.params import Params, init_params

RECORD_PATH = Path(__file__).resolve().parent.parent / "content" / "records" / "decode_timing.json"


@dataclass(frozen=True)
class BenchPlan:
    """What to time."""

    model: ModelConfig
    prompts: tuple[int, ...]
    generated: tuple[int, ...]
    main_generated: int
    """Generated length used for the headline values (cached_ms_p1024, ...)."""
    repeats: int


def _vocab(n: int) -> tuple[str, ...]:
    return tuple(f"t{i}" for i in range(n))


FULL = BenchPlan(
    ModelConfig(vocab=_vocab(1024), d_model=384, n_layers=6, n_heads=6, n_kv_heads=6,
                d_head=64, d_ff=1536, dtype="float32", kernels="blas"),
    prompts=(8, 32, 128, 512, 1024), generated=(1, 8, 32), main_generated=32, repeats=3,
)
"""Half the width and layers of GPT-2 small (768, 12), so it finishes in minutes on 2 cores."""

QUICK = BenchPlan(
    ModelConfig(vocab=_vocab(64), d_model=16, n_layers=1, n_heads=2, n_kv_heads=2, d_head=8,
                d_ff=32, dtype="float32", kernels="blas"),
    prompts=(4, 16), generated=(1, 4), main_generated=4, repeats=2,
)
"""Tiny sizes for tests."""


def _argmax(logits: np.ndarray) -> int:
    return int(np.argmax(logits))


def generate_cached(params: Params, prompt: np.ndarray, n: int, naive: bool = False) -> list[int]:
    """Batched prefill, then one decode step per further token."""
    cfg = params.config
    cache = make_concat_cache(cfg) if naive else make_cache(cfg, len(prompt) + n)
    logits, cache = prefill(params, prompt, cache)  # (P, V)
    out = [_argmax(logits[-1])]
    while len(out) < n:
        step, cache = decode_step(params, out[-1], cache)  # (V,)
        out.append(_argmax(step))
    return out


def generate_tokenwise(params: Params, prompt: np.ndarray, n: int) -> list[int]:
    """No batched prefill: every prompt token goes through decode_step alone."""
    cache = make_cache(params.config, len(prompt) + n)
    for tok in prompt:
        step, cache = decode_step(params, int(tok), cache)
    out = [_argmax(step)]
    while len(out) < n:
        step, cache = decode_step(params, out[-1], cache)
        out.append(_argmax(step))
    return out


def generate_recompute(params: Params, prompt: np.ndarray, n: int) -> list[int]:
    """No cache: rerun the whole text for every new token."""
    text = list(prompt)
    out: list[int] = []
    while len(out) < n:
        out.append(_argmax(forward(params, np.array(text))[-1]))  # (T, V) -> last row
        text.append(out[-1])
    return out


METHODS: dict[str, Callable[[Params, np.ndarray, int], list[int]]] = {
    "cached": generate_cached,
    "recompute": generate_recompute,
    "naive": lambda p, prompt, n: generate_cached(p, prompt, n, naive=True),
    "tokenwise": generate_tokenwise,
}


def _time_ms(fn: Callable[[], list[int]]) -> tuple[float, list[int]]:
    start = time.perf_counter()
    tokens = fn()
    return (time.perf_counter() - start) * 1e3, tokens


def measure(plan: BenchPlan) -> list[dict[str, Any]]:
    """One row per (prompt, generated, method): ms per generated token over repeats."""
    params = init_params(plan.model)
    rng = np.random.default_rng(plan.model.seed)
    prompts = {p: rng.integers(0, plan.model.vocab_size, p) for p in plan.prompts}  # (P,) each
    for prompt in prompts.values():
        # Untimed warm-up at every length: otherwise whichever method first meets a new,
        # larger array size pays for fresh memory pages (seen as a first-mover penalty).
        generate_cached(params, prompt, 2)
        generate_cached(params, prompt, 2, naive=True)
    times: dict[tuple[int, int, str], list[float]] = {}
    outputs: dict[tuple[int, int, str], list[int]] = {}
    names = list(METHODS)
    for rep in range(plan.repeats):  # repeats interleaved, so slow drifts hit every method
        order = names[rep % len(names):] + names[: rep % len(names)]  # rotate who goes first
        for p, prompt in prompts.items():
            for n in plan.generated:
                for name in order:
                    ms, toks = _time_ms(lambda m=METHODS[name]: m(params, prompt, n))
                    times.setdefault((p, n, name), []).append(ms / n)
                    outputs[(p, n, name)] = toks
    return [
        {"prompt": p, "generated": n, "method": name,
         "median_ms": statistics.median(ts), "min_ms": min(ts), "max_ms": max(ts),
         "repeats_ms": ts,
         "same_tokens_as_recompute": outputs[(p, n, name)] == outputs[(p, n, "recompute")]}
        for (p, n, name), ts in times.items()
    ]


def _series(plan: BenchPlan, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Figure-ready columns: median ms per generated token vs prompt length T,
    at the headline generated length (prefill included)."""
    out: dict[str, Any] = {"T": list(plan.prompts), "generated": plan.main_generated}
    for method in METHODS:
        med = {r["prompt"]: r["median_ms"] for r in rows
               if r["method"] == method and r["generated"] == plan.main_generated}
        out[f"{method}_ms"] = [med[p] for p in plan.prompts]
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _value(value: float | bool | int, unit: str, description: str) -> dict[str, Any]:
    # Durations and their ratios depend on the machine and its load: records, never compared.
    return {"value": round(value, 4) if isinstance(value, float) else value, "unit": unit,
            "description": description, "class": "timing" if unit in ("ms", "x") else "exact"}


def _values(plan: BenchPlan, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    med = {(r["prompt"], r["generated"], r["method"]): r["median_ms"] for r in rows}
    out: dict[str, dict[str, Any]] = {}
    for p in plan.prompts:
        for n, suffix in ((plan.main_generated, ""), (1, "_n1")):
            label = f"prompt {p}, {n} generated token{'s' if n > 1 else ''}"
            for method in METHODS:
                out[f"{method}_ms_p{p}{suffix}"] = _value(
                    med[(p, n, method)], "ms", f"median ms per generated token, {method}, {label}")
            out[f"speedup_p{p}{suffix}"] = _value(
                med[(p, n, "recompute")] / med[(p, n, "cached")], "x",
                f"recompute time / cached time, {label}")
    out["generated_main"] = _value(plan.main_generated, "", "generated tokens in the headline values")
    out["repeats"] = _value(plan.repeats, "", "timed repeats per case (median reported)")
    out["all_methods_same_tokens"] = _value(
        all(r["same_tokens_as_recompute"] for r in rows), "",
        "every method generated the same greedy tokens as full recompute")
    return out


def _conditions(plan: BenchPlan) -> str:
    m = plan.model
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
               if k in os.environ}
    return (
        f"random-weight {m.dtype} model: d_model {m.d_model}, {m.n_layers} layers, "
        f"{m.n_heads} heads x {m.d_head}, d_ff {m.d_ff}, vocab {m.vocab_size}; matrix products by "
        f"BLAS (kernels={m.kernels}, as fast inference computes; the experiments sum in a fixed "
        f"order instead); batch 1; greedy "
        f"argmax; ms per generated token = total time including prefill / generated tokens; "
        f"median of {plan.repeats} interleaved repeats; prompts {list(plan.prompts)}, generated "
        f"{list(plan.generated)}; BLAS threads: {threads or 'library default'}; "
        f"{os.cpu_count()} logical CPUs; other processes may have shared the machine"
    )


def _load() -> list[float]:
    """1-, 5- and 15-minute load averages (other processes compete for the CPUs)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []


def bench_record(plan: BenchPlan) -> dict[str, Any]:
    """Run the study and return the contracts §2 record."""
    load_before = _load()
    rows = measure(plan)
    load_after = _load()
    return {
        "id": "decode_timing",
        "title": "Decode time per token: KV cache vs full recompute (NumPy, CPU)",
        "date": datetime.date.today().isoformat(),
        "machine": (f"{platform.machine()} {platform.system()} {platform.release()}; "
                    f"CPU {_cpu_model()}; {os.cpu_count()} logical CPUs; "
                    f"Python {platform.python_version()}; NumPy {np.__version__}"),
        "conditions": (f"{_conditions(plan)}; load average (1/5/15 min) {load_before} before, "
                       f"{load_after} after"),
        "command": "python -m lessonmodel bench" + (" --quick" if plan is QUICK else ""),
        "source": None,
        "values": _values(plan, rows),
        "data": {"model": plan.model.to_dict() | {"vocab": f"{plan.model.vocab_size} ids"},
                 "methods": list(METHODS), "load_before": load_before,
                 "load_after": load_after, "rows": rows, **_series(plan, rows)},
    }
