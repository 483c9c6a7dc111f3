"""The roofline of serving: why decode waits on memory and prefill on arithmetic (computed, not measured).

An accelerator reads at most B bytes per second and computes at most F FLOPs per second. A step that
does I FLOPs per byte it reads runs at min(F, I · B) FLOP/s: below the ridge point F / B it is limited by
memory bandwidth, above it by arithmetic (Williams, Waterman and Patterson's roofline model). The
accelerators' B and F are their datasheet figures (dense fp16/bf16 Tensor Core throughput, no sparsity),
cited in content/sources.yml; the model is OPT-13B as in kv_bytes.py. Nothing here runs a model.
"""

from __future__ import annotations

from dataclasses import dataclass

from lessonmodel.config import ModelConfig
from lessonmodel.kv_bytes import FP16_BYTES, REAL_MODELS, PublishedConfig, context_bytes, per_token_bytes
from lessonmodel.memory import decode_flops
from lessonmodel.result import Result, Value, experiment


@dataclass(frozen=True)
class Accelerator:
    """Datasheet figures of one accelerator."""

    key: str
    """Identifier used in value names, e.g. 'a100'."""
    name: str
    bandwidth_gbs: int
    """Memory bandwidth, GB/s (decimal: 10^9 bytes per second)."""
    fp16_tflops: int
    """Dense fp16/bf16 Tensor Core throughput, TFLOPS (10^12 FLOPs per second), without 2:4 sparsity."""
    memory_gb: int
    """Memory of the datasheet column these figures come from, GB: it names the part (A100 40GB, not 80GB)."""
    source: str
    """Id of the datasheet in content/sources.yml."""


ACCELERATORS: tuple[Accelerator, ...] = (
    Accelerator("a100", "NVIDIA A100 40GB SXM4", 1555, 312, 40, "A100-datasheet"),
    Accelerator("h100", "NVIDIA H100 SXM5", 3350, 989, 80, "H100-datasheet"),
)
PROMPTS = (1, 16, 128, 512, 2048)
"""Prompt lengths whose prefill intensity is computed (1 is a single decode-like step)."""


def prefill_flops(m: PublishedConfig, tokens: int) -> float:
    """FLOPs of one batch-1 prefill of ``tokens`` prompt tokens: every token meets every weight once, and the
    causal attention of token i reads i keys and i values (4 FLOPs per element pair per head width)."""
    return 2 * m.n_params * tokens + 4 * m.n_layers * m.n_heads * m.d_head * tokens * (tokens + 1) / 2


def prefill_intensity(m: PublishedConfig, tokens: int) -> float:
    """FLOPs per byte of a prefill: it reads the weights once and writes the prompt's K/V once."""
    return prefill_flops(m, tokens) / (m.n_params * FP16_BYTES + context_bytes(m, tokens))


def tokens_to_ridge(m: PublishedConfig, ridge: float) -> int:
    """The shortest prompt whose prefill does at least ``ridge`` FLOPs per byte."""
    tokens = 1
    while prefill_intensity(m, tokens) < ridge:
        tokens += 1
    return tokens


def _accelerator_values(a: Accelerator, m: PublishedConfig) -> list[Value]:
    ridge = a.fp16_tflops * 1e12 / (a.bandwidth_gbs * 1e9)  # FLOP per byte
    read = m.n_params * FP16_BYTES + context_bytes(m, m.native_context)
    return [
        Value(f"{a.key}_bandwidth_gbs", a.bandwidth_gbs, "GB/s", f"{a.name}: memory bandwidth (datasheet)"),
        Value(f"{a.key}_fp16_tflops", a.fp16_tflops, "TFLOPS",
              f"{a.name}: dense fp16/bf16 Tensor Core throughput (datasheet, without sparsity)"),
        Value(f"{a.key}_memory_gb", a.memory_gb, "GB", f"{a.name}: memory (datasheet)"),
        Value(f"{a.key}_ridge", ridge, "", f"{a.name}: ridge point, FLOPs per byte (throughput / bandwidth)"),
        Value(f"{a.key}_{m.key}_decode_ms_floor", 1e3 * read / (a.bandwidth_gbs * 1e9), "ms",
              f"{a.name}: lower bound of one {m.name} decode step at full native context, batch 1: "
              "bytes read / bandwidth"),
        Value(f"{a.key}_{m.key}_decode_compute_ms", 1e3 * decode_flops(m, m.native_context) / (a.fp16_tflops * 1e12),
              "ms", f"{a.name}: time the same step's FLOPs would take at full throughput"),
        Value(f"{a.key}_{m.key}_prefill_tokens_to_ridge", tokens_to_ridge(m, ridge), "",
              f"{a.name}: shortest {m.name} prompt whose prefill reaches the ridge point"),
    ]


@experiment
def roofline(_cfg: ModelConfig) -> Result:
    """Ridge points of two accelerators against the intensity of OPT-13B's decode and prefill."""
    m = next(model for model in REAL_MODELS if model.key == "opt_13b")
    values = [v for a in ACCELERATORS for v in _accelerator_values(a, m)]
    values += [Value(f"{m.key}_prefill_flops_per_byte_p{t}", prefill_intensity(m, t), "",
                     f"{m.name}: FLOPs per byte of a batch-1 prefill of {t} prompt tokens") for t in PROMPTS]
    # the prompt lengths are values too, so a page says "a prompt of 128 tokens" from PROMPTS, not by hand
    values += [Value(f"prompt_tokens_p{t}", t, "", f"prompt length {t}, a setting of this experiment")
               for t in PROMPTS]
    # the value pages cite is kv_models.opt_13b_decode_flops_per_byte; the figure draws the same number
    decode = decode_flops(m, m.native_context) / (m.n_params * FP16_BYTES + per_token_bytes(m) * m.native_context)
    return Result(
        "Roofline: ridge points against decode and prefill intensity (formula)", _cfg,
        {"model": m.name, "bytes_per_element": FP16_BYTES, "prompts": list(PROMPTS),
         "accelerators": [f"{a.name}: {a.bandwidth_gbs} GB/s, {a.fp16_tflops} TFLOPS ({a.source})"
                          for a in ACCELERATORS]},
        tuple(values),
        {"accelerators": [{"key": a.key, "name": a.name, "bandwidth_gbs": a.bandwidth_gbs,
                           "fp16_tflops": a.fp16_tflops} for a in ACCELERATORS],
         "prefill": [{"tokens": t, "flops_per_byte": prefill_intensity(m, t)} for t in PROMPTS],
         "decode_flops_per_byte": decode},
        provenance="computed",
    )
