"""lessonmodel: a small NumPy transformer with an explicit KV cache, and the
experiments whose numbers the lessons cite.

    from lessonmodel import ModelConfig, init_params, make_cache, prefill, decode_step
    cfg = ModelConfig()
    params = init_params(cfg)
    logits, cache = prefill(params, encode_words(cfg, "BOS I gave him"), make_cache(cfg, 16))
    logits, cache = decode_step(params, 15, cache)

`run_all(cache_dir)` returns the results document: every experiment's values, data and config.

Each name is imported from its module when first used, so a build whose results are all cached reads
them without importing NumPy or running any experiment's module.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = {
    "cache": ("ConcatCache", "KVCache", "make_cache", "make_concat_cache"),
    "config": ("CHAR_VOCAB", "WORD_VOCAB", "ModelConfig", "char_config", "encode", "encode_chars", "encode_words"),
    "kv_bytes": ("REAL_MODELS", "kv_cache_bytes"),
    "model": ("decode_step", "forward", "forward_trace", "prefill", "run_cached"),
    "params": ("Params", "init_params"),
    "result": ("Result", "Value"),
    "runner": ("EXPERIMENTS", "run_all", "run_experiment", "source_hash"),
}
_MODULE_OF = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
