"""A small decoder-only transformer in NumPy, with and without a KV cache.

Papers:
- Vaswani et al. 2017, "Attention Is All You Need" (scaled dot-product attention).
- Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding" (RoPE).
- Shazeer 2019, "Fast Transformer Decoding: One Write-Head is All You Need" (multi-query).
- Ainslie et al. 2023, "GQA: Training Generalized Multi-Query Transformer Models" (grouped-query).
- Meta's llama reference (llama/model.py): pre-norm RMSNorm blocks, a preallocated
  KV cache written at the current length, RoPE offset by the start position.

Three ways to get logits, which agree bit for bit in a causal model (every sum is
taken in a fixed order, see kernels.py; with `kernels="blas"` only to round-off):
- `forward(params, tokens, positions)`: full recompute of every position, no cache.
- `prefill(params, tokens, cache)`: the whole prompt in one batched pass, filling the cache.
- `decode_step(params, token, cache)`: one new token against the cached keys and values.

Shapes: B batch, T new tokens, S tokens visible (cached + new), H query heads,
Hkv key/value heads, Dh head width, D model width, V vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from lessonmodel.cache import ConcatCache, KVCache, make_concat_cache
from lessonmodel.config import ModelConfig
from lessonmodel.kernels import BY_NAME, Kernels
from lessonmodel.params import LayerParams, Params

Cache = TypeVar("Cache", KVCache, ConcatCache)


def rms_norm(x: np.ndarray, gain: np.ndarray, ops: Kernels, eps: float = 1e-6) -> np.ndarray:
    """Scale each vector to unit root-mean-square, then by a learned gain."""
    mean_square = ops.sum(x * x, axis=-1)[..., None] / x.shape[-1]  # (..., 1)
    return x / np.sqrt(mean_square + eps) * gain


def rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Rotate feature pairs (2i, 2i+1) by angle position * base^(-2i/Dh) (RoFormer eq. 34).

    x: (B, T, heads, Dh); positions: (T,) absolute positions. Because q and k are
    rotated by their own absolute positions, q·k depends only on the distance.
    """
    d_head = x.shape[-1]
    freqs = base ** (-np.arange(0, d_head, 2) / d_head)  # (Dh/2,)
    angles = positions[:, None] * freqs[None, :]  # (T, Dh/2)
    cos = np.cos(angles)[None, :, None, :].astype(x.dtype)  # (1, T, 1, Dh/2)
    sin = np.sin(angles)[None, :, None, :].astype(x.dtype)  # (1, T, 1, Dh/2)
    even, odd = x[..., 0::2], x[..., 1::2]  # (B, T, heads, Dh/2) each
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def project_qkv(lp: LayerParams, h: np.ndarray, positions: np.ndarray,
                cfg: ModelConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, keys and values of the new tokens; q and k carry RoPE already."""
    b, t, _ = h.shape
    mm = BY_NAME[cfg.kernels].matmul
    q = mm(h, lp.wq).reshape(b, t, cfg.n_heads, cfg.d_head)  # (B, T, H, Dh)
    k = mm(h, lp.wk).reshape(b, t, cfg.n_kv_heads, cfg.d_head)  # (B, T, Hkv, Dh)
    v = mm(h, lp.wv).reshape(b, t, cfg.n_kv_heads, cfg.d_head)  # (B, T, Hkv, Dh)
    return rope(q, positions, cfg.rope_base), rope(k, positions, cfg.rope_base), v


def repeat_kv(x: np.ndarray, n_rep: int) -> np.ndarray:
    """Share each K/V head with n_rep query heads (GQA/MQA); only Hkv heads are stored."""
    return x if n_rep == 1 else np.repeat(x, n_rep, axis=2)  # (B, S, Hkv * n_rep, Dh)


def visibility(n_new: int, n_visible: int, causal: bool) -> np.ndarray:
    """Which keys each new query may read, (T, S) bool.

    The new queries are the last n_new of n_visible positions; causally, query i
    reads keys 0 .. (n_visible - n_new + i), as in the llama reference mask.
    """
    if not causal:
        return np.ones((n_new, n_visible), dtype=bool)
    first = n_visible - n_new
    return np.arange(n_visible)[None, :] <= first + np.arange(n_new)[:, None]  # (T, S)


def attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool, ops: Kernels) -> tuple[np.ndarray, np.ndarray]:
    """softmax(q kᵀ / sqrt(Dh)) v for every head; returns output (B, T, H*Dh) and weights (B, H, T, S)."""
    b, t, n_heads, d_head = q.shape
    n_rep = n_heads // k.shape[2]
    k = repeat_kv(k, n_rep).transpose(0, 2, 3, 1)  # (B, H, Dh, S)
    v = repeat_kv(v, n_rep).transpose(0, 2, 1, 3)  # (B, H, S, Dh)
    scores = ops.matmul(q.transpose(0, 2, 1, 3), k) / math.sqrt(d_head)  # (B, H, T, S)
    scores = np.where(visibility(t, k.shape[-1], causal), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / ops.sum(weights, axis=-1)[..., None]  # (B, H, T, S)
    out = ops.matmul(weights, v).transpose(0, 2, 1, 3).reshape(b, t, n_heads * d_head)  # (B, T, H*Dh)
    return out, weights


def mlp(lp: LayerParams, x: np.ndarray, ops: Kernels) -> np.ndarray:
    """Position-wise feed-forward: up, GELU (tanh form), down."""
    u = ops.matmul(x, lp.w_up)  # (B, T, d_ff)
    g = 0.5 * u * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u * u * u)))
    return ops.matmul(g, lp.w_down)  # (B, T, D)


@dataclass(frozen=True)
class Trace:
    """Logits plus what each layer computed (for experiments and figures)."""

    logits: np.ndarray
    """(B, T, V)."""
    keys: tuple[np.ndarray, ...]
    """Per layer, (B, S, Hkv, Dh): keys after RoPE, exactly what a cache would hold."""
    values: tuple[np.ndarray, ...]
    """Per layer, (B, S, Hkv, Dh)."""
    attention: tuple[np.ndarray, ...]
    """Per layer, (B, H, T, S) attention weights of the new tokens."""


def _as_batch(params: Params, tokens: np.ndarray | int) -> tuple[np.ndarray, bool]:
    """Tokens as (B, T) int array, and whether the caller passed a batch."""
    arr = np.asarray(tokens)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"tokens must be integers, got dtype {arr.dtype}")
    batched = arr.ndim == 2
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"tokens must have shape (T,) or (B, T) with T >= 1, got {arr.shape}")
    v = params.config.vocab_size
    if arr.min() < 0 or arr.max() >= v:
        raise ValueError(f"token ids must be in [0, {v}), got {arr.min()}..{arr.max()}")
    return arr.astype(np.int64), batched


def _check_positions(positions: np.ndarray, n: int) -> np.ndarray:
    pos = np.asarray(positions)
    if pos.shape != (n,) or pos.dtype.kind not in "iu" or (n and pos.min() < 0):
        raise ValueError(f"positions must be {n} non-negative integers, got {pos!r}")
    return pos.astype(np.int64)  # (T,)


def forward_trace(params: Params, tokens: np.ndarray, positions: np.ndarray | None = None) -> Trace:
    """Full recompute of every position (no cache), keeping each layer's K, V and attention.

    The blocks are the ones cached decoding runs: a recompute is one pass over an empty growing
    cache, whose arrays then hold exactly the new tokens' K and V.
    """
    ids, batched = _as_batch(params, tokens)
    empty = make_concat_cache(params.config, batch=ids.shape[0])
    logits, cache, attention = run_cached(params, ids, empty, positions)
    return Trace(logits if batched else logits[0], cache.keys, cache.values, attention)


def forward(params: Params, tokens: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
    """Logits of every position by full recompute: (T, V), or (B, T, V) for a batch."""
    return forward_trace(params, tokens, positions).logits


def _check_cache(params: Params, cache: KVCache | ConcatCache) -> None:
    cfg = params.config
    k = cache.keys[0]
    if len(cache.keys) != cfg.n_layers or k.shape[2:] != (cfg.n_kv_heads, cfg.d_head):
        raise ValueError(f"cache shape {len(cache.keys)} layers x {k.shape[2:]} does not match the model "
                         f"({cfg.n_layers} layers x ({cfg.n_kv_heads}, {cfg.d_head}))")
    if k.dtype != cfg.np_dtype:
        raise ValueError(f"cache dtype {k.dtype} does not match the model dtype {cfg.dtype}")


def run_cached(params: Params, tokens: np.ndarray, cache: Cache,
               positions: np.ndarray | None = None) -> tuple[np.ndarray, Cache, tuple[np.ndarray, ...]]:
    """New tokens through every layer, reading and extending the cache.

    Returns logits (B, T, V), the extended cache and per-layer attention (B, H, T, S).
    `positions` defaults to the cache's next positions; passing others is how the
    wrong-position experiment misplaces RoPE.
    """
    ids, _ = _as_batch(params, tokens)
    _check_cache(params, cache)
    t = ids.shape[1]
    pos = _check_positions(cache.next_position + np.arange(t) if positions is None else positions, t)
    cfg = params.config
    x = params.embedding[ids]  # (B, T, D)
    attention = []
    ops = BY_NAME[cfg.kernels]
    for i, lp in enumerate(params.layers):
        q, k, v = project_qkv(lp, rms_norm(x, lp.attn_norm, ops), pos, cfg)
        cache, k_seen, v_seen = cache.write(i, k, v)  # (B, S, Hkv, Dh) each
        out, w = attend(q, k_seen, v_seen, cfg.causal, ops)
        x = x + ops.matmul(out, lp.wo)  # (B, T, D)
        x = x + mlp(lp, rms_norm(x, lp.mlp_norm, ops), ops)
        attention.append(w)
    logits = ops.matmul(rms_norm(x, params.final_norm, ops), params.unembedding)  # (B, T, V)
    return logits, cache.advance(t), tuple(attention)


def prefill(params: Params, tokens: np.ndarray, cache: Cache) -> tuple[np.ndarray, Cache]:
    """The whole prompt in one batched pass: logits (T, V) or (B, T, V), and the filled cache."""
    logits, cache, _ = run_cached(params, tokens, cache)
    return (logits if np.asarray(tokens).ndim == 2 else logits[0]), cache


def decode_step(params: Params, token: int | np.ndarray, cache: Cache,
                position: int | None = None) -> tuple[np.ndarray, Cache]:
    """One new token (an int, or (B,) for a batch): next-token logits (V,) or (B, V), and the cache."""
    arr = np.asarray(token)
    if arr.ndim > 1:
        raise ValueError(f"decode_step takes one token per sequence, got shape {arr.shape}")
    pos = None if position is None else np.array([position])
    logits, cache, _ = run_cached(params, arr.reshape(-1, 1), cache, pos)
    return (logits[:, 0] if arr.ndim == 1 else logits[0, 0]), cache
