"""Experiments that count bytes: the KV cache formula and the training state.

Every byte count here is read from the `.nbytes` of real NumPy arrays or
computed by `kv_bytes.kv_cache_bytes`; none is typed in.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lessonmodel.cache import make_cache
from lessonmodel.config import ModelConfig, attention_variants
from lessonmodel.kv_bytes import (
    FP16_BYTES,
    REAL_MODELS,
    PublishedConfig,
    context_bytes,
    kv_cache_bytes,
    per_token_bytes,
)
from lessonmodel.model import prefill
from lessonmodel.params import init_params
from lessonmodel.result import Result, Value, experiment

CHECK_TOKENS = (1, 5, 64)
CHECK_BATCHES = (1, 3)
CHECK_DTYPES = ("float64", "float32")
CONTEXT = 4096


def _check_rows(cfg: ModelConfig) -> list[dict[str, object]]:
    """Fill real caches and compare their nbytes with the formula."""
    rows = []
    for dtype in CHECK_DTYPES:
        for variant in attention_variants(replace(cfg, dtype=dtype)):
            params, n_kv = init_params(variant), variant.n_kv_heads
            rng = np.random.default_rng(variant.seed)
            for t in CHECK_TOKENS:
                for b in CHECK_BATCHES:
                    tokens = rng.integers(0, variant.vocab_size, size=(b, t))  # (B, T)
                    _, cache = prefill(params, tokens, make_cache(variant, t, batch=b))
                    s = np.dtype(dtype).itemsize
                    rows.append({
                        "T": t, "B": b, "n_kv": n_kv, "dtype": dtype, "bytes_per_element": s,
                        "formula": kv_cache_bytes(variant.n_layers, b, t, n_kv, variant.d_head, s),
                        "nbytes": cache.nbytes, "used_nbytes": cache.used_nbytes,
                    })
    return rows


@experiment
def kv_bytes(cfg: ModelConfig) -> Result:
    """2·L·B·T·n_kv·d_head·s against the nbytes of real cache arrays of the lesson model."""
    rows = _check_rows(cfg)
    one_token = make_cache(cfg, 1)  # a real cache with room for exactly one token
    values = (
        Value("lessonmodel_bytes_per_token", one_token.nbytes, "B",
              f"KV bytes per token of the lesson model ({cfg.dtype}, batch 1), measured"),
        Value("formula_equals_nbytes",
              all(r["formula"] == r["nbytes"] == r["used_nbytes"] for r in rows), "",
              "the formula equals the nbytes of the real cache arrays in every case"),
        Value("n_checked", len(rows), "", "number of (T, B, n_kv, dtype) cases checked"),
    )
    return Result(
        "KV cache bytes: formula vs real arrays of the lesson model", cfg,
        {"check_tokens": list(CHECK_TOKENS), "check_batches": list(CHECK_BATCHES),
         "check_dtypes": list(CHECK_DTYPES)},
        values, {"check": rows},
    )


def decode_flops(m: PublishedConfig, tokens: int) -> float:
    """FLOPs of one batch-1 decode step with ``tokens`` cached: one multiply-add (2 FLOPs) per weight, plus
    attention's two reads of the cache, q·k over every cached key and the weighted sum of every value
    (2 FLOPs per element each: 4 · L · T · n_heads · d_head)."""
    return 2 * m.n_params + 4 * m.n_layers * tokens * m.n_heads * m.d_head


def _decode_read(m: PublishedConfig) -> list[Value]:
    """What one decode step of a batch-1 request must read at its native context: all weights
    (fp16) plus the whole KV cache, against the FLOPs it does on them. Each weight read does one
    multiply-add (2 FLOPs on 2 bytes) and each cached K or V element one multiply-add too, so the
    step does about 1 FLOP per byte read: memory bandwidth, not arithmetic, sets its pace."""
    weights = m.n_params * FP16_BYTES
    cache = context_bytes(m, m.native_context)
    read = weights + cache
    flops = decode_flops(m, m.native_context)
    attention = flops - 2 * m.n_params
    return [
        Value(f"{m.key}_weights_bytes", weights, "B", f"{m.name}: fp16 weights ({m.n_params:.3g} parameters)"),
        Value(f"{m.key}_native_context", m.native_context, "", f"{m.name}: native context length"),
        Value(f"{m.key}_kv_native", cache, "B", f"{m.name}: KV cache of one full native-context sequence, fp16"),
        Value(f"{m.key}_decode_read_bytes", read, "B",
              f"{m.name}: bytes one decode step reads at full native context, batch 1 (weights + cache)"),
        Value(f"{m.key}_kv_share_pct", 100 * cache / read, "%", f"{m.name}: the cache's share of those bytes"),
        Value(f"{m.key}_tokens_equal_weights", weights / per_token_bytes(m), "",
              f"{m.name}: cached tokens (batch total) whose KV bytes equal the fp16 weights"),
        Value(f"{m.key}_requests_equal_weights", weights / cache, "",
              f"{m.name}: full native-context requests whose caches together equal the weights"),
        Value(f"{m.key}_decode_flops", flops, "",
              f"{m.name}: FLOPs of that decode step (2 per weight + attention's 4·L·T·n_heads·d_head)"),
        Value(f"{m.key}_attention_flops_pct", 100 * attention / (2 * m.n_params), "%",
              f"{m.name}: attention's FLOPs in that step as a percentage of the weights' FLOPs"),
        Value(f"{m.key}_decode_flops_per_byte", flops / read, "",
              f"{m.name}: FLOPs per byte read in that decode step (attention included)"),
    ]


@experiment
def kv_models(_cfg: ModelConfig) -> Result:
    """The same formula applied to published configurations (computed, not measured): bytes per token and per
    4096 tokens (fp16)."""
    models = [{"key": m.key, "name": m.name, "L": m.n_layers, "n_heads": m.n_heads, "n_kv": m.n_kv_heads,
               "d_head": m.d_head, "native_context": m.native_context, "source": m.source,
               "bytes_per_element": FP16_BYTES, "per_token": per_token_bytes(m), "per_4096": context_bytes(m, CONTEXT),
               "per_native_context": context_bytes(m, m.native_context),
               "mha_per_token": per_token_bytes(replace(m, n_kv_heads=m.n_heads))} for m in REAL_MODELS]
    values = [value for m in models for value in (
        Value(f"{m['key']}_per_token", m["per_token"], "B", f"{m['name']}: KV bytes per token, fp16, batch 1"),
        Value(f"{m['key']}_per_4096", m["per_4096"], "B", f"{m['name']}: KV bytes of a {CONTEXT}-token sequence, fp16"),
    )]
    values += [value for m in REAL_MODELS if m.n_params for value in _decode_read(m)]
    return Result(
        "KV cache bytes of published model configurations (formula)", _cfg,
        {"formula": "2 * L * B * T * n_kv * d_head * s", "batch": 1, "bytes_per_element": FP16_BYTES,
         "context": CONTEXT, "configs": "published config.json or paper of each model"},
        tuple(values), {"models": models}, provenance="computed",
    )


@experiment
def training_state(cfg: ModelConfig) -> Result:
    """Bytes of parameters vs what training adds: gradients and Adam's m and v."""
    params = init_params(cfg)
    arrays = dict(params.named_arrays())
    # training keeps, for every weight, a gradient and Adam's first and second moments (m, v), each shaped like it
    grads, adam_m, adam_v = ({name: np.zeros_like(a) for name, a in arrays.items()} for _ in range(3))

    def total(d: dict[str, np.ndarray]) -> int:
        return sum(a.nbytes for a in d.values())

    p, g, a = total(arrays), total(grads), total(adam_m) + total(adam_v)
    return Result(
        "Parameters vs gradients and Adam state", cfg, {"optimizer": "Adam"},
        (
            Value("params_bytes", p, "B", "bytes of the lesson model's parameter arrays"),
            Value("grads_bytes", g, "B", "bytes of one gradient array per parameter (training only)"),
            Value("adam_bytes", a, "B", "bytes of Adam's m and v arrays (training only)"),
            Value("training_total_bytes", p + g + a, "B",
                  "parameters + gradients + Adam state during training"),
            Value("n_params", sum(x.size for x in arrays.values()), "", "number of parameters"),
        ),
        {"arrays": [{"name": n, "shape": list(x.shape), "nbytes": x.nbytes}
                    for n, x in arrays.items()]},
    )
