"""Timing study: time to first token and per-token decode time, with and without a KV cache.

Four ways to generate N tokens greedily after a P-token prompt:
- cached:    one batched prefill of the prompt, then N - 1 decode steps (preallocated cache);
- recompute: no cache; the full forward over the whole text for every new token
             (what nanoGPT, minGPT and llm.c do);
- naive:     like cached, but the cache grows by np.concatenate (copies every step);
- tokenwise: the preallocated cache, but the prompt is fed one token at a time.
Each run is timed token by token: the time to first token (TTFT, prefill
included) and the mean time of each further token (the decode steps) are kept
apart, because a total divided by N mixes a large prefill into every token.
An untimed warm-up runs at every prompt length; repeats are interleaved and
rotate which method runs first; every repeat is kept in the record. Timings
depend on the machine, BLAS threads and load; the record states them.

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lessonmodel.cache import ConcatCache, KVCache, make_cache, make_concat_cache
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
    """Generated length of the TTFT and decode values (cached_decode_ms_p1024, ...)."""
    repeats: int


def _vocab(n: int) -> tuple[str, ...]:
    return tuple(f"t{i}" for i in range(n))


FULL = BenchPlan(
    ModelConfig(vocab=_vocab(1024), d_model=384, n_layers=6, n_heads=6, n_kv_heads=6,
                d_head=64, d_ff=1536, dtype="float32", kernels="blas"),
    prompts=(8, 32, 128, 512, 1024), generated=(1, 32), main_generated=32, repeats=5,
)
"""Half the width and layers of GPT-2 small (768, 12), so it finishes in minutes on 2 cores."""


def generate_cached(params: Params, prompt: np.ndarray, n: int, naive: bool = False) -> Iterator[int]:
    """Batched prefill, then one decode step per further token."""
    cfg = params.config
    cache = make_concat_cache(cfg) if naive else make_cache(cfg, len(prompt) + n)
    logits, cache = prefill(params, prompt, cache)  # (P, V)
    yield from _greedy(params, logits[-1], cache, n)


def generate_tokenwise(params: Params, prompt: np.ndarray, n: int) -> Iterator[int]:
    """No batched prefill: every prompt token goes through decode_step alone."""
    cache = make_cache(params.config, len(prompt) + n)
    for tok in prompt:
        step, cache = decode_step(params, int(tok), cache)
    yield from _greedy(params, step, cache, n)


def _greedy(params: Params, logits: np.ndarray, cache: KVCache | ConcatCache, n: int) -> Iterator[int]:
    """The most likely token of `logits`, then n - 1 decode steps; yields each token as it is chosen."""
    token = int(np.argmax(logits))
    yield token
    for _ in range(n - 1):
        step, cache = decode_step(params, token, cache)  # (V,)
        token = int(np.argmax(step))
        yield token


def generate_recompute(params: Params, prompt: np.ndarray, n: int) -> Iterator[int]:
    """No cache: rerun the whole text for every new token."""
    text = list(prompt)
    for _ in range(n):
        text.append(int(np.argmax(forward(params, np.array(text))[-1])))  # (T, V) -> last row
        yield text[-1]


METHODS: dict[str, Callable[[Params, np.ndarray, int], Iterator[int]]] = {
    "cached": generate_cached,
    "recompute": generate_recompute,
    "naive": lambda p, prompt, n: generate_cached(p, prompt, n, naive=True),
    "tokenwise": generate_tokenwise,
}


@dataclass(frozen=True)
class Run:
    """One timed generation."""

    ttft_ms: float
    """Time to first token: from the start until the first token is chosen (prefill included)."""
    decode_ms: float | None
    """Mean time of each further token (decode steps only); None when one token was generated."""
    total_ms: float
    tokens: tuple[int, ...]


def time_run(tokens: Iterator[int]) -> Run:
    """Time a generation token by token: the first token's arrival, then the steps after it."""
    start = time.perf_counter()
    stamps, out = [], []
    for tok in tokens:  # the generator does its work inside next(), so each stamp ends one step
        stamps.append((time.perf_counter() - start) * 1e3)
        out.append(tok)
    decode = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else None
    return Run(stamps[0], decode, stamps[-1], tuple(out))


def _stats(repeats: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(repeats), "min": min(repeats), "max": max(repeats),
            "repeats": repeats}


