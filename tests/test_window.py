"""lessonmodel/window.py: a full window whose oldest tokens are dropped, and requests sharing a prefix."""

from __future__ import annotations

import numpy as np
import pytest

from lessonmodel import ModelConfig, encode_words, forward, init_params, make_cache, prefill
from lessonmodel.window import front_truncation, keep_last, prefix_sharing


@pytest.fixture(scope="module")
def truncation():
    return {v.key: v.value for v in front_truncation(ModelConfig()).values}


def test_renumbering_invalidates_every_rotated_key_but_no_layer_1_value(truncation):
    assert truncation["n_kept"] == truncation["n_tokens"] - truncation["n_dropped"]
    assert truncation["layer1_keys_changed"] == truncation["n_kept"]
    assert truncation["layer1_value_change"] == 0.0
    assert truncation["layer2_value_change"] > 0.1


def test_only_a_fresh_prefill_gives_the_truncated_text_s_logits(truncation):
    assert truncation["rebuilt_max_abs_diff"] == 0.0
    assert truncation["renumbered_max_abs_diff"] > 0.1
    # rotating the keys back repairs layer 1 only: layer 2 was computed reading the dropped tokens
    assert truncation["rerotated_max_abs_diff"] > 0.1


def test_evicting_the_oldest_entries_keeps_the_others_as_they_were():
    cfg = ModelConfig()
    params = init_params(cfg)
    tokens = encode_words(cfg, "BOS I gave him a book")
    _, full = prefill(params, tokens, make_cache(cfg, len(tokens)))
    kept = keep_last(full, 2, 2)
    assert kept.length == len(tokens) - 2 and kept.next_position == len(tokens)
    for old, new in zip(full.keys + full.values, kept.keys + kept.values, strict=True):
        np.testing.assert_array_equal(new[:, : kept.length], old[:, 2 : full.length])


def test_requests_with_the_same_prefix_share_its_cache_exactly():
    values = {v.key: v.value for v in prefix_sharing(ModelConfig()).values}
    assert values["shared_tokens"] >= 2 and values["max_abs_diff"] == 0.0


def test_a_shared_prefix_cache_is_the_prefix_s_own_prefill():
    cfg = ModelConfig()
    params = init_params(cfg)
    prefix = encode_words(cfg, "BOS I gave")
    _, shared = prefill(params, prefix, make_cache(cfg, 8))
    logits, _ = prefill(params, encode_words(cfg, "her a key"), shared.copy())
    np.testing.assert_array_equal(logits, forward(params, encode_words(cfg, "BOS I gave her a key"))[3:])
