"""The dev server and the front doors (site_builder/serve): reloads, errors, hostile requests, FIFOs, the
`new` scaffolds, the server as a command."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path

import pytest
from devclient import EventStream
from sitekit import (
    LIMIT_S,
    SECRET,
    fake_evidence,
    lesson,
    project_copy,
    secret_outside,
    state,
    time_limit,
)
from test_engine import tree_hashes

import figures
import lessonmodel
from figures.scaffold import new_figure
from lessonmodel.scaffold import new_experiment
from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.serve.devhttp import resolve_request
from site_builder.serve.scaffold import add_page_id, new_lesson
from site_builder.serve.server import DevServer, EvidenceSource

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"


def fixture_server(root: Path, log: Callable[[str], None] = lambda text: None) -> DevServer:
    """A dev server (not started) of the fixture course, copied into ``root``, with fake evidence."""
    shutil.copytree(FIXTURE, root / "content")
    evidence = fake_evidence(root / "figs")
    return DevServer(Engine(root, (Output(True, root / "out"),), serving=True), EvidenceSource(lambda: evidence),
                     watch=[root / "content"], port=0, log=log)


@pytest.fixture
def dev_server(tmp_path: Path):
    said: list[str] = []
    server = fixture_server(tmp_path, said.append)
    yield tmp_path, server, said
    server.stop()


@pytest.fixture(scope="module")
def requests_only(tmp_path_factory):
    """One started server for the tests that only send it requests: a server of their own each cost 0.3 s."""
    root = tmp_path_factory.mktemp("served")
    server = fixture_server(root)
    server.start()
    yield root, server
    server.stop()


def list_zz(root: Path) -> Path:
    site = root / "content" / "site.yml"
    site.write_text(site.read_text(encoding="utf-8").replace("pages: [index, alpha, beta]",
                                                             "pages: [index, alpha, beta, zz]"), encoding="utf-8")
    return root / "content" / "pages" / "zz.md"


def test_dev_server_starts_with_a_fifo_page_and_recovers(dev_server):
    root, server, said = dev_server
    os.mkfifo(list_zz(root))
    with time_limit(LIMIT_S):
        server.start()  # used to block for ever reading the FIFO for the overlay's context lines
    assert [p["text"] for p in server.failure["problems"]] == [  # the overlay speaks the course's language
        "content/pages/zz.md: 不是普通文件：请把文字存进普通文件"]
    stream = EventStream(server.port)
    try:
        assert stream.wait_for("hello")["failing"] is True
        (root / "content" / "pages" / "zz.md").unlink()
        (root / "content" / "pages" / "zz.md").write_text(lesson(state()), encoding="utf-8")
        assert stream.wait_for("reload", seconds=LIMIT_S)["build"] == 1  # the first good build
        assert server.failure is None
    finally:
        stream.close()


def test_a_fifo_appearing_while_serving_does_not_stop_rebuilding(dev_server):
    root, server, said = dev_server
    server.start()
    stream = EventStream(server.port)
    try:
        stream.wait_for("hello")
        # The FIFO first: a build the watcher starts between the two steps then meets it too (pages are read
        # listed or not), where listing it first could show a missing page instead.
        os.mkfifo(root / "content" / "pages" / "zz.md")
        list_zz(root)
        failure = stream.wait_for("build-error", seconds=LIMIT_S)
        assert [p["text"] for p in failure["problems"]] == [
            "content/pages/zz.md: 不是普通文件：请把文字存进普通文件"]
        (root / "content" / "pages" / "zz.md").unlink()
        (root / "content" / "pages" / "zz.md").write_text(lesson(state()), encoding="utf-8")
        assert stream.wait_for("reload", seconds=LIMIT_S)["build"] == 2
    finally:
        stream.close()


def test_dev_server_never_shows_a_refused_links_target(dev_server):
    root, server, said = dev_server
    list_zz(root).symlink_to(secret_outside(root))
    with time_limit(LIMIT_S):
        server.start()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/__dev/errors")
    errors = connection.getresponse().read().decode()
    connection.close()
    assert [p["text"] for p in json.loads(errors)["problems"]] == [
        "content/pages/zz.md: 是指向 content/ 以外文件的链接：请把文件复制到这里"]
    assert SECRET not in errors and not any(SECRET in line for line in said)


def test_overlay_context_is_read_only_from_regular_files_inside_content(tmp_path):
    from site_builder.serve.server import problem_report
    from site_builder.vocabulary.problems import Problem

    secret = secret_outside(tmp_path)
    (tmp_path / "content" / "pages").mkdir(parents=True)
    (tmp_path / "content" / "pages" / "link.md").symlink_to(secret)
    os.mkfifo(tmp_path / "content" / "pages" / "pipe.md")
    (tmp_path / "content" / "pages" / "ok.md").write_text("a\nb\nc\n", encoding="utf-8")
    with time_limit(LIMIT_S):
        for path in ("content/pages/link.md", "content/pages/pipe.md", "content/../outside/passwd"):
            assert problem_report(Problem(path, 1, "m"), tmp_path)["context"] == []
        assert [c["text"] for c in problem_report(Problem("content/pages/ok.md", 2, "m"), tmp_path)["context"]] \
            == ["a", "b", "c", ""]


def raw_request(port: int, data: bytes, read: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(data)
        return client.recv(65536) if read else b""


def test_client_disconnects_leave_no_traceback(dev_server, capfd):
    _, server, said = dev_server
    server.start()
    for _ in range(48):  # slow headers: connect, send half a request, hang up
        raw_request(server.port, b"GET /alpha.html HTTP/1.1\r\nHost: 127.0", read=False)
    for _ in range(20):  # hang up hard (RST) before the answer is written
        client = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.sendall(f"GET /alpha.html HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        client.close()
    reply = raw_request(server.port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.0 200")  # still serving
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err
    assert not any("Traceback" in line for line in said)


def test_a_burst_of_concurrent_requests_is_all_answered(dev_server):
    _, server, _ = dev_server
    server.start()
    assert server._httpd.request_queue_size >= 100  # a browser's burst fits in the listen queue
    statuses: list[int] = []
    go = threading.Barrier(100)

    def fetch() -> None:
        go.wait()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=LIMIT_S)
        connection.request("GET", "/alpha.html")
        statuses.append(connection.getresponse().status)
        connection.close()

    threads = [threading.Thread(target=fetch) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LIMIT_S)
    assert statuses == [200] * 100


@pytest.mark.parametrize(("host", "status"), [
    ("127.0.0.1:{port}", 200), ("localhost:{port}", 200), ("LOCALHOST:{port}", 200), ("[::1]:{port}", 200),
    ("127.0.0.1:80@evil.example", 403), ("evil.example@127.0.0.1:{port}", 403), ("user:pw@localhost:{port}", 403),
    ("127.0.0.1:{other}", 403), ("127.0.0.1", 403), ("localhost.:{port}", 403), ("127.0.0.1.evil.example:{port}", 403),
    ("localhost:{port}:{port}", 403), ("[::1]evil:{port}", 403), ("127.0.0.1:{port} ", 200), ("", 403),
    ("localhost:+{port}", 403), ("0x7f.0.0.1:{port}", 403),
])
def test_host_header_is_parsed_strictly(requests_only, host, status):
    _, server = requests_only
    header = host.format(port=server.port, other=server.port + 1)
    reply = raw_request(server.port, f"GET /alpha.html HTTP/1.1\r\nHost: {header}\r\n\r\n".encode())
    assert reply.split(b"\r\n", 1)[0].split(b" ")[1] == str(status).encode(), header


# ---------------------------------------------------------------------------
# `build.py new experiment|figure`: a skeleton written, found by discovery, no Python source edited; or nothing
# written.


ROOT = Path(__file__).resolve().parent.parent


EXPERIMENT = next(name for n in count() if (name := f"probe_{n}") not in lessonmodel.EXPERIMENTS
                  and not (ROOT / "lessonmodel" / f"{name}.py").exists())


FIGURE = next(name for n in count() if (name := f"probe-{n}") not in figures.FIGURE_IDS
              and not (ROOT / "figures" / f"probe_{n}.py").exists())
"""An experiment id and a figure id the project does not use yet (the course may have grown, as the guide shows)."""


FOUND = f"""
import json, figures, lessonmodel
from lessonmodel.runner import source_hash
print(json.dumps({{"experiments": list(lessonmodel.EXPERIMENTS), "figures": list(figures.FIGURE_IDS),
                  "inputs": figures.BY_ID["{FIGURE}"].inputs, "source_hash": source_hash()}}))
