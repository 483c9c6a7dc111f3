"""Configuration of the lesson model: one frozen, validated value.

Every experiment carries the `ModelConfig` that produced it, so a number on a
page can always be traced back to the exact model shape, dtype and seed.
"""

from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

BOS = "BOS"
"""Beginning-of-sequence token; index 0 in both vocabularies."""

WORD_VOCAB: tuple[str, ...] = (
    BOS, "I", "you", "she", "he", "we", "they", "gave", "sent", "showed", "told",
    "him", "her", "them", "me", "a", "the", "book", "letter", "key", "cat",
    "story", "and", "to", ".",
)
"""A small word vocabulary, enough for the lesson sentences (BOS I gave him a ...)."""

CHAR_VOCAB: tuple[str, ...] = (BOS, *string.ascii_lowercase, " ", ".", ",", "'")
"""A character-level vocabulary for the character-stream check."""

DTYPES = ("float64", "float32")
"""Supported floating-point types; float64 makes round-off about 1e-15."""

KERNELS = ("fixed-order", "blas")
"""Accepted values of `ModelConfig.kernels` (``kernels.py`` implements them)."""


@dataclass(frozen=True)
class ModelConfig:
    """Shape, numerics and seed of the small decoder-only transformer."""

    vocab: tuple[str, ...] = WORD_VOCAB
    """Token strings; a token id is an index into this tuple."""
    d_model: int = 32
    """Width of the residual stream."""
    n_layers: int = 2
    """Number of transformer blocks, each with its own K/V cache."""
    n_heads: int = 4
    """Number of query heads."""
    n_kv_heads: int = 4
    """Number of key/value heads: n_heads is multi-head, 1 is multi-query, between is grouped-query."""
    d_head: int = 8
    """Width of one head; must be even because RoPE rotates pairs of features."""
    d_ff: int = 128
    """Hidden width of the MLP."""
    rope_base: float = 10000.0
    """Base of the RoPE frequencies (Su et al. 2021 use 10000)."""
    causal: bool = True
    """True: a position attends only to itself and earlier ones (decoder).
    False: every position attends to every other one (encoder, no valid cache)."""
    dtype: str = "float64"
    """Floating-point type of parameters and activations."""
    seed: int = 0
    """Seed for numpy.random.default_rng; the same seed gives the same parameters."""
    kernels: str = "fixed-order"
    """How products are summed (lessonmodel/kernels.py): 'fixed-order' gives a token's row the
    same bits whatever else is in the batch (every experiment); 'blas' is OpenBLAS, fast but
    shape-dependent in the last bits (the timing study)."""

    def __post_init__(self) -> None:
        problems = validate(self)
        if problems:
            raise ValueError("invalid ModelConfig: " + "; ".join(problems))

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def np_dtype(self) -> np.dtype:
        import numpy as np  # here, not above: reading cached results needs the config, not NumPy

        return np.dtype(self.dtype)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field (the vocabulary as a list)."""
        out = dataclasses.asdict(self)
        out["vocab"] = list(self.vocab)
        return out


def validate(cfg: ModelConfig) -> list[str]:
    """Every problem with `cfg`, as readable sentences (empty when valid)."""
    problems: list[str] = []
    for name in ("d_model", "n_layers", "n_heads", "n_kv_heads", "d_head", "d_ff"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int):  # `n_layers=True` is a typo, not a layer count
            problems.append(f"{name} must be an int, got {value!r}")
        elif value < 1:
            problems.append(f"{name} must be >= 1, got {value}")
    if problems:
        return problems
    if not isinstance(cfg.vocab, tuple) or not cfg.vocab:
        problems.append("vocab must be a non-empty tuple of strings")
    elif not all(isinstance(t, str) and t for t in cfg.vocab):
        problems.append("vocab entries must be non-empty strings")
    elif len(set(cfg.vocab)) != len(cfg.vocab):
        problems.append("vocab entries must be unique")
    if cfg.n_heads % cfg.n_kv_heads != 0:
        problems.append(f"n_heads ({cfg.n_heads}) must be a multiple of n_kv_heads ({cfg.n_kv_heads})")
    if cfg.d_head % 2 != 0:
        problems.append(f"d_head must be even for RoPE, got {cfg.d_head}")
    if not isinstance(cfg.rope_base, int | float) or cfg.rope_base <= 1:
        problems.append(f"rope_base must be a number > 1, got {cfg.rope_base!r}")
    if not isinstance(cfg.causal, bool):
        problems.append(f"causal must be True or False, got {cfg.causal!r}")
    if cfg.dtype not in DTYPES:
        problems.append(f"dtype must be one of {', '.join(DTYPES)}, got {cfg.dtype!r}")
    if cfg.kernels not in KERNELS:
        problems.append(f"kernels must be one of {', '.join(KERNELS)}, got {cfg.kernels!r}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or cfg.seed < 0:
        problems.append(f"seed must be an int >= 0, got {cfg.seed!r}")
    return problems


def attention_variants(cfg: ModelConfig) -> tuple[ModelConfig, ...]:
    """Multi-head, grouped-query (if possible) and multi-query versions of cfg."""
    counts = sorted({cfg.n_heads, max(1, cfg.n_heads // 2), 1}, reverse=True)
    return tuple(dataclasses.replace(cfg, n_kv_heads=n) for n in counts)


def char_config(**overrides: Any) -> ModelConfig:
    """The default model with the character-level vocabulary."""
    return ModelConfig(**{"vocab": CHAR_VOCAB, **overrides})


def encode(cfg: ModelConfig, pieces: list[str] | tuple[str, ...]) -> np.ndarray:
    """Token ids of `pieces` (words, or characters for a character vocabulary)."""
    index = {tok: i for i, tok in enumerate(cfg.vocab)}
    unknown = [p for p in pieces if p not in index]
    if unknown:
        raise ValueError(f"tokens not in the vocabulary: {unknown!r}")
    import numpy as np

    return np.array([index[p] for p in pieces], dtype=np.int64)  # (T,)


def encode_words(cfg: ModelConfig, text: str) -> np.ndarray:
    """Ids of a space-separated word string, e.g. 'BOS I gave him'."""
    return encode(cfg, text.split())


def encode_chars(cfg: ModelConfig, text: str) -> np.ndarray:
    """Ids of BOS followed by each character of `text`."""
    return encode(cfg, [BOS, *text])
