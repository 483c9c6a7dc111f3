"""When the context window fills: dropping the oldest tokens, with and without renumbering positions.

A model reads at most a window of tokens. When a conversation outgrows it, a server drops the oldest
tokens. Two ways, two different outcomes for the cache:

- front truncation: the text now *starts* later, so every kept token gets a new position (renumbered
  from 0). RoPE rotated each cached key by its old position (lessonmodel/cache.py), so every kept
  key is wrong; and from layer 2 on each kept entry was computed while reading the dropped tokens.
  Only a fresh prefill of the kept text gives the truncated text's logits.
- eviction that keeps positions (as a sliding window does): the kept entries are still exactly what
  they were; they are simply no longer read. In a model trained with full attention the next logits
  then differ from the full context's; in a model trained with a sliding window (Mistral 7B), the
  evicted entries lie outside the window and would not have been read anyway.
"""

from __future__ import annotations

import numpy as np

from lessonmodel.cache import KVCache, make_cache
from lessonmodel.config import ModelConfig, encode_words
from lessonmodel.experiments import bitwise, max_abs
from lessonmodel.model import decode_step, forward, forward_trace, prefill, rope
from lessonmodel.params import init_params
from lessonmodel.result import Result, Value, experiment

WINDOW_TEXT = "BOS I gave him a book and she sent me a letter"
DROPPED = 4
NEXT = "."


def keep_last(cache: KVCache, start: int, start_position: int) -> KVCache:
    """A cache holding slots start .. length - 1 of ``cache`` (one free slot after them), its first slot
    at RoPE position ``start_position``: the old entries as they are, nothing recomputed."""
    keep = cache.length - start

    def cut(a: np.ndarray) -> np.ndarray:
        out = np.zeros((a.shape[0], keep + 1, *a.shape[2:]), dtype=a.dtype)  # (B, keep + 1, Hkv, Dh)
        out[:, :keep] = a[:, start:cache.length]
        return out

    return KVCache(tuple(cut(k) for k in cache.keys), tuple(cut(v) for v in cache.values), keep, start_position)


def _rerotated(cache: KVCache, shift: int, base: float) -> KVCache:
    """The same cache with every key rotated back by ``shift`` positions (RoPE composes by adding angles)."""
    back = np.full(cache.keys[0].shape[1], -shift)  # (slots,)
    return KVCache(tuple(rope(k, back, base) for k in cache.keys), cache.values, cache.length,
                   cache.start_position)


@experiment
def front_truncation(cfg: ModelConfig) -> Result:
    """Drop the oldest tokens of a full window: renumbered, the old cache is wrong; kept positions, it is valid."""
    params = init_params(cfg)
    text, nxt = encode_words(cfg, WINDOW_TEXT), int(encode_words(cfg, NEXT)[0])
    kept = text[DROPPED:]
    _, full = prefill(params, text, make_cache(cfg, len(text)))
    truth = forward(params, np.append(kept, nxt))[-1]  # (V,) the truncated text, numbered from 0
    renumbered, _ = decode_step(params, nxt, keep_last(full, DROPPED, 0))
    rerotated, _ = decode_step(params, nxt, _rerotated(keep_last(full, DROPPED, 0), DROPPED, cfg.rope_base))
    _, fresh = prefill(params, kept, make_cache(cfg, len(kept) + 1))
    rebuilt, _ = decode_step(params, nxt, fresh)
    evicted, _ = decode_step(params, nxt, keep_last(full, DROPPED, DROPPED))
    whole = forward(params, np.append(text, nxt))[-1]  # (V,) nothing dropped
    old, new = keep_last(full, DROPPED, 0), forward_trace(params, kept)
    key_change = [np.abs(k[:, :len(kept)] - k2).max(axis=(0, 2, 3)) for k, k2 in zip(old.keys, new.keys, strict=True)]
    value_by_position = [np.abs(v[:, :len(kept)] - v2).max(axis=(0, 2, 3))  # (n_kept,) per layer
                         for v, v2 in zip(old.values, new.values, strict=True)]
    value_change = [float(c.max()) for c in value_by_position]
    return Result(
        "A full window: drop the oldest tokens, renumbered or not", cfg,
        {"text": WINDOW_TEXT, "dropped": DROPPED, "next_token": NEXT},
        (
            Value("n_tokens", len(text), "", "tokens in the full window"),
            Value("n_dropped", DROPPED, "", "oldest tokens dropped"),
            Value("n_kept", len(kept), "", "tokens kept"),
            Value("layer1_keys_changed", int(np.count_nonzero(key_change[0])), "",
                  "kept positions whose layer-1 key differs after renumbering (RoPE rotated it by its old position)"),
            Value("layer1_value_change", value_change[0], "",
                  "max |change| of the kept layer-1 values after renumbering (V is not rotated)", bitwise(cfg)),
            Value("layer2_value_change", value_change[1], "",
                  "max |change| of the kept layer-2 values (they were computed reading the dropped tokens)"),
            Value("renumbered_max_abs_diff", max_abs(renumbered, truth), "",
                  "max |logit| difference: old entries under new positions vs recompute of the kept text"),
            Value("rerotated_max_abs_diff", max_abs(rerotated, truth), "",
                  "the same with every cached key rotated back to its new position (layer 2 is still stale)"),
            Value("rebuilt_max_abs_diff", max_abs(rebuilt, truth), "",
                  "max |logit| difference: a fresh prefill of the kept text vs its recompute", bitwise(cfg)),
            Value("evicted_vs_full_max_abs_diff", max_abs(evicted, whole), "",
                  "max |logit| difference: old entries kept at their positions, oldest evicted, vs the full window"),
        ),
        {"tokens": WINDOW_TEXT.split(), "key_change_by_layer": [c.tolist() for c in key_change],
         "value_change_by_layer": [c.tolist() for c in value_by_position]},
    )


SHARED = ("BOS I gave him a book", "BOS I gave her a key")
"""Two requests that begin with the same words (a shared system prompt, in a real server)."""


@experiment
def prefix_sharing(cfg: ModelConfig) -> Result:
    """Two requests with a common prefix: prefill the prefix once, copy the cache, continue each request."""
    params = init_params(cfg)
    a, b = (encode_words(cfg, text) for text in SHARED)
    common = int(np.argmax(a != b))  # tokens before the first difference
    _, prefix = prefill(params, a[:common], make_cache(cfg, max(len(a), len(b))))
    # each request continued from a copy of the prefix's cache, against its full recompute: (T - common, V) each
    diffs = [max_abs(prefill(params, tokens[common:], prefix.copy())[0], forward(params, tokens)[common:])
             for tokens in (a, b)]
    return Result(
        "Requests with the same prefix can share its cache", cfg,
        {"request_a": SHARED[0], "request_b": SHARED[1]},
        (
            Value("shared_tokens", common, "", "tokens the two requests have in common at the start (BOS included)"),
            Value("max_abs_diff", max(diffs), "",
                  "max |logit| difference: each request continued from the shared prefix cache vs its full recompute",
                  bitwise(cfg)),
        ),
    )
