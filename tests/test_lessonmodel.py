"""The model (lessonmodel/): cache equivalence, batch invariance, experiments, benchmark, CPU code paths."""

from __future__ import annotations

import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import types
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import lessonmodel.runner as runner
from lessonmodel import (
    ModelConfig,
    bench,
    char_config,
    decode_step,
    encode_chars,
    encode_words,
    forward,
    forward_trace,
    init_params,
    kv_cache_bytes,
    make_cache,
    make_concat_cache,
    prefill,
    run_all,
)
from lessonmodel.__main__ import main
from lessonmodel.experiments import bidirectional, char_stream, stale_prefix
from lessonmodel.kernels import ordered_matmul, ordered_sum
from lessonmodel.model import visibility
from lessonmodel.runner import EXPERIMENTS, source_hash

# ---------------------------------------------------------------------------
# The fixed-order core gives a token's row the same bits whatever else is computed with it.
#
# BLAS (NumPy's `@`) rounds a row of `H @ W` differently depending on how many rows
# `H` has; these tests compute the same rows at many lengths and batch sizes and
# demand bit equality. `python build.py check` relies on it (equivalence.max_abs_diff
# is an `exact` value), and the CPU code path tests below repeat it under other CPU code paths.


LENGTHS = (*range(1, 18), 31, 64, 127, 200)


def _tokens(cfg: ModelConfig, n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, cfg.vocab_size, size=n)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def test_ordered_matmul_rows_do_not_depend_on_the_row_count():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((500, 32)), rng.standard_normal((32, 128))
    full = ordered_matmul(x, w)
    for n in LENGTHS:
        assert _same_bits(ordered_matmul(x[:n], w), full[:n]), n
    np.testing.assert_allclose(full, x @ w, rtol=1e-12, atol=1e-12)  # the same product


def test_ordered_sum_ignores_trailing_zeros():
    # A masked key has weight exactly 0: adding it must change nothing, whatever the length.
    rng = np.random.default_rng(0)
    w = rng.random((4, 300))
    for n in LENGTHS:
        padded = np.concatenate([w[:, :n], np.zeros((4, 300 - n))], axis=1)
        assert _same_bits(ordered_sum(w[:, :n]), ordered_sum(padded)), n


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
def test_forward_rows_equal_at_every_length(n_kv_heads):
    cfg = replace(ModelConfig(), n_kv_heads=n_kv_heads)
    params = init_params(cfg)
    tokens = _tokens(cfg, max(LENGTHS))
    full = forward(params, tokens)  # (T, V)
    for n in LENGTHS:
        assert _same_bits(forward(params, tokens[:n]), full[:n]), f"prefix of {n} tokens"


def test_rows_do_not_depend_on_the_batch():
    cfg = ModelConfig()
    params = init_params(cfg)
    batch = np.stack([_tokens(cfg, 24, seed) for seed in range(5)])  # (B, T)
    together = forward(params, batch)  # (B, T, V)
    for b in range(len(batch)):
        assert _same_bits(forward(params, batch[b]), together[b]), b


def test_decode_equals_recompute_bit_for_bit_at_many_lengths():
    cfg = ModelConfig()
    params = init_params(cfg)
    tokens = _tokens(cfg, 60)
    full = forward(params, tokens, 3 + np.arange(len(tokens)))  # (T, V), a non-zero offset
    for n_prefill in (1, 2, 5, 17, 40):
        cache = make_cache(cfg, len(tokens), start_position=3)
        first, cache = prefill(params, tokens[:n_prefill], cache)
        assert _same_bits(first, full[:n_prefill]), n_prefill
        for i in range(n_prefill, len(tokens)):
            logits, cache = decode_step(params, int(tokens[i]), cache)
            assert _same_bits(logits, full[i]), (n_prefill, i)


def test_old_keys_and_values_unchanged_when_tokens_are_appended():
    cfg = replace(ModelConfig(), n_layers=3)
    params = init_params(cfg)
    tokens = _tokens(cfg, 50)
    longest = forward_trace(params, tokens)
    for n in (1, 6, 13, 49):
        short = forward_trace(params, tokens[:n])
        for layer, (k, v) in enumerate(zip(short.keys, short.values, strict=True)):
            assert _same_bits(k, longest.keys[layer][:, :n]), (n, layer)
            assert _same_bits(v, longest.values[layer][:, :n]), (n, layer)


