"""The dev server disconnects a client that sends nothing, or its request one byte at a time, instead of
holding a thread for it for ever."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from site_builder.serve import devhttp


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setattr(devhttp, "IDLE_SECONDS", 1)
    monkeypatch.setattr(devhttp, "REQUEST_SECONDS", 1.5)
    (tmp_path / "index.html").write_text("<p>页</p>", encoding="utf-8")
    httpd = devhttp.listen("127.0.0.1", 0)
    port = httpd.server_address[1]
    state = SimpleNamespace(host="127.0.0.1", port=port, out_dir=Path(tmp_path), build_id=1, failure=None,
                            language="zh-CN", stopping=False)
    httpd.RequestHandlerClass = devhttp.handler(state)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)  # shutdown() waits a poll
    thread.start()
    yield port
    httpd.shutdown()
    httpd.server_close()


def _closed_after(sock: socket.socket, send=None) -> float:
    """Seconds until the server closes ``sock`` (``send`` is called every 0.2 s meanwhile)."""
    started = time.perf_counter()
    sock.settimeout(0.2)
    while time.perf_counter() - started < 10:
        if send:
            send()
        try:
            if sock.recv(1024) == b"":
                return time.perf_counter() - started
        except TimeoutError:
            continue
        except OSError:
            return time.perf_counter() - started
    return float("inf")


def test_an_idle_client_is_disconnected(served):
    with socket.create_connection(("127.0.0.1", served)) as sock:
        assert _closed_after(sock) < 3


def test_a_client_sending_one_byte_at_a_time_is_disconnected(served):
    request = iter(b"GET /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000)
    with socket.create_connection(("127.0.0.1", served)) as sock:
        def one_byte() -> None:
            with contextlib.suppress(OSError):
                sock.send(bytes([next(request)]))
        assert _closed_after(sock, one_byte) < 4


def test_a_prompt_client_is_served(served):
    with socket.create_connection(("127.0.0.1", served)) as sock:
        sock.sendall(f"GET /index.html HTTP/1.0\r\nHost: 127.0.0.1:{served}\r\n\r\n".encode())
        sock.settimeout(5)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk
    assert reply.startswith(b"HTTP/1.0 200") and "<p>页</p>".encode() in reply
