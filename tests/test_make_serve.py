"""`make serve TEACHER=1` serves the teacher site; a busy port is answered in the form the teacher used."""

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from site_builder.serve.devhttp import STARTED_BY, PortBusy, listen
from site_builder.vocabulary.i18n import localize

ROOT = Path(__file__).resolve().parent.parent


def _recipe(*variables: str) -> str:
    said = subprocess.run(["make", "-n", "-C", str(ROOT), "serve", *variables], capture_output=True, text=True,
                          check=True).stdout
    [line] = [line for line in said.splitlines() if "build.py serve" in line]
    return line


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_serve_teacher_1_serves_the_teacher_site_and_port_is_passed():
    assert _recipe("TEACHER=1", "PORT=8123").endswith("build.py serve --port 8123 --teacher")
    assert _recipe().endswith("build.py serve --port 8000")
    assert f'{STARTED_BY}="make serve"' in _recipe()


@pytest.fixture
def busy_port():
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    yield holder.getsockname()[1]
    holder.close()


def _said(port: int, teacher: bool) -> str:
    with pytest.raises(PortBusy) as caught:
        listen("127.0.0.1", port, teacher)
    return caught.value.args[0]


@pytest.mark.parametrize("teacher, suffix", [(False, ""), (True, " TEACHER=1")])
def test_under_make_serve_a_busy_port_suggests_make_s_form(busy_port, monkeypatch, teacher, suffix):
    monkeypatch.setenv(STARTED_BY, "make serve")
    message = _said(busy_port, teacher)
    free = int(message.split("PORT=")[1].split()[0])
    assert free != busy_port
    assert str(message) == (f"port {busy_port} on 127.0.0.1 is already in use (another server?); "
                            f"try: make serve PORT={free}{suffix}")
    assert localize(message, "zh-CN").endswith(f"；试试：make serve PORT={free}{suffix}")
    assert "--port" not in message


def test_from_the_command_line_a_busy_port_suggests_the_option(busy_port, monkeypatch):
    monkeypatch.delenv(STARTED_BY, raising=False)
    message = _said(busy_port, True)
    free = int(message.split("try --port ")[1].split()[0])
    assert str(message).endswith(f"; try --port {free} or --port 0") and "make" not in message