"""


@pytest.fixture
def packages(tmp_path):
    """A copy of the figures and lessonmodel packages (site_builder is imported from the project)."""
    for package in ("figures", "lessonmodel"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _sources(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}


def test_new_experiment_and_figure_are_found_by_discovery_and_no_source_is_edited(packages):
    before = _sources(packages)
    experiment = new_experiment(EXPERIMENT, packages / "lessonmodel")
    figure = new_figure(FIGURE, (EXPERIMENT,), packages / "figures", known=figures.FIGURE_IDS)
    assert (experiment.name, figure.name) == (f"{EXPERIMENT}.py", f"{FIGURE.replace('-', '_')}.py")
    after = _sources(packages)
    assert {name: text for name, text in after.items() if name in before} == before  # only new files
    assert sorted(set(after) - set(before)) == [f"figures/{figure.name}", f"lessonmodel/{experiment.name}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the copies come first: the working directory
    out = subprocess.run([sys.executable, "-c", FOUND], cwd=packages, env=env, capture_output=True, text=True,
                         check=True).stdout
    found = json.loads(out)
    assert sorted(found["experiments"]) == sorted([*lessonmodel.EXPERIMENTS, EXPERIMENT])
    assert sorted(found["figures"]) == sorted([*figures.FIGURE_IDS, FIGURE])
    assert found["inputs"] == [EXPERIMENT]
    # the hash that decides when results are recomputed covers the new module
    assert found["source_hash"] != lessonmodel.source_hash()


def test_the_skeletons_are_what_the_guide_says(packages):
    module = new_experiment(EXPERIMENT, packages / "lessonmodel").read_text(encoding="utf-8")
    assert f"@experiment\ndef {EXPERIMENT}(cfg: ModelConfig) -> Result:" in module
    measured = new_figure(FIGURE, (EXPERIMENT,), packages / "figures").read_text(encoding="utf-8")
    assert f'"measured", ("{EXPERIMENT}",), draw' in measured
    sketch = new_figure(f"{FIGURE}-sketch", (), packages / "figures").read_text(encoding="utf-8")
    assert '"teaching", (), draw' in sketch


@pytest.mark.parametrize("inputs", [(EXPERIMENT,), ()], ids=["measured", "teaching"])
def test_new_figure_speaks_the_course_language(packages, inputs):
    """An English course gets a skeleton with English labels, alt text and description."""
    chinese = re.compile(r"[\u4e00-\u9fff]")
    english = new_figure(f"{FIGURE}-en", inputs, packages / "figures", catalog="en").read_text(encoding="utf-8")
    compile(english, "english.py", "exec")
    assert not chinese.search(english.split('"""', 2)[2])  # past the module docstring: what the figure says
    assert chinese.search(new_figure(f"{FIGURE}-zh", inputs, packages / "figures").read_text(encoding="utf-8"))


