"""The dev server: build, serve on loopback, rebuild on save, reload only the pages that changed.

Three parts, each small:

- ``DevServer.rebuild`` runs one incremental build and turns its outcome into
  an event: ``reload`` (the changed URLs) or ``build-error`` (every
  ``path:line: message`` with the source lines around it). A bad save never
  stops the server: content problems and bugs alike end up in the terminal and
  in the browser's overlay, over the last good page.
- an HTTP handler (devhttp.py) that serves the output folder (and nothing outside it),
  injects ``/__dev/devserver.js`` into HTML on the fly (built pages never
  contain it), and streams events at ``/__dev/events`` (server-sent events);
  ``/__dev/errors`` returns the current problems as JSON.
- a watchfiles thread that batches saves and calls ``rebuild``.

The event stream is named ``build-error`` rather than ``error`` because
``error`` is also the name of EventSource's own connection-error event.
"""

from __future__ import annotations

import gc
import http.server
import queue
import re
import sys
import textwrap
import threading
import traceback
import unicodedata
from collections.abc import Callable, Collection
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from site_builder.engine.builder import BuildReport, Engine
from site_builder.load.content import Content, Evidence
from site_builder.load.files import PagesRead, read_content_file
from site_builder.load.loader import load_content
from site_builder.load.yamlnodes import course_language
from site_builder.serve.devhttp import handler, listen
from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.write.writer import WriteFailed

CONTEXT_LINES = 2
"""Source lines shown before and after the line of a problem."""


@dataclass(frozen=True)
class EvidenceSource:
    """Where the values and figures come from, and which files they are made from."""

    load: Callable[[], Evidence]
    """Measure and draw (may take seconds); raises ``ContentError`` for the teacher's mistakes."""
    inputs: tuple[Path, ...] = ()
    """Folders or files whose change makes the evidence stale (the model, the figures, the records)."""
    sooner: Callable[[], Evidence] | None = None
    """The same evidence, sooner when a translation's figures are not drawn yet: such a translation is left out of
    its ``editions``. The server then builds the site without that edition, serves it, and calls ``load`` in the
    background; the edition is added when its figures are drawn."""
    stop: Callable[[], None] = lambda: None
    """Ends a ``load`` running in the background (its process): the server stops, or what it measures is stale."""


def problem_report(problem: Problem, root: Path, content_dir: str = "content", language: str = "en") -> dict[str, Any]:
    """A problem as the overlay shows it: ``path:line: message`` (in ``language``) and the source lines around it.

    The lines come only from a regular file inside the content folder, read the way the build
    reads it: a FIFO must not hang the server, a link must not show what it points at.
    """
    lines: list[dict[str, Any]] = []
    if problem.line:
        try:
            text = read_content_file(root / content_dir, root / problem.path).decode("utf-8").split("\n")
        except (ValueError, OSError):  # refused, gone, or not UTF-8 (UnicodeDecodeError is a ValueError)
            text = []
        first, last = max(1, problem.line - CONTEXT_LINES), min(len(text), problem.line + CONTEXT_LINES)
        lines = [{"line": n, "text": text[n - 1], "here": n == problem.line,
                  "column": _column(str(problem.message), text[n - 1]) if n == problem.line else None}
                 for n in range(first, last + 1)]
    return {"path": problem.path, "line": problem.line, "message": localize(problem.message, language),
            "text": problem.localized(language), "context": lines}


def _column(message: str, text: str) -> tuple[int, int] | None:
    """Where on its line the problem is: the first name the message quotes ('…') that the line holds."""
    for quoted in re.findall(r"'([^'\s][^']*)'", message):
        if (at := text.find(quoted)) >= 0:
            return at, at + len(quoted)
    return None