def test_blas_kernels_agree_to_round_off():
    cfg = ModelConfig()
    tokens = _tokens(cfg, 30)
    fixed = forward(init_params(cfg), tokens)
    blas = forward(init_params(replace(cfg, kernels="blas")), tokens)
    np.testing.assert_allclose(blas, fixed, rtol=1e-12, atol=1e-12)


def test_unknown_kernels_is_an_error():
    with pytest.raises(ValueError, match="kernels must be one of fixed-order, blas, got 'mkl'"):
        ModelConfig(kernels="mkl")


# ---------------------------------------------------------------------------
# The experiments and the figure check hold under other CPU code paths this machine can emulate.
#
# NumPy picks SIMD code per CPU feature set (its exp, tanh, sin and cos round the
# last bit differently with and without AVX-512); `NPY_DISABLE_CPU_FEATURES`
# makes it take the paths an older CPU would. OpenBLAS picks kernels per CPU;
# `OPENBLAS_CORETYPE` forces the kernels of another core. Under each, in a fresh
# process: the bitwise-zero values are exactly 0 and `figures.check_figures`
# (what `build.py check` runs on the figures) reports no problem.
#
# One other OpenBLAS core is enough: the experiments sum in the fixed-order kernels
# (lessonmodel/kernels.py), so OpenBLAS only reaches the two matrix-vector products of
# `worked.attention_example` (rounding-class values) and matplotlib's 3x3 transforms.
# Measured once under all five cores: the results documents differ only in the last
# bit of attention_example's scores and outputs; Nehalem (SSE only, the furthest from
# this machine's AVX-512 kernels) moves the most of them.


ROOT = Path(__file__).resolve().parents[1]


X86 = platform.machine().lower() in ("x86_64", "amd64")


# NumPy 2.4 groups x86 features by level: X86_V2 is the baseline and cannot be disabled.
NUMPY_PATHS = {
    "no AVX-512 (x86-64-v3)": "X86_V4 AVX512_ICL AVX512_SPR",
    "no AVX2, no AVX-512 (x86-64-v2)": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
}


OPENBLAS_CORE = "Nehalem"


def exact_values(results: dict) -> dict[str, float]:
    """Every float value of the exact class, by ``experiment.key`` (SCRIPT runs this function's source too)."""
    return {f"{exp}.{key}": v["value"] for exp, e in results["experiments"].items()
            for key, v in e["values"].items() if v["class"] == "exact" and isinstance(v["value"], float)}


def rounding_values(results: dict) -> str:
    """Every value of the rounding class by ``experiment.key``, and every experiment's data, as JSON: what an
    emulated path must move in the last bits (else it proves nothing). SCRIPT runs this function's source too."""
    return json.dumps({**{f"{exp}.{key}": v["value"] for exp, e in results["experiments"].items()
                          for key, v in e["values"].items() if v["class"] == "rounding"},
                       **{f"{exp}.data": e["data"] for exp, e in results["experiments"].items()}}, sort_keys=True)


SCRIPT = inspect.getsource(exact_values) + inspect.getsource(rounding_values) + """
import inspect
import json
import build, figures, lessonmodel
from site_builder.load.loader import load_content

results = lessonmodel.run_all(None)
content, _ = load_content(build.ROOT)
records = {r.id: r.data for r in content.records}
_, problems = figures.check_figures([figures.BY_ID[i] for i in figures.FIGURE_IDS], results, records)
print(json.dumps({"exact": exact_values(results), "rounding": rounding_values(results), "problems": problems}))
"""


