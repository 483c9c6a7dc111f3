"""The KV cache as an explicit value.

`KVCache` follows Meta's llama reference implementation (llama/model.py,
Llama 2): one zeroed buffer per layer for keys and one for values, shaped
(batch, max_len, n_kv_heads, d_head), written at [length : length + n] and
read at [: length + n]. Keys are stored *after* RoPE, so each cached key
already carries its absolute position.

`ConcatCache` is the naive alternative (like Hugging Face's DynamicCache):
it grows by `np.concatenate`, which allocates and copies the whole cache at
every step. It exists for the timing study.

Both are passed in and returned: `logits, cache = decode_step(params, token, cache)`.
Honest note: `KVCache` writes *into* its preallocated buffers, so the returned
cache shares memory with the one passed in. Slots below `length` are never
overwritten, so an older cache value still reads correctly - but two
continuations of the same cache would write the same slots. Call `copy()`
before branching.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Self

import numpy as np

from lessonmodel.config import ModelConfig


@dataclass(frozen=True)
class _Cache:
    """What both caches hold, and what they do alike."""

    keys: tuple[np.ndarray, ...]
    """Per layer, (batch, slots, n_kv_heads, d_head): max_len slots of which `length` are filled
    (KVCache), or exactly `length` slots (ConcatCache)."""
    values: tuple[np.ndarray, ...]
    """Per layer, shaped like `keys`."""
    length: int = 0
    """Number of tokens stored (tokens already processed)."""
    start_position: int = 0
    """Absolute RoPE position of slot 0 (non-zero when the text does not start at 0)."""

    @property
    def batch(self) -> int:
        return self.keys[0].shape[0]

    @property
    def next_position(self) -> int:
        """Absolute position of the next token to be written."""
        return self.start_position + self.length

    @property
    def nbytes(self) -> int:
        """Bytes of all K and V arrays, as allocated."""
        return sum(a.nbytes for a in self.keys + self.values)

    def advance(self, n: int) -> Self:
        """The cache after all layers stored n new tokens."""
        return replace(self, length=self.length + n)

    def _check_new(self, k: np.ndarray, max_len: int | None = None) -> None:
        if k.shape[0] != self.batch:
            raise ValueError(f"batch of new keys is {k.shape[0]}, the cache holds batch {self.batch}")
        if max_len is not None and self.length + k.shape[1] > max_len:
            raise ValueError(f"cache is full: length {self.length} + {k.shape[1]} new tokens > max_len {max_len}")


@dataclass(frozen=True)
class KVCache(_Cache):
    """Preallocated per-layer K and V buffers (Meta llama reference layout)."""

    @property
    def max_len(self) -> int:
        return self.keys[0].shape[1]

    @property
    def used_nbytes(self) -> int:
        """Bytes of the filled slots only (length slots)."""
        return sum(a[:, : self.length].nbytes for a in self.keys + self.values)

    def write(self, layer: int, k: np.ndarray, v: np.ndarray) -> tuple[KVCache, np.ndarray, np.ndarray]:
        """Store n new keys/values of `layer` at [length : length + n] (in place);
        return the cache and every key/value visible so far, (batch, length + n, n_kv, d_head)."""
        self._check_new(k, self.max_len)
        end = self.length + k.shape[1]
        self.keys[layer][:, self.length : end] = k
        self.values[layer][:, self.length : end] = v
        return self, self.keys[layer][:, :end], self.values[layer][:, :end]

    def copy(self) -> KVCache:
        """An independent cache with the same contents (for branching)."""
        return replace(self, keys=tuple(a.copy() for a in self.keys), values=tuple(a.copy() for a in self.values))


def make_cache(cfg: ModelConfig, max_len: int, batch: int = 1, start_position: int = 0) -> KVCache:
    """An empty preallocated cache with room for `max_len` tokens per sequence."""
    for name, value, low in (("max_len", max_len, 1), ("batch", batch, 1),
                             ("start_position", start_position, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    shape = (batch, max_len, cfg.n_kv_heads, cfg.d_head)  # (B, max_len, n_kv, d_head)
    zeros = tuple(np.zeros(shape, dtype=cfg.np_dtype) for _ in range(cfg.n_layers))
    return KVCache(zeros, tuple(np.zeros_like(z) for z in zeros), 0, int(start_position))


@dataclass(frozen=True)
class ConcatCache(_Cache):
    """The naive cache: per-layer arrays that grow by np.concatenate (copying every step)."""

    def write(self, layer: int, k: np.ndarray, v: np.ndarray) -> tuple[ConcatCache, np.ndarray, np.ndarray]:
        """A new cache whose `layer` arrays are old + new (a full copy)."""
        self._check_new(k)
        k_all = np.concatenate([self.keys[layer], k], axis=1)  # (B, length + n, n_kv, d_head)
        v_all = np.concatenate([self.values[layer], v], axis=1)  # (B, length + n, n_kv, d_head)
        keys = self.keys[:layer] + (k_all,) + self.keys[layer + 1 :]
        values = self.values[:layer] + (v_all,) + self.values[layer + 1 :]
        return replace(self, keys=keys, values=values), k_all, v_all


def make_concat_cache(cfg: ModelConfig, batch: int = 1) -> ConcatCache:
    """An empty naive cache (zero-length arrays per layer)."""
    shape = (batch, 0, cfg.n_kv_heads, cfg.d_head)  # (B, 0, n_kv, d_head)
    empty = tuple(np.zeros(shape, dtype=cfg.np_dtype) for _ in range(cfg.n_layers))
    return ConcatCache(empty, empty)
