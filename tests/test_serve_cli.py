"""`python build.py serve` as a teacher runs it: a busy port, Ctrl-C, and `make serve`."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sitekit import project_copy


def wait_for_line(process: subprocess.Popen, needle: str, seconds: float = 120) -> str:
    """Read the server's stderr until a line contains ``needle``; the line."""
    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            break
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"no line with {needle!r}; got:\n{''.join(seen)}")


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


def test_second_server_on_a_busy_port_says_so_in_one_line_and_the_first_serves_on(project):
    first = start(project, "--port", "0")
    try:
        line = wait_for_line(first, "serving ")
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        own = project / ".cache" / "serve" / str(port)
        before = {p: p.stat().st_mtime_ns for p in own.rglob("*")}
        second = subprocess.run([sys.executable, "build.py", "serve", "--port", str(port)], cwd=project,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        [message] = second.stderr.splitlines()
        assert message.startswith(f"port {port} on 127.0.0.1 is already in use (another server?); try --port ")
        assert message.endswith(" or --port 0")
        suggested = int(message.split("try --port ")[1].split()[0])
        assert suggested != port
        assert sorted((project / ".cache" / "serve").iterdir()) == [own]  # the second wrote nothing
        assert {p: p.stat().st_mtime_ns for p in own.rglob("*")} == before
        assert status(port) == 200 and status(port, "/r55.html") == 200
    finally:
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=30) == 0
    assert "Traceback" not in first.stderr.read()


def test_sigterm_stops_the_server_cleanly(project):
    server = start(project, "--port", "0")
    line = wait_for_line(server, "serving ")
    port = int(line.rsplit(":", 1)[1].split("/")[0])
    server.terminate()
    assert server.wait(timeout=30) == 0
    assert "Traceback" not in server.stderr.read()
    with pytest.raises(OSError):
        status(port)


def test_make_serve_runs_the_server_as_the_recipe_itself_and_ctrl_c_stops_it(project):
    """Ctrl-C in a terminal signals the whole foreground group; the server must be make's own child."""
    make = subprocess.Popen(["make", "-o", ".venv/.installed-site", "-o", "fonts", "serve", "PORT=0",
                             f"PY={sys.executable}"], cwd=project, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for_line(make, "serving ")
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