TAKEN_EXPERIMENT = next(iter(lessonmodel.EXPERIMENTS))


TAKEN_FIGURE = figures.FIGURE_IDS[0]


FIGURE_MODULE = figures.registry.MODULES[0].__name__.rsplit(".", 1)[1]


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: new_experiment("Attention", d), "'Attention' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment("class", d), "'class' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment(TAKEN_EXPERIMENT, d),
     f"experiment '{TAKEN_EXPERIMENT}' already exists: choose another id"),
    (lambda d: new_experiment("runner", d), "experiment 'runner' already exists: choose another id"),
    (lambda d: new_figure("../x", (), d), "'../x' is not a valid figure id: use lowercase letters, digits and "
     "'-', starting with a letter (e.g. 'attention-span')"),
    (lambda d: new_figure(TAKEN_FIGURE, (), d, known=figures.FIGURE_IDS),
     f"figure '{TAKEN_FIGURE}' already exists: choose another id"),
    (lambda d: new_figure(FIGURE_MODULE, (), d), f"figures/{FIGURE_MODULE}.py already exists: choose another id"),
])
def test_bad_or_taken_ids_write_nothing(packages, make, message):
    package = packages / ("lessonmodel" if "experiment" in message else "figures")
    before = _sources(packages)
    with pytest.raises(ValueError) as error:
        make(package)
    assert str(error.value) == message
    assert _sources(packages) == before


