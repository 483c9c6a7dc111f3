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
rotate which method runs first; every repeat is kept in the record.

Timings depend on the machine, BLAS threads and load, so the study controls what
it can and states the rest: `python -m lessonmodel bench` runs with the BLAS
thread count pinned (it restarts itself with the pinning variables set, since a
BLAS library reads them once, when NumPy is imported); it reads the load average
before it starts and after it ends and refuses to write a record taken on a busy
machine unless forced (the record then says so); it repeats the rounds until
every row's interquartile range is a bounded fraction of its median, or says in
the record that it could not; each row keeps min, quartiles, median and max.

The study runs the model with `kernels="blas"` (NumPy's `@`, OpenBLAS): that is
how fast inference computes, and what these milliseconds are about. The
experiments use the fixed-order kernels instead, whose bitwise guarantees cost
time (lessonmodel/kernels.py).
"""


from __future__ import annotations

import datetime
import math
import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Iterator, Mapping
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
    """What to time, and when the repeats are enough."""

    model: ModelConfig
    prompts: tuple[int, ...]
    generated: tuple[int, ...]
    main_generated: int
    """Generated length of the TTFT and decode values (cached_decode_ms_p1024, ...)."""
    min_repeats: int
    """Rounds always run (every case once per round)."""
    max_repeats: int
    """Rounds at most: when the spread is still not bounded then, the record says so."""
    max_spread: float = 0.15
    """Bounded spread: every row's interquartile range at most this fraction of its median."""


FULL = BenchPlan(
    ModelConfig(vocab=tuple(f"t{i}" for i in range(1024)), d_model=384, n_layers=6, n_heads=6, n_kv_heads=6,
                d_head=64, d_ff=1536, dtype="float32", kernels="blas"),
    prompts=(8, 32, 128, 512, 1024), generated=(1, 32), main_generated=32, min_repeats=5, max_repeats=15,
)
"""Half the width and layers of GPT-2 small (768, 12), so it finishes in minutes on 2 cores."""

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""What BLAS libraries read, once, when NumPy is imported, to choose their thread count."""
MAX_LOAD = 0.5
"""Default load limit: the 1-minute load average other processes may add (see `load_refusal`)."""


def pinned_environment(environ: Mapping[str, str], threads: int) -> dict[str, str]:
    """``environ`` with every BLAS thread variable set to ``threads``."""
    return {**environ, **{name: str(threads) for name in THREAD_VARIABLES}}


def threads_pinned(environ: Mapping[str, str], threads: int) -> bool:
    """Whether this process was started with the BLAS threads pinned to ``threads``."""
    return all(environ.get(name) == str(threads) for name in THREAD_VARIABLES)


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
    """Min, quartiles, median, max and interquartile range of one case's repeats (all kept)."""
    q1, median, q3 = statistics.quantiles(repeats, n=4, method="inclusive")
    return {"median": median, "min": min(repeats), "max": max(repeats), "q1": q1, "q3": q3, "iqr": q3 - q1,
            "repeats": repeats}


def spread(stats: Mapping[str, Any]) -> float:
    """Interquartile range as a fraction of the median: how far one repeat may stray from another."""
    return stats["iqr"] / stats["median"] if stats["median"] > 0 else float("inf")


def _row_spread(runs: list[Run]) -> float:
    """The worst spread of a case's timed quantities."""
    series = ([r.ttft_ms for r in runs], [r.total_ms for r in runs],
              [r.decode_ms for r in runs if r.decode_ms is not None])  # none when one token was generated
    return max(spread(_stats(s)) for s in series if s)


@dataclass(frozen=True)
class Measured:
    """The rows of a study and how its repeats ended."""

    rows: list[dict[str, Any]]
    repeats: int
    """Rounds run."""
    worst_spread: float
    """The largest IQR / median over every row and quantity."""
    bounded: bool
    """Whether worst_spread <= the plan's max_spread."""
    load_during: list[float]
    """The 1-minute load average read after each round."""


def measure(plan: BenchPlan) -> Measured:
    """One row per (prompt, generated, method): TTFT, per-token decode time and total, every repeat kept.

    Rounds repeat until every row's spread is bounded (at least min_repeats, at most max_repeats)."""
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
    load_during: list[float] = []
    worst, rep = float("inf"), 0
    while rep < plan.min_repeats or (worst > plan.max_spread and rep < plan.max_repeats):
        order = names[rep % len(names):] + names[: rep % len(names)]  # rotate who goes first
        for p, prompt in prompts.items():  # repeats interleaved, so slow drifts hit every method
            for n in plan.generated:
                for name in order:
                    runs.setdefault((p, n, name), []).append(time_run(METHODS[name](params, prompt, n)))
        rep += 1
        load_during += load_average()[:1]
        worst = max(_row_spread(rs) for rs in runs.values()) if rep >= 2 else float("inf")
    rows = [
        {"prompt": p, "generated": n, "method": name,
         "ttft_ms": _stats([r.ttft_ms for r in rs]),
         "decode_ms": _stats([r.decode_ms for r in rs]) if n > 1 else None,
         "total_ms": _stats([r.total_ms for r in rs]),
         "same_tokens_as_recompute": all(r.tokens == ref.tokens for r, ref in zip(rs, runs[(p, n, "recompute")],
                                                                                   strict=True))}
        for (p, n, name), rs in runs.items()
    ]
    return Measured(rows, rep, worst, worst <= plan.max_spread, load_during)


def _cpu_model() -> str:
    try:
        found = re.search(r"^model name[^:]*:(.*)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
    except OSError:
        found = None
    return found[1].strip() if found else platform.processor() or "unknown CPU"


def _sig2(x: float) -> float:
    """Two significant figures: what a noisy duration supports."""
    return float(f"{x:.2g}")


def _value(value: float | bool | int, unit: str, description: str, kind: str = "") -> dict[str, Any]:
    # Durations and their ratios depend on the machine and its load: records, never compared.
    kind = kind or ("timing" if unit == "ms" else "exact")
    return {"value": round(value, 4) if isinstance(value, float) else value, "unit": unit,
            "description": description, "class": kind}


def _values(plan: BenchPlan, rows: list[dict[str, Any]], repeats: int) -> dict[str, dict[str, Any]]:
    row = {(r["prompt"], r["generated"], r["method"]): r for r in rows}
    main = plan.main_generated
    out: dict[str, dict[str, Any]] = {}

    def put(key: str, stats: dict[str, Any], what: str, quartiles: bool) -> None:
        out[key] = _value(stats["median"], "ms", f"median {what}")
        if quartiles:  # the two methods the lesson compares carry their quartiles
            for end, says in (("min", "fastest repeat"), ("q1", "first quartile"), ("q3", "third quartile"),
                              ("max", "slowest repeat")):
                out[f"{key}_{end}"] = _value(stats[end], "ms", f"{says}, {what}")

    for p in plan.prompts:
        for method in METHODS:
            quartiles, r, r1 = method in ("cached", "recompute"), row[(p, main, method)], row[(p, 1, method)]
            put(f"{method}_ttft_ms_p{p}", r["ttft_ms"], f"time to first token, {method}, prompt {p}", quartiles)
            put(f"{method}_decode_ms_p{p}", r["decode_ms"],
                f"ms per further token (decode steps only), {method}, prompt {p}, {main} generated", quartiles)
            put(f"{method}_ms_p{p}_n1", r1["total_ms"], f"total ms to generate one token, {method}, prompt {p}",
                quartiles)
        out.update(_ratios(p, row[(p, main, "recompute")]["decode_ms"], row[(p, main, "cached")]["decode_ms"]))
        fast, slow = row[(p, 1, "cached")]["total_ms"], row[(p, 1, "recompute")]["total_ms"]
        out[f"quartiles_overlap_p{p}_n1"] = _value(
            fast["q1"] <= slow["q3"] and slow["q1"] <= fast["q3"], "",
            f"the interquartile ranges of cached and recompute overlap, one generated token, prompt {p}")
    out["generated_main"] = _value(main, "", "generated tokens in the TTFT and decode values")
    out["repeats"] = _value(repeats, "", "timed repeats per case (all kept in data.rows)")
    out["all_methods_same_tokens"] = _value(
        all(r["same_tokens_as_recompute"] for r in rows), "",
        "every method generated the same greedy tokens as full recompute")
    return out


def _ratios(p: int, slow: Mapping[str, Any], fast: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """How many times slower recompute's decode steps are than the cache's, as a range and an order of
    magnitude: quartile against quartile, so a few disturbed repeats cannot make the ratio."""
    what = f"recompute / cached per-token decode time, prompt {p}"
    return {f"decode_speedup_p{p}_low": _value(_sig2(slow["q1"] / fast["q3"]), "", f"lower end ({what}): "
                                               "recompute's first quartile / cached's third, 2 significant figures",
                                               "timing"),
            f"decode_speedup_p{p}_high": _value(_sig2(slow["q3"] / fast["q1"]), "", f"upper end ({what}): "
                                                "recompute's third quartile / cached's first, 2 significant figures",
                                                "timing"),
            f"decode_speedup_p{p}_order": _value(round(math.log10(slow["median"] / fast["median"])), "",
                                                 f"order of magnitude (rounded log10) of the median ratio, {what}",
                                                 "timing")}


def _conditions(plan: BenchPlan, threads: str) -> str:
    m = plan.model
    return (
        f"random-weight {m.dtype} model: d_model {m.d_model}, {m.n_layers} layers, "
        f"{m.n_heads} heads x {m.d_head}, d_ff {m.d_ff}, vocab {m.vocab_size}; matrix products by "
        f"BLAS (kernels={m.kernels}, as fast inference computes; the experiments sum in a fixed "
        f"order instead); batch 1; greedy "
        f"argmax; time to first token (TTFT) = start until the first token is chosen, prefill "
        f"included; decode time = (last token's time - first token's time) / (generated - 1); "
        f"interleaved rounds until every row's IQR <= {plan.max_spread:g} x its median "
        f"({plan.min_repeats} to {plan.max_repeats} rounds), all repeats kept, median and quartiles cited; "
        f"prompts {list(plan.prompts)}, generated {list(plan.generated)}; BLAS threads: {threads}; "
        f"{os.cpu_count()} logical CPUs shared with other processes"
    )


def load_average() -> list[float]:
    """1-, 5- and 15-minute load averages (other processes compete for the CPUs)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []


def load_refusal(load: list[float], limit: float, own_threads: int = 0) -> str:
    """Why a machine at this load is too busy to time on ('' when it is quiet enough).

    The 1-minute load average counts the processes wanting a CPU. Read before the study starts it must not
    exceed ``limit``; read after, the study's own ``own_threads`` busy threads are still in it, so it may
    exceed ``limit`` by that much."""
    if not load:
        return "this system reports no load average, so a quiet machine cannot be confirmed"
    if load[0] > limit + own_threads:
        return f"1-minute load average {load[0]} > limit {limit:g}" + (
            f" + {own_threads} thread(s) of the study itself" if own_threads else "")
    return ""


def bench_record(plan: BenchPlan, threads: int, max_load: float, forced: bool = False) -> dict[str, Any]:
    """Run the study and return its record (content/records/decode_timing.json).

    ``threads``: the BLAS threads the caller pinned; ``forced``: the caller writes the record even when
    the load was above ``max_load`` (the record's conditions then say so)."""
    load_before = load_average()
    result = measure(plan)
    load_after = load_average()
    busy = [why for why in (load_refusal(load_before, max_load), load_refusal(load_after, max_load, threads)) if why]
    notes = [f"load average (1/5/15 min) {load_before} before, {load_after} after, 1-minute load after each "
             f"round {result.load_during}; load limit {max_load:g}"]
    if busy:
        notes.append("TAKEN ON A BUSY MACHINE, written only because --force was given: " + "; ".join(busy)
                     if forced else "busy: " + "; ".join(busy))
    notes.append(f"spread bounded after {result.repeats} rounds (worst IQR/median {result.worst_spread:.2f})"
                 if result.bounded else
                 f"SPREAD NOT BOUNDED: after {result.repeats} rounds the worst row's IQR is "
                 f"{result.worst_spread:.2f} x its median (target {plan.max_spread:g})")
    return {
        "id": "decode_timing",
        "title": "Time to first token and per-token decode time: KV cache vs full recompute (NumPy, CPU)",
        "date": datetime.date.today().isoformat(),
        "machine": (f"{platform.machine()} {platform.system()} {platform.release()}; "
                    f"CPU {_cpu_model()}; {os.cpu_count()} logical CPUs; "
                    f"Python {platform.python_version()}; NumPy {np.__version__}"),
        "conditions": "; ".join([_conditions(plan, ", ".join(f"{name}={threads}" for name in THREAD_VARIABLES)
                                             + " (pinned)"), *notes]),
        "command": "python -m lessonmodel bench",
        "source": None,
        "values": _values(plan, result.rows, result.repeats),
        "data": {"model": plan.model.to_dict() | {"vocab": f"{plan.model.vocab_size} ids"},
                 "methods": list(METHODS), "load_before": load_before, "load_after": load_after,
                 "load_during": result.load_during, "load_limit": max_load, "busy": busy,
                 "forced": forced and bool(busy), "spread_bounded": result.bounded,
                 "worst_spread": result.worst_spread, "rows": result.rows},
    }
