"""What the fixed-order kernels cost: lesson-size forward passes and decode, fixed-order vs BLAS.

    .venv/bin/python bench/batch_invariance.py --repeats 5

Runs both kernels alternately in one process and prints medians and their ratio
(timings on shared 2-core machines are noisy: read the ratio, not the ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from lessonmodel import ModelConfig, decode_step, forward, init_params, make_cache, prefill  # noqa: E402


def _workload(cfg: ModelConfig) -> None:
    """One full recompute of 12 tokens, then prefill 6 + decode 6: what the experiments do, once."""
    params = init_params(cfg)
    tokens = np.arange(12) % cfg.vocab_size
    forward(params, tokens)
    _, cache = prefill(params, tokens[:6], make_cache(cfg, 12))
    for tok in tokens[6:]:
        _, cache = decode_step(params, int(tok), cache)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--inner", type=int, default=20, help="workloads per timed repeat")
    args = parser.parse_args()
    configs = {"fixed-order": ModelConfig(), "blas": replace(ModelConfig(), kernels="blas")}
    times: dict[str, list[float]] = {name: [] for name in configs}
    for repeat in range(args.repeats):
        order = list(configs) if repeat % 2 == 0 else list(configs)[::-1]  # alternate who runs first
        for name in order:
            start = time.perf_counter()
            for _ in range(args.inner):
                _workload(configs[name])
            times[name].append((time.perf_counter() - start) / args.inner * 1000)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    for name, ms in medians.items():
        print(f"{name:12s} {ms:8.2f} ms per workload (median of {args.repeats})")
    print(f"fixed-order / blas = {medians['fixed-order'] / medians['blas']:.2f}x")


if __name__ == "__main__":
    main()