# ---------------------------------------------------------------------------
# The dev server: reload events, error overlay data, recovery, path safety, and the lesson scaffold.


def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


@pytest.fixture
def served(tmp_path: Path):
    server = fixture_server(tmp_path)
    server.start()
    stream = EventStream(server.port)
    hello = stream.wait_for("hello")
    assert (hello["build"], hello["failing"], hello["warnings"]["problems"]) == (1, False, [])
    yield tmp_path, server, stream
    stream.close()
    server.stop()


def edit(root: Path, page: str, old: str, new: str) -> None:
    path = root / "content" / "pages" / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_edit_reloads_only_the_edited_page_with_the_new_html(served):
    root, server, stream = served
    edit(root, "alpha", "进一步的解释文字", "进一步的解释文字，刚刚改过")
    event = stream.wait_for("reload")
    assert event == {"build": 2, "urls": ["/alpha.html", "/alpha.source.html"]}
    status, page = get(server.port, "/alpha.html")
    assert status == 200 and "刚刚改过" in page.decode()
    assert b'<script src="/__dev/devserver.js" data-build="2" defer></script>\n</body>' in page
    assert b"devserver" not in (root / "out" / "alpha.html").read_bytes()  # injected on the fly only
    status, script = get(server.port, "/__dev/devserver.js")
    assert status == 200 and b"EventSource" in script


def test_a_save_written_in_two_bursts_ends_built_from_the_whole_page(served):
    """An editor may write a page in two bursts further apart than the watcher's step: the first is then built
    alone (here a role cut in two, an error), the second comes as a batch of its own and the site ends built whole."""
    root, server, _stream = served
    path = root / "content" / "pages" / "alpha.md"
    whole = path.read_text(encoding="utf-8") + "\n补充：两次写完的一句，见 {num}`exp.diff`。\n"
    with path.open("w", encoding="utf-8") as file:
        file.write(whole[:-8])
        file.flush()
        time.sleep(0.2)  # forty steps of the watcher: the first burst is reported (and built) alone
        file.write(whole[-8:])
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:  # the whole page served, and the first burst's failure cleared (the server
        page = get(server.port, "/alpha.html")[1].decode()  # clears it just after it swaps the new site in)
        if "两次写完的一句" in page and 'href="numbers.html#exp.diff"' in page.split("两次写完的一句", 1)[1] \
                and server.failure is None:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the page was not built from its whole text, or a failure stayed: {server.failure}")


