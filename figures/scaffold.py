"""``python build.py new figure <id> [--from EXPERIMENT]``: a figure module from a skeleton.

The module defines ``FIGURES``, so ``registry.FIGURES`` finds it by itself: no
Python source is edited to register it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.names import id_problem

PACKAGE_DIR = Path(__file__).resolve().parent
SKELETONS = PACKAGE_DIR / "skeletons"
_ID = re.compile(r"^[a-z][a-z0-9-]*$")


def new_figure(figure_id: str, inputs: tuple[str, ...] = (), package_dir: Path = PACKAGE_DIR,
               known: Collection[str] = (), catalog: str = "zh_CN") -> Path:
    """Write ``<package>/<module>.py`` for figure ``figure_id``; return the module's path.

    With ``inputs`` (experiment names) the figure is measured and draws their
    values; without, it is a teaching sketch. ``known``: figure ids already in
    use. ``catalog``: the course's message catalog (``en``), whose skeleton speaks its language
    (``<kind>.<catalog>.py.txt``; the plain one is Chinese). ``ValueError`` with a message for a bad or
    taken id, and then nothing is written.
    """
    if not _ID.match(figure_id):
        raise ValueError(_("'{id}' is not a valid figure id: use lowercase letters, digits and '-', "
                           "starting with a letter (e.g. 'attention-span')", id=figure_id))
    if figure_id in known:
        raise ValueError(_("figure '{id}' already exists: choose another id", id=figure_id))
    name = figure_id.replace("-", "_")
    if taken := id_problem(figure_id, name):
        raise ValueError(taken)
    module = package_dir / f"{name}.py"
    if module.exists():
        raise ValueError(_("{path} already exists: choose another id", path=f"figures/{name}.py"))
    kind = "measured" if inputs else "teaching"
    skeleton = SKELETONS / f"{kind}.{catalog}.py.txt"
    skeleton = skeleton if skeleton.is_file() else SKELETONS / f"{kind}.py.txt"
    write_atomic(module, skeleton.read_text(encoding="utf-8").format(id=figure_id,
                                                                     experiment=inputs[0] if inputs else ""))
    return module
