"""The dev server serves the course's language first while a translation's figures are drawn
(``EvidenceSource.sooner``, site_builder/serve/server.py): the translation is left out of the site, never built
with figures not its own, its URLs answer "being drawn" (503), and it is added, with a reload, once drawn.

The course is tests/editionkit.py's (Chinese at the root, English in ``en/``); its evidence is handed over as
build.py's fresh process hands it: ``sooner`` without the English edition, ``load`` with it, after a wait."""

from __future__ import annotations

import hashlib
import http.client
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from devclient import EventStream
from editionkit import course_evidence, write_course
from sitekit import LIMIT_S, time_limit

from site_builder.engine.builder import Engine, Output
from site_builder.serve.server import DevServer, EvidenceSource


def get(port: int, path: str) -> tuple[int, bytes]:
    return ask(port, path)[:2]


def ask(port: int, path: str) -> tuple[int, bytes, str | None]:
    """The status, body and ``Location`` of a GET."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    answer = response.status, response.read(), response.getheader("Location")
    connection.close()
    return answer


def digests(folder: Path) -> dict[str, str]:
    """Every file of the course's language (outside ``en/``) by its digest."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).parts[0] != "en"}


class Drawing:
    """An evidence source whose translation is drawn until ``drawn`` is set; ``stops`` counts ``stop`` calls."""

    def __init__(self, figure_dir: Path, cached: bool = False) -> None:
        self.full = course_evidence(figure_dir)
        self.cached, self.drawn, self.loads, self.stops = cached, threading.Event(), 0, 0
        self.indexed: list[tuple[Path, list[str]]] = []
        """(folder, the editions of the site) each time the output's search index is placed."""

    def sooner(self):
        return self.full if self.cached else replace(self.full, editions={})

    def load(self):
        self.loads += 1
        assert self.drawn.wait(LIMIT_S)
        return self.full

    def stop(self) -> None:
        self.stops += 1


@pytest.fixture
def serving(tmp_path: Path):
    def start(cached: bool = False) -> tuple[DevServer, Drawing, list[str]]:
        write_course(tmp_path)
        drawing, said = Drawing(tmp_path / "figs", cached), []
        output = Output(False, tmp_path / "out", finish=lambda prepared: lambda folder: drawing.indexed.append(
            (folder, [edition.content.config.language for edition in prepared.editions])))
        server = DevServer(Engine(tmp_path, (output,), serving=True),
                           EvidenceSource(drawing.load, inputs=(tmp_path / "model",), sooner=drawing.sooner,
                                          stop=drawing.stop), watch=[tmp_path / "content"], port=0, log=said.append)
        servers.append(server)
        with time_limit(LIMIT_S):
            server.start()
        return server, drawing, said

    servers: list[DevServer] = []
    yield start
    for server in servers:
        server.stop()


def test_the_source_language_is_served_while_the_translation_is_drawn_then_the_translation(serving, tmp_path):
    server, drawing, said = serving()
    out = tmp_path / "out"
    assert server.failure is None and server.drawing == ("en",)
    assert (out / "r1.html").is_file() and not (out / "en").exists()  # never built with the Chinese figures
    status, page = get(server.port, "/en/r1.html")
    assert status == 503 and "正在绘制 en 的图".encode() in page and b"/__dev/devserver.js" in page
    assert get(server.port, "/r1.html")[0] == 200 and get(server.port, "/nothing.html")[0] == 404
    assert get(server.port, "/en/")[0] == 503  # the edition's front page too, as the tutorial links it
    assert said[-1] == "正在绘制 en 的图：这些版本在图画好后提供"
    first = digests(out)
    stream = EventStream(server.port)
    try:
        stream.wait_for("hello")
        drawing.drawn.set()
        urls = stream.wait_for("reload", seconds=LIMIT_S)["urls"]
    finally:
        stream.close()
    assert "/en/r1.html" in urls and not [url for url in urls if not url.startswith("/en/")]
    assert server.drawing == () and drawing.loads == 1
    assert drawing.indexed[-1] == (out, ["en"])  # the added edition gets its search (the site was updated in place)
    status, page = get(server.port, "/en/r1.html")
    assert status == 200 and b"Two boxes" in page  # the English figure's alt text
    # an edition's folder serves its index.html, as a static host does; without its final / it is sent there
    status, page, _ = ask(server.port, "/en/")
    assert status == 200 and page.startswith(b"<!doctype html>\n<html lang=\"en\"")
    assert ask(server.port, "/en?x=1")[::2] == (301, "/en/?x=1")
    assert ask(server.port, "////en")[::2] == (301, "/en/")  # never //en/: another host to a browser
    assert digests(out) == first  # the course's language as it was served first, byte for byte


def test_with_every_figure_drawn_already_the_whole_site_is_built_at_once(serving, tmp_path):
    server, drawing, _said = serving(cached=True)
    assert server.drawing == () and (tmp_path / "out" / "en" / "r1.html").is_file()
    assert get(server.port, "/en/r1.html")[0] == 200
    assert drawing.loads == 0  # nothing to draw: no second process


def test_a_change_to_the_model_while_drawing_ends_the_drawing_and_measures_again(serving, tmp_path):
    server, drawing, _said = serving()
    (tmp_path / "model").mkdir()
    server.rebuild({tmp_path / "model" / "experiment.py"})
    assert drawing.stops >= 1  # the stale drawing's process is ended
    assert server.drawing == ("en",)  # measured again: the translation is drawn again
    server.stop()
    assert drawing.stops >= 2
    drawing.drawn.set()
