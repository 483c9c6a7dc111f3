"""Shared by every test: import paths, what build.py keeps between renders, and one headless
Chromium per session for browser tests."""

import json
import signal
import sys
from pathlib import Path
from types import MappingProxyType

import pytest

# A run started in the background by a shell without job control (`make test &` in a script) inherits SIGINT
# ignored, and an ignored signal stays ignored in every process the tests start: the tests that stop a build or a
# server with Ctrl-C would wait in vain. Python's own handler here gives every child (xdist's workers too) the default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from chromium import CHROMIUM, CHROMIUM_ARGS, IN_CI  # noqa: E402  (tests/chromium.py)

MATH_FONT_SUBSETS = ROOT / ".cache" / "tests" / "math-font"


FIRST = ("tests/test_cli.py",)
"""Modules started before all others: test_cli's extension-guide test follows the guide in a project copy (three
builds) and then runs the whole fast tier there, one test of minutes. Started last, it kept the run going for minutes
after the other worker had finished; started first, the other worker takes everything else meanwhile."""


@pytest.hookimpl(trylast=True)  # after `-m` has left out what this run does not take
def pytest_collection_modifyitems(items):
    """Modules by their expected time, the longest first (``FIRST``, then by ``cost``), each module's tests
    together and in their order: the Makefile's ``--dist loadscope --no-loadscope-reorder`` hands out whole modules
    in this order, and a worker that took a long module last would keep the whole run waiting for it; small
    modules at the end even the workers out. (pytest-xdist's own order, by number of tests alone, started the
    extension guide's module among the last.)"""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def cost(tests: list[pytest.Item]) -> tuple[bool, float]:
        """A slow test takes ten seconds or more (it builds in another process, or the real course), a browser
        test a few (a page or two loaded in Chromium), any other test well under one."""
        seconds = sum(10 if test.get_closest_marker("slow") else 3 if "/browser/" in test.nodeid else 0.2
                      for test in tests)
        return tests[0].nodeid.split("::", 1)[0] not in FIRST, -seconds

    items[:] = [item for tests in sorted(modules.values(), key=cost) for item in tests]


@pytest.fixture(scope="session", autouse=True)
def kept_like_build_py():
    """Math-font subsets kept between renders, as build.py keeps them in .cache.

    Subsetting the math font takes half a second or more per new set of formula characters. The
    subsets are kept between sessions, keyed by the characters as build.py keys its own (in
    ``keep_between_runs``), so a second run of the fast tier subsets nothing. The subsetter itself
    is tested uncached (test_mathrender), and builds in new processes (tests of the command line)
    start without this folder. (Compiled templates are kept in memory by every process: see
    site_builder/render/html.py.)
    """
    from site_builder.render import mathfont

    before = mathfont.CACHE_DIR
    mathfont.CACHE_DIR = MATH_FONT_SUBSETS
    yield
    mathfont.CACHE_DIR = before


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


@pytest.fixture(scope="session")
def model_results(tmp_path_factory):
    """``lessonmodel.run_all(None)``: every experiment computed without a cache, once per test run (a few
    seconds), the workers of a run sharing it as JSON: the form a build reads it in from its cache. Tests only
    read it; one that changes a value changes a deep copy."""
    from shared import made_once

    import lessonmodel

    def compute(folder: Path) -> None:
        (folder / "results.json").write_text(json.dumps(lessonmodel.run_all(None)), encoding="utf-8")

    return json.loads((made_once(tmp_path_factory, "model-results", compute) / "results.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def evidence(tmp_path_factory):
    """sitekit's fake evidence (five values, four figures), once per module."""
    from sitekit import fake_evidence

    return fake_evidence(tmp_path_factory.mktemp("figures"))


@pytest.fixture(scope="session")
def real_course():
    """The real course measured, drawn and prepared as ``python build.py`` does (model and figures from .cache
    when unchanged), once per session: a few seconds each time, and half a dozen modules read it. Tests only
    read it."""
    import build
    from site_builder.engine.pipeline import prepare_site

    evidence, _ = build.measure_and_draw()
    return prepare_site(build.ROOT, evidence)


@pytest.fixture(scope="session")
def real_public(real_course):
    """Every file of the real course's public site (``render_site``), rendered once per session; read only."""
    from site_builder.engine.pipeline import render_site

    return MappingProxyType(render_site(real_course, teacher=False))


@pytest.fixture(scope="session")
def real_teacher(real_course):
    """Every file of the real course's teacher site, rendered once per session; read only."""
    from site_builder.engine.pipeline import render_site

    return MappingProxyType(render_site(real_course, teacher=True))
