"""lessonmodel: a small NumPy transformer with an explicit KV cache, and the
experiments whose numbers the lessons cite.

    from lessonmodel import ModelConfig, init_params, make_cache, prefill, decode_step
    cfg = ModelConfig()
    params = init_params(cfg)
    logits, cache = prefill(params, encode_words(cfg, "BOS I gave him"), make_cache(cfg, 16))
    logits, cache = decode_step(params, 15, cache)

`run_all(cache_dir)` returns the results document: every experiment's values, data and config.
"""

from __future__ import annotations

from lessonmodel.cache import ConcatCache, KVCache, make_cache, make_concat_cache
from lessonmodel.config import CHAR_VOCAB, WORD_VOCAB, ModelConfig, char_config, encode, encode_chars, encode_words
from lessonmodel.kv_bytes import REAL_MODELS, kv_cache_bytes
from lessonmodel.model import decode_step, forward, forward_trace, prefill, run_cached
from lessonmodel.params import Params, init_params
from lessonmodel.result import Result, Value
from lessonmodel.runner import EXPERIMENTS, run_all, run_experiment, source_hash

__all__ = [
    "CHAR_VOCAB", "EXPERIMENTS", "REAL_MODELS", "WORD_VOCAB", "ConcatCache", "KVCache",
    "ModelConfig", "Params", "Result", "Value", "char_config", "decode_step",
    "encode", "encode_chars", "encode_words", "forward", "forward_trace", "init_params",
    "kv_cache_bytes", "make_cache", "make_concat_cache", "prefill", "run_all", "run_cached",
    "run_experiment", "source_hash",
]
