"""Names a scaffold may give a new lesson, figure or experiment: short, and never a Python module's."""

from __future__ import annotations

import importlib.util
import sys

from site_builder.vocabulary.i18n import _

MAX_ID_LENGTH = 60
"""Longest id a scaffold accepts: ids become file names, URLs and value names that people type."""
GENERATED_PAGES = frozenset({"figures", "sources", "numbers", "glossary", "gallery", "404"})
"""The pages the site makes from the whole course (``<name>.html``): no page of the course may take their names."""


def id_problem(new_id: str, module: str | None = None) -> str:
    """Why ``new_id`` cannot be used ('' if it can): over ``MAX_ID_LENGTH``, or — for an id that becomes the
    Python module ``module`` — the name of a module of the standard library or of an installed package
    (``import os`` would then find the new file, or the new file the other module, and every build break)."""
    if len(new_id) > MAX_ID_LENGTH:
        return _("the id is {n} characters long: keep it to {limit} at most", n=len(new_id), limit=MAX_ID_LENGTH)
    if module and (module in sys.stdlib_module_names or module in sys.builtin_module_names
                   or _installed(module)):
        return _("'{id}' is the name of a Python module already ({module}): choose another id, e.g. '{id}_demo'",
                 id=new_id, module=module)
    return ""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