def test_broken_save_shows_errors_keeps_the_last_good_page_and_recovers(served):
    root, server, stream = served
    edit(root, "alpha", "{num}`exp.diff`", "{num}`exp.dif`")
    failure = stream.wait_for("build-error")
    [problem] = failure["problems"]
    # in the course's language (the fixture's site.yml says zh-CN)
    assert problem["text"] == "content/pages/alpha.md:36: 未知的数值 'exp.dif'（是不是 'exp.diff'？）"
    assert [(c["line"], c["here"]) for c in problem["context"]] == [(34, False), (35, False), (36, True),
                                                                     (37, False), (38, False)]
    assert "{num}`exp.dif`" in problem["context"][2]["text"]
    status, body = get(server.port, "/__dev/errors")
    assert status == 200 and json.loads(body) == failure
    status, page = get(server.port, "/alpha.html")
    assert status == 200 and "早先的记录" in page.decode()  # the last good page, still served

    later = EventStream(server.port)  # a tab opened while the build is broken sees the errors at once
    assert later.wait_for("hello")["failing"] is True
    assert later.wait_for("build-error") == failure
    later.close()

    edit(root, "alpha", "{num}`exp.dif`", "{num}`exp.diff`")
    assert stream.wait_for("reload") == {"build": 2, "urls": []}  # same HTML as before: nothing to reload
    assert json.loads(get(server.port, "/__dev/errors")[1])["problems"] == []


def test_pages_kept_between_saves_by_their_stamp_are_the_pages_on_disk(served, monkeypatch):
    """Once every page's last change is settled (the loader's ``SETTLED_NS`` moved so that it is), a save reads the
    pages whose stamp changed and keeps the others' reads: each save's pages are what is on disk, and the folder
    ends as a clean build of the same content writes it."""
    import site_builder.load.loader as loader

    root, server, stream = served
    monkeypatch.setattr(loader, "SETTLED_NS", -10 * 10**9)  # every change ten seconds in the past
    edit(root, "alpha", "进一步的解释文字", "进一步的解释文字，第一次改")  # every page read and kept
    assert stream.wait_for("reload")["urls"] == ["/alpha.html", "/alpha.source.html"]
    edit(root, "beta", "第一步。", "第一步，改过。")  # beta read, alpha and index kept
    assert "/beta.html" in stream.wait_for("reload")["urls"]
    pages = root / "content" / "pages"
    text = (pages / "alpha.md").read_text(encoding="utf-8")
    (root / "alpha.new").write_text(text.replace("第一次改", "第二次改"), encoding="utf-8")  # as long: same size
    os.replace(root / "alpha.new", pages / "alpha.md")  # an editor's save: another file under the same name
    assert stream.wait_for("reload")["urls"] == ["/alpha.html", "/alpha.source.html"]
    alpha, beta = (get(server.port, f"/{page}.html")[1].decode() for page in ("alpha", "beta"))
    assert "第二次改" in alpha and "第一次改" not in alpha and "第一步，改过。" in beta
    evidence = fake_evidence(root / "figs")
    Engine(root, (Output(True, root / "clean"),)).build(evidence)
    assert tree_hashes(root / "out") == tree_hashes(root / "clean")


def test_a_crash_is_shown_with_its_traceback_and_the_server_keeps_serving(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    calls = []

    def load():
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the model blew up")
        return evidence

    server = DevServer(Engine(tmp_path, (Output(False, tmp_path / "out"),), serving=True),
                       EvidenceSource(load, inputs=(tmp_path / "model",)), watch=[], port=0, log=lambda text: None)
    server.start()
    try:
        server.rebuild({tmp_path / "model" / "x.py"})
        assert "RuntimeError: the model blew up" in server.failure["traceback"]
        assert get(server.port, "/alpha.html")[0] == 200
        server.rebuild({tmp_path / "model" / "x.py"})
        assert server.failure is None and len(calls) == 3
    finally:
        server.stop()


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/static/%2E%2E/%2e%2e/secret.txt",
                                  "/..%2fsecret.txt", "/..%5csecret.txt", "/%00alpha.html"])
