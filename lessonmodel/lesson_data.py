"""Data the lesson figures draw: real outputs of the (random-weight) lesson model.

The weights are random, so the distributions and attention weights illustrate
the computation, not any property of English.
"""

from __future__ import annotations

import numpy as np

from lessonmodel.cache import make_cache
from lessonmodel.config import ModelConfig, encode_words
from lessonmodel.model import run_cached, visibility
from lessonmodel.params import Params, init_params
from lessonmodel.result import Result, Value, experiment

FIRST_PROMPT = "BOS I gave him"
B3_CACHED, B3_NEW = "BOS I gave him a", "book"
R55_CACHED, R55_NEW = "BOS I gave", "her"


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities from logits along the last axis."""
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def first_distribution(params: Params, prompt: str) -> dict[str, list]:
    """Next-token probabilities after prefilling `prompt`, most likely first."""
    cfg = params.config
    tokens = encode_words(cfg, prompt)
    logits, _, _ = run_cached(params, tokens, make_cache(cfg, len(tokens)))  # (1, T, V)
    probs = softmax(logits[0, -1])  # (V,)
    order = np.argsort(-probs, kind="stable")
    return {"prompt": prompt.split(), "tokens": [cfg.vocab[i] for i in order],
            "probs": probs[order].tolist()}


def new_token_attention(params: Params, cached: str, new: str) -> dict[str, object]:
    """Prefill `cached`, decode `new`: the new token's attention in every layer."""
    cfg = params.config
    prompt, token = encode_words(cfg, cached), encode_words(cfg, new)
    _, cache, _ = run_cached(params, prompt, make_cache(cfg, len(prompt) + 1))
    _, cache, attention = run_cached(params, token, cache)  # each (1, H, 1, S)
    per_layer = [w[0, :, 0, :] for w in attention]  # each (H, S)
    return {
        "columns": [*cached.split(), new],
        "n_cached": len(prompt),
        "by_layer_heads": [w.tolist() for w in per_layer],
        "by_layer_mean": [w.mean(axis=0).tolist() for w in per_layer],
    }


@experiment
def lesson_data(cfg: ModelConfig) -> Result:
    """First-token distribution, new-token attention (rc-v1 b3, r55) and a causal mask."""
    params = init_params(cfg)
    first = first_distribution(params, FIRST_PROMPT)
    n = len(FIRST_PROMPT.split())
    return Result(
        "Measured data for the lesson figures", cfg,
        {"first_prompt": FIRST_PROMPT, "b3": f"{B3_CACHED} + {B3_NEW}",
         "r55": f"{R55_CACHED} + {R55_NEW}"},
        (
            Value("first_token_top_prob", first["probs"][0], "",
                  f"largest next-token probability after prefilling '{FIRST_PROMPT}' "
                  "(random weights)"),
            Value("vocab_size", cfg.vocab_size, "", "number of tokens in the word vocabulary"),
        ),
        {
            "first_token_distribution": first,
            "rc_v1_b3_attention": new_token_attention(params, B3_CACHED, B3_NEW),
            "causal_visibility": {"tokens": FIRST_PROMPT.split(),
                                  "matrix": visibility(n, n, causal=True).tolist()},
            "r55_her_attention": new_token_attention(params, R55_CACHED, R55_NEW),
        },
    )
