"""The fixed-order core gives a token's row the same bits whatever else is computed with it.

BLAS (NumPy's `@`) rounds a row of `H @ W` differently depending on how many rows
`H` has; these tests compute the same rows at many lengths and batch sizes and
demand bit equality. `python build.py check` relies on it (equivalence.max_abs_diff
is an `exact` value), and tests/test_cpu_paths.py repeats it under other CPU code paths.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lessonmodel import ModelConfig, decode_step, forward, forward_trace, init_params, make_cache, prefill
from lessonmodel.kernels import ordered_matmul, ordered_sum

LENGTHS = (*range(1, 18), 31, 64, 127, 200)


def _tokens(cfg: ModelConfig, n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, cfg.vocab_size, size=n)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def test_ordered_matmul_rows_do_not_depend_on_the_row_count():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((500, 32)), rng.standard_normal((32, 128))
    full = ordered_matmul(x, w)
    for n in LENGTHS:
        assert _same_bits(ordered_matmul(x[:n], w), full[:n]), n
    np.testing.assert_allclose(full, x @ w, rtol=1e-12, atol=1e-12)  # the same product


def test_ordered_sum_ignores_trailing_zeros():
    # A masked key has weight exactly 0: adding it must change nothing, whatever the length.
    rng = np.random.default_rng(0)
    w = rng.random((4, 300))
    for n in LENGTHS:
        padded = np.concatenate([w[:, :n], np.zeros((4, 300 - n))], axis=1)
        assert _same_bits(ordered_sum(w[:, :n]), ordered_sum(padded)), n


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
def test_forward_rows_equal_at_every_length(n_kv_heads):
    cfg = replace(ModelConfig(), n_kv_heads=n_kv_heads)
    params = init_params(cfg)
    tokens = _tokens(cfg, max(LENGTHS))
    full = forward(params, tokens)  # (T, V)
    for n in LENGTHS:
        assert _same_bits(forward(params, tokens[:n]), full[:n]), f"prefix of {n} tokens"


def test_rows_do_not_depend_on_the_batch():
    cfg = ModelConfig()
    params = init_params(cfg)
    batch = np.stack([_tokens(cfg, 24, seed) for seed in range(5)])  # (B, T)
    together = forward(params, batch)  # (B, T, V)
    for b in range(len(batch)):
        assert _same_bits(forward(params, batch[b]), together[b]), b


def test_decode_equals_recompute_bit_for_bit_at_many_lengths():
    cfg = ModelConfig()
    params = init_params(cfg)
    tokens = _tokens(cfg, 60)
    full = forward(params, tokens, 3 + np.arange(len(tokens)))  # (T, V), a non-zero offset
    for n_prefill in (1, 2, 5, 17, 40):
        cache = make_cache(cfg, len(tokens), start_position=3)
        first, cache = prefill(params, tokens[:n_prefill], cache)
        assert _same_bits(first, full[:n_prefill]), n_prefill
        for i in range(n_prefill, len(tokens)):
            logits, cache = decode_step(params, int(tokens[i]), cache)
            assert _same_bits(logits, full[i]), (n_prefill, i)


def test_old_keys_and_values_unchanged_when_tokens_are_appended():
    cfg = replace(ModelConfig(), n_layers=3)
    params = init_params(cfg)
    tokens = _tokens(cfg, 50)
    longest = forward_trace(params, tokens)
    for n in (1, 6, 13, 49):
        short = forward_trace(params, tokens[:n])
        for layer, (k, v) in enumerate(zip(short.keys, short.values, strict=True)):
            assert _same_bits(k, longest.keys[layer][:, :n]), (n, layer)
            assert _same_bits(v, longest.values[layer][:, :n]), (n, layer)


def test_blas_kernels_agree_to_round_off():
    cfg = ModelConfig()
    tokens = _tokens(cfg, 30)
    fixed = forward(init_params(cfg), tokens)
    blas = forward(init_params(replace(cfg, kernels="blas")), tokens)
    np.testing.assert_allclose(blas, fixed, rtol=1e-12, atol=1e-12)


def test_unknown_kernels_is_an_error():
    with pytest.raises(ValueError, match="kernels must be one of fixed-order, blas, got 'mkl'"):
        ModelConfig(kernels="mkl")
