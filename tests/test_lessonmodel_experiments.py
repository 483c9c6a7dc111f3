"""The experiments, the results document and its disk cache."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import lessonmodel.runner as runner
from lessonmodel import ModelConfig, run_all
from lessonmodel.__main__ import main
from lessonmodel.experiments import bidirectional, char_stream, stale_prefix
from lessonmodel.runner import EXPERIMENTS, source_hash

KIB, MIB, GIB = 1024, 1024**2, 1024**3

@pytest.fixture(scope="module")
def doc():
    return run_all(None)


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


def test_run_all_is_deterministic(doc):
    assert json.dumps(run_all(None), sort_keys=True) == json.dumps(doc, sort_keys=True)


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
    edit = result.value("edit_position")
    changed = np.array(result.data["changed"])  # (L, T)
    assert result.value("unchanged_before_edit") and not changed[:, :edit].any()
    assert changed[0].tolist() == [i == edit for i in range(changed.shape[1])]  # layer 1: own token
    assert changed[1:, edit:].all()  # deeper layers: every position from the edit on


def test_bidirectional_layer1_unchanged_layer2_changed():
    result = bidirectional(ModelConfig())
    kinds = {v.key: v.value_class for v in result.values}
    assert kinds["bidir_layer1_old_kv_change"] == "exact"  # so == 0.0 is a fair assertion
    assert result.value("bidir_layer1_old_kv_change") == 0.0
    assert result.value("bidir_layer2_old_kv_change") > 0.1
    assert result.value("bidir_layer3_old_kv_change") > 0.1
    for i in (1, 2, 3):
        assert kinds[f"causal_layer{i}_old_kv_change"] == "exact"
        assert result.value(f"causal_layer{i}_old_kv_change") == 0.0


def test_blas_kernels_make_the_zeros_rounding():
    result = bidirectional(ModelConfig(kernels="blas"))
    kinds = {v.key: v.value_class for v in result.values}
    assert kinds["causal_layer1_old_kv_change"] == "rounding"
    assert result.value("causal_layer1_old_kv_change") < 1e-12


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
    assert result.value("stale_max_abs_diff") > 0.1
    assert result.value("n_chars") == len(result.parameters["text"])


def test_disk_cache_hit_and_miss_by_source_hash(tmp_path, monkeypatch):
    first = run_all(tmp_path)
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


def test_cli_run_and_json(capsys):
    assert main(["run", "other_request"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["other_request"]["values"]["max_abs_diff"]["value"] > 0.1
    assert main(["--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["experiments"]) == set(EXPERIMENTS)
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
