"""Parameters of the lesson model, drawn from a seed.

The weights are random (never trained): the model is a faithful *computation*,
not a language model. Its outputs say nothing about English.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from lessonmodel.config import ModelConfig


@dataclass(frozen=True)
class LayerParams:
    """Weights of one pre-norm transformer block (attention, then MLP)."""

    attn_norm: np.ndarray
    """RMSNorm gain before attention, (d_model,)."""
    wq: np.ndarray
    """Query projection, (d_model, n_heads * d_head)."""
    wk: np.ndarray
    """Key projection, (d_model, n_kv_heads * d_head): only n_kv_heads are computed and cached."""
    wv: np.ndarray
    """Value projection, (d_model, n_kv_heads * d_head)."""
    wo: np.ndarray
    """Output projection, (n_heads * d_head, d_model)."""
    mlp_norm: np.ndarray
    """RMSNorm gain before the MLP, (d_model,)."""
    w_up: np.ndarray
    """MLP input projection, (d_model, d_ff)."""
    w_down: np.ndarray
    """MLP output projection, (d_ff, d_model)."""


@dataclass(frozen=True)
class Params:
    """All weights of the model plus the config that shaped them."""

    config: ModelConfig
    """The configuration these weights were drawn for."""
    embedding: np.ndarray
    """Token embedding, (vocab_size, d_model). No position embedding: RoPE carries position."""
    layers: tuple[LayerParams, ...]
    """One entry per block."""
    final_norm: np.ndarray
    """RMSNorm gain before the output projection, (d_model,)."""
    unembedding: np.ndarray
    """Output projection to logits, (d_model, vocab_size)."""

    def named_arrays(self) -> Iterator[tuple[str, np.ndarray]]:
        """Every parameter array with a readable name, e.g. 'layers.0.wq'."""
        yield "embedding", self.embedding
        for i, layer in enumerate(self.layers):
            for name, array in vars(layer).items():
                yield f"layers.{i}.{name}", array
        yield "final_norm", self.final_norm
        yield "unembedding", self.unembedding


def _matrix(rng: np.random.Generator, n_in: int, n_out: int, dtype: np.dtype) -> np.ndarray:
    # Scale 1/sqrt(n_in) keeps activations near unit size, so attention is not flat.
    return (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(dtype)


def _layer(rng: np.random.Generator, cfg: ModelConfig) -> LayerParams:
    d, dt = cfg.d_model, cfg.np_dtype
    return LayerParams(
        attn_norm=np.ones(d, dtype=dt),
        wq=_matrix(rng, d, cfg.n_heads * cfg.d_head, dt),
        wk=_matrix(rng, d, cfg.n_kv_heads * cfg.d_head, dt),
        wv=_matrix(rng, d, cfg.n_kv_heads * cfg.d_head, dt),
        wo=_matrix(rng, cfg.n_heads * cfg.d_head, d, dt),
        mlp_norm=np.ones(d, dtype=dt),
        w_up=_matrix(rng, d, cfg.d_ff, dt),
        w_down=_matrix(rng, cfg.d_ff, d, dt),
    )


def init_params(cfg: ModelConfig) -> Params:
    """Deterministic random parameters: the same config (and seed) gives identical arrays."""
    rng = np.random.default_rng(cfg.seed)
    dt = cfg.np_dtype
    embedding = rng.standard_normal((cfg.vocab_size, cfg.d_model)).astype(dt)
    layers = tuple(_layer(rng, cfg) for _ in range(cfg.n_layers))
    unembedding = _matrix(rng, cfg.d_model, cfg.vocab_size, dt)
    return Params(cfg, embedding, layers, np.ones(cfg.d_model, dtype=dt), unembedding)