def terminal_report(reports: list[dict[str, Any]], crash: str) -> str:
    """The same problems for the terminal, the offending line and column marked; a crash's trace below
    them (folded: indented) when it belongs to a problem, as a code error's does."""
    out = []
    for report in reports:
        out.append(report["text"])
        for c in report["context"]:
            out.append(f"  {'>' if c['here'] else ' '} {c['line']:4d} | {c['text']}")
            if c["column"]:
                start, end = c["column"]
                out.append(" " * (11 + width(c["text"][:start])) + "^" * max(1, width(c["text"][start:end])))
    if crash:
        out.append(textwrap.indent(crash.rstrip(), "    | ") if reports else crash.rstrip())
    return "\n".join(out)


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


class DevServer:
    """Builds one site, serves it, and rebuilds it on every save. Mutable: it is the running server."""

    def __init__(self, engine: Engine, evidence: EvidenceSource, watch: Collection[Path],
                 host: str = "127.0.0.1", port: int = 8000, log: Callable[[str], None] | None = None,
                 httpd: http.server.ThreadingHTTPServer | None = None) -> None:
        """``httpd``: a socket already bound with ``listen`` (then ``host`` and ``port`` are taken from it)."""
        self.engine, self.evidence_source, self.host, self.port = engine, evidence, host, port
        self.out_dir = engine.outputs[0].folder
        """The folder served: the engine's (one) output."""
        if httpd is not None:
            self.host, self.port = str(httpd.server_address[0]), int(httpd.server_address[1])
        self.watch_paths = tuple(p for p in watch if p.exists())
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.build_id = 0
        self.failure: dict[str, Any] | None = None
        self.warned: dict[str, Any] = {"problems": []}
        """The last build's warnings as the overlay shows them (a page's tab gets them when it connects)."""
        self._evidence: Evidence | None = None
        self._sooner = False
        """Whether ``_evidence`` came from ``sooner`` (then a translation missing from it is still being drawn)."""
        self.drawing: tuple[str, ...] = ()
        """The translations left out of the site while their figures are drawn (the handler says so for them)."""
        self._drawn: Future[Evidence] | None = None
        """The background ``load`` while a translation is being drawn."""
        self._lock = threading.Lock()
        self._building = threading.Lock()
        """One build at a time: the engine is not thread-safe, and a caller may ask while the watcher builds."""
        self._collector: threading.Timer | None = None
        self._clients: list[queue.Queue[tuple[str, dict] | None]] = []
        self._stop = threading.Event()
        self._watching = threading.Event()
        self._httpd = httpd
        self._threads: list[threading.Thread] = []
        self._pages_read: PagesRead = {}
        """The pages as the last build read them: a save reads the page saved and only stats the others."""

    @property
    def language(self) -> str:
        """The course's language (site.yml is read each time: a teacher may change it while serving)."""
        return course_language(self.engine.root, self.engine.content_dir)

    def say(self, text: str) -> str:
        return localize(text, self.language)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Bind the port (``PortBusy`` before anything is built or written), build once (a failure is
        reported, not raised), then serve and watch in background threads."""
        if self._httpd is None:
            self._httpd = listen(self.host, self.port)
        self._httpd.RequestHandlerClass = handler(self)
        self.port = self._httpd.server_address[1]
        self.rebuild(())
        self._threads = [threading.Thread(target=self._httpd.serve_forever, args=(0.1,), name="devserver-http",
                                          daemon=True),
                         threading.Thread(target=self._watch, name="devserver-watch", daemon=True)]
        for thread in self._threads:
            thread.start()
        self._watching.wait(timeout=10)

    def stop(self) -> None:
        self._stop.set()
        self._stop_drawing()
        if self._collector is not None:
            self._collector.cancel()
        with self._lock:
            for client in self._clients:
                client.put(None)
        if self._httpd is not None:
            if self._threads:  # shutdown() waits for serve_forever, which only runs once started
                self._httpd.shutdown()
            self._httpd.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def serve_forever(self) -> None:
        """Run until Ctrl-C (also during the first build)."""
        try:
            self.start()
            self.log(self.say(_("serving {folder} at {url} (Ctrl-C to stop)", folder=self.out_dir, url=self.url)))
            self._stop.wait()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def rebuild(self, changed: Collection[Path]) -> None:
        """Bring the site up to date with the files on disk; report the outcome to terminal and browsers."""
        with self._building:
            self._rebuild(changed)

    def _rebuild(self, changed: Collection[Path]) -> None:
        if any(path.is_relative_to(root) for path in changed for root in self.evidence_source.inputs):
            self._evidence = None  # stale until a load succeeds, so the next save retries it
            self._stop_drawing()
        added = False
        try:
            if self._drawn is not None and self._drawn.done():  # every translation's figures are drawn now
                drawn, self._drawn, self._evidence, self.drawing = self._drawn, None, None, ()
                self._evidence, self._sooner = drawn.result(), False  # its failure: retried at the next save
                added = True
            if self._evidence is None:
                sooner = self.evidence_source.sooner
                self._evidence, self._sooner = (sooner or self.evidence_source.load)(), sooner is not None
            report = self.engine.build(self._evidence, self._loaded())
            finish = self.engine.outputs[0].finish
            if added and finish and report.prepared is not None:  # the added editions' search, in place
                finish(report.prepared)(self.out_dir)
        except ContentError as error:
            self._failed(self._reports(error.problems), error.trace)
        except WriteFailed as failed:  # a full disk …: one line, as the command line says it
            said = self.say(failed.args[0])
            self._failed([{"path": "", "line": 0, "message": said, "text": said, "context": []}], "")
        except Exception:  # a bug, not a teacher's mistake: keep its traceback, keep serving
            self._failed([], traceback.format_exc())
        else:
            self._succeeded(report)
        if self.drawing and self._drawn is None and not self.stopping:
            self._draw_later()
        self._collect_later()

    def _loaded(self) -> tuple[Content | None, list[Problem]]:
        """The content to build, without the translations whose figures are still being drawn (``drawing``):
        the source language's pages are served first, never a translation with figures not its own."""
        content, problems = load_content(self.engine.root, self.engine.content_dir, self._pages_read)
        self.drawing = tuple(tag for tag in content.config.translations if tag not in self._evidence.editions) \
            if content is not None and self._sooner else ()
        if self.drawing:
            content = replace(content, editions=tuple(e for e in content.editions
                                                      if e.config.language not in self.drawing))
        return content, problems

    def _draw_later(self) -> None:
        """Measure and draw everything in the background (the watch loop builds with it once it is done); said
        once in the terminal."""
        self.log(self.say(_("drawing the figures of {languages}: those editions are served once they are drawn",
                            languages=", ".join(self.drawing))))
        drawn: Future[Evidence] = Future()

        def run() -> None:
            try:
                drawn.set_result(self.evidence_source.load())
            except BaseException as error:  # noqa: BLE001 (handed to the build that adopts it)
                drawn.set_exception(error)

        self._drawn = drawn
        threading.Thread(target=run, name="devserver-draw", daemon=True).start()

    def _stop_drawing(self) -> None:
        """Forget the background drawing and end its process (the server stops, or its result would be stale)."""
        self._drawn = None
        self.drawing = ()
        self.evidence_source.stop()

    def _collect_later(self) -> None:
        """A full garbage collection walks every cached page's tokens (≈ 0.1 s at 1000 pages). Left to
        itself, Python runs one inside a save's build every few saves; run it a second after a build
        instead, when the browsers have fetched the new pages, so it rarely meets a build."""
        if self._collector is not None:
            self._collector.cancel()
        self._collector = threading.Timer(1.0, gc.collect)
        self._collector.daemon = True
        self._collector.start()

    def _succeeded(self, report: BuildReport) -> None:
        was_failing = self.failure is not None
        with self._lock:
            self.failure = None
            if report.prepared is not None:  # else nothing changed, nor did the warnings
                self.warned = self._warnings_report(report.warnings)
            self.build_id += 1
            urls = ["/" + url for url in report.changed_urls]
            self._broadcast("reload", {"build": self.build_id, "urls": urls})
        for warning in report.warnings if (self.build_id == 1 or report.changed_files) else ():
            self.log(warning.localized(self.language))
        if self.build_id == 1 or report.changed_files or was_failing:
            changed = ", ".join(report.changed_urls[:4]) + (" …" if len(report.changed_urls) > 4 else "")
            pages, ms = len(report.prepared.pages), f"{report.seconds * 1000:.0f}"
            self.log(self.say(_("built {pages} pages in {ms} ms", pages=pages, ms=ms)
                              + (_(" (rendered {n})", n=len(report.rendered)) if self.build_id > 1 else "")
                              + (_("; reload {urls}", urls=changed) if self.build_id > 1 and changed else "")
                              + (_("; problems fixed") if was_failing else "")))

    def _reports(self, problems: tuple[Problem, ...]) -> list[dict[str, Any]]:
        language = self.language
        return [problem_report(p, self.engine.root, self.engine.content_dir, language) for p in problems]

    def _warnings_report(self, warnings: tuple[Problem, ...]) -> dict[str, Any]:
        return {"problems": self._reports(warnings),
                "labels": {"count": self.say(_("{n} warning(s): the site built; look at these before publishing",
                                               n=len(warnings))), "hide": self.say(_("Hide"))}}

    def _failed(self, reports: list[dict[str, Any]], crash: str) -> None:
        failure = {"build": self.build_id, "problems": reports, "traceback": crash,
                   "labels": {"failed": self.say(_("Build failed")),
                              "count": self.say(_("Build failed: {n} problem(s)", n=len(reports))),
                              "crashed": self.say(_("The build program crashed")),
                              "note": self.say(_("Below is the last page that built; this disappears when a "
                                                 "save fixes the problems.")),
                              "hide": self.say(_("Hide")),
                              "trace": self.say(_("Where in the code (the trace)"))}}
        with self._lock:
            self.failure = failure
            self._broadcast("build-error", failure)
        count = _("{n} problem(s)", n=len(reports)) if reports else _("the build crashed")
        self.log(f"{terminal_report(reports, crash)}\n"
                 + self.say(count + _("; still serving the last good site")))

    def _broadcast(self, event: str, data: dict[str, Any]) -> None:
        for client in self._clients:
            client.put((event, data))

    def subscribe(self) -> queue.Queue[tuple[str, dict] | None]:
        """A queue of events for one browser tab; it first gets the current state."""
        client: queue.Queue[tuple[str, dict] | None] = queue.Queue()
        with self._lock:
            client.put(("hello", {"build": self.build_id, "failing": self.failure is not None,
                                  "warnings": self.warned}))
            if self.failure is not None:
                client.put(("build-error", self.failure))
            self._clients.append(client)
        return client

    def unsubscribe(self, client: queue.Queue) -> None:
        with self._lock:
            if client in self._clients:
                self._clients.remove(client)

    def _watch(self) -> None:
        import watchfiles

        # yield_on_timeout: the first (empty) batch tells start() that the watcher is live. step: watchfiles polls,
        # and reports a change once a step passes without another: about 10 ms after a save at 5 ms, 13–20 at 10
        # (measured). A save that an editor writes in two bursts further apart is built twice, the second time
        # complete; an idle server uses 1.3 % of a core at 5 ms, 0.8 % at 10.
        for changes in watchfiles.watch(*self.watch_paths, debounce=100, step=5, stop_event=self._stop,
                                        rust_timeout=100, yield_on_timeout=True, raise_interrupt=False):
            self._watching.set()
            if changes or (self._drawn is not None and self._drawn.done()):
                self.rebuild({Path(path) for _, path in changes})