def _run(env: dict[str, str]) -> dict:
    full = {**os.environ, **env, "OPENBLAS_VERBOSE": "2"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=full, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr": out.stderr}


@pytest.fixture(scope="module")
def default_paths(model_results) -> dict:
    """The same values on this machine's own NumPy and OpenBLAS paths: what the emulated ones must match. Taken
    from conftest's ``run_all(None)`` (this process runs on the default paths, as a fresh one without the variables
    does) rather than from one more process that would also draw every figure, which nothing here compares."""
    return {"exact": exact_values(model_results), "rounding": rounding_values(model_results)}


def _assert_check_passes(found: dict, default: dict, turned_off: str = "") -> None:
    """The exact class is compared bit for bit (differences that must be 0.0, settings such as a temperature),
    and every figure's check passes. When the path turned off a NumPy feature this CPU has (``turned_off``), the
    rounding class must have moved: otherwise the path ran the same kernels and proved nothing. (NumPy's
    float64 exp has an AVX-512 kernel, tanh, sin and cos AVX2 and AVX-512 ones, each with a scalar fallback.)"""
    assert found["exact"] and found["exact"] == default["exact"], (found["exact"], default["exact"])
    assert found["problems"] == []
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    # A feature counts when this CPU has it and this NumPy build dispatches on it (a build with a higher
    # baseline, or none, would run the same code with it turned off).
    if any(__cpu_features__.get(feature) and feature in __cpu_dispatch__ for feature in turned_off.split()):
        assert found["rounding"] != default["rounding"], f"turning off {turned_off} changed no rounding value"


# x86-64-v2 is not run alone: the combined test below takes that NumPy path with another OpenBLAS core. The exact
# values never reach OpenBLAS (fixed-order kernels), and the rounding ones differ most when both paths move at once.
ALONE = ("no AVX-512 (x86-64-v3)",)


@pytest.mark.slow  # Each test runs the experiments and checks every figure in a new process under emulated paths.
@pytest.mark.skipif(not X86, reason="these NumPy feature names are x86's; CI's arm64 runners check their own path")
@pytest.mark.parametrize("features", [NUMPY_PATHS[name] for name in ALONE], ids=ALONE)
def test_check_passes_under_older_numpy_simd_paths(features: str, default_paths: dict) -> None:
    _assert_check_passes(_run({"NPY_DISABLE_CPU_FEATURES": features}), default_paths, features)


@pytest.mark.slow  # Each test runs the experiments and checks every figure in a new process under emulated paths.
def test_check_passes_under_another_openblas_core(default_paths: dict) -> None:
    found = _run({"OPENBLAS_CORETYPE": OPENBLAS_CORE})
    if f"Core: {OPENBLAS_CORE}" not in found["stderr"]:  # OpenBLAS fell back to another kernel on this CPU
        pytest.skip(f"OpenBLAS does not run its {OPENBLAS_CORE} kernels on this CPU")
    _assert_check_passes(found, default_paths)


@pytest.mark.slow  # Each test runs the experiments and checks every figure in a new process under emulated paths.
@pytest.mark.skipif(not X86, reason="x86 feature names")
def test_check_passes_with_the_oldest_paths_combined(default_paths: dict) -> None:
    oldest = NUMPY_PATHS["no AVX2, no AVX-512 (x86-64-v2)"]
    _assert_check_passes(_run({"NPY_DISABLE_CPU_FEATURES": oldest, "OPENBLAS_CORETYPE": "Sandybridge"}),
                         default_paths, oldest)


# ---------------------------------------------------------------------------
# The lesson model: cached decoding equals full recompute; inputs are checked.


SENTENCES = ("BOS I gave him a book", "BOS she sent her the letter . and the key")


def cached_all_positions(params, tokens, n_prefill, cache):
    """Logits of every position via prefill + one decode step per further token."""
    first, cache = prefill(params, tokens[..., :n_prefill], cache)
    rows = [first]
    for i in range(n_prefill, tokens.shape[-1]):
        step, cache = decode_step(params, tokens[..., i], cache)
        rows.append(step[..., None, :])
    return np.concatenate(rows, axis=-2), cache


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1], ids=["mha", "gqa", "mqa"])
@pytest.mark.parametrize("offset", [0, 3, 100])
@pytest.mark.parametrize("sentence", SENTENCES)
def test_cached_equals_recompute(n_kv_heads, offset, sentence):
    cfg = ModelConfig(n_kv_heads=n_kv_heads)
    params = init_params(cfg)
    tokens = encode_words(cfg, sentence)
    full = forward(params, tokens, offset + np.arange(len(tokens)))
    for n_prefill in (1, 3, len(tokens)):
        cache = make_cache(cfg, len(tokens), start_position=offset)
        cached, cache = cached_all_positions(params, tokens, n_prefill, cache)
        np.testing.assert_allclose(cached, full, rtol=0, atol=1e-12)
        assert cache.length == len(tokens)
        assert cache.next_position == offset + len(tokens)


def test_naive_concat_cache_equals_recompute():
    cfg = ModelConfig(n_kv_heads=2)
    params = init_params(cfg)
    tokens = encode_words(cfg, SENTENCES[1])
    cached, cache = cached_all_positions(params, tokens, 2, make_concat_cache(cfg))
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-12)
    assert cache.keys[0].shape == (1, len(tokens), 2, cfg.d_head)


def test_batched_cache_equals_recompute():
    cfg = ModelConfig(n_kv_heads=1)
    params = init_params(cfg)
    tokens = np.random.default_rng(1).integers(0, cfg.vocab_size, size=(3, 9))  # (B, T)
    cached, _ = cached_all_positions(params, tokens, 4, make_cache(cfg, 9, batch=3))
    assert cached.shape == (3, 9, cfg.vocab_size)
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-12)