def test_escapes_are_refused(requests_only, path):
    root, server = requests_only
    (root / "secret.txt").write_text("secret")
    status, body = get(server.port, path)
    assert status == 403 and b"secret" not in body


@pytest.mark.parametrize("path", ["//etc/passwd", "/etc/passwd", "/static/", "/downloads", "/nope.html"])
def test_absolute_paths_and_folders_are_not_found(requests_only, path):
    _, server = requests_only
    status, body = get(server.port, path)
    assert status == 404 and b"root:" not in body and b"Index of" not in body


def test_not_found_page_is_re_rooted_for_this_server(requests_only):
    """404.html links from base_url's path (for GitHub Pages); the dev server serves the site at /."""
    _, server = requests_only
    status, body = get(server.port, "/a/b/nope.html")
    assert status == 404 and b'href="/static/site.css"' in body and b'/course/' not in body


def test_root_serves_index_and_symlinks_out_of_the_site_are_refused(requests_only, tmp_path):
    _, server = requests_only
    status, body = get(server.port, "/")
    assert status == 200 and "课程总览" in body.decode()
    (tmp_path / "outside.txt").write_text("outside")
    site = tmp_path / "site"
    site.mkdir()
    (site / "link.txt").symlink_to(tmp_path / "outside.txt")
    assert resolve_request(site, "/link.txt") == (403, None)


def test_other_host_names_are_refused_on_loopback(requests_only):
    _, server = requests_only
    assert get(server.port, "/index.html", host=f"localhost:{server.port}")[0] == 200
    assert get(server.port, "/index.html", host="evil.example:80")[0] == 403


