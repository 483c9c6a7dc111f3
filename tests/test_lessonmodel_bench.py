"""The timing study writes a valid record (contracts §2); --quick keeps it fast."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from lessonmodel import bench, init_params
from lessonmodel.__main__ import main


def test_bench_quick_writes_a_valid_record(tmp_path):
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--quick", "--out", str(out)]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["id"] == out.stem == "decode_timing"
    assert re.fullmatch(r"[a-z0-9_]+", record["id"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"])
    for key in ("title", "machine", "conditions", "command"):
        assert isinstance(record[key], str) and record[key], key
    assert "NumPy" in record["machine"] and record["source"] is None
    plan = bench.QUICK
    for p in plan.prompts:
        for suffix in ("", "_n1"):
            for name in ("cached", "recompute", "naive", "tokenwise"):
                v = record["values"][f"{name}_ms_p{p}{suffix}"]
                assert v["unit"] == "ms" and v["value"] > 0 and v["description"]
            assert record["values"][f"speedup_p{p}{suffix}"]["value"] > 0
    assert record["values"]["all_methods_same_tokens"]["value"] is True
    rows = record["data"]["rows"]
    expected = len(plan.prompts) * len(plan.generated) * len(bench.METHODS)
    assert len(rows) == expected
    assert all(len(r["repeats_ms"]) == plan.repeats and r["min_ms"] <= r["median_ms"] <= r["max_ms"]
               for r in rows)


def test_bench_quick_refuses_to_overwrite_the_real_record():
    with pytest.raises(SystemExit):
        main(["bench", "--quick"])


def test_generators_agree():
    params = init_params(bench.QUICK.model)
    prompt = np.arange(6)
    reference = bench.generate_recompute(params, prompt, 5)
    for name, method in bench.METHODS.items():
        assert method(params, prompt, 5) == reference, name
