"""d2l (d2lbook) Markdown: each of its constructs is a ``path:line`` error naming the conversion to make.

d2lbook writes roles as ``:name:`target``` (``:label:``, ``:eqref:``, ``:numref:``, ``:cite:``…) and keeps
one code block per framework (``#@tab pytorch``, ``:begin_tab:`pytorch```). CommonMark reads them as text
and code, so without this check a page would publish them literally, with all four frameworks one after
another. ``python build.py import PATH`` makes these conversions (site_builder/serve/importer.py).
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem

_ROLE = re.compile(r":([a-z_]+):$")
_TAB_LINE = re.compile(r"^\s*(?:#\s*@tab|%%tab)\b\s*(.*)$")
CONVERSIONS = {
    "label": lambda t: _("write '({target})=' on the line before the heading or picture it labels", target=t),
    "eqlabel": lambda t: _("write the formula as '$$ … $$ ({target})'", target=t),
    "eqref": lambda t: _("write {{eq}}`{target}`", target=t),
    "numref": lambda t: _("write {{numref}}`{target}`", target=t),
    "ref": lambda t: _("write {{ref}}`{target}`", target=t),
    "cite": lambda t: _("write {{cite}}`{target}` and put its BibTeX entry in content/references.bib", target=t),
    "width": lambda t: _("write the picture as a ```{{figure}} with ':width: {target}'", target=t),
    "begin_tab": lambda t: _("keep one framework's text and delete the ':begin_tab:' and ':end_tab:' lines"),
    "end_tab": lambda t: _("keep one framework's text and delete the ':begin_tab:' and ':end_tab:' lines"),
}
"""Each d2l role → what to write instead, given the role's target."""


def d2l_problems(tokens: list[Token], path: str) -> list[Problem]:
    """Each d2l role and d2l code block among ``tokens``, with the conversion to make."""
    found = []
    for token in tokens:
        if token.type == "fence" and token.map and (written := d2l_code(token.info, token.content)):
            found.append(Problem(path, token.map[0] + 1, _(
                "d2l code block '{written}': keep one framework's code in a ```python block (without its '@tab' "
                "line); python build.py import converts the page", written=written)))
        elif token.type == "inline":
            found += _roles(token.children or [], path)
    return found


def d2l_code(info: str, content: str) -> str:
    """How a d2l code block announces itself (``{.python .input}``, ``#@tab pytorch``), or ``''`` for ordinary
    code."""
    first = content.split("\n", 1)[0]
    if _TAB_LINE.match(first):
        return first.strip()
    return info.strip() if info.strip().startswith("{.") else ""


def _roles(children: list[Token], path: str) -> list[Problem]:
    found = []
    for text, code in zip(children, [*children[1:], None], strict=False):  # each child and the one after it
        role = _ROLE.search(text.content) if text.type == "text" else None
        if role is None or role.group(1) not in CONVERSIONS:
            continue
        if code is not None and code.type == "code_inline":
            name, target = role.group(1), code.content
        elif role.group(1) == "end_tab":  # the one d2l role without a target
            name, target = "end_tab", ""
        else:
            continue
        written = f":{name}:`{target}`" if target else f":{name}:"
        found.append(Problem(path, text.meta.get("line", 0), _(
            "d2l's '{written}' is published as text here: ", written=written) + CONVERSIONS[name](target)))
    return found
