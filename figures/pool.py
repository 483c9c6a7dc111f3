"""Drawing many figures at once, one process per core, that a Ctrl-C stops at once.

A clean build draws every figure in every language (46 today, each light and dark, and for ``build.py check``
its baseline PNG too); they are independent, so ``Drawers`` hands them to worker processes. What keeps that safe:

- The workers are forked by multiprocessing's fork server: a fresh, single-threaded process that imports
  matplotlib once (``PRELOAD``) and forks each worker from itself. No worker is forked from the calling process,
  which may run threads (the dev server's, a progress timer), and none pays matplotlib's import again.
- The workers ignore SIGINT. A terminal's Ctrl-C reaches every process of the foreground group; only the caller
  acts on it: its ``KeyboardInterrupt`` leaves ``Drawers``, which terminates the workers without waiting for the
  figures they are drawing, and the command ends with its one line.
- A worker that fails to draw a figure, or dies, is never replaced: that figure, and whatever is left when no
  worker is, is drawn by the caller, so that an error is raised here with its own traceback (the build names the
  figure's file and line from it). (multiprocessing.Pool would start a new worker for each one that dies at
  start, for ever: a script that calls this unguarded by ``if __name__ == "__main__"`` is imported again by each
  worker, as multiprocessing does, and its workers die at start.)

A figure drawn by a worker is byte-identical to one drawn here: the same code under the same rcParams
(``figures.runner.drawn_figure``), with a fixed SVG hash salt.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

from figures.runner import draw_variants

Job = tuple[Any, ...]
"""One figure to draw: the drawing function's arguments (``draw_variants``': the figure, its data, the language it
is drawn in and whether its baseline PNG is saved too)."""
PARALLEL_FROM = 4
"""Fewer figures than this are drawn here: starting the workers costs about what drawing two does."""
PRELOAD = ["matplotlib.figure", "matplotlib.backends.backend_agg", "matplotlib.backends.backend_svg",
           "matplotlib.text", "matplotlib.patches", "figures.registry"]
"""Imported once by the fork server, before it forks the workers (the registry imports every drawing module)."""


def _work(connection: Any, draw: Callable[..., Any]) -> None:
    """A worker: draw each job it is sent, answer ``draw``'s result or ``None`` if drawing failed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):  # the caller is done, or gone
            return
        try:
            drawn = draw(*job)
        except Exception:  # noqa: BLE001 (any failure: the caller's own drawing raises it with its traceback)
            drawn = None
        try:
            connection.send(drawn)
        except OSError:  # the caller is gone (interrupted): an uncaught error would print "Process …:" under its line
            return


class Drawers:
    """``with Drawers() as drawers: drawers.draw(jobs)``: the workers start at the first ``draw`` with enough
    figures and are terminated when the block ends, however it ends. Mutable: it owns the workers.

    Each job is drawn by ``draw`` (a module-level function: the workers receive it by name), by default
    ``draw_variants``; ``figures.baseline.draw_png`` draws the baseline PNG alone."""

    def __init__(self, workers: int | None = None, draw: Callable[..., Any] = draw_variants) -> None:
        self.workers = workers or len(os.sched_getaffinity(0))
        self._draw = draw
        self._started: list[tuple[Any, Any]] = []
        """(process, the caller's end of its pipe) of each worker started."""

    def __enter__(self) -> Drawers:
        return self

    def __exit__(self, *exc: object) -> None:
        for process, connection in self._started:  # done or interrupted: nothing left to wait for
            process.terminate()  # before its pipe closes, so that it does not wake to a closed pipe
            connection.close()
        for process, _connection in self._started:
            process.join()
        self._started = []

    def draw(self, jobs: list[Job]) -> Iterator[tuple]:
        """``draw``'s result for every job, in order, each as soon as it and those before it are drawn."""
        if self.workers < 2 or len(jobs) < PARALLEL_FROM:
            yield from (self._draw(*job) for job in jobs)
            return
        from multiprocessing.connection import wait

        idle = self._start(min(self.workers, len(jobs)))
        waiting = list(range(len(jobs)))  # not handed out yet, in order
        busy: dict[Any, int] = {}  # a worker's connection → the job it draws
        done: dict[int, tuple | None] = {}
        for n in range(len(jobs)):
            while n not in done:
                while idle and waiting:  # one job each, the next as each answers
                    connection, index = idle.pop(), waiting.pop(0)
                    try:
                        connection.send(jobs[index])
                    except OSError:  # the worker died while idle
                        waiting.insert(0, index)
                        continue
                    busy[connection] = index
                if not busy:  # no worker left: the next figure is drawn here
                    done[waiting.pop(0)] = None
                    continue
                for connection in wait(list(busy)):
                    index = busy.pop(connection)
                    try:
                        done[index] = connection.recv()
                        idle.append(connection)
                    except EOFError:  # the worker died: its figure is drawn here
                        done[index] = None
            drawn = done.pop(n)
            yield drawn if drawn is not None else self._draw(*jobs[n])

    def _start(self, count: int) -> list[Any]:
        context = _context()
        for _n in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs, self._draw), daemon=True)
            process.start()
            theirs.close()
            self._started.append((process, mine))
        return [connection for _process, connection in self._started[-count:]]


def _context() -> Any:
    """multiprocessing's fork server, preloading matplotlib and the drawing modules (``PRELOAD``)."""
    import multiprocessing

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def asked_where_drawn(question: Callable[..., Any], *args: Any) -> Any:
    """``question(*args)`` answered in a process of the fork server the figures are drawn from, which has matplotlib
    imported: a caller that asks matplotlib one thing (is a font installed?) and draws nothing itself does not
    import it (about a second). ``question`` must be a module-level function, ``args`` and its answer picklable."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, _context(), signal.signal, (signal.SIGINT, signal.SIG_IGN)) as asked:
        return asked.submit(question, *args).result()