def test_float32_and_char_vocab():
    cfg = char_config(dtype="float32")
    params = init_params(cfg)
    tokens = encode_chars(cfg, "kv cache")
    cached, cache = cached_all_positions(params, tokens, 3, make_cache(cfg, len(tokens)))
    assert cached.dtype == np.float32 and cache.keys[0].dtype == np.float32
    np.testing.assert_allclose(cached, forward(params, tokens), rtol=0, atol=1e-4)


def test_trace_keys_are_what_the_cache_holds():
    cfg = ModelConfig()
    params = init_params(cfg)
    tokens = encode_words(cfg, SENTENCES[0])
    trace = forward_trace(params, tokens)
    _, cache = prefill(params, tokens, make_cache(cfg, 10))
    for layer in range(cfg.n_layers):
        np.testing.assert_allclose(cache.keys[layer][:, :6], trace.keys[layer], atol=1e-13)
        assert not cache.keys[layer][:, 6:].any()  # unused slots stay zero


def test_same_seed_same_parameters_other_seed_differs():
    a, b = init_params(ModelConfig()), init_params(ModelConfig())
    c = init_params(ModelConfig(seed=1))
    for (name, x), (_, y) in zip(a.named_arrays(), b.named_arrays(), strict=True):
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert not np.array_equal(a.embedding, c.embedding)


def test_cache_nbytes_is_the_formula():
    cfg = ModelConfig(n_layers=3, n_kv_heads=2, dtype="float32")
    cache = make_cache(cfg, 17, batch=2)
    assert cache.nbytes == kv_cache_bytes(3, 2, 17, 2, cfg.d_head, 4) == 2 * 3 * 2 * 17 * 2 * 8 * 4
    assert cache.used_nbytes == 0


def test_causal_visibility_matrix():
    np.testing.assert_array_equal(visibility(4, 4, causal=True), np.tril(np.ones((4, 4), bool)))
    # two new queries after three cached keys read 0..3 and 0..4
    np.testing.assert_array_equal(visibility(2, 5, causal=True),
                                  [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    assert visibility(2, 5, causal=False).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_heads": 4, "n_kv_heads": 3},
         "invalid ModelConfig: n_heads (4) must be a multiple of n_kv_heads (3)"),
        ({"d_head": 7}, "invalid ModelConfig: d_head must be even for RoPE, got 7"),
        ({"n_layers": 0}, "invalid ModelConfig: n_layers must be >= 1, got 0"),
        ({"n_layers": True}, "invalid ModelConfig: n_layers must be an int, got True"),
        ({"dtype": "float16"},
         "invalid ModelConfig: dtype must be one of float64, float32, got 'float16'"),
        ({"vocab": ("a", "a")}, "invalid ModelConfig: vocab entries must be unique"),
        ({"causal": "yes"}, "invalid ModelConfig: causal must be True or False, got 'yes'"),
        ({"seed": -1}, "invalid ModelConfig: seed must be an int >= 0, got -1"),
    ],
)
def test_invalid_config_messages(kwargs, message):
    with pytest.raises(ValueError) as err:
        ModelConfig(**kwargs)
    assert str(err.value) == message


def test_invalid_inputs_messages():
    cfg = ModelConfig()
    params = init_params(cfg)
    with pytest.raises(ValueError, match=r"^token ids must be in \[0, 25\), got 0\.\.25$"):
        forward(params, np.array([0, 25]))
    with pytest.raises(ValueError, match=r"^tokens must be integers, got dtype float64$"):
        forward(params, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"^positions must be 2 non-negative integers"):
        forward(params, np.array([0, 1]), np.array([0, -1]))
    with pytest.raises(ValueError, match=r"^tokens not in the vocabulary: \['gaev'\]$"):
        encode_words(cfg, "BOS I gaev")
    cache = make_cache(cfg, 2)
    _, cache = prefill(params, np.array([0, 1]), cache)
    with pytest.raises(ValueError, match=r"^cache is full: length 2 \+ 1 new tokens > max_len 2$"):
        decode_step(params, 3, cache)
    with pytest.raises(ValueError, match=r"^cache shape 2 layers x \(2, 8\) does not match"):
        decode_step(params, 3, make_cache(replace(cfg, n_kv_heads=2), 4))
    with pytest.raises(ValueError, match=r"^cache dtype float32 does not match the model dtype"):
        decode_step(params, 3, make_cache(replace(cfg, dtype="float32"), 4))
    with pytest.raises(ValueError, match=r"^decode_step takes one token per sequence"):
        decode_step(params, np.array([[1, 2]]), make_cache(cfg, 4))
    with pytest.raises(ValueError, match=r"^max_len must be an int >= 1, got 0$"):
        make_cache(cfg, 0)


