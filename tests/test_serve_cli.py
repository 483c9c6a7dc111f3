"""`python build.py serve` as a teacher runs it: a busy port, Ctrl-C, and `make serve`."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sitekit import project_copy

# Every test starts `build.py serve` (or `make serve`) processes and waits for them.
pytestmark = pytest.mark.slow

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


def test_second_server_on_a_busy_port_says_so_in_one_line_and_the_first_serves_on(project):
    first = start(project, "--port", "0")
    try:
        line = wait_for_line(first, SERVING)
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
