"""The documentation's commands and walk-throughs, run as a reader would run them.

Every line of a ```sh block in README.md and docs/*.md is a command. Each is run in a copy of the
project (``python`` is this interpreter, i.e. ``.venv/bin/python``); a server is started on a free port,
asked for its front page and stopped; the few that cannot be run here, or that another test already runs,
are listed in ``NOT_RUN`` with the reason and only checked to exist. The README's five-minute walk-through
and the teacher tutorial's mistake are replayed and must print the messages the pages show.
"""

from __future__ import annotations

import http.client
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sitekit import PROJECT, copy_caches

PAGES = (PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md")))
GUIDE = PROJECT / "docs" / "programmer-tutorial.md"
GUIDE_SECTION = "## Worked example"
"""Its commands run in tests/test_cli.py, with the code blocks between them put in place."""

NOT_RUN = {
    "make serve": "installs into .venv/, then serves until Ctrl-C: tests/test_serve.py runs it with the "
                  "install steps skipped, and its server is the `python build.py serve` run here",
    "make test": "the whole suite and `build.py check` (minutes): what CI runs",
    "make test-fast": "the fast tier, which runs this file",
    "python -m lessonmodel bench": "the timing study takes minutes and rewrites content/records/decode_timing.json",
    "python build.py check": "run twice already, each a clean build with every check: by `make test` after the "
                             "tests, and as the extension guide's last step in tests/test_cli.py",
    "python build.py figures --accept": "a step of the extension guide, run in tests/test_cli.py (where it accepts "
                                        "the guide's new figure)",
    "python build.py check --report figure-report": "a third clean build with every check, for what two tests already "
                                                    "show: `check` passes here (`make test`, after the tests), and "
                                                    "`check --report DIR` writes its page, end to end in "
                                                    "tests/test_figures.py (a copy with changed figures: exit 1, each "
                                                    "named) and, for this course's figures all passing, in "
                                                    "test_committed_baselines_and_manifest_match_every_real_figure",
}
NOT_COPIED = (".git", ".venv", "_site", "_site-teacher", ".cache", "__pycache__", ".*_cache")
SYSTEM_TOOLS = {"fc-list": "fontconfig's, absent on macOS"}
"""Programs a command may need that some test machines lack: the command is skipped there."""


def sh_commands(page: Path) -> list[str]:
    """The commands of the page's ```sh blocks, in order, without their comments."""
    text = page.read_text(encoding="utf-8")
    if page == GUIDE:
        start = text.index(GUIDE_SECTION)
        end = text.find("\n## ", start + 1)
        text = text[:start] + (text[end:] if end >= 0 else "")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    lines = (re.sub(r"\s+#.*$", "", line).strip() for block in blocks for line in block.splitlines())
    return [line for line in lines if line]


SHOWN = list(dict.fromkeys(command for page in PAGES for command in sh_commands(page)))
"""Every command the documentation shows, each once (none depends on another's effect)."""


def _kind(command: str) -> str:
    if command in NOT_RUN:
        return "not run"
    if command.startswith("python bench/"):
        return "benchmark"
    if command.startswith("python build.py serve"):
        return "server"
    return "run"


def _argv(command: str) -> str:
    """The command for a shell, with this interpreter for ``python``."""
    return re.sub(r"^python(?= )", shlex.quote(sys.executable), command)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return project_tree(tmp_path_factory.mktemp("docs") / "project")


def project_tree(target: Path) -> Path:
    """A copy of the project without what builds and installs make, but with the content-hashed model and
    figure caches, so a build does not rerun the model or redraw every figure."""
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns(*NOT_COPIED))
    copy_caches(target)
    return target


