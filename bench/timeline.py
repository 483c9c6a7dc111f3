"""How many cores a command keeps busy, moment by moment: the CPU time of its whole process tree,
sampled every ``--every`` seconds, printed as one line per slice of ``--slice`` seconds.

    .venv/bin/python bench/timeline.py [--cwd PROJECT] [--every 0.05] [--slice 0.5] -- python build.py

A benchmark script, not a test. It shows where a build leaves a core idle (issue #30: both cores busy
≥ 90 % of a clean build): a slice's number is the CPU seconds the tree used in it divided by its
length (2.0 = both cores of this machine). A process's time is counted while it runs and, once it
has exited, in its parent's reaped-children time, so nothing is counted twice or lost.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import time

import psutil


def tree_cpu(root: psutil.Process) -> float:
    """CPU seconds (user + system) of ``root``, its live descendants and every child they reaped."""
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:  # exited between listing and reading: its parent counts it once reaped
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def sample(command: list[str], cwd: str, every: float) -> tuple[list[tuple[float, float]], float, float]:
    """(seconds since start, CPU seconds so far) samples, the wall time and the final CPU time."""
    started = time.perf_counter()
    before = os.times()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL)
    root = psutil.Process(child.pid)
    samples = [(0.0, 0.0)]
    while child.poll() is None:
        with contextlib.suppress(psutil.Error):  # the build exited meanwhile
            samples.append((time.perf_counter() - started, tree_cpu(root)))
        time.sleep(every)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    return samples + [(wall, cpu)], wall, cpu


def slices(samples: list[tuple[float, float]], width: float) -> list[tuple[float, float]]:
    """(start of slice, cores busy in it), the CPU time between samples spread over their interval."""
    end = samples[-1][0]
    used = [0.0] * (int(end / width) + 1)
    for (t0, c0), (t1, c1) in zip(samples, samples[1:], strict=False):
        if t1 <= t0:
            continue
        rate = max(0.0, c1 - c0) / (t1 - t0)
        k = int(t0 / width)
        while k * width < t1:
            overlap = min(t1, (k + 1) * width) - max(t0, k * width)
            used[min(k, len(used) - 1)] += rate * max(0.0, overlap)
            k += 1
    return [(k * width, used[k] / min(width, end - k * width)) for k in range(len(used)) if end - k * width > 1e-6]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cwd", default=".")
    parser.add_argument("--every", type=float, default=0.05)
    parser.add_argument("--slice", type=float, default=0.5)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    samples, wall, cpu = sample(args.command, args.cwd, args.every)
    cores = os.cpu_count() or 1
    for start, busy in slices(samples, args.slice):
        print(f"{start:6.1f} s  {busy:4.2f}  {'#' * round(busy / cores * 40)}")
    full = sum(1 for _start, busy in slices(samples, args.slice) if busy >= 0.9 * cores)
    print(f"wall {wall:.2f} s, CPU {cpu:.2f} s, {cpu / wall:.2f} of {cores} cores busy on average; "
          f"{full} of {len(slices(samples, args.slice))} slices at ≥ 90 % of every core")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
