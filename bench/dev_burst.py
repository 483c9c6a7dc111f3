"""The dev server under a browser-sized burst: 100 concurrent GETs, listen backlog 5 (the default) vs 1024.

    .venv/bin/python bench/dev_burst.py --clients 100 --runs 5

Serves the test fixture site with a real DevServer, alternates the two backlogs in the same run and
prints the median time until every request was answered or gave up, and how many gave up.
A script, not a test: timings are noisy.
"""

from __future__ import annotations

import argparse
import http.client
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

# Run as a script from anywhere: the project's own imports below need ROOT on sys.path first.
# ruff: noqa: E402
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from sitekit import fake_evidence

from site_builder.engine.builder import Engine, Output
from site_builder.serve import devhttp
from site_builder.serve import server as serve

TIMEOUT_S = 10


def burst(port: int, clients: int, failures: list[str]) -> float:
    go = threading.Barrier(clients + 1)

    def fetch() -> None:
        go.wait()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
            connection.request("GET", "/alpha.html")
            connection.getresponse().read()
            connection.close()
        except OSError as error:  # timed out or refused: counted, not raised
            failures.append(type(error).__name__)

    threads = [threading.Thread(target=fetch) for _ in range(clients)]
    for thread in threads:
        thread.start()
    go.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copytree(ROOT / "tests" / "fixtures" / "basic" / "content", root / "content")
        evidence = fake_evidence(root / "figs")
        times: dict[int, list[float]] = {5: [], 1024: []}
        failed: dict[int, list[str]] = {5: [], 1024: []}
        for _ in range(args.runs):
            for backlog in times:
                devhttp._HTTPServer.request_queue_size = backlog
                server = serve.DevServer(Engine(root, (Output(False, root / "out"),), serving=True),
                                         serve.EvidenceSource(lambda: evidence), watch=[], port=0, log=lambda t: None)
                server.start()
                times[backlog].append(burst(server.port, args.clients, failed[backlog]))
                server.stop()
        for backlog, seconds in times.items():
            print(f"backlog {backlog:4d}: {args.clients} concurrent GETs done in {statistics.median(seconds):.3f} s"
                  f" (median of {args.runs}); {len(failed[backlog])} of {args.clients * args.runs} requests failed "
                  f"(no answer within {TIMEOUT_S} s)")


if __name__ == "__main__":
    main()