# ---------------------------------------------------------------------------
# The timing study writes a valid record (content/records/decode_timing.json); a tiny plan keeps it fast.


TINY = bench.BenchPlan(
    ModelConfig(vocab=tuple(f"t{i}" for i in range(64)), d_model=16, n_layers=1, n_heads=2, n_kv_heads=2, d_head=8,
                d_ff=32, dtype="float32", kernels="blas"),
    prompts=(4, 16), generated=(1, 4), main_generated=4, min_repeats=2, max_repeats=3,
)


def test_bench_writes_a_valid_record(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "FULL", TINY)
    monkeypatch.setattr(bench, "load_average", lambda: [0.0, 0.0, 0.0])
    for name, pinned in bench.pinned_environment({}, 1).items():
        monkeypatch.setenv(name, pinned)
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--out", str(out)]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["id"] == out.stem == "decode_timing"
    assert re.fullmatch(r"[a-z0-9_]+", record["id"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"])
    for key in ("title", "machine", "conditions", "command"):
        assert isinstance(record[key], str) and record[key], key
    assert "NumPy" in record["machine"] and record["source"] is None
    plan = TINY
    for p in plan.prompts:
        for name in bench.METHODS:
            for kind in ("ttft_ms", "decode_ms", "ms"):
                key = f"{name}_{kind}_p{p}" + ("_n1" if kind == "ms" else "")
                v = record["values"][key]
                assert v["unit"] == "ms" and v["value"] > 0 and v["description"], key
                if name in ("cached", "recompute"):
                    low, high = (record["values"][f"{key}_{end}"]["value"] for end in ("min", "max"))
                    assert low <= v["value"] <= high
        low, high = (record["values"][f"decode_speedup_p{p}_{end}"]["value"] for end in ("low", "high"))
        assert 0 < low <= high
    assert record["values"]["all_methods_same_tokens"]["value"] is True
    rows = record["data"]["rows"]
    expected = len(plan.prompts) * len(plan.generated) * len(bench.METHODS)
    assert len(rows) == expected
    for r in rows:
        timed = [r["ttft_ms"], r["total_ms"]] + ([r["decode_ms"]] if r["generated"] > 1 else [])
        assert (r["decode_ms"] is None) == (r["generated"] == 1)
        for stats in timed:
            assert plan.min_repeats <= len(stats["repeats"]) == record["values"]["repeats"]["value"]
            assert stats["min"] <= stats["q1"] <= stats["median"] <= stats["q3"] <= stats["max"]
        assert r["ttft_ms"]["median"] <= r["total_ms"]["median"]


def test_time_run_separates_first_token_from_decode_steps(monkeypatch):
    clock = [100.0]  # seconds, advanced by the generator below instead of by work
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

    def slow_first():
        clock[0] += 0.050  # the prefill: 50 ms to the first token
        yield 1
        for tok, step in ((2, 0.004), (3, 0.006)):
            clock[0] += step
            yield tok

    run = bench.time_run(slow_first())
    assert run.tokens == (1, 2, 3)
    assert run.ttft_ms == pytest.approx(50) and run.decode_ms == pytest.approx(5)  # the two steps' mean
    assert run.total_ms == pytest.approx(60)


def test_generators_agree():
    params = init_params(TINY.model)
    prompt = np.arange(6)
    reference = list(bench.generate_recompute(params, prompt, 5))
    for name, method in bench.METHODS.items():
        assert list(method(params, prompt, 5)) == reference, name


# ---------------------------------------------------------------------------
# The experiments, the results document and its disk cache.


KIB, MIB, GIB = 1024, 1024**2, 1024**3


@pytest.fixture(scope="module")
def doc(model_results):
    return model_results


def value_of(result, key):
    """The value called ``key`` of an experiment's ``Result``."""
    return next(v.value for v in result.values if v.key == key)


def values(doc, exp):
    return {k: v["value"] for k, v in doc["experiments"][exp]["values"].items()}


def agrees(entry, expected) -> bool:
    """Today's value equals `expected` as its class allows: bit for bit when exact, within
    the stated tolerance when rounding. A timing value is never compared."""
    assert entry["class"] != "timing", "timing values are records only"
    if entry["class"] == "exact":
        return entry["value"] == expected
    return abs(entry["value"] - expected) <= entry["atol"] + entry["rtol"] * abs(expected)


def test_every_function_marked_experiment_is_found_by_its_name():
    import ast

    marked = {node.name for path in sorted(runner.PACKAGE_DIR.glob("*.py"))
              for node in ast.parse(path.read_text(encoding="utf-8")).body
              if isinstance(node, ast.FunctionDef) and any(getattr(d, "id", "") == "experiment"
                                                           for d in node.decorator_list)}
    assert set(EXPERIMENTS) == marked and all(fn.__name__ == name for name, fn in EXPERIMENTS.items())


def test_document_shape(doc):
    assert doc["source_hash"] == source_hash() and len(doc["source_hash"]) == 64
    assert list(doc["experiments"]) == list(EXPERIMENTS)
    for name, entry in doc["experiments"].items():
        assert set(entry) == {"title", "command", "source", "provenance", "config", "values", "data"}
        assert entry["command"] == f"python -m lessonmodel run {name}"
        assert entry["source"].startswith("lessonmodel/") and entry["source"].endswith(".py")
        for v in entry["values"].values():
            assert {"value", "unit", "description", "class"} <= set(v) and v["description"]
            assert isinstance(v["value"], int | float | bool)
            assert v["class"] in doc["value_classes"] and v["class"] != "timing"
            if v["class"] == "rounding":
                assert v["rtol"] > 0 and v["atol"] > 0
            else:
                assert set(v) == {"value", "unit", "description", "class"}
        if entry["provenance"] == "measured":
            assert entry["config"]["d_model"] == ModelConfig().d_model
        else:
            assert entry["provenance"] == "computed" and "d_model" not in entry["config"]
    json.dumps(doc, allow_nan=False)  # JSON-able, no NaN


BITWISE_ZEROS = (
    ("equivalence", "max_abs_diff"), ("stale_prefix", "legal_max_abs_diff"),
    ("wrong_position", "correct_max_abs_diff"), ("other_request", "own_cache_max_abs_diff"),
    ("char_stream", "cached_max_abs_diff"), ("bidirectional", "bidir_layer1_old_kv_change"),
    *(("bidirectional", f"causal_layer{i}_old_kv_change") for i in (1, 2, 3)),
)
"""Differences the fixed-order kernels make exactly zero on any machine."""


@pytest.mark.parametrize(("exp", "key"), BITWISE_ZEROS)
def test_bitwise_zeros_are_exact_and_zero(doc, exp, key):
    entry = doc["experiments"][exp]["values"][key]
    assert entry["class"] == "exact"
    assert agrees(entry, 0.0)


def test_equivalence_and_controls(doc):
    assert values(doc, "equivalence")["n_offsets"] >= 3
    for exp in ("stale_prefix", "wrong_position", "other_request"):
        assert values(doc, exp)["max_abs_diff"] > 0.1, exp
    shift = doc["experiments"]["wrong_position"]["values"]["uniform_shift_max_abs_diff"]
    assert shift["class"] == "rounding"  # sin/cos of other angles: round-off, not zero by construction
    assert agrees(shift, 0.0)


def test_stale_prefix_changes_from_the_edit_on():
    result = stale_prefix(ModelConfig())
    value = {v.key: v.value for v in result.values}
    edit = value["edit_position"]
    changed = np.array(result.data["changed"])  # (L, T)
    assert value["unchanged_before_edit"] and not changed[:, :edit].any()
    assert changed[0].tolist() == [i == edit for i in range(changed.shape[1])]  # layer 1: own token
    assert changed[1:, edit:].all()  # deeper layers: every position from the edit on


def test_bidirectional_layer1_unchanged_layer2_changed():
    result = bidirectional(ModelConfig())
    kinds, value = {v.key: v.value_class for v in result.values}, {v.key: v.value for v in result.values}
    assert kinds["bidir_layer1_old_kv_change"] == "exact"  # so == 0.0 is a fair assertion
    assert value["bidir_layer1_old_kv_change"] == 0.0
    assert value["bidir_layer2_old_kv_change"] > 0.1
    assert value["bidir_layer3_old_kv_change"] > 0.1
    for i in (1, 2, 3):
        assert kinds[f"causal_layer{i}_old_kv_change"] == "exact"
        assert value_of(result, f"causal_layer{i}_old_kv_change") == 0.0


def test_blas_kernels_make_the_zeros_rounding():
    result = bidirectional(ModelConfig(kernels="blas"))
    kinds = {v.key: v.value_class for v in result.values}
    assert kinds["causal_layer1_old_kv_change"] == "rounding"
    assert value_of(result, "causal_layer1_old_kv_change") < 1e-12


def test_kv_bytes_formula_exact_and_real_models(doc):
    v = values(doc, "kv_bytes")
    assert v["formula_equals_nbytes"] is True and v["n_checked"] >= 12
    for row in doc["experiments"]["kv_bytes"]["data"]["check"]:
        assert row["formula"] == row["nbytes"]
    cfg = ModelConfig()
    assert v["lessonmodel_bytes_per_token"] == 2 * cfg.n_layers * cfg.n_kv_heads * cfg.d_head * 8
    assert doc["experiments"]["kv_bytes"]["provenance"] == "measured"


def test_kv_models_are_computed_from_published_configs(doc):
    v = values(doc, "kv_models")
    assert doc["experiments"]["kv_models"]["provenance"] == "computed"
    assert doc["experiments"]["kv_models"]["config"]["formula"]  # its own inputs, not the lesson model's
    assert "d_model" not in doc["experiments"]["kv_models"]["config"]
    # FACTS.md table (fp16, batch 1)
    assert v["gpt2_small_per_token"] == 36 * KIB and v["gpt2_small_per_4096"] == 144 * MIB
    assert v["opt_13b_per_token"] == 800 * KIB
    assert v["llama2_7b_per_4096"] == 2 * GIB
    assert v["llama2_70b_per_token"] == 320 * KIB and v["llama2_70b_per_4096"] == 1.25 * GIB
    assert v["llama3_8b_per_token"] == v["mistral_7b_per_token"] == 128 * KIB
    assert v["qwen25_7b_per_token"] == 56 * KIB and v["qwen25_7b_per_4096"] == 224 * MIB
    assert v["falcon_7b_per_token"] == 8 * KIB and v["falcon_7b_per_4096"] == 32 * MIB
    assert all(row["source"] for row in doc["experiments"]["kv_models"]["data"]["models"])
    # A decode step of OPT-13B (13B parameters, Kwon et al. §3) at 2048 tokens reads the fp16
    # weights once plus the whole cache: 26e9 B + 2048 · 800 KiB.
    assert v["opt_13b_weights_bytes"] == 26e9
    assert v["opt_13b_decode_read_bytes"] == 26e9 + 2048 * 800 * KIB
    # FLOPs: 2 per weight plus attention's 4·L·T·d over the cache (FACTS.md: about 6.5% of the weights' FLOPs);
    # in fp16 multi-head attention the cache's bytes equal attention's FLOPs, so the step does 1 FLOP per byte.
    assert v["opt_13b_attention_flops_pct"] == pytest.approx(100 * 4 * 40 * 2048 * 5120 / 26e9)
    assert v["opt_13b_decode_flops_per_byte"] == pytest.approx(1.0)


def test_training_state_bytes(doc):
    v = values(doc, "training_state")
    assert v["grads_bytes"] == v["params_bytes"] == v["n_params"] * 8
    assert v["adam_bytes"] == 2 * v["params_bytes"]
    assert v["training_total_bytes"] == 4 * v["params_bytes"]


def test_lesson_data(doc):
    data = doc["experiments"]["lesson_data"]["data"]
    first = data["first_token_distribution"]
    assert first["prompt"] == ["BOS", "I", "gave", "him"]
    assert abs(sum(first["probs"]) - 1) < 1e-12 and first["probs"] == sorted(first["probs"])[::-1]
    b3 = data["rc_v1_b3_attention"]
    assert b3["n_cached"] == 5 and len(b3["columns"]) == 6
    for layer in b3["by_layer_heads"]:
        assert len(layer) == ModelConfig().n_heads
        assert all(abs(sum(row) - 1) < 1e-12 and len(row) == 6 for row in layer)
    assert data["r55_her_attention"]["columns"] == ["BOS", "I", "gave", "her"]
    assert data["causal_visibility"]["matrix"][1] == [True, True, False, False]


def test_char_stream():
    result = char_stream(ModelConfig())
    assert result.model.vocab[1] == "a"
    assert value_of(result, "stale_max_abs_diff") > 0.1
    assert value_of(result, "n_chars") == len(result.parameters["text"])


def computed_as_in(doc, monkeypatch) -> None:
    """Experiments "computed" by handing back ``doc``'s entries: for tests of the cache, not of the model
    (each real run takes seconds; ``test_cli_run_and_json_print_the_same_results_as_another_run`` is the one that
    repeats it)."""
    monkeypatch.setattr(runner, "compute_experiment", lambda name, cfg: doc["experiments"][name])


def test_disk_cache_hit_and_miss_by_source_hash(tmp_path, monkeypatch, doc):
    computed_as_in(doc, monkeypatch)
    first = run_all(tmp_path)
    assert first == doc
    assert len(list(tmp_path.glob("lessonmodel-*.json"))) == len(EXPERIMENTS)

    def fail(*args, **kwargs):
        raise AssertionError("recomputed although the source did not change")

    monkeypatch.setattr(runner, "compute_experiment", fail)
    assert run_all(tmp_path) == first  # hit: nothing recomputed

    calls = []
    monkeypatch.setattr(runner, "source_hash", lambda: "0" * 64)
    monkeypatch.setattr(runner, "compute_experiment", lambda name, cfg: calls.append(name) or {})
    run_all(tmp_path)
    assert calls == list(EXPERIMENTS)  # miss: a changed source reruns every experiment


def test_source_hash_follows_the_sources(tmp_path):
    copy = tmp_path / "lessonmodel"
    shutil.copytree(runner.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert source_hash(copy) == source_hash()
    (copy / "model.py").write_text((copy / "model.py").read_text() + "\n# edit\n")
    assert source_hash(copy) != source_hash()


def test_cli_run_and_json_print_the_same_results_as_another_run(doc, capsys):
    assert main(["run", "other_request"]) == 0
    printed = json.dumps({"other_request": doc["experiments"]["other_request"]}, indent=2, ensure_ascii=False)
    assert capsys.readouterr().out == printed + "\n"  # as text: 1 and 1.0 differ
    assert main(["--json"]) == 0  # a second run of every experiment, in this process: the model is deterministic
    assert capsys.readouterr().out == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    with pytest.raises(SystemExit):
        main(["run", "no_such_experiment"])


def test_worked_attention_example_is_the_models_own_arithmetic(doc):
    v = values(doc, "attention_example")
    names = ("bos", "i", "gave", "her")
    weights = [v[f"weight_{n}"] for n in names]
    assert v["max_diff_vs_model"] < 1e-12 and abs(sum(weights) - 1) < 1e-12
    exp = [np.exp(v[f"score_{n}"]) for n in names]
    np.testing.assert_allclose(weights, [e / sum(exp) for e in exp], rtol=1e-12)
    assert abs(v["out0"] - sum(v[f"weight_{n}"] * v[f"v0_{n}"] for n in names)) < 1e-12


def test_first_token_choice_temperature_and_top_p(doc):
    v = values(doc, "first_token_choice")
    assert v["top1_prob"] >= v["top2_prob"] > 0
    assert v["top1_prob_t0_5"] > v["top1_prob"] > v["top1_prob_t2_0"] > v["uniform_prob"]  # sharper / flatter
    assert 1 <= v["top_p_kept"] <= v["vocab_size"] and v["top_p_top1_prob"] >= v["top1_prob"]


def test_cached_results_are_read_without_numpy_and_a_damaged_name_list_is_found_again(tmp_path, monkeypatch, doc):
    """A run whose entries are all cached imports no experiment module: NumPy stays out of a build that
    changes nothing. The names it read instead are the discovered ones; damaged, they are found again."""
    computed_as_in(doc, monkeypatch)
    first = run_all(tmp_path)
    script = ("import json, sys; from pathlib import Path; import lessonmodel; "
              f"doc = lessonmodel.run_all(Path({str(tmp_path)!r})); "
              "print(json.dumps([sorted(m for m in ('numpy', 'lessonmodel.model') if m in sys.modules), doc]))")

    def fresh_run() -> list:
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    assert fresh_run() == [[], json.loads(json.dumps(first))]
    (names,) = tmp_path.glob("experiments-*.json")
    stored = json.loads(names.read_text(encoding="utf-8"))
    stored["entry"]["names"][0] = "x" + stored["entry"]["names"][0]  # edited, its digest not: damaged
    names.write_text(json.dumps(stored), encoding="utf-8")
    imported, again = fresh_run()
    assert again == json.loads(json.dumps(first)) and "lessonmodel.model" in imported
    assert json.loads(names.read_text(encoding="utf-8"))["entry"]["names"] == list(EXPERIMENTS)
