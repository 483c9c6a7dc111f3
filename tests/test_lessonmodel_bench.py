"""The timing study writes a valid record (content/records/decode_timing.json); a tiny plan keeps it fast."""

from __future__ import annotations

import json
import re
import time

import numpy as np

from lessonmodel import ModelConfig, bench, init_params
from lessonmodel.__main__ import main

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


def test_time_run_separates_first_token_from_decode_steps():
    def slow_first():
        time.sleep(0.05)
        yield 1
        for tok in (2, 3):
            time.sleep(0.005)
            yield tok

    run = bench.time_run(slow_first())
    assert run.tokens == (1, 2, 3)
    assert run.ttft_ms >= 50 and run.decode_ms < run.ttft_ms / 2
    assert run.total_ms >= run.ttft_ms + 2 * run.decode_ms * 0.99


def test_generators_agree():
    params = init_params(TINY.model)
    prompt = np.arange(6)
    reference = list(bench.generate_recompute(params, prompt, 5))
    for name, method in bench.METHODS.items():
        assert list(method(params, prompt, 5)) == reference, name
