"""Command line: `python -m lessonmodel --json | run <exp> | bench [--out PATH] [--threads N] [--force]`."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from lessonmodel.runner import EXPERIMENTS, compute_experiment, run_all, write_atomically


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lessonmodel", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the results document")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="reuse/store results here (keyed by the source hash)")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="print one experiment")
    run.add_argument("experiment", choices=list(EXPERIMENTS))
    bench = sub.add_parser("bench", help="time cached decode vs recompute; write the record")
    bench.add_argument("--out", type=Path, default=None,
                       help="record path (default content/records/decode_timing.json)")
    bench.add_argument("--threads", type=int, default=1, help="BLAS threads, pinned (default 1)")
    bench.add_argument("--max-load", type=float, default=None,
                       help="refuse to time when the 1-minute load average exceeds this (default 0.5)")
    bench.add_argument("--force", action="store_true",
                       help="write the record even above the load limit (the record then says so)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "bench":
        return _bench(args, sys.argv[1:] if argv is None else argv)
    if args.command != "run" and not args.json:
        parser.print_help()
        return 2
    doc = {args.experiment: compute_experiment(args.experiment)} if args.command == "run" else run_all(args.cache_dir)
    print(json.dumps(doc, indent=2, ensure_ascii=False))
    return 0


def _bench(args: argparse.Namespace, argv: list[str]) -> int:
    from lessonmodel import bench  # imported here: the study is slow and rarely run

    if not bench.threads_pinned(os.environ, args.threads):
        # A BLAS library reads its thread count once, when NumPy is imported (already done here): run the
        # study again in a process started with the count pinned.
        env = bench.pinned_environment(os.environ, args.threads)
        return subprocess.call([sys.executable, "-m", "lessonmodel", *argv], env=env)
    limit = bench.MAX_LOAD if args.max_load is None else args.max_load
    busy = bench.load_refusal(bench.load_average(), limit)
    if busy and not args.force:
        print(f"bench: not timing, the machine is busy: {busy}; wait for a quiet machine, "
              "or pass --force (the record will say it was forced)", file=sys.stderr)
        return 1
    record = bench.bench_record(bench.FULL, args.threads, limit, forced=args.force)
    if record["data"]["busy"] and not args.force:
        print("bench: record not written, the machine became busy while timing: "
              + "; ".join(record["data"]["busy"]), file=sys.stderr)
        return 1
    out = args.out or bench.RECORD_PATH
    write_atomically(out, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    if not record["data"]["spread_bounded"]:
        print("bench: the spread of the repeats was not bounded; the record says so", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
