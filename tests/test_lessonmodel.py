"""The lesson model: cached decoding equals full recompute; inputs are checked."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lessonmodel import (
    ModelConfig,
    char_config,
    decode_step,
    encode_chars,
    encode_words,
    forward,
    forward_trace,
    init_params,
    kv_cache_bytes,
    make_cache,
    make_concat_cache,
    prefill,
)
from lessonmodel.model import visibility

SENTENCES = ("BOS I gave him a book", "BOS she sent her the letter . and the key")


def cached_all_positions(params, tokens, n_prefill, cache):
    """Logits of every position via prefill + one decode step per further token."""
    first, cache = prefill(params, tokens[..., :n_prefill], cache)
    rows = [first]
    for i in range(n_prefill, tokens.shape[-1]):
        step, cache = decode_step(params, tokens[..., i], cache)
        rows.append(step[..., None, :])
    return np.concatenate(rows, axis=-2), cache


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1], ids=["mha", "gqa", "mqa"])
@pytest.mark.parametrize("offset", [0, 3, 100])
@pytest.mark.parametrize("sentence", SENTENCES)
def test_cached_equals_recompute(n_kv_heads, offset, sentence):
    cfg = ModelConfig(n_kv_heads=n_kv_heads)
    params = init_params(cfg)
    tokens = encode_words(cfg, sentence)
    full = forward(params, tokens, offset + np.arange(len(tokens)))
    for n_prefill in (1, 3, len(tokens)):
        cache = make_cache(cfg, len(tokens), start_position=offset)
        cached, cache = cached_all_positions(params, tokens, n_prefill, cache)
        np.testing.assert_allclose(cached, full, rtol=0, atol=1e-12)
        assert cache.length == len(tokens)
        assert cache.next_position == offset + len(tokens)


def test_naive_concat_cache_equals_recompute():
    cfg = ModelConfig(n_kv_heads=2)
    params = init_params(cfg)
    tokens = encode_words(cfg, SENTENCES[1])
    cached, cache = cached_all_positions(params, tokens, 2, make_concat_cache(cfg))
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-12)
    assert cache.keys[0].shape == (1, len(tokens), 2, cfg.d_head)


def test_batched_cache_equals_recompute():
    cfg = ModelConfig(n_kv_heads=1)
    params = init_params(cfg)
    tokens = np.random.default_rng(1).integers(0, cfg.vocab_size, size=(3, 9))  # (B, T)
    cached, _ = cached_all_positions(params, tokens, 4, make_cache(cfg, 9, batch=3))
    assert cached.shape == (3, 9, cfg.vocab_size)
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-12)


def test_float32_and_char_vocab():
    cfg = char_config(dtype="float32")
    params = init_params(cfg)
    tokens = encode_chars(cfg, "kv cache")
    cached, cache = cached_all_positions(params, tokens, 3, make_cache(cfg, len(tokens)))
    assert cached.dtype == np.float32 and cache.keys[0].dtype == np.float32
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-4)


def test_trace_keys_are_what_the_cache_holds():
    cfg = ModelConfig()
    params = init_params(cfg)
    tokens = encode_words(cfg, SENTENCES[0])
    trace = forward_trace(params, tokens)
    _, cache = prefill(params, tokens, make_cache(cfg, 10))
    for layer in range(cfg.n_layers):
        np.testing.assert_allclose(cache.keys[layer][:, :6], trace.keys[layer], atol=1e-13)
        assert not cache.keys[layer][:, 6:].any()  # unused slots stay zero


def test_same_seed_same_parameters_other_seed_differs():
    a, b = init_params(ModelConfig()), init_params(ModelConfig())
    c = init_params(ModelConfig(seed=1))
    for (name, x), (_, y) in zip(a.named_arrays(), b.named_arrays(), strict=True):
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert not np.array_equal(a.embedding, c.embedding)


def test_cache_nbytes_is_the_formula():
    cfg = ModelConfig(n_layers=3, n_kv_heads=2, dtype="float32")
    cache = make_cache(cfg, 17, batch=2)
    assert cache.nbytes == kv_cache_bytes(3, 2, 17, 2, cfg.d_head, 4) == 2 * 3 * 2 * 17 * 2 * 8 * 4
    assert cache.used_nbytes == 0


def test_causal_visibility_matrix():
    np.testing.assert_array_equal(visibility(4, 4, causal=True), np.tril(np.ones((4, 4), bool)))
    # two new queries after three cached keys read 0..3 and 0..4
    np.testing.assert_array_equal(visibility(2, 5, causal=True),
                                  [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    assert visibility(2, 5, causal=False).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_heads": 4, "n_kv_heads": 3},
         "invalid ModelConfig: n_heads (4) must be a multiple of n_kv_heads (3)"),
        ({"d_head": 7}, "invalid ModelConfig: d_head must be even for RoPE, got 7"),
        ({"n_layers": 0}, "invalid ModelConfig: n_layers must be >= 1, got 0"),
        ({"n_layers": True}, "invalid ModelConfig: n_layers must be an int, got True"),
        ({"dtype": "float16"},
         "invalid ModelConfig: dtype must be one of float64, float32, got 'float16'"),
        ({"vocab": ("a", "a")}, "invalid ModelConfig: vocab entries must be unique"),
        ({"causal": "yes"}, "invalid ModelConfig: causal must be True or False, got 'yes'"),
        ({"seed": -1}, "invalid ModelConfig: seed must be an int >= 0, got -1"),
    ],
)
def test_invalid_config_messages(kwargs, message):
    with pytest.raises(ValueError) as err:
        ModelConfig(**kwargs)
    assert str(err.value) == message


def test_invalid_inputs_messages():
    cfg = ModelConfig()
    params = init_params(cfg)
    with pytest.raises(ValueError, match=r"^token ids must be in \[0, 25\), got 0\.\.25$"):
        forward(params, np.array([0, 25]))
    with pytest.raises(ValueError, match=r"^tokens must be integers, got dtype float64$"):
        forward(params, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"^positions must be 2 non-negative integers"):
        forward(params, np.array([0, 1]), np.array([0, -1]))
    with pytest.raises(ValueError, match=r"^tokens not in the vocabulary: \['gaev'\]$"):
        encode_words(cfg, "BOS I gaev")
    cache = make_cache(cfg, 2)
    _, cache = prefill(params, np.array([0, 1]), cache)
    with pytest.raises(ValueError, match=r"^cache is full: length 2 \+ 1 new tokens > max_len 2$"):
        decode_step(params, 3, cache)
    with pytest.raises(ValueError, match=r"^cache shape 2 layers x \(2, 8\) does not match"):
        decode_step(params, 3, make_cache(replace(cfg, n_kv_heads=2), 4))
    with pytest.raises(ValueError, match=r"^cache dtype float32 does not match the model dtype"):
        decode_step(params, 3, make_cache(replace(cfg, dtype="float32"), 4))
    with pytest.raises(ValueError, match=r"^decode_step takes one token per sequence"):
        decode_step(params, np.array([[1, 2]]), make_cache(cfg, 4))
    with pytest.raises(ValueError, match=r"^max_len must be an int >= 1, got 0$"):
        make_cache(cfg, 0)