def measure(plan: BenchPlan) -> list[dict[str, Any]]:
    """One row per (prompt, generated, method): TTFT, per-token decode time and total, every repeat kept."""
    params = init_params(plan.model)
    rng = np.random.default_rng(plan.model.seed)
    prompts = {p: rng.integers(0, plan.model.vocab_size, p) for p in plan.prompts}  # (P,) each
    for prompt in prompts.values():
        # Untimed warm-up at every length: otherwise whichever method first meets a new,
        # larger array size pays for fresh memory pages (seen as a first-mover penalty).
        list(generate_cached(params, prompt, 2))
        list(generate_cached(params, prompt, 2, naive=True))
    runs: dict[tuple[int, int, str], list[Run]] = {}
    names = list(METHODS)
    for rep in range(plan.repeats):  # repeats interleaved, so slow drifts hit every method
        order = names[rep % len(names):] + names[: rep % len(names)]  # rotate who goes first
        for p, prompt in prompts.items():
            for n in plan.generated:
                for name in order:
                    runs.setdefault((p, n, name), []).append(time_run(METHODS[name](params, prompt, n)))
    return [
        {"prompt": p, "generated": n, "method": name,
         "ttft_ms": _stats([r.ttft_ms for r in rs]),
         "decode_ms": _stats([r.decode_ms for r in rs]) if n > 1 else None,
         "total_ms": _stats([r.total_ms for r in rs]),
         "same_tokens_as_recompute": all(r.tokens == ref.tokens for r, ref in zip(rs, runs[(p, n, "recompute")],
                                                                                   strict=True))}
        for (p, n, name), rs in runs.items()
    ]


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
    row = {(r["prompt"], r["generated"], r["method"]): r for r in rows}
    main = plan.main_generated
    out: dict[str, dict[str, Any]] = {}

    def put(key: str, stats: dict[str, Any], what: str, spread: bool) -> None:
        out[key] = _value(stats["median"], "ms", f"median {what}")
        if spread:  # the two methods the lesson compares carry their spread
            out[f"{key}_min"] = _value(stats["min"], "ms", f"fastest repeat, {what}")
            out[f"{key}_max"] = _value(stats["max"], "ms", f"slowest repeat, {what}")

    for p in plan.prompts:
        for method in METHODS:
            spread = method in ("cached", "recompute")
            r, r1 = row[(p, main, method)], row[(p, 1, method)]
            put(f"{method}_ttft_ms_p{p}", r["ttft_ms"], f"time to first token, {method}, prompt {p}", spread)
            put(f"{method}_decode_ms_p{p}", r["decode_ms"],
                f"ms per further token (decode steps only), {method}, prompt {p}, {main} generated", spread)
            put(f"{method}_ms_p{p}_n1", r1["total_ms"],
                f"total ms to generate one token, {method}, prompt {p}", spread)
        out[f"decode_speedup_p{p}"] = _value(
            row[(p, main, "recompute")]["decode_ms"]["median"] / row[(p, main, "cached")]["decode_ms"]["median"],
            "x", f"recompute / cached median per-token decode time, prompt {p}")
        out[f"speedup_p{p}_n1"] = _value(
            row[(p, 1, "recompute")]["total_ms"]["median"] / row[(p, 1, "cached")]["total_ms"]["median"],
            "x", f"recompute / cached median time for one generated token, prompt {p}")
    out["generated_main"] = _value(main, "", "generated tokens in the TTFT and decode values")
    out["repeats"] = _value(plan.repeats, "", "timed repeats per case (all kept in data.rows)")
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
        f"argmax; time to first token (TTFT) = start until the first token is chosen, prefill "
        f"included; decode time = (last token's time - first token's time) / (generated - 1); "
        f"{plan.repeats} interleaved repeats, all kept, median cited; prompts {list(plan.prompts)}, "
        f"generated {list(plan.generated)}; BLAS threads: {threads or 'library default'}; "
        f"{os.cpu_count()} logical CPUs shared with other processes"
    )


def _load() -> list[float]:
    """1-, 5- and 15-minute load averages (other processes compete for the CPUs)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []


def bench_record(plan: BenchPlan) -> dict[str, Any]:
    """Run the study and return its record (content/records/decode_timing.json)."""
    load_before = _load()
    rows = measure(plan)
    load_after = _load()
    return {
        "id": "decode_timing",
        "title": "Time to first token and per-token decode time: KV cache vs full recompute (NumPy, CPU)",
        "date": datetime.date.today().isoformat(),
        "machine": (f"{platform.machine()} {platform.system()} {platform.release()}; "
                    f"CPU {_cpu_model()}; {os.cpu_count()} logical CPUs; "
                    f"Python {platform.python_version()}; NumPy {np.__version__}"),
        "conditions": (f"{_conditions(plan)}; load average (1/5/15 min) {load_before} before, "
                       f"{load_after} after"),
        "command": "python -m lessonmodel bench",
        "source": None,
        "values": _values(plan, rows),
        "data": {"model": plan.model.to_dict() | {"vocab": f"{plan.model.vocab_size} ids"},
                 "methods": list(METHODS), "load_before": load_before,
                 "load_after": load_after, "rows": rows},
    }
