"""The tests' own machinery: what the workers of one run share (tests/shared.py)."""

from __future__ import annotations

from types import SimpleNamespace

from shared import made_once


def test_workers_of_one_run_share_a_folder_and_a_pytest_a_test_starts_makes_its_own(tmp_path, monkeypatch):
    # The extension guide's test runs the fast tier in a project copy: that pytest inherits PYTEST_XDIST_WORKER
    # from the worker that started it, and its folder lies beside every other run's, not inside one run's.
    made: list[str] = []
    run, started = tmp_path / "pytest-7", tmp_path / "pytest-8"
    for base in (run / "popen-gw0", run / "popen-gw1", started):
        base.mkdir(parents=True)
        monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0" if base == started else base.name.removeprefix("popen-"))
        folder = made_once(SimpleNamespace(getbasetemp=lambda base=base: base), "results",
                           lambda folder, base=base: made.append(base.name))
        assert folder == (started if base == started else run) / "results"
    assert made == ["popen-gw0", "pytest-8"]  # the second worker found the first one's folder


def test_a_run_without_workers_keeps_its_shared_folders_in_its_own(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    base = tmp_path / "pytest-9"
    base.mkdir()
    assert made_once(SimpleNamespace(getbasetemp=lambda: base), "results", lambda folder: None) == base / "results"