def test_new_lesson_scaffold_builds_cleanly(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    page = new_lesson(tmp_path, "r56")
    assert page == tmp_path / "content" / "pages" / "r56.md"
    assert (tmp_path / "content" / "site.yml").read_text(encoding="utf-8").endswith(
        "pages: [index, alpha, beta, r56]\n")
    prepared = prepare_site(tmp_path, fake_evidence(tmp_path / "figs"))
    assert [s.id for s in prepared.pages["r56"].blocks if hasattr(s, "provenance")] == ["b0", "b1", "b2"]
    assert "r56.html" in render_site(prepared, teacher=False)


@pytest.mark.parametrize(("page_id", "message"), [
    ("alpha", "content/pages/alpha.md already exists: choose another id"),
    ("R56", "'R56' is not a valid page id: use lowercase letters, digits and '-', starting with a letter or "
            "digit (e.g. 'r56' or 'kv-paging')"),
    ("../x", "'../x' is not a valid page id: use lowercase letters, digits and '-', starting with a letter or "
             "digit (e.g. 'r56' or 'kv-paging')"),
])
def test_new_lesson_refuses_taken_or_invalid_ids(tmp_path, page_id, message):
    shutil.copytree(FIXTURE, tmp_path / "content")
    before = (tmp_path / "content" / "site.yml").read_text(encoding="utf-8")
    with pytest.raises(ValueError) as error:
        new_lesson(tmp_path, page_id)
    assert str(error.value) == message
    assert (tmp_path / "content" / "site.yml").read_text(encoding="utf-8") == before


def test_page_ids_are_inserted_keeping_the_file_as_written():
    block = "title: x\npages:\n  - a   # first\n  # a comment\n  - b\nbase_url: u\n"
    assert add_page_id(block, "c") == "title: x\npages:\n  - a   # first\n  # a comment\n  - b\n  - c\nbase_url: u\n"
    assert add_page_id("pages: [a,\n  b]  # end\n", "c") == "pages: [a,\n  b, c]  # end\n"


# ---------------------------------------------------------------------------
# `python build.py serve` as a teacher runs it: a busy port, Ctrl-C, and `make serve`.


SERVING = "http://127.0.0.1:"
"""In the line saying the server is up, whatever the course's language (the copied course is zh-CN)."""


def wait_for_line(process: subprocess.Popen, needle: str, seconds: float = 120) -> str:
    """The first line of the server's stderr containing ``needle`` (AssertionError after ``seconds``).

    A thread reads stderr into ``process.said``, so a server that never says it cannot block the test.
    """
    if not hasattr(process, "said"):
        process.said = []
        threading.Thread(target=lambda: process.said.extend(iter(process.stderr.readline, "")), daemon=True).start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = next((line for line in list(process.said) if needle in line), None)
        if found is not None:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no line with {needle!r}; got:\n{''.join(process.said)}")


def status(port: int, path: str = "/") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    answer = connection.getresponse().status
    connection.close()
    return answer


def start(root: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "build.py", "serve", *args], cwd=root, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return project_copy(tmp_path_factory.mktemp("project"))


@pytest.mark.slow  # Every test starts `build.py serve` (or `make serve`) processes and waits for them.
def test_second_server_on_a_busy_port_says_so_in_one_line_and_the_first_serves_on(project):
    first = start(project, "--port", "0")
    try:
        line = wait_for_line(first, SERVING)
        if any("正在绘制" in said for said in first.said):  # figures not cached: the translations are drawn after
            wait_for_line(first, "刷新 en/")
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
        own = project / ".cache" / "serve" / str(port)
        before = {p: p.stat().st_mtime_ns for p in own.rglob("*")}
        second = subprocess.run([sys.executable, "build.py", "serve", "--port", str(port)], cwd=project,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        [message] = second.stderr.splitlines()  # in the course's language (zh-CN)
        assert message.startswith(f"127.0.0.1 的端口 {port} 已被占用（另一个服务器？）；试试 --port ")
        assert message.endswith(" 或 --port 0")
        suggested = int(message.split("试试 --port ")[1].split()[0])
        assert suggested != port
        assert sorted((project / ".cache" / "serve").iterdir()) == [own]  # the second wrote nothing
        assert {p: p.stat().st_mtime_ns for p in own.rglob("*")} == before
        assert status(port) == 200 and status(port, "/r55.html") == 200
    finally:
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=30) == 0
    time.sleep(0.5)  # the reader thread drains the last lines
    assert "Traceback" not in "".join(first.said)


@pytest.mark.slow  # Every test starts `build.py serve` (or `make serve`) processes and waits for them.
def test_sigterm_stops_the_server_cleanly(project):
    server = start(project, "--port", "0")
    line = wait_for_line(server, SERVING)
    port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
    server.terminate()
    assert server.wait(timeout=30) == 0
    time.sleep(0.5)
    assert "Traceback" not in "".join(server.said)
    with pytest.raises(OSError):
        status(port)


@pytest.mark.slow  # Every test starts `build.py serve` (or `make serve`) processes and waits for them.
def test_make_serve_runs_the_server_as_the_recipe_itself_and_ctrl_c_stops_it(project):
    """Ctrl-C in a terminal signals the whole foreground group; the server must be make's own child."""
    make = subprocess.Popen(["make", "-o", ".venv/.installed-site", "-o", "fonts", "serve", "PORT=0",
                             f"PY={sys.executable}"], cwd=project, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for_line(make, SERVING)
        children = Path(f"/proc/{make.pid}/task/{make.pid}/children").read_text().split()
        assert len(children) == 1
        command = Path(f"/proc/{children[0]}/cmdline").read_bytes().split(b"\0")
        assert command[1:4] == [b"build.py", b"serve", b"--port"]  # no shell in between
        assert not (project / "_site").exists()  # built once, into the server's own folder, not first into _site/
        os.killpg(make.pid, signal.SIGINT)
        make.wait(timeout=30)
        assert not Path(f"/proc/{children[0]}").exists() or \
            Path(f"/proc/{children[0]}/stat").read_text().split()[2] == "Z"
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