@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> dict[str, str]:
    """A home folder of its own (a command such as ``rm -f ~/.cache/…`` must not touch the real one),
    with matplotlib still reading its real font cache."""
    cache = subprocess.run([sys.executable, "-c", "import matplotlib; print(matplotlib.get_cachedir())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return {**os.environ, "HOME": str(tmp_path_factory.mktemp("home")), "MPLCONFIGDIR": cache}


def test_the_docs_show_commands_and_every_sh_block_is_read():
    assert {"make serve", "make test", "make test-fast"} <= set(sh_commands(PROJECT / "README.md"))
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"^[ \t]+```sh", text, re.MULTILINE), f"{page.name}: an indented sh block is not run"
    assert GUIDE.name in (PROJECT / "tests" / "test_cli.py").read_text(encoding="utf-8")
    assert set(NOT_RUN) <= set(SHOWN), "NOT_RUN names a command the docs no longer show"


@pytest.mark.parametrize("command", [c for c in SHOWN if _kind(c) == "not run"])
def test_a_command_not_run_here_exists(command):
    words = command.split()
    if words[0] == "make":
        makefile = (PROJECT / "Makefile").read_text(encoding="utf-8")
        assert re.search(rf"^{re.escape(words[1])}:", makefile, re.MULTILINE), f"no Makefile target {words[1]}"
    else:
        shown = subprocess.run(_argv(command) + " --help", shell=True, cwd=PROJECT, capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr


@pytest.mark.parametrize("command", [c for c in SHOWN if _kind(c) == "benchmark"])
def test_a_benchmark_takes_the_options_shown(command):
    """Benchmarks take minutes on a quiet machine: each must exist and accept the options the docs give."""
    shown = subprocess.run(_argv(command.split()[0] + " " + command.split()[1]) + " --help", shell=True,
                           cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    for option in re.findall(r"(?<!\S)(--[\w-]+)", command):
        assert option in shown.stdout, f"{command}: {option} is not an option"


@pytest.mark.slow  # each runs in a project copy; `check` rebuilds from scratch
@pytest.mark.parametrize("command", [c for c in SHOWN if _kind(c) == "run"])
def test_a_documented_command_succeeds(command, project, environment):
    program = command.split()[0]
    if program in SYSTEM_TOOLS and shutil.which(program) is None:
        pytest.skip(f"{program} is not installed here ({SYSTEM_TOOLS[program]})")
    done = subprocess.run(_argv(command), shell=True, cwd=project, env=environment, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.mark.slow  # a server in a project copy: a build in another process
@pytest.mark.parametrize("command", [c for c in SHOWN if _kind(c) == "server"])
def test_a_documented_server_serves_and_stops(command, project, environment):
    on_free_port = re.sub(r"--port \d+", "--port 0", command)
    on_free_port += "" if "--port" in on_free_port else " --port 0"
    server = subprocess.Popen(shlex.split(_argv(on_free_port)), cwd=project, env=environment,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", _said_line(server, "http://127.0.0.1:")).group(1))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/index.html")
        assert connection.getresponse().status == 200
        connection.close()
        server.terminate()  # the server stops on SIGTERM as on Ctrl-C
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()


def _said_line(process: subprocess.Popen, needle: str, seconds: float = 180) -> str:
    """The first line of the process's stderr holding ``needle``; a thread reads, so silence cannot block."""
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(iter(process.stderr.readline, "")), daemon=True).start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (found := next((line for line in list(said) if needle in line), None)) is not None:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no line with {needle!r}:\n{''.join(said)}")


def fenced(page: Path, language: str) -> list[str]:
    """The text of the page's ```language blocks, in order."""
    text = page.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "build.py"], cwd=root, capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # two builds in a project copy
def test_the_readme_walk_through_cites_a_value_then_reads_the_documented_message(tmp_path):
    root = project_tree(tmp_path / "project")
    paragraph, sentence, english = (block.strip("\n") for block in fenced(PROJECT / "README.md", "markdown")[:3])
    message = next(block.strip() for block in fenced(PROJECT / "README.md", "text") if ".md:" in block)
    line = int(message.split(":")[1])
    page = root / message.split(":")[0]
    lines = page.read_text(encoding="utf-8").split("\n")
    assert lines[line - 1] == paragraph  # step 2: the line the README names holds the paragraph it shows
    lines[line - 1] += sentence  # step 3: cite a value
    page.write_text("\n".join(lines), encoding="utf-8")
    unmatched = build(root)  # the English edition does not cite it yet: the build names both files' lines
    assert unmatched.returncode == 1 and "content/en/pages/r55.md:" in unmatched.stderr, unmatched.stderr
    assert f"{message.split(':')[0]}:{line}" in unmatched.stderr, unmatched.stderr
    translation = root / "content" / "en" / "pages" / "r55.md"
    english_lines = translation.read_text(encoding="utf-8").split("\n")
    english_lines[line - 1] += english  # the same value, at the end of the same paragraph in English
    translation.write_text("\n".join(english_lines), encoding="utf-8")
    assert build(root).returncode == 0
    assert 'href="numbers.html#equivalence.max_abs_diff"' in (root / "_site" / "r55.html").read_text(encoding="utf-8")
    page.write_text("\n".join(lines).replace("max_abs_diff`", "max_abs_dif`"), encoding="utf-8")  # step 4
    mistaken = build(root)
    assert mistaken.returncode == 1
    assert message in mistaken.stderr.splitlines()


@pytest.mark.slow  # a lesson made and built twice in a project copy
def test_the_teacher_tutorial_mistake_reads_as_shown_and_its_fix_builds(tmp_path):
    root = project_tree(tmp_path / "project")
    tutorial = PROJECT / "docs" / "teacher-tutorial.md"
    assert subprocess.run([sys.executable, "build.py", "new", "lesson", "my-lesson"], cwd=root).returncode == 0
    page = root / "content" / "pages" / "my-lesson.md"
    state, figure, cited, pointing = (block.strip() for block in fenced(tutorial, "markdown")[:4])
    title = state.split("\n")[1] + "\n"  # the skeleton's first state, as the tutorial shows it
    source = page.read_text(encoding="utf-8")
    assert state.split("\n")[:3] == source[source.index(":::{state} b0"):].split("\n")[:3]
    source = source.replace(title, title + figure + "\n", 1)  # step 3: the figure
    page.write_text(source, encoding="utf-8")
    message = next(block.strip() for block in fenced(tutorial, "text") if "my-lesson.md:" in block)
    mistaken = build(root)  # step 4: the message the tutorial shows, at the line it names
    assert mistaken.returncode == 1 and message in mistaken.stderr.splitlines(), mistaken.stderr
    line = int(message.split(":")[1])
    assert source.split("\n")[line - 1] == ":provenance: teaching"
    source = source.replace(":provenance: teaching", ":provenance: measured", 1)  # step 5: the fix
    body = "这里写第一步的正文。\n"
    source = source.replace(body, body + "\n" + cited + "\n", 1)
    notes = source.index("::::{teacher}", source.index(body))
    source = source[:notes] + pointing + "\n" + source[source.index("::::\n:::", notes) + len("::::\n"):]  # step 7
    page.write_text(source, encoding="utf-8")
    fixed = build(root)
    assert fixed.returncode == 0, fixed.stderr
    teacher = (root / "_site-teacher" / "my-lesson.html").read_text(encoding="utf-8")
    assert 'data-mark="edited-word"' in teacher and 'data-mark="invalidated"' in teacher


@pytest.mark.slow  # a build in a project copy
def test_the_reference_s_complete_small_lesson_builds(tmp_path):
    root = project_tree(tmp_path / "project")
    lesson = next(block for block in fenced(PROJECT / "docs" / "reference.md", "markdown") if block.startswith("---\n"))
    (root / "content" / "pages" / "demo.md").write_text(lesson, encoding="utf-8")
    site = root / "content" / "site.yml"
    listed = site.read_text(encoding="utf-8").replace("pages: [index,", "pages: [index, demo,")
    site.write_text(listed, encoding="utf-8")
    built = build(root)
    assert built.returncode == 0, built.stderr
    page = (root / "_site" / "demo.html").read_text(encoding="utf-8")
    assert 'href="numbers.html#equivalence_early.max_abs_diff"' in page and "<math" in page


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_between_the_pages_land_on_a_file_and_heading():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _hash, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.is_file(), f"{page.name}: {target} is no file"
            headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            assert not anchor or anchor in {_anchor(h) for h in headings}, f"{page.name}: no heading #{anchor}"
