"""``python build.py new figure <id> [--from EXPERIMENT]``: a figure module from a skeleton, registered.

``registry.MODULES`` is the one place figure modules are registered. The new
module is added to the text of registry.py (an import line and one tuple
entry), then the file is parsed again; if ``MODULES`` does not end with the new
module, nothing is written.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from lessonmodel.scaffold import add_import  # the same edit of a `from package import …` line
from site_builder.i18n import _

PACKAGE_DIR = Path(__file__).resolve().parent
SKELETONS = PACKAGE_DIR / "skeletons"
_ID = re.compile(r"^[a-z][a-z0-9-]*$")
_MODULES = re.compile(r"^MODULES\s*=\s*\((?P<items>[^)]*?)(?P<end>,?\s*)\)", re.MULTILINE)


def new_figure(figure_id: str, inputs: tuple[str, ...] = (), package_dir: Path = PACKAGE_DIR,
               known: tuple[str, ...] = (), catalog: str = "zh_CN") -> Path:
    """Write ``<package>/<module>.py`` for figure ``figure_id`` and register it; return the module's path.

    With ``inputs`` (experiment names) the figure is measured and draws their
    values; without, it is a teaching sketch. ``known``: figure ids already in
    use. ``catalog``: the course's message catalog (``en``), whose skeleton speaks its language
    (``<kind>.<catalog>.py.txt``; the plain one is Chinese). ``ValueError`` with a message for a bad or taken id.
    """
    if not _ID.match(figure_id):
        raise ValueError(_("'{id}' is not a valid figure id: use lowercase letters, digits and '-', "
                           "starting with a letter (e.g. 'attention-span')", id=figure_id))
    name = figure_id.replace("-", "_")
    module = package_dir / f"{name}.py"
    registry = package_dir / "registry.py"
    text = registry.read_text(encoding="utf-8")
    if figure_id in known:
        raise ValueError(_("figure '{id}' already exists: choose another id", id=figure_id))
    if module.exists() or name in registered(text):
        raise ValueError(_("{path} already exists: choose another id", path=f"figures/{name}.py"))
    registered_text = register(text, name)
    if registered(registered_text)[-1:] != [name]:
        raise ValueError(_("could not register {path} in {file} automatically: import it and add it to MODULES "
                           "by hand", path=f"figures/{name}.py", file=registry.name))
    kind = "measured" if inputs else "teaching"
    skeleton_file = SKELETONS / f"{kind}.{catalog}.py.txt"
    skeleton = (skeleton_file if skeleton_file.is_file() else SKELETONS / f"{kind}.py.txt").read_text(encoding="utf-8")
    module.write_text(skeleton.format(id=figure_id, experiment=inputs[0] if inputs else ""), encoding="utf-8")
    registry.write_text(registered_text, encoding="utf-8")
    return module


def register(registry_text: str, module: str) -> str:
    """registry.py's text with ``from figures import <module>`` and ``<module>`` at the end of ``MODULES``."""
    found = _MODULES.search(registry_text)
    if found is None:
        return registry_text
    at = found.start("items") + len(found.group("items").rstrip())
    text = registry_text[:at] + f", {module}" + registry_text[at:]
    return add_import(text, "figures", module)


def registered(registry_text: str) -> list[str]:
    """The module names in ``MODULES``, in order, read from registry.py's text."""
    for node in ast.parse(registry_text).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MODULES" for t in node.targets) \
                and isinstance(node.value, ast.Tuple):
            return [e.id for e in node.value.elts if isinstance(e, ast.Name)]
    return []
