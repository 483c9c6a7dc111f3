"""Screenshots of every page of a built site at phone and desktop width, light and dark.

    .venv/bin/python bench/screenshots.py [--site _site] [--out .cache/screenshots] [--max-height 4000]

Serves the site on a free loopback port, opens each page in Debian's Chromium at 390×844 and
1280×800 in both colour schemes, waits for fonts and images, and writes
``<out>/<page>-<width>-<scheme>.png`` (full page, cut at --max-height CSS px). For looking at,
not for asserting: the browser tests assert.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

WIDTHS = {390: 844, 1280: 800}


def shoot(site: Path, out: Path, max_height: int, pages: list[str]) -> list[Path]:
    from conftest import serve
    from playwright.sync_api import sync_playwright

    url, server = serve(site)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for width, height in WIDTHS.items():
                for scheme in ("light", "dark"):
                    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
                    page = context.new_page()
                    for name in pages:
                        page.goto(f"{url}/{name}", wait_until="load")
                        page.evaluate("document.fonts.ready")
                        full = page.evaluate("document.documentElement.scrollHeight")
                        path = out / f"{Path(name).stem}-{width}-{scheme}.png"
                        page.screenshot(path=str(path), full_page=True,
                                        clip={"x": 0, "y": 0, "width": width, "height": min(full, max_height)})
                        written.append(path)
                    context.close()
            browser.close()
    finally:
        server.shutdown()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_site")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "screenshots")
    parser.add_argument("--max-height", type=int, default=4000)
    parser.add_argument("pages", nargs="*", help="page names (default: every *.html of the site)")
    args = parser.parse_args()
    pages = args.pages or sorted(p.name for p in args.site.glob("*.html"))
    for path in shoot(args.site, args.out, args.max_height, pages):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
