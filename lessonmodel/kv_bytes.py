"""How many bytes a KV cache holds, and the published configs of real models.

    bytes = 2 · L · B · T · n_kv · d_head · s

2 for K and V, L layers, B sequences, T cached tokens, n_kv key/value heads,
d_head head width, s bytes per element. The per-head (GQA) form matches real
cache buffers: Meta's llama reference allocates (max_batch, max_seq, n_kv, d_head)
per layer for K and for V. For multi-head attention n_kv · d_head equals the hidden
size, giving Kwon et al.'s (vLLM, SOSP 2023, §3) "2 × hidden × layers" per token.

The byte counts of the real models are *computed* from their configurations
below, never typed in.
"""

from __future__ import annotations

from dataclasses import dataclass

FP16_BYTES = 2
"""Bytes per element of fp16/bf16, the usual serving precision."""


def kv_cache_bytes(n_layers: int, batch: int, tokens: int, n_kv_heads: int, d_head: int, bytes_per_element: int) -> int:
    """2 · L · B · T · n_kv · d_head · s."""
    return 2 * n_layers * batch * tokens * n_kv_heads * d_head * bytes_per_element


@dataclass(frozen=True)
class PublishedConfig:
    """The attention shape of a real model, as published."""

    key: str
    """Identifier used in value names, e.g. 'llama2_7b'."""
    name: str
    """Display name."""
    n_layers: int
    n_heads: int
    """Query heads."""
    n_kv_heads: int
    """Key/value heads actually stored (= n_heads for MHA, 1 for MQA)."""
    d_head: int
    native_context: int
    """Context length the model was released with."""
    source: str
    """Where the numbers come from: the published config.json or paper, and what it states."""
    n_params: float = 0
    """Parameter count where a cited source states it (0: not used)."""


REAL_MODELS: tuple[PublishedConfig, ...] = (
    PublishedConfig("gpt2_small", "GPT-2 small", 12, 12, 12, 768 // 12, 1024,
                    "openai-community/gpt2 config.json: n_layer 12, n_head 12, n_embd 768, n_positions 1024"),
    PublishedConfig("opt_13b", "OPT-13B", 40, 40, 40, 5120 // 40, 2048,
                    "Kwon et al. 2023 (vLLM), §3: 2 × 5120 × 40 × 2 bytes per token; hidden 5120, 40 layers; "
                    "§3 and §1: 'the 13B parameter OPT model' (a nominal count)", n_params=13e9),
    PublishedConfig("llama2_7b", "Llama-2-7B", 32, 32, 32, 4096 // 32, 4096,
                    "meta-llama/Llama-2-7b-hf config.json (mirror): hidden 4096, 32 layers, 32 heads, 32 kv"),
    PublishedConfig("llama2_70b", "Llama-2-70B", 80, 64, 8, 8192 // 64, 4096,
                    "meta-llama/Llama-2-70b-hf config.json (mirror): hidden 8192, 80 layers, 64 heads, 8 kv; "
                    "MODEL_CARD: 70B uses GQA"),
    PublishedConfig("llama3_8b", "Llama-3-8B", 32, 32, 8, 128, 8192,
                    "meta-llama/Meta-Llama-3-8B config.json (mirror): 32 layers, 32 heads, 8 kv, head_dim 128"),
    PublishedConfig("mistral_7b", "Mistral-7B-v0.1", 32, 32, 8, 128, 8192,
                    "Jiang et al. 2023 (arXiv 2310.06825), Table 1: n_layers 32, head_dim 128, n_heads 32, "
                    "n_kv_heads 8"),
    PublishedConfig("qwen25_7b", "Qwen2.5-7B", 28, 28, 4, 3584 // 28, 131072,
                    "Qwen2.5 Technical Report (arXiv 2412.15115), Table 1: 28 layers, heads Q/KV 28/4; "
                    "config.json hidden 3584"),
    PublishedConfig("falcon_7b", "Falcon-7B", 32, 71, 1, 4544 // 71, 2048,
                    "tiiuae/falcon-7b config.json: hidden 4544, n_head 71, n_layer 32, multi_query true "
                    "(one K and one V head)"),
)
"""Real configurations used in the kv-bytes lesson, each with its source."""


def per_token_bytes(model: PublishedConfig, bytes_per_element: int = FP16_BYTES) -> int:
    """KV bytes one token adds to one sequence's cache."""
    return context_bytes(model, 1, bytes_per_element)


def context_bytes(model: PublishedConfig, tokens: int, bytes_per_element: int = FP16_BYTES) -> int:
    """KV bytes of one sequence holding `tokens` tokens."""
    return kv_cache_bytes(model.n_layers, 1, tokens, model.n_kv_heads, model.d_head, bytes_per_element)
