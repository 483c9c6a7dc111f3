"""The dev server's HTTP side: a loopback socket bound first, a handler that serves the built site
(and nothing outside it) with the live-reload script injected into every HTML page, and the
event stream (``/__dev/events``, server-sent events) the script listens to.

The handler asks its ``DevServer`` (server.py) for the folder, the build id, the current failure
and a queue of events; it changes nothing.
"""

from __future__ import annotations

import contextlib
import errno
import html
import http.server
import ipaddress
import json
import mimetypes
import os
import queue
import re
import socket
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.urls import page_root

if TYPE_CHECKING:
    from site_builder.serve.server import DevServer

CLIENT_SCRIPT = Path(__file__).parent / "devserver.js"
"""Kept out of static/ so that it is never copied into a built site."""
DEV_PREFIX = "/__dev/"
IDLE_SECONDS = 30
"""A client that sends or takes nothing for this long is disconnected (each read and write waits at most this)."""
REQUEST_SECONDS = 10
"""A client whose request line and headers are not all in after this long is disconnected: one byte a
second would otherwise hold a thread for as long as it likes."""
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}
_TYPES = {".md": "text/markdown; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".js": "text/javascript",
          ".css": "text/css", ".svg": "image/svg+xml", ".woff2": "font/woff2", ".json": "application/json",
          ".html": "text/html; charset=utf-8", ".zip": "application/zip", ".py": "text/plain; charset=utf-8"}



def served_at_root(not_found: bytes) -> bytes:
    """404.html links from base_url's path (/lecture05/…) for GitHub Pages; this server puts the
    site at /, so those links are re-rooted here."""
    root = page_root(not_found.decode("utf-8", errors="replace"))
    return not_found.replace(b'="' + root.encode(), b'="/') if root else not_found


STARTED_BY = "VERIFIED_LESSONS_STARTED_BY"
"""Set by the Makefile's serve recipe (not MAKELEVEL: every process ``make test`` starts inherits that)."""


class PortBusy(Exception):
    """The port is taken (another server?); the message is one line for the terminal."""


def listen(host: str, port: int, teacher: bool = False) -> http.server.ThreadingHTTPServer:
    """A bound, listening HTTP server without a handler yet (``DevServer.start`` gives it one).

    Binding comes first so that a second server on a busy port stops before it
    builds or writes anything. ``port`` 0 picks a free port. A busy port's message suggests another in the
    form the teacher used: ``make serve PORT=…`` under make (which cannot pass ``--port``), else ``--port``.
    """
    try:
        httpd = _HTTPServer((host, port), http.server.BaseHTTPRequestHandler)
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        free = free_port(host, port + 1)
        hint = _("try: make serve PORT={free}{teacher}", free=free, teacher=" TEACHER=1" if teacher else "") \
            if os.environ.get(STARTED_BY) == "make serve" else _("try --port {free} or --port 0", free=free)
        raise PortBusy(_("port {port} on {host} is already in use (another server?); {hint}",
                         port=port, host=host, hint=hint)) from None
    httpd.daemon_threads = True
    return httpd


def free_port(host: str, start: int, tries: int = 50) -> int:
    """The first port from ``start`` on that can be bound now (0 if none of ``tries`` is free)."""
    for port in range(start, min(start + tries, 65536)):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server itself binds
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    return 0


def inject_client(page: bytes, build_id: int) -> bytes:
    """Add the live-reload script to an HTML page, just before ``</body>``."""
    tag = f'<script src="{DEV_PREFIX}devserver.js" data-build="{build_id}" defer></script>\n'.encode()
    at = page.rfind(b"</body>")
    return page[:at] + tag + page[at:] if at >= 0 else page + tag


def resolve_request(site_dir: Path, raw_path: str) -> tuple[int, Path | None]:
    """Map a URL path to a file of the site: (200, file), (301, None) for a folder asked without its
    final ``/`` (``/en`` → ``/en/``, so its pages' relative links hold), or (403 | 404, None).

    Refuses anything that could leave the folder: ``..`` segments (also
    percent-encoded), backslashes, NUL bytes, and symlinks pointing outside.
    Folders are never listed; a folder (an edition's, the root) serves its ``index.html``, as a static host does.
    """
    path = urllib.parse.unquote(urllib.parse.urlsplit(raw_path).path)
    segments = [s for s in path.split("/") if s not in ("", ".")]
    if any(s == ".." for s in segments) or "\\" in path or "\0" in path:
        return 403, None
    root = site_dir.resolve()
    target = root.joinpath(*segments).resolve()
    if not target.is_relative_to(root):
        return 403, None
    if target.is_dir() and (target / "index.html").is_file():
        if segments and not path.endswith("/"):  # the root is served as it is asked for ("" after //host)
            return 301, None
        target = target / "index.html"
    return (200, target) if target.is_file() else (404, None)


_HOST = re.compile(r"^(?:\[(?P<ipv6>[0-9A-Fa-f:]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::(?P<port>[0-9]{1,5}))?$")


