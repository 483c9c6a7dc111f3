"""One way to run the tools: ``python build.py …`` from any Python runs under the project's ``.venv``.

build.py calls :func:`run_under_venv` before it imports anything outside the standard library, so this
module uses the standard library only: the Python that starts it may have none of the pinned packages.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

from site_builder.vocabulary.po import read_po

NEEDED = ("jinja2", "markdown_it", "numpy", "matplotlib", "yaml", "babel")
"""Import names of the packages a build cannot start without (requirements.txt pins them)."""

REEXECUTED = "VERIFIED_LESSONS_REEXEC"
"""Set in the re-executed process: a ``.venv`` whose Python runs elsewhere cannot loop."""


def run_under_venv(root: Path, script: Path, argv: list[str]) -> None:
    """Replace this process by ``.venv``'s Python running the same command, when ``.venv`` exists and this
    is not it; without ``.venv``, carry on if this Python has the packages, else say in one line how to
    make it and exit 1."""
    venv = root / ".venv"
    python = venv / "bin" / "python"
    if (venv.exists() and Path(sys.prefix).resolve() == venv.resolve()) or os.environ.get(REEXECUTED):
        return
    if python.is_file():
        os.environ[REEXECUTED] = "1"
        os.execv(python, [str(python), str(script), *argv])
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(_say_missing(root, sys.executable, missing), file=sys.stderr)
        sys.exit(1)


def _(msgid: str, /, **params: str) -> tuple[str, dict[str, str]]:
    """The catalogs' marker (the extractor looks for ``_(``), without i18n's Text: it needs markupsafe."""
    return msgid, params


def _say_missing(root: Path, python: str, missing: list[str]) -> str:
    """The one line, in the course's language, read without the packages it says are missing."""
    msgid, params = _("{python} has no {names} and there is no .venv/ here: create it with 'make setup' "
                      "(or: python3 -m venv .venv && .venv/bin/pip install -r requirements.txt), then run "
                      "the same command again", python=python, names=", ".join(missing))
    language = re.search(r"^language:\s*(\S+)", _read(root / "content" / "site.yml"), re.MULTILINE)
    if language is not None and language.group(1).startswith("zh"):
        msgid = read_po(_read(Path(__file__).parents[1] / "locales" / "zh_CN" / "LC_MESSAGES" / "messages.po"))[0] \
            .get(msgid, msgid)
    return msgid.format(**params)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
