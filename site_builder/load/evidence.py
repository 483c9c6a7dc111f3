"""Evidence from plain data: what lessonmodel measured, the records, the drawn figures → ``Evidence``.

``build.py`` runs the model and draws the figures and hands their results here as the dicts those
packages return; this module never imports them. The dev server measures in a fresh process (after a
teacher edits the model's code only a new interpreter runs it): ``answer`` is that process's side of
the exchange, ``in_fresh_process`` the server's; the evidence crosses as JSON.
"""

from __future__ import annotations

import functools
import json
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from site_builder.load.content import Evidence, FigureInfo, FigureMark, Value
from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.numbers import format_number
from site_builder.vocabulary.problems import ContentError, Problem
from site_builder.vocabulary.urls import check_html

NOTEBOOK_SETUP = """\
# Run in the folder of the lesson's download (or anywhere in the course repository): import lessonmodel from
# the nearest folder that holds it.
import pathlib
import sys

root = next((p for p in (pathlib.Path.cwd(), *pathlib.Path.cwd().parents) if (p / "lessonmodel").is_dir()), None)
if root is None:
    raise FileNotFoundError(SAID["no_model"])
sys.path.insert(0, str(root))
from lessonmodel.runner import compute_experiment


def measure(experiment):
    \"\"\"Run one experiment of lessonmodel now; its values by key.\"\"\"
    return {key: entry["value"] for key, entry in compute_experiment(experiment)["values"].items()}"""
"""The first code cell of each lesson's notebook: how to rerun the experiment behind a measured value."""
NOTEBOOK_IMPORTS = ("numpy",)
"""The packages lessonmodel imports beyond the standard library (a lesson's download pins them; its test runs
the notebook in an environment holding these alone)."""


def evidence_from(results: dict, records: dict[str, dict], figure_info: dict, figure_dir: Path, root: Path,
                  language: str) -> Evidence:
    """Model results, records (id → JSON) and drawn figures (id → file and metadata) as the site builder's
    ``Evidence``; texts made here are in ``language``, experiment sources are found under ``root``.
    The figures go into the site as they are, so they pass the pages' URL allowlist first."""
    drawings = [name for info in figure_info.values() for name in (info["file"], info.get("dark_file")) if name]
    for name in drawings:  # the dark variant is published too
        check_html(f"figures/{name}", (Path(figure_dir) / name).read_bytes(), images=True)
    values: dict[str, Value] = {}
    for name, experiment in results["experiments"].items():
        for key, entry in experiment["values"].items():
            values[f"{name}.{key}"] = Value(
                name=f"{name}.{key}", value=entry["value"], unit=entry.get("unit", ""),
                provenance=experiment.get("provenance", "measured"),
                producer=name, description=entry.get("description", ""), command=experiment["command"],
                source_file=experiment["source"], conditions=_config_line(experiment["config"]),
                value_class=entry.get("class", ""), rtol=entry.get("rtol", 0.0), atol=entry.get("atol", 0.0))
    # A record's rounding value is compared with the model's stated rounding tolerance unless it states its own.
    rounding = results.get("value_classes", {}).get("rounding", {})
    for record_id, record in records.items():
        conditions = localize(_("; "), language).join(str(record[k]) for k in ("machine", "conditions")
                                                      if record.get(k))
        for key, entry in record["values"].items():
            values[f"{record_id}.{key}"] = Value(
                name=f"{record_id}.{key}", value=entry["value"], unit=entry.get("unit", ""), provenance="record",
                producer=record_id, description=entry.get("description", ""), command=record.get("command") or "",
                conditions=conditions, date=str(record.get("date", "")), value_class=entry.get("class", ""),
                **({"rtol": entry.get("rtol", rounding.get("rtol", 0.0)),
                    "atol": entry.get("atol", rounding.get("atol", 0.0))} if entry.get("class") == "rounding" else {}))
    values = _with_tolerances(values, records, language)
    figures = {fid: FigureInfo(id=fid, file=info["file"], dark_file=info.get("dark_file", ""), alt=info["alt"],
                               description=info["description"],
                               provenance=info["provenance"], width=int(info["width"]), height=int(info["height"]),
                               inputs=tuple(info.get("inputs", ())), label=info.get("label", ""), marks=_marks(info),
                               texts=tuple(info.get("texts", ())), drawn_at=tuple(info.get("drawn_at", ("", 0))))
               for fid, info in figure_info.items()}
    sources = {e["source"] for e in results["experiments"].values()}
    return Evidence(values=values, figures=figures, figure_dir=str(figure_dir),
                    experiment_files={s: str(root / s) for s in sorted(sources) if (root / s).is_file()},
                    notebook_setup=NOTEBOOK_SETUP, notebook_files=_package_files(root, sources),
                    notebook_requirements=_pinned(root / "requirements.txt", NOTEBOOK_IMPORTS))


def _package_files(root: Path, sources: set[str]) -> dict[str, str]:
    """Every module of the packages the experiments live in (``lessonmodel/``): what the notebook imports."""
    packages = {Path(source).parts[0] for source in sources if len(Path(source).parts) > 1}
    return {path.relative_to(root).as_posix(): str(path) for package in sorted(packages)
            for path in sorted((root / package).glob("*.py"))}


def _pinned(requirements: Path, names: tuple[str, ...]) -> str:
    """The lines of the project's pinned ``requirements.txt`` that install ``names``."""
    lines = requirements.read_text(encoding="utf-8").splitlines() if requirements.is_file() else []
    return "".join(f"{line.strip()}\n" for line in lines
                   if re.split(r"[=<>!~\[; ]", line.strip(), maxsplit=1)[0].lower() in names)


