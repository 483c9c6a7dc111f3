"""What the processes of one test run (pytest-xdist's workers) share: a lock, and folders made once."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def held(lock: Path) -> Iterator[None]:
    """``lock`` held by one process at a time: for files that every worker of a run (and every run in this
    checkout) shares, such as .cache/npm."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]) -> Path:
    """The folder ``name`` filled by ``make(folder)`` once per test run, even when pytest-xdist runs it in
    several workers: they share it (each worker's temporary folder lies inside the run's). Tests only read it.
    If ``make`` fails, the next worker to ask tries again, and fails with its own message."""
    base = tmp_path_factory.getbasetemp()
    # A worker's folder (popen-gw0) lies inside its run's. A pytest started by a test inherits the variable but
    # not the folder: its parent is the folder of every run, where an older run's results would be read again.
    if (worker := os.environ.get("PYTEST_XDIST_WORKER")) and base.name == f"popen-{worker}":
        base = base.parent
    folder = base / name
    with held(base / f"{name}.lock"):
        if not (base / f"{name}.made").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (base / f"{name}.made").touch()
    return folder
