"""``python build.py new experiment <id>``: an experiment module from a skeleton.

The skeleton's function carries ``@experiment``, so ``runner.EXPERIMENTS`` finds
the new module by itself: no Python source is edited to register it.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SKELETON = PACKAGE_DIR / "skeletons" / "experiment.py.txt"
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def _(msgid: str, /, **params: object) -> str:
    """A message for the teacher, in the course's language when the site builder's catalogs are at hand
    (``build.py new experiment``); lessonmodel itself stays free of the site builder."""
    try:
        from site_builder.vocabulary.i18n import Text
    except ImportError:
        return msgid.format(**params)
    return Text(msgid, **params)


def _id_problem(experiment_id: str) -> str:
    """Why the id cannot name a module (too long, or a Python module's name), by the site builder's rule
    when it is at hand; lessonmodel on its own checks the form only."""
    try:
        from site_builder.vocabulary.names import id_problem
    except ImportError:
        return ""
    return id_problem(experiment_id, experiment_id)


def new_experiment(experiment_id: str, package_dir: Path = PACKAGE_DIR) -> Path:
    """Write ``<package>/<id>.py``; return its path. ``ValueError`` for a bad id or one already in use (a
    module or a name in ``runner.EXPERIMENTS``), and then nothing is written."""
    if not _ID.match(experiment_id) or keyword.iskeyword(experiment_id):
        raise ValueError(_("'{id}' is not a valid experiment id: use lowercase letters, digits and '_', "
                           "starting with a letter (e.g. 'attention_span'); pages cite its values as "
                           "'<id>.<key>'", id=experiment_id))
    from lessonmodel.runner import EXPERIMENTS, write_atomically

    if taken := _id_problem(experiment_id):
        raise ValueError(taken)
    module = package_dir / f"{experiment_id}.py"
    if module.exists() or experiment_id in EXPERIMENTS:
        raise ValueError(_("experiment '{id}' already exists: choose another id", id=experiment_id))
    write_atomically(module, SKELETON.read_text(encoding="utf-8").format(id=experiment_id))
    return module
