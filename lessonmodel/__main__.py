"""Command line: `python -m lessonmodel --json | run <exp> | bench [--out PATH]`."""

from __future__ import annotations

import argparse
import json
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
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        doc = {args.experiment: compute_experiment(args.experiment)}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return 0
    if args.command == "bench":
        from lessonmodel import bench  # imported here: the study is slow and rarely run

        record = bench.bench_record(bench.FULL)
        out = args.out or bench.RECORD_PATH
        write_atomically(out, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {out}", file=sys.stderr)
        return 0
    if args.json:
        print(json.dumps(run_all(args.cache_dir), indent=2, ensure_ascii=False))
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
