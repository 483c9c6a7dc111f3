"""Shared by every test: import paths, templates compiled once, and one headless Chromium per
session for browser tests."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from chromium import CHROMIUM, CHROMIUM_ARGS, IN_CI  # noqa: E402  (tests/chromium.py)


@pytest.fixture(scope="session", autouse=True)
def compiled_templates(tmp_path_factory):
    """Jinja's compiled templates kept for the session, as build.py keeps them in .cache/jinja.

    Every ``render_site`` makes a new Jinja environment; without a bytecode cache it parses and
    compiles every template again, which took most of the time of the tests that render hundreds
    of small sites (hostile input, XSS corpus). Jinja checks each template's source against the
    kept code, so the output is the same; a fresh folder per session keeps runs independent.
    """
    from site_builder import render

    before, render.BYTECODE_DIR = render.BYTECODE_DIR, tmp_path_factory.mktemp("jinja")
    yield
    render.BYTECODE_DIR = before


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
