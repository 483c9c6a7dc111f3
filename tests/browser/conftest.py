"""Browser tests: build a site, serve it on loopback, drive Debian's Chromium with Playwright.

Every test that takes ``site`` runs twice: on the fixture site (tests/fixtures/basic)
and on the real site built by ``build.build()`` (a course that does not build fails them).

``playwright install`` cannot download browsers here, so Playwright launches
/usr/bin/chromium (``LESSON_CHROMIUM`` overrides). Without that browser the tests
skip — except under CI (``CI=true``), where a missing browser is a failure.
axe-core is installed at test time into the git-ignored .cache/npm.
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "basic"
from chromium import CHROMIUM, CHROMIUM_ARGS, IN_CI  # noqa: E402,F401  (tests/chromium.py)
from shared import held, made_once  # noqa: E402  (tests/shared.py)

AXE_VERSION = "4.14.1"
AXE_JS = ROOT / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"

# A two-colour drawing with text, so screenshots show where figures sit.
_SVG = ("<svg xmlns='http://www.w3.org/2000/svg' width='640' height='480' viewBox='0 0 640 480'>"
        "<rect x='40' y='60' width='240' height='160' fill='none' stroke='#1f4e99' stroke-width='6'/>"
        "<path d='M300 140 H520' stroke='#b35900' stroke-width='6'/><circle cx='560' cy='140' r='30' fill='#b35900'/>"
        "<text x='40' y='330' font-size='40' font-family='sans-serif' fill='#222'>{label}</text></svg>")


@dataclass(frozen=True)
class SiteUnderTest:
    """One built pair of sites (public and teacher), served over HTTP."""

    kind: str
    """``fixture`` or ``real``."""
    public_dir: Path
    teacher_dir: Path
    public_url: str
    teacher_url: str
    lesson: str
    """Id of a lesson page with a stepper, used by the stepper tests."""
    states: tuple[str, ...]
    """Section ids of that lesson's states, in order."""
    search_probe: tuple[str, str]
    """A word from the middle of a sentence and the page (``x.html``) it must find."""
    pages: tuple[str, ...] = field(default=())
    """Every HTML page of the public site (relative names)."""
    linked_states: tuple[str, ...] = field(default=())
    """Every state of every page, as a link to it from elsewhere (``page.html#state``)."""
    content: Path = FIXTURE / "content"
    """The content folder the sites were built from: what a test expects is read there, not from the output."""

    def url(self, teacher: bool, path: str = "") -> str:
        return f"{self.teacher_url if teacher else self.public_url}/{path}"


# ------------------------------------------------------------------ building --
def build_fixture_sites(out: Path, fixture: Path = FIXTURE) -> tuple[Path, Path]:
    """The fixture content with fake evidence (as in the site tests), public site indexed for search."""
    from site_builder.engine.pipeline import prepare_site, render_site
    from site_builder.load.content import Evidence, FigureInfo, Value
    from site_builder.render.search_index import index_site
    from site_builder.write.writer import write_site

    figure_dir = out / "figures"
    figure_dir.mkdir(parents=True)
    for name, label in (("sketch", "示意：旧状态 → 新词"), ("plot", "实测：差值曲线")):
        (figure_dir / f"{name}.svg").write_text(_SVG.format(label=label), encoding="utf-8")
        # A dark variant, as figures/dark.py draws for every figure: dark mode picks it.
        (figure_dir / f"{name}.dark.svg").write_text(_SVG.format(label=label).replace(
            "<rect", "<rect width='640' height='480' fill='#1b1e22'/><rect", 1), encoding="utf-8")
    evidence = Evidence(
        values={"exp.diff": Value("exp.diff", 1.1e-15, "", "measured", "exp", command="python -m lessonmodel run exp"),
                "exp.bytes": Value("exp.bytes", 819200, "B", "measured", "exp"),
                "old_check.max_abs_diff": Value("old_check.max_abs_diff", 2.22e-15, "", "record", "old_check",
                                                date="2025-01-01")},
        figures={"sketch": FigureInfo("sketch", "sketch.svg", "草图", "左边一个方框，右边一条箭头指向新词。",
                                      "teaching", dark_file="sketch.dark.svg"),
                 "plot": FigureInfo("plot", "plot.svg", "曲线", "差值随位置变化的曲线，全部低于十的负十二次方。",
                                    "measured", dark_file="plot.dark.svg")},
        figure_dir=str(figure_dir))
    prepared = prepare_site(fixture, evidence)
    public, teacher = out / "_site", out / "_site-teacher"
    write_site(render_site(prepared, teacher=False), public, finish=lambda staging: index_site(prepared, staging))
    write_site(render_site(prepared, teacher=True), teacher)
    return public, teacher


def build_real_sites(out: Path) -> tuple[Path, Path]:
    """What ``python build.py`` does (measure, draw, prepare, write both sites), but writing into
    ``out``: the repository's _site/ may be rebuilt by someone else (``build.py serve``) meanwhile."""
    import build

    public, teacher = out / "_site", out / "_site-teacher"
    build.build(quiet=True, public=public, teacher=teacher)
    return public, teacher


# ------------------------------------------------------------------- serving --
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


