"""Drawing on every core (figures/pool.py): the same bytes as drawing one by one, a failure raised where it
happened, and a Ctrl-C that stops a clean build while the workers draw, in one line with status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from figures.pool import PARALLEL_FROM, Drawers
from figures.registry import FIGURES
from figures.runner import draw_variants
from figures.spec import Figure

PROJECT = Path(__file__).resolve().parent.parent
INTERRUPTED = "已中断：在完成之前停止；每个网站都是最后一次完整的版本，绝不会只写了一半\n"
SKETCHES = [figure for figure in FIGURES if figure.provenance == "teaching"]
"""Figures that need no data: drawn without running the model."""


def broken(fig, data):
    return data["missing"]


@pytest.mark.slow  # draws figures in worker processes and here
def test_the_workers_draw_the_same_bytes_as_drawing_here():
    jobs = [(figure, {}, language) for figure in SKETCHES[:PARALLEL_FROM // 2 + 1] for language in ("zh-CN", "en")]
    assert len(jobs) >= PARALLEL_FROM
    with Drawers(workers=2) as drawers:
        drawn = list(drawers.draw(jobs))
    assert drawn == [draw_variants(*job) for job in jobs]


@pytest.mark.slow
def test_a_figure_that_fails_in_a_worker_raises_here_with_its_own_traceback():
    failing = Figure("broken", "", "", "teaching", (), broken, SKETCHES[0].size)
    jobs = [(figure, {}, "zh-CN") for figure in SKETCHES[:PARALLEL_FROM - 1]] + [(failing, {}, "zh-CN")]
    with Drawers(workers=2) as drawers, pytest.raises(KeyError) as raised:
        list(drawers.draw(jobs))
    assert raised.traceback[-1].name == "broken"


def _session(sid: int) -> list[int]:
    """The processes of session ``sid`` still alive (zombies are dead)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@pytest.mark.slow  # a clean build up to its drawing
@pytest.mark.parametrize("group", [True, False], ids=["terminal", "main-process"])
def test_ctrl_c_while_the_workers_draw_stops_check_at_once_in_one_line(group):
    """A terminal's Ctrl-C signals the whole group (workers included); ``kill -INT`` only the command."""
    started = subprocess.Popen([sys.executable, "build.py", "check"], cwd=PROJECT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(_session(started.pid)) < 4:  # the command, the fork server and two workers: drawing
            assert time.monotonic() < deadline and started.poll() is None, "the workers never started"
            time.sleep(0.05)
        time.sleep(0.5)
        if group:
            os.killpg(started.pid, signal.SIGINT)
        else:
            started.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _out, err = started.communicate(timeout=30)
        assert time.monotonic() - sent < 3
        assert (started.returncode, err) == (130, INTERRUPTED)
        time.sleep(1)
        assert _session(started.pid) == []  # no worker left drawing
    finally:
        if started.poll() is None or _session(started.pid):
            os.killpg(started.pid, signal.SIGKILL)
