"""``python build.py new experiment <id>``: an experiment module from a skeleton, registered in ``EXPERIMENTS``.

``runner.EXPERIMENTS`` is the one place experiments are registered. The new
entry is inserted into the text of runner.py (an import line and one dict
entry), then the file is parsed again; if the dict does not end with the new
name, nothing is written.
"""

from __future__ import annotations

import ast
import keyword
import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SKELETON = PACKAGE_DIR / "skeletons" / "experiment.py.txt"
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_DICT = re.compile(r"^EXPERIMENTS\b[^=\n]*=\s*\{\n(?P<body>.*?)^\}", re.MULTILINE | re.DOTALL)


def _(msgid: str, /, **params: object) -> str:
    """A message for the teacher, in the course's language when the site builder's catalogs are at hand
    (``build.py new experiment``); lessonmodel itself stays free of the site builder."""
    try:
        from site_builder.i18n import Text
    except ImportError:
        return msgid.format(**params)
    return Text(msgid, **params)


def new_experiment(experiment_id: str, package_dir: Path = PACKAGE_DIR) -> Path:
    """Write ``<package>/<id>.py`` and register it; return the module's path. ``ValueError`` for a bad id."""
    if not _ID.match(experiment_id) or keyword.iskeyword(experiment_id):
        raise ValueError(_("'{id}' is not a valid experiment id: use lowercase letters, digits and '_', "
                           "starting with a letter (e.g. 'attention_span'); pages cite its values as "
                           "'<id>.<key>'", id=experiment_id))
    module = package_dir / f"{experiment_id}.py"
    runner = package_dir / "runner.py"
    text = runner.read_text(encoding="utf-8")
    if module.exists() or experiment_id in registered(text):
        raise ValueError(_("experiment '{id}' already exists: choose another id", id=experiment_id))
    registered_text = register(text, experiment_id)
    if registered(registered_text)[-1:] != [experiment_id]:
        raise ValueError(_("could not register '{id}' in {file} automatically: add '\"{id}\": {id}.{id},' to "
                           "EXPERIMENTS by hand", id=experiment_id, file=runner.name))
    module.write_text(SKELETON.read_text(encoding="utf-8").format(id=experiment_id), encoding="utf-8")
    runner.write_text(registered_text, encoding="utf-8")
    return module


def register(runner_text: str, experiment_id: str) -> str:
    """runner.py's text with an import of the new module and its entry at the end of ``EXPERIMENTS``."""
    found = _DICT.search(runner_text)
    if found is None:
        return runner_text
    entry = f'    "{experiment_id}": {experiment_id}.{experiment_id},\n'
    text = runner_text[:found.end("body")] + entry + runner_text[found.end("body"):]
    return add_import(text, "lessonmodel", experiment_id)


def registered(runner_text: str) -> list[str]:
    """The names in ``EXPERIMENTS``, in order, read from runner.py's text."""
    for node in ast.parse(runner_text).body:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign)
                                                                       else None)
        if isinstance(target, ast.Name) and target.id == "EXPERIMENTS" and isinstance(node.value, ast.Dict):
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return []


def add_import(text: str, package: str, name: str) -> str:
    """``from <package> import a, b`` with ``name`` added in order (or a new import line after the others)."""
    line = re.search(rf"^from {package} import ([\w, ]+)$", text, re.MULTILINE)
    if line is not None:
        names = sorted({*(n.strip() for n in line.group(1).split(",")), name})
        return text[:line.start(1)] + ", ".join(names) + text[line.end(1):]
    at = text.find("\nfrom ") + 1
    return text[:at] + f"from {package} import {name}\n" + text[at:]
