"""The dev server: reload events, error overlay data, recovery, path safety, and the lesson scaffold."""

from __future__ import annotations

import http.client
import json
import shutil
from pathlib import Path

import pytest
from devclient import EventStream
from sitekit import fake_evidence

from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.serve.devhttp import resolve_request
from site_builder.serve.scaffold import add_page_id, new_lesson
from site_builder.serve.server import DevServer, EvidenceSource

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"


def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


@pytest.fixture
def served(tmp_path: Path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    server = DevServer(Engine(tmp_path, (Output(True, tmp_path / "out"),), serving=True),
                       EvidenceSource(lambda: evidence),
                       watch=[tmp_path / "content"], port=0, log=lambda text: None)
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
def test_escapes_are_refused(served, path):
    root, server, _ = served
    (root / "secret.txt").write_text("secret")
    status, body = get(server.port, path)
    assert status == 403 and b"secret" not in body


@pytest.mark.parametrize("path", ["//etc/passwd", "/etc/passwd", "/static/", "/downloads", "/nope.html"])
def test_absolute_paths_and_folders_are_not_found(served, path):
    _, server, _ = served
    status, body = get(server.port, path)
    assert status == 404 and b"root:" not in body and b"Index of" not in body


def test_not_found_page_is_re_rooted_for_this_server(served):
    """404.html links from base_url's path (for GitHub Pages); the dev server serves the site at /."""
    _, server, _ = served
    status, body = get(server.port, "/a/b/nope.html")
    assert status == 404 and b'href="/static/site.css"' in body and b'/course/' not in body


def test_root_serves_index_and_symlinks_out_of_the_site_are_refused(served, tmp_path):
    root, server, _ = served
    status, body = get(server.port, "/")
    assert status == 200 and "课程总览" in body.decode()
    (tmp_path / "outside.txt").write_text("outside")
    site = tmp_path / "site"
    site.mkdir()
    (site / "link.txt").symlink_to(tmp_path / "outside.txt")
    assert resolve_request(site, "/link.txt") == (403, None)


def test_other_host_names_are_refused_on_loopback(served):
    _, server, _ = served
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
