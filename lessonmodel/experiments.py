"""Experiments on when a KV cache is the same computation as a full recompute.

Each function takes a `ModelConfig`, runs the model and returns a frozen `Result`.
The claim under test (Hugging Face "Caching" docs; Kwon et al. 2023, §2.2): in a
causal model an earlier position never reads later tokens, so its K/V can be
kept. The controls show what breaks it: an edited prefix, a misplaced position,
another request's cache, and bidirectional attention.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lessonmodel.cache import KVCache, make_cache
from lessonmodel.config import ModelConfig, attention_variants, char_config, encode_chars, encode_words
from lessonmodel.model import Trace, decode_step, forward, forward_trace, prefill
from lessonmodel.params import Params, init_params
from lessonmodel.result import EXACT, ROUNDING, Result, Value, experiment

SENTENCES = (
    "BOS I gave him a book",
    "BOS she sent her the letter .",
    "BOS they told me a story and",
    "BOS I gave her a key to the cat",
)
OFFSETS = (0, 1, 7, 100)
ORIGINAL, EDITED, NEXT = "BOS I gave him a", "BOS I gave her a", "book"
OTHER = "BOS she sent her the"
CHAR_TEXT = "the cache keeps old keys and values, not answers."
CHAR_EDITED = "thy cache keeps old keys and values, not answers."
CHAR_PREFILL = 8


def bitwise(cfg: ModelConfig) -> str:
    """Class of a difference that is zero by construction: exact with the fixed-order
    kernels (a row's bits never depend on the batch), rounding with BLAS."""
    return EXACT if cfg.kernels == "fixed-order" else ROUNDING


def max_abs(a: np.ndarray, b: np.ndarray) -> float:
    """Largest absolute elementwise difference."""
    return float(np.max(np.abs(a - b)))


def cached_logits(
    params: Params, tokens: np.ndarray, n_prefill: int, cache: KVCache
) -> tuple[np.ndarray, KVCache]:
    """Logits of every position: prefill the first n_prefill tokens, then decode one by one."""
    first, cache = prefill(params, tokens[:n_prefill], cache)  # (n_prefill, V)
    rows = [first]
    for tok in tokens[n_prefill:]:
        logits, cache = decode_step(params, int(tok), cache)  # (V,)
        rows.append(logits[None, :])
    return np.concatenate(rows), cache  # (T, V)


@experiment
def equivalence(cfg: ModelConfig) -> Result:
    """Cached (prefill + decode steps) vs full recompute, over prefixes, offsets and KV-head counts."""
    cases = []
    for variant in attention_variants(cfg):
        params = init_params(variant)
        for sentence in SENTENCES:
            tokens = encode_words(variant, sentence)
            n_prefill = len(tokens) // 2
            for offset in OFFSETS:
                full = forward(params, tokens, offset + np.arange(len(tokens)))  # (T, V)
                cache = make_cache(variant, len(tokens), start_position=offset)
                cached, _ = cached_logits(params, tokens, n_prefill, cache)
                cases.append({"prefix": sentence, "n_prefill": n_prefill, "offset": offset,
                              "n_kv_heads": variant.n_kv_heads,
                              "max_abs_diff": max_abs(cached, full)})
    worst = max(c["max_abs_diff"] for c in cases)
    return Result(
        "Cached decoding equals full recompute", cfg,
        {"prefixes": list(SENTENCES), "offsets": list(OFFSETS),
         "n_kv_heads_variants": [v.n_kv_heads for v in attention_variants(cfg)]},
        (
            Value("max_abs_diff", worst, "",
                  "largest |cached - recomputed| logit over all prefixes, offsets and KV-head counts",
                  bitwise(cfg)),
            Value("n_prefixes", len(SENTENCES), "", "number of token sequences checked"),
            Value("n_offsets", len(OFFSETS), "", "number of RoPE start positions checked (incl. non-zero)"),
            Value("n_attention_variants", len(attention_variants(cfg)), "",
                  "number of KV-head counts checked (multi-head, grouped-query, multi-query)"),
            Value("n_cases", len(cases), "", "number of cached-vs-recompute comparisons"),
        ),
        {"cases": cases},
    )


def _kv_change(a: KVCache | Trace, b: KVCache | Trace, n: int) -> np.ndarray:
    """Per layer and position, the largest |K| or |V| difference of the first n slots, (L, n)."""
    rows = []
    for ka, kb, va, vb in zip(a.keys, b.keys, a.values, b.values, strict=True):
        dk = np.abs(ka[:, :n] - kb[:, :n]).max(axis=(0, 2, 3))  # (n,)
        dv = np.abs(va[:, :n] - vb[:, :n]).max(axis=(0, 2, 3))  # (n,)
        rows.append(np.maximum(dk, dv))
    return np.array(rows)  # (L, n)


@experiment
def stale_prefix(cfg: ModelConfig) -> Result:
    """Edit an earlier token but keep the old cache: the next logits no longer match."""
    params = init_params(cfg)
    old, new, nxt = (encode_words(cfg, s) for s in (ORIGINAL, EDITED, NEXT))
    edit = int(np.flatnonzero(old != new)[0])
    n = len(old)
    _, old_cache = prefill(params, old, make_cache(cfg, n + 1))
    _, new_cache = prefill(params, new, make_cache(cfg, n + 1))
    truth = forward(params, np.concatenate([new, nxt]))[-1]  # (V,)
    stale, _ = decode_step(params, int(nxt[0]), old_cache.copy())
    legal, _ = decode_step(params, int(nxt[0]), new_cache.copy())
    change = _kv_change(old_cache, new_cache, n)  # (L, n)
    return Result(
        "An edited prefix invalidates the cache", cfg,
        {"original": ORIGINAL, "edited": EDITED, "next_token": NEXT},
        (
            Value("max_abs_diff", max_abs(stale, truth), "",
                  "max |logit| difference: old cache after the edit vs full recompute"),
            Value("legal_max_abs_diff", max_abs(legal, truth), "",
                  "max |logit| difference: cache rebuilt from the edited prefix vs full recompute",
                  bitwise(cfg)),
            Value("edit_position", edit, "", "position (0 = BOS) of the edited token"),
            Value("unchanged_before_edit", bool(np.all(change[:, :edit] == 0)), "",
                  "every layer's K/V before the edit are bit-identical"),
            Value("n_changed_entries", int(np.count_nonzero(change)), "",
                  "number of (layer, position) K/V entries that changed"),
        ),
        {"tokens_original": ORIGINAL.split(), "tokens_edited": EDITED.split(),
         "changed": (change > 0).tolist(), "magnitude": change.tolist()},
    )


@experiment
def wrong_position(cfg: ModelConfig) -> Result:
    """Decode the next token at a misplaced RoPE position; a uniform shift is harmless."""
    params = init_params(cfg)
    prompt, nxt = encode_words(cfg, ORIGINAL), encode_words(cfg, NEXT)
    seq = np.concatenate([prompt, nxt])
    truth = forward(params, seq)[-1]  # (V,)
    _, cache = prefill(params, prompt, make_cache(cfg, len(seq)))
    rows = [{"position": p, "max_abs_diff": max_abs(decode_step(params, int(nxt[0]), cache.copy(), position=p)[0],
                                                    truth)} for p in range(len(seq) + 3)]
    shifted = forward(params, seq, 7 + np.arange(len(seq)))[-1]
    return Result(
        "A misplaced RoPE position breaks the cache", cfg,
        {"prompt": ORIGINAL, "next_token": NEXT, "correct_position": len(prompt),
         "wrong_position": 0},
        (
            Value("max_abs_diff", rows[0]["max_abs_diff"], "",
                  "max |logit| difference when the new token is decoded at position 0 "
                  f"instead of {len(prompt)}"),
            Value("correct_max_abs_diff", rows[len(prompt)]["max_abs_diff"], "",
                  "the same comparison at the correct position", bitwise(cfg)),
            Value("uniform_shift_max_abs_diff", max_abs(shifted, truth), "",
                  "max |logit| difference when every position is shifted by 7 (RoPE is relative)"),
        ),
        {"by_position": rows},
    )


@experiment
def other_request(cfg: ModelConfig) -> Result:
    """Decode request B's next token against request A's cache."""
    params = init_params(cfg)
    a, b, nxt = (encode_words(cfg, s) for s in (ORIGINAL, OTHER, NEXT))
    truth = forward(params, np.concatenate([b, nxt]))[-1]  # (V,)
    _, cache_a = prefill(params, a, make_cache(cfg, len(a) + 1))
    _, cache_b = prefill(params, b, make_cache(cfg, len(b) + 1))
    wrong, _ = decode_step(params, int(nxt[0]), cache_a)
    right, _ = decode_step(params, int(nxt[0]), cache_b)
    return Result(
        "Another request's cache gives other logits", cfg,
        {"request_a": ORIGINAL, "request_b": OTHER, "next_token": NEXT},
        (
            Value("max_abs_diff", max_abs(wrong, truth), "",
                  "max |logit| difference: B's token on A's cache vs B's full recompute"),
            Value("own_cache_max_abs_diff", max_abs(right, truth), "",
                  "the same comparison on B's own cache", bitwise(cfg)),
        ),
    )


def _old_kv_change(params: Params, tokens: np.ndarray, n_old: int) -> list[float]:
    """Per layer, the largest change of the first n_old K/V after appending the rest."""
    change = _kv_change(forward_trace(params, tokens[:n_old]), forward_trace(params, tokens), n_old)  # (L, n_old)
    return change.max(axis=1).tolist()


@experiment
def bidirectional(cfg: ModelConfig) -> Result:
    """Append one token: which layers' old K/V change, causal vs bidirectional."""
    cfg = replace(cfg, n_layers=max(3, cfg.n_layers), causal=True)
    tokens = encode_words(cfg, f"{ORIGINAL} {NEXT}")
    n_old = len(tokens) - 1
    change = {"causal": _old_kv_change(init_params(cfg), tokens, n_old),
              "bidirectional": _old_kv_change(init_params(replace(cfg, causal=False)), tokens,
                                              n_old)}
    values = tuple(
        Value(f"{'causal' if kind == 'causal' else 'bidir'}_layer{i + 1}_old_kv_change", c, "",
              f"max |change| of old K/V in layer {i + 1} after appending a token ({kind})",
              bitwise(cfg) if kind == "causal" or i == 0 else ROUNDING)
        for kind, per_layer in change.items()
        for i, c in enumerate(per_layer)
    )
    return Result(
        "Bidirectional attention invalidates old K/V from layer 2 up", cfg,
        {"sequence": ORIGINAL, "appended_token": NEXT},
        values,
        {"old_kv_change_by_layer": change},
    )


@experiment
def char_stream(cfg: ModelConfig) -> Result:
    """Character-level stream: cached vs recompute, and a stale cache after an early edit."""
    cfg = char_config(**{k: v for k, v in cfg.to_dict().items() if k != "vocab"})
    params = init_params(cfg)
    text = encode_chars(cfg, CHAR_TEXT)  # (T,) with BOS
    full = forward(params, text)  # (T, V)
    cached, _ = cached_logits(params, text, CHAR_PREFILL, make_cache(cfg, len(text)))
    edited = encode_chars(cfg, CHAR_EDITED)
    _, stale_cache = prefill(params, text[:CHAR_PREFILL], make_cache(cfg, len(text)))
    stale_rows = []
    for tok in edited[CHAR_PREFILL:]:
        logits, stale_cache = decode_step(params, int(tok), stale_cache)
        stale_rows.append(logits)
    stale = np.array(stale_rows)  # (T - prefill, V)
    truth = forward(params, edited)[CHAR_PREFILL:]  # (T - prefill, V)
    return Result(
        "Cache check on a character stream", cfg,
        {"text": CHAR_TEXT, "edited_text": CHAR_EDITED, "n_prefill": CHAR_PREFILL,
         "edit_position": int(np.flatnonzero(text != edited)[0])},
        (
            Value("cached_max_abs_diff", max_abs(cached, full), "",
                  "max |logit| difference, cached vs full recompute, over every character",
                  bitwise(cfg)),
            Value("stale_max_abs_diff", max_abs(stale, truth), "",
                  "max |logit| difference after an early character edit with the old cache kept"),
            Value("n_chars", len(CHAR_TEXT), "", "characters in the stream (BOS not counted)"),
        ),
        {"cached_diff_by_position": np.abs(cached - full).max(axis=1).tolist(),
         "stale_diff_by_position": ([0.0] * CHAR_PREFILL
                                    + np.abs(stale - truth).max(axis=1).tolist())},
    )
