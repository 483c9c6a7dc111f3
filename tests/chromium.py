"""Where the browser tests find Chromium, and how they start it (Debian's build, never a downloaded one)."""

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
IN_CI = os.environ.get("CI", "").lower() == "true"


def wait_until(page, expression: str, timeout_s: float = 20.0) -> None:
    """Poll ``expression`` from the test until it is true.

    Playwright's ``wait_for_function`` polls inside the page with a compiled string, which the
    site's Content-Security-Policy (no 'unsafe-eval') refuses whenever the first check is false,
    so it failed only when images loaded slowly. ``page.evaluate`` is not subject to the CSP."""
    import time

    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        time.sleep(0.05)
