"""Worked examples with the lesson model's real numbers: one attention read, one first-token choice.

Attention (Vaswani et al. 2017, §3.2.1): score_j = q · k_j / sqrt(d_head), weights = softmax(scores),
output = Σ_j weight_j · v_j. The example recomputes it for one head by hand and checks it against
the model's own attention. Choosing a token from a distribution: greedy takes the largest
probability; temperature τ rescales logits to logit / τ before the softmax; top-p keeps the
smallest set of most likely tokens whose probabilities add up to at least p, then renormalises.
The weights are random: the numbers show the arithmetic, not English.
"""

from __future__ import annotations

import math

import numpy as np

from lessonmodel.config import ModelConfig, encode_words
from lessonmodel.kernels import BY_NAME
from lessonmodel.lesson_data import FIRST_PROMPT, R55_CACHED, R55_NEW, first_distribution, softmax
from lessonmodel.model import forward_trace, project_qkv, rms_norm
from lessonmodel.params import init_params
from lessonmodel.result import EXACT, Result, Value, experiment

HEAD = 0
"""Index of the head the example follows (layer 1). Reader texts count heads from 1, as they count layers:
this is head 1 there, and the parameters below say so."""
TEMPERATURES = (0.5, 2.0)
TOP_P = 0.9


@experiment
def attention_example(cfg: ModelConfig) -> Result:
    """Layer 1, head 1 (index HEAD): the new token 'her' reads BOS, I, gave and itself, step by step."""
    params = init_params(cfg)
    words = [*R55_CACHED.split(), R55_NEW]
    ids = encode_words(cfg, " ".join(words))[None, :]  # (1, T)
    layer = params.layers[0]
    x = params.embedding[ids]  # (1, T, D)
    h = rms_norm(x, layer.attn_norm, BY_NAME[cfg.kernels])  # (1, T, D)
    q, k, v = project_qkv(layer, h, np.arange(len(words)), cfg)  # (1, T, H, Dh)
    kv_head = HEAD // (cfg.n_heads // cfg.n_kv_heads)
    q_new = q[0, -1, HEAD]  # (Dh,)
    keys, vals = k[0, :, kv_head], v[0, :, kv_head]  # (T, Dh) each
    scores = keys @ q_new / math.sqrt(cfg.d_head)  # (T,)
    weights = softmax(scores)  # (T,)
    out = weights @ vals  # (Dh,)
    model_weights = forward_trace(params, ids).attention[0][0, HEAD, -1]  # (T,) the model's own
    names = ["bos", "i", "gave", "her"]
    values = [Value("d_head", cfg.d_head, "", "head width d_head"),
              Value("sqrt_d_head", math.sqrt(cfg.d_head), "", "sqrt(d_head), the score's divisor")]
    for name, s, w, v0 in zip(names, scores, weights, vals[:, 0], strict=True):
        values += [Value(f"score_{name}", float(s), "", f"q(her) · k({name}) / sqrt(d_head), layer 1 head {HEAD + 1}"),
                   Value(f"weight_{name}", float(w), "", f"softmax weight of {name}"),
                   Value(f"v0_{name}", float(v0), "", f"first component of v({name})")]
    values += [Value("out0", float(out[0]), "", "first component of the output Σ weight · v"),
               Value("weights_sum", float(weights.sum()), "", "the weights add up to 1"),
               Value("max_diff_vs_model", float(np.abs(weights - model_weights).max()), "",
                     "max |hand-computed weight - the model's attention weight|")]
    return Result("One attention read by hand: q·k/sqrt(d) -> softmax -> weighted V", cfg,
                  {"layer": 1, "head": HEAD + 1, "counted_from": 1, "tokens": " ".join(words)}, tuple(values),
                  {"tokens": words, "scores": scores, "weights": weights, "v": vals, "out": out})


def _slug(tau: float) -> str:
    """The part of a value's name that says its temperature: 't0_5' for 0.5, 't2_0' for 2.0."""
    return "t" + str(tau).replace(".", "_")


def _top_p(probs: np.ndarray, p: float) -> int:
    """How many of the most likely tokens top-p keeps (probs sorted, largest first)."""
    return int(np.searchsorted(np.cumsum(probs), p) + 1)


@experiment
def first_token_choice(cfg: ModelConfig) -> Result:
    """The first distribution after prefilling FIRST_PROMPT, and what greedy, temperature and top-p do to it."""
    first = first_distribution(init_params(cfg), FIRST_PROMPT)
    probs = np.array(first["probs"])  # (V,) largest first
    logits = np.log(probs)  # equal to the model's logits up to a constant, which softmax ignores
    values = [Value("vocab_size", len(probs), "", "tokens the distribution covers"),
              Value("top1_prob", probs[0], "", "largest probability: the token greedy decoding picks"),
              Value("top2_prob", probs[1], "", "second largest probability"),
              Value("uniform_prob", 1 / len(probs), "", "probability of each token under a uniform distribution")]
    tempered = {tau: softmax(logits / tau) for tau in TEMPERATURES}
    # the temperatures themselves are values too, so a page says "τ = 2" from this setting, not by hand
    values += [Value(f"temperature_{_slug(tau)}", tau, "", f"temperature {tau}, a setting of this experiment", EXACT)
               for tau in TEMPERATURES]
    values += [Value(f"top1_prob_{_slug(tau)}", p[0], "", f"largest probability at temperature {tau}")
               for tau, p in tempered.items()]
    kept = _top_p(probs, TOP_P)
    # temperature first, then top-p on the reshaped distribution (the usual order)
    values += [Value(f"top_p_kept_{_slug(tau)}", _top_p(p, TOP_P), "",
                     f"tokens top-p = {TOP_P} keeps after dividing the logits by temperature {tau}")
               for tau, p in tempered.items()]
    values += [Value("top_p_kept", kept, "", f"tokens top-p = {TOP_P} keeps"),
               Value("top_p", TOP_P, "", "the top-p threshold, a setting of this experiment", EXACT),
               Value("top_p_top1_prob", probs[0] / probs[:kept].sum(), "",
                     "largest probability after top-p renormalises the kept tokens")]
    return Result("Choosing the first token: greedy, temperature, top-p", cfg,
                  {"prompt": FIRST_PROMPT, "temperatures": list(TEMPERATURES), "top_p_threshold": TOP_P},
                  tuple(values),
                  {"tokens": first["tokens"], "probs": probs, "top_p_kept": kept,
                   "tempered": {str(tau): p for tau, p in tempered.items()}})
