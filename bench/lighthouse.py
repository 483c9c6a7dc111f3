"""Lighthouse 12 on the lesson pages of a built site: performance, accessibility, best practices, SEO.

    .venv/bin/python bench/lighthouse.py [--site _site] [--runs 1] [--form-factor mobile|desktop]
                                         [--npm-dir DIR] [pages…]

Serves the site on a free loopback port and runs npm ``lighthouse@12`` (installed on first use into
``--npm-dir``, by default the git-ignored .cache/npm) with Debian's Chromium, headless, one page at a time. Mobile uses
Lighthouse's default simulated throttling (a mid-range phone on slow 4G). Goals (issue 15):
performance ≥ 95 on mobile, accessibility, best practices and SEO 100. A benchmark, not a test:
scores move with machine load (on a busy 2-core VM Lighthouse warns its CPU is slower than it
expects), so the report prints each run and the median.

SEO note: the pages are served from 127.0.0.1 here, so "is-crawlable" and canonical checks see a
local site; nothing is changed for the measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from chromium import CHROMIUM  # noqa: E402

LIGHTHOUSE_VERSION = "12.8.2"
NPM_DIR = ROOT / ".cache" / "npm"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def ensure_lighthouse(npm_dir: Path) -> Path:
    cli = npm_dir / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not cli.is_file():
        npm = shutil.which("npm") or sys.exit("npm not found: install nodejs and npm")
        subprocess.run([npm, "install", "--prefix", str(npm_dir), "--no-audit", "--no-fund", "--silent",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)
    return cli


def run_once(cli: Path, url: str, form_factor: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        args = ["node", str(cli), url, "--quiet", "--output=json", f"--output-path={report}",
                f"--only-categories={','.join(CATEGORIES)}",
                "--chrome-flags=--headless=new --no-sandbox --disable-gpu"]
        if form_factor == "desktop":
            args.append("--preset=desktop")
        subprocess.run(args, check=True, env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        data = json.loads(report.read_text(encoding="utf-8"))
    scores = {c: round(100 * (data["categories"][c]["score"] or 0)) for c in CATEGORIES}
    audits = data["audits"]
    scores["CLS"] = audits["cumulative-layout-shift"]["numericValue"]
    scores["LCP ms"] = round(audits["largest-contentful-paint"]["numericValue"])
    scores["TBT ms"] = round(audits["total-blocking-time"]["numericValue"])
    scores["failed"] = sorted(k for k, a in audits.items()
                              if a.get("score") is not None and a["score"] < 0.9
                              and a.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings"))
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_site")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--form-factor", choices=("mobile", "desktop"), default="mobile")
    parser.add_argument("--npm-dir", type=Path, default=NPM_DIR, help="where lighthouse is (or is installed)")
    parser.add_argument("pages", nargs="*", help="default: every lesson page (pages with a stepper)")
    args = parser.parse_args()
    from conftest import serve

    pages = args.pages or sorted(p.name for p in args.site.glob("*.html")
                                 if "data-stepper" in p.read_text(encoding="utf-8") and ".source." not in p.name)
    cli = ensure_lighthouse(args.npm_dir)
    url, server = serve(args.site)
    try:
        print(f"Lighthouse {LIGHTHOUSE_VERSION}, {args.form_factor}, {args.runs} run(s) per page, {CHROMIUM}")
        print(f"{'page':34} {'perf':>5} {'a11y':>5} {'bp':>5} {'seo':>5} {'CLS':>7} {'LCP ms':>7} {'TBT ms':>7}")
        for name in pages:
            runs = [run_once(cli, f"{url}/{name}", args.form_factor) for _ in range(args.runs)]
            for scores in runs:
                print(f"{name:34} {scores['performance']:>5} {scores['accessibility']:>5} "
                      f"{scores['best-practices']:>5} {scores['seo']:>5} {scores['CLS']:>7.3f} "
                      f"{scores['LCP ms']:>7} {scores['TBT ms']:>7}  {' '.join(scores['failed'])}")
            if args.runs > 1:
                print(f"{'  median':34} {statistics.median(r['performance'] for r in runs):>5}")
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
