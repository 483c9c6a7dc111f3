"""The timing study guards its record: pinned BLAS threads, a load limit, a bounded spread, quartile ranges."""

from __future__ import annotations

import json
import subprocess

import pytest

from lessonmodel import ModelConfig, bench
from lessonmodel.__main__ import main

TINY = bench.BenchPlan(
    ModelConfig(vocab=tuple(f"t{i}" for i in range(32)), d_model=16, n_layers=1, n_heads=2, n_kv_heads=2, d_head=8,
                d_ff=32, dtype="float32", kernels="blas"),
    prompts=(4,), generated=(1, 3), main_generated=3, min_repeats=2, max_repeats=4,
)


@pytest.fixture
def pinned(monkeypatch):
    """A process whose BLAS threads are pinned to 1 (so `bench` does not restart itself) timing TINY."""
    monkeypatch.setattr(bench, "FULL", TINY)
    for name, value in bench.pinned_environment({}, 1).items():
        monkeypatch.setenv(name, value)


def _loads(monkeypatch, *readings: float) -> None:
    """The 1-minute load average reads these, in turn (the last one repeats)."""
    seq = list(readings)
    monkeypatch.setattr(bench, "load_average", lambda: [seq.pop(0) if len(seq) > 1 else seq[0], 0.0, 0.0])


def test_a_busy_machine_is_refused_before_timing(pinned, monkeypatch, tmp_path, capsys):
    _loads(monkeypatch, 3.0)
    monkeypatch.setattr(bench, "measure", lambda plan: pytest.fail("timed on a busy machine"))
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--out", str(out), "--max-load", "1"]) == 1
    assert not out.exists()
    assert "busy" in capsys.readouterr().err


def test_a_record_that_became_busy_while_timing_is_refused(pinned, monkeypatch, tmp_path, capsys):
    # quiet when checked and when the study starts; after it, the load is above the limit plus its own thread
    _loads(monkeypatch, 0.1, 0.1, 4.0)
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--out", str(out), "--max-load", "1"]) == 1
    assert not out.exists()
    assert "record not written" in capsys.readouterr().err


def test_forcing_writes_a_record_that_says_it_was_forced(pinned, monkeypatch, tmp_path):
    _loads(monkeypatch, 3.0)
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--out", str(out), "--max-load", "1", "--force"]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["data"]["forced"] is True and record["data"]["busy"]
    assert "TAKEN ON A BUSY MACHINE" in record["conditions"]


def test_a_quiet_record_states_pinned_threads_load_and_spread(pinned, monkeypatch, tmp_path):
    _loads(monkeypatch, 0.0)
    out = tmp_path / "decode_timing.json"
    assert main(["bench", "--out", str(out)]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    data = record["data"]
    assert data["busy"] == [] and data["forced"] is False
    assert "OPENBLAS_NUM_THREADS=1" in record["conditions"] and "(pinned)" in record["conditions"]
    assert len(data["load_during"]) == record["values"]["repeats"]["value"]
    assert ("spread bounded" in record["conditions"]) == data["spread_bounded"]
    for row in data["rows"]:
        stats = row["ttft_ms"]
        assert stats["iqr"] == pytest.approx(stats["q3"] - stats["q1"])


def test_repeats_stop_when_the_spread_is_bounded_and_say_so_when_it_is_not(monkeypatch):
    _loads(monkeypatch, 0.0)
    calm = bench.measure(TINY.__class__(**{**TINY.__dict__, "max_spread": float("inf")}))
    assert calm.repeats == TINY.min_repeats and calm.bounded
    strict = bench.measure(TINY.__class__(**{**TINY.__dict__, "max_spread": 0.0}))
    assert strict.repeats == TINY.max_repeats and not strict.bounded


def test_load_refusal_allows_for_the_study_s_own_threads():
    assert bench.load_refusal([0.4, 0, 0], 0.5) == ""
    assert bench.load_refusal([1.4, 0, 0], 0.5, own_threads=1) == ""
    assert "1.6 > limit 0.5" in bench.load_refusal([1.6, 0, 0], 0.5, own_threads=1)
    assert "no load average" in bench.load_refusal([], 0.5)


def test_an_unpinned_process_restarts_itself_with_the_threads_pinned(monkeypatch):
    for name in bench.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    calls = []
    monkeypatch.setattr(subprocess, "call", lambda cmd, env: calls.append((cmd, env)) or 0)
    assert main(["bench", "--threads", "2"]) == 0
    (cmd, env), = calls
    assert cmd[-2:] == ["--threads", "2"] and all(env[name] == "2" for name in bench.THREAD_VARIABLES)
