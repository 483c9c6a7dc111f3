"""How the model sums products: in a fixed order (every experiment) or with BLAS (the timing study).

Floating-point addition is not associative, so a sum's last bits depend on the
order of its terms. NumPy's `@` hands matrix products to OpenBLAS, which picks a
kernel and a blocking by the matrix's shape and by the CPU: the same row of
`H @ W` can round differently when `H` has 5 rows than when it has 500.
`np.sum` likewise adds pairwise in SIMD lanes whose grouping depends on the
length. Then a token decoded alone (1 row) and the same token inside a full
recompute (T rows) differ by about 1e-15 although nothing about the token
changed. That is batch (in)variance, and it is why the 2024 record shows
2.22e-15 instead of 0.

`FIXED_ORDER` adds one term at a time, in index order, with NumPy's elementwise
`*` and `+` (each one correctly rounded IEEE operation, never fused). A row's
result then depends only on that row's numbers, never on how many rows, keys or
masked (zero-weight) keys sit beside it: cached decoding equals full recompute
bit for bit, by construction rather than by luck of a library's loop order (and
the products come out the same on every IEEE machine; only exp, tanh, sin and
cos still round per CPU). It costs one NumPy call per term: about 10x BLAS at
lesson size (`bench/batch_invariance.py`: 56 ms vs 5.2 ms per forward + decode
workload; the whole experiment suite about 0.5 s more per clean build). That is
why the timing study uses `BLAS`: it is what fast inference engines use, and
what its record measures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lessonmodel.config import KERNELS


def ordered_sum(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sum along `axis`, adding the terms one by one from index 0 upward."""
    terms = np.moveaxis(x, axis, 0)  # (n, ...)
    total = terms[0].copy()
    for term in terms[1:]:
        total += term
    return total


def ordered_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b` for a (..., T, n) and b (..., n, m), each entry summed over n in index order."""
    total = a[..., :, 0:1] * b[..., 0:1, :]  # (..., T, m)
    for i in range(1, a.shape[-1]):
        total += a[..., :, i : i + 1] * b[..., i : i + 1, :]
    return total


@dataclass(frozen=True)
class Kernels:
    """The two reductions the model uses."""

    name: str
    matmul: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """(..., T, n) @ (..., n, m) -> (..., T, m)."""
    sum: Callable[..., np.ndarray]
    """Sum along an axis (removed from the shape)."""


FIXED_ORDER = Kernels("fixed-order", ordered_matmul, ordered_sum)
BLAS = Kernels("blas", np.matmul, np.sum)
BY_NAME = {k.name: k for k in (FIXED_ORDER, BLAS)}
assert tuple(BY_NAME) == KERNELS, "config.KERNELS names the kernels implemented here"
