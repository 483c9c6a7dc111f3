"""Shared by every test: import paths, and one headless Chromium per session for browser tests."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from chromium import CHROMIUM, CHROMIUM_ARGS, IN_CI  # noqa: E402  (tests/chromium.py)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright; one per session (Playwright's sync API allows only one).

    Skips where Chromium is absent, except under CI, where that is a failure.
    """
    if not CHROMIUM.is_file():
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set LESSON_CHROMIUM)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