def _host_allowed(host_header: str | None, bound: str, port: int) -> bool:
    """On loopback, accept only a loopback host name and the bound port: a page on another site cannot
    reach the server by pointing its own domain at 127.0.0.1 (DNS rebinding).

    Parsed strictly, not split at the last colon: no user info (``127.0.0.1:80@evil.example``), no
    trailing dot, a missing port means 80.
    """
    try:
        if not ipaddress.ip_address(bound).is_loopback:
            return True
    except ValueError:
        if bound != "localhost":
            return True
    match = _HOST.match((host_header or "").strip(" \t"))  # optional whitespace around a header value
    if match is None:
        return False
    name = match["ipv6"] or match["name"].lower()
    return name in _LOOPBACK_NAMES | {bound} and int(match["port"] or 80) == port


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    """Listen backlog. A browser opening a page asks for its assets at once; with the default of 5 a
    burst overflows the queue and the kernel makes each extra client retry after a second."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A tab closed or a client gave up mid-request: nothing is wrong with the server, so no traceback.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def _hang_up(connection: socket.socket) -> None:
    """End a client's connection from another thread: its handler's blocked read returns at once."""
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)


def missing_site(language: str) -> bytes:
    """The page served before any build succeeded (the overlay shows the problems over it)."""
    return _notice(language, _("Build failed"), _("No build has succeeded yet; fix the problems listed below and "
                                                  "this page reloads by itself."))


def drawing_page(language: str, edition: str) -> bytes:
    """The page served in place of one of ``edition``'s while its figures are being drawn (it reloads by itself
    when they are)."""
    return _notice(language, _("Drawing the figures of {edition}", edition=edition),
                   _("This edition is served once its figures are drawn; this page then reloads by itself."))


def _notice(language: str, title: str, text: str) -> bytes:
    title, text = html.escape(localize(title, language)), html.escape(localize(text, language))
    return (f'<!doctype html><html lang="{html.escape(language)}"><head><meta charset="utf-8"><title>{title}</title>'
            f"</head><body><main><h1>{title}</h1><p>{text}</p></main></body></html>").encode()


def handler(server: DevServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "lesson-devserver"
        timeout = IDLE_SECONDS

        def setup(self) -> None:
            super().setup()
            self._deadline = threading.Timer(REQUEST_SECONDS, _hang_up, (self.connection,))
            self._deadline.daemon = True
            self._deadline.start()

        def parse_request(self) -> bool:
            complete = super().parse_request()  # reads the headers
            self._deadline.cancel()
            return complete

        def finish(self) -> None:
            self._deadline.cancel()
            super().finish()

        def do_GET(self) -> None:
            self._respond(head=False)

        def do_HEAD(self) -> None:
            self._respond(head=True)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal is for build news
            pass

        def _respond(self, head: bool) -> None:
            if not _host_allowed(self.headers.get("Host"), server.host, server.port):
                return self._send(403, b"forbidden host\n", "text/plain; charset=utf-8", head)
            path = urllib.parse.urlsplit(self.path).path
            if path == DEV_PREFIX + "events":
                return self._events()
            if path == DEV_PREFIX + "errors":
                body = json.dumps(server.failure or {"build": server.build_id, "problems": [], "traceback": ""},
                                  ensure_ascii=False).encode()
                return self._send(200, body, "application/json; charset=utf-8", head)
            if path == DEV_PREFIX + "devserver.js":
                return self._send(200, CLIENT_SCRIPT.read_bytes(), "text/javascript; charset=utf-8", head)
            build_id = server.build_id  # read before the file: a page is never newer than its id says
            status, target = resolve_request(server.out_dir, self.path)
            if status == 403:
                return self._send(403, b"forbidden\n", "text/plain; charset=utf-8", head)
            if status == 301:  # one leading /: a Location of //en/ would send the browser to a host named en
                parts = urllib.parse.urlsplit(self.path)
                folder = "/" + parts.path.strip("/") + "/"
                return self._send(301, b"", "text/plain; charset=utf-8", head,
                                  location=urllib.parse.urlunsplit(("", "", folder, parts.query, "")))
            if target is None:
                return self._not_found(build_id, head)
            try:
                body = target.read_bytes()
            except OSError:  # swapped away between resolve and read: the next request sees the new site
                return self._not_found(build_id, head)
            kind = _TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            if target.suffix == ".html":
                body = inject_client(body, build_id)
            self._send(200, body, kind, head)

        def _not_found(self, build_id: int, head: bool) -> None:
            edition = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/").split("/")[0]
            if edition in server.drawing:  # not built yet, rather than built with figures not its own
                body = drawing_page(server.language, edition)
                return self._send(503, inject_client(body, build_id), "text/html; charset=utf-8", head)
            page = server.out_dir / "404.html"
            body = served_at_root(page.read_bytes()) if page.is_file() else missing_site(server.language)
            self._send(404, inject_client(body, build_id), "text/html; charset=utf-8", head)

        def _send(self, status: int, body: bytes, kind: str, head: bool, location: str = "") -> None:
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")  # every reload must see the new build
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            client = server.subscribe()
            try:
                while not server.stopping:
                    try:
                        item = client.get(timeout=15)
                    except queue.Empty:
                        self.wfile.write(b": keep-alive\n\n")  # also finds out that a tab was closed
                        self.wfile.flush()
                        continue
                    if item is None:
                        break
                    event, data = item
                    self.wfile.write(f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                server.unsubscribe(client)

    return Handler