def serve(directory: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def serve_fixture_under(prefix: str, handler: type[http.server.SimpleHTTPRequestHandler], out: Path,
                        ) -> tuple[str, Path, http.server.ThreadingHTTPServer]:
    """The fixture's public site built with its ``base_url`` at this server's ``prefix`` (a site under a
    sub-path, as on GitHub Pages) and served by ``handler``: (the site's URL, its folder, the server)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    root = f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    content = out / "src"
    shutil.copytree(FIXTURE, content)
    config = content / "content" / "site.yml"
    config.write_text(re.sub(r"base_url: .*", f"base_url: {root}", config.read_text("utf-8")), encoding="utf-8")
    public, _ = build_fixture_sites(out / "out", content)
    server.RequestHandlerClass = functools.partial(handler, directory=str(public))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return root, public, server


def _describe(kind: str, public: Path, teacher: Path) -> dict:
    pages = tuple(sorted(p.name for p in public.glob("*.html")))
    lessons, linked = [], []
    for name in pages:
        html = (public / name).read_text(encoding="utf-8")
        states = re.findall(r'<section class="state" id="([^"]+)"', html)
        if states:
            lessons.append((len(states), name[:-5], tuple(states)))
            linked += [f"{name}#{state}" for state in states]
    assert lessons, f"{kind} site: no page with a stepper"
    lessons.sort(key=lambda t: (t[0] < 3, pages.index(t[1] + ".html")))  # prefer a lesson with 3+ states
    _, lesson, states = lessons[0]
    return {"lesson": lesson, "states": states, "pages": pages, "linked_states": tuple(linked),
            "search_probe": _probe(public, [f"{page_id}.html" for _, page_id, _ in lessons], pages)}


def _probe(public: Path, lessons: list[str], pages: tuple[str, ...]) -> tuple[str, str]:
    """Two Chinese characters from inside a sentence of a lesson (its longest plain paragraphs first, from the
    middle out) that no other page holds, and that lesson's page: search must find that page, however few
    results it lists."""
    texts = {name: (public / name).read_text(encoding="utf-8") for name in pages}
    runs = sorted(((run, name) for name in lessons for text in re.findall(r"<p>([^<]+)</p>", texts[name])
                   for run in re.findall(r"[\u4e00-\u9fff]{6,}", text)), key=lambda found: -len(found[0]))
    for run, name in runs:
        middle = len(run) // 2
        for start in sorted(range(len(run) - 1), key=lambda at: abs(at - middle)):
            word = run[start:start + 2]
            if not any(word in text for other, text in texts.items()  # a lesson's source view is not searched
                       if other != name and other != name.replace(".html", ".source.html")):
                return word, name
    raise AssertionError("no lesson has two Chinese characters in a row that no other page holds")


@pytest.fixture(scope="session", params=["fixture", "real"])
def site(request, tmp_path_factory) -> SiteUnderTest:
    """Both sites built once per run, whichever worker asks first (the real ones take a build of the course)."""
    if request.param == "fixture":
        built = made_once(tmp_path_factory, "fixture-sites", build_fixture_sites)
        content = FIXTURE / "content"
    else:
        from site_builder.vocabulary.problems import ContentError

        try:
            built = made_once(tmp_path_factory, "real-sites", build_real_sites)
        except ContentError as error:  # the course's own messages, not a traceback through the fixture
            pytest.fail(f"the real course does not build: {len(error.problems)} problem(s): "
                        + "; ".join(str(p) for p in error.problems[:3]))
        content = ROOT / "content"
    public, teacher = built / "_site", built / "_site-teacher"
    public_url, public_server = serve(public)
    teacher_url, teacher_server = serve(teacher)
    request.addfinalizer(public_server.shutdown)
    request.addfinalizer(teacher_server.shutdown)
    return SiteUnderTest(kind=request.param, public_dir=public, teacher_dir=teacher, public_url=public_url,
                         teacher_url=teacher_url, content=content,
                         **_describe(request.param, public, teacher))


# ------------------------------------------------------------------- browser --
class Tab:
    """A page plus what it saw: console errors, uncaught exceptions and every URL it requested."""

    def __init__(self, page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text} ({m.location.get('url')})")
                if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))

    def visible_states(self) -> list[str]:
        return self.page.eval_on_selector_all(
            "section.state", "els => els.filter(e => e.querySelector('h3').checkVisibility()).map(e => e.id)")


@pytest.fixture
def open_tab(browser):
    """``open_tab(url, js=True, **context_options)`` → a ``Tab`` in a fresh context (fresh storage)."""
    contexts = []

    def _open(url: str | None = None, js: bool = True, **options) -> Tab:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(java_script_enabled=js, **options)
        contexts.append(context)
        tab = Tab(context.new_page())
        if url:
            tab.page.goto(url)
        return tab

    yield _open
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's source, installed on first use into .cache/npm (git-ignored)."""
    npm_installed(f"axe-core@{AXE_VERSION}", AXE_JS)
    return AXE_JS.read_text(encoding="utf-8")


def npm_installed(package: str, file: Path) -> Path:
    """``file`` of an npm ``package`` (name@version), installed into .cache/npm on first use."""
    with held(ROOT / ".cache" / "npm.lock"):  # one install at a time: the workers share .cache/npm
        if not file.is_file():
            npm = shutil.which("npm")
            if npm is None:
                (pytest.fail if IN_CI else pytest.skip)(f"npm not found: cannot install {package}")
            subprocess.run([npm, "install", "--prefix", str(ROOT / ".cache" / "npm"), "--no-audit", "--no-fund",
                            "--silent", package], check=True, timeout=300)
    return file


def search_hrefs(page, term: str) -> list[str]:
    """The result links the Chinese search box lists for ``term``, in order, once its status names the query."""
    ask(page, term)
    return answer(page, term)


def ask(page, term: str) -> None:
    """Type ``term`` into the Chinese search box; ``answer`` reads what it finds."""
    page.get_by_role("searchbox", name="搜索课程").fill(term)


def answer(page, term: str) -> list[str]:
    """The result links listed for ``term`` (asked last in ``page``), in order, once its status names the query."""
    from playwright.sync_api import expect

    expect(page.locator("[data-search-status]")).to_contain_text(f"“{term}”：", timeout=15000)
    return page.eval_on_selector_all("[data-search-list] a", "links => links.map(a => a.getAttribute('href'))")