def _marks(info: dict) -> tuple[FigureMark, ...]:
    """A figure's marks as fractions of its size (the SVG's user units are pt; its CSS size is in px)."""
    width, height = info["width"] * 0.75, info["height"] * 0.75
    return tuple(FigureMark(name, mark["label"], (mark["box"][0] / width, mark["box"][1] / height,
                                                  mark["box"][2] / width, mark["box"][3] / height))
                 for name, mark in info.get("marks", {}).items())


def _config_line(config: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in config.items() if isinstance(v, (str, int, float, bool)))


def _with_tolerances(values: dict[str, Value], records: dict[str, dict], language: str) -> dict[str, Value]:
    """Mark today's values that a record compares against, so the numbers page shows the rule."""
    for record_id, record in records.items():
        for rule in record.get("compare") or ():
            name = rule.get("with", "")
            if name in values and isinstance(rule.get("bound"), (int, float)):
                text = localize(_("{rule} {bound} (the comparison of record {record})", rule=rule.get("rule", ""),
                                  bound=format_number(rule["bound"], values[name].unit), record=record_id), language)
                values[name] = replace(values[name], tolerance=text)
    return values


# ------------------------------------------------- measuring in a fresh process --
def evidence_from_json(data: dict[str, Any]) -> Evidence:
    """``Evidence`` again from the JSON of its ``dataclasses.asdict`` (how a fresh process hands it to the server)."""
    return Evidence(values={k: Value(**v) for k, v in data["values"].items()},
                    figures={k: FigureInfo(**{**f, "inputs": tuple(f["inputs"]), "texts": tuple(f["texts"]),
                                              "drawn_at": tuple(f["drawn_at"]),
                                              "marks": tuple(FigureMark(m["name"], m["label"], tuple(m["box"]))
                                                             for m in f["marks"])})
                             for k, f in data["figures"].items()},
                    figure_dir=data["figure_dir"], experiment_files=data["experiment_files"],
                    notebook_setup=data.get("notebook_setup", ""), notebook_files=data.get("notebook_files", {}),
                    notebook_requirements=data.get("notebook_requirements", ""),
                    editions={tag: evidence_from_json(drawn) for tag, drawn in data.get("editions", {}).items()})


@contextmanager
def progress(label: str, after: float = 0.5, say: Callable[[str], str] = str) -> Iterator[None]:
    """Say on stderr that a step is running, but only once it has taken ``after`` seconds: quiet when fast.

    ``say`` puts the words in the course's language."""
    started = time.perf_counter()
    timer = threading.Timer(after, lambda: print(f"{say(label)} …", file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # if it is printing right now, let it finish first
        if timer.finished.is_set() and time.perf_counter() - started >= after:
            print(say(_("{label}: done in {seconds} s", label=label, seconds=f"{time.perf_counter() - started:.1f}")),
                  file=sys.stderr, flush=True)


def answer(measure: Callable[[Callable], Evidence], language: str) -> None:
    """The fresh process's side: print the evidence ``measure(progress)`` returns as one JSON document, or
    the teacher's problems (said in ``language``: only a plain string crosses) or a crash; exit 1 on failure.
    ``progress`` says a slow step on stderr, in ``language``. Stopped (Ctrl-C reaches the terminal's whole
    process group; the server terminates it when its drawing is no longer wanted), it ends quietly with status
    130, its drawing workers terminated: the server has said all there is to say."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C: the drawing pool is ended too
    try:
        evidence = measure(functools.partial(progress, say=lambda text: localize(text, language)))
    except KeyboardInterrupt:
        sys.exit(130)
    except ContentError as error:
        print(json.dumps({"problems": [[p.path, p.line, localize(p.message, language)] for p in error.problems],
                          "trace": error.trace}, ensure_ascii=False))
        sys.exit(1)
    except Exception:  # on stdout, not stderr: the server shows it once, in the terminal and the overlay
        print(json.dumps({"crash": traceback.format_exc()}, ensure_ascii=False))
        sys.exit(1)
    print(json.dumps(asdict(evidence), ensure_ascii=False))


def in_fresh_process(function: str, figure_dir: Path, cwd: Path, first: bool = False,
                     started: Callable[[subprocess.Popen], None] = lambda process: None) -> Evidence:
    """The evidence a new Python process measures and draws, calling ``function`` (``module.name``, run
    in ``cwd``; it calls ``answer``) with the folder to draw the figures in and ``first`` (a translation whose
    figures are not drawn yet is left out of the evidence's ``editions``); ``started`` gets the process (to
    terminate it when its evidence is no longer wanted).

    Its progress lines go to the terminal as they come; the teacher's problems are raised as
    ``ContentError``, a crash as ``RuntimeError`` with its traceback.
    """
    module = function.rpartition(".")[0]
    command = [sys.executable, "-c", f"import {module}; {function}({str(figure_dir)!r}, first={first!r})"]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               encoding="utf-8")
    started(process)
    said: list[str] = []

    def echo() -> None:
        for line in process.stderr:
            said.append(line)
            sys.stderr.write(line)

    echoing = threading.Thread(target=echo, daemon=True)
    echoing.start()
    out = process.stdout.read()
    process.wait()
    echoing.join()
    if process.returncode == 0:
        return evidence_from_json(json.loads(out))
    failure = json.loads(out) if out.strip().startswith("{") else {"crash": "".join(said[-60:])}
    if "problems" in failure:
        raise ContentError((Problem(path, line, message) for path, line, message in failure["problems"]),
                           trace=failure.get("trace", ""))
    raise RuntimeError("measuring and drawing failed in a fresh process:\n" + failure["crash"])
