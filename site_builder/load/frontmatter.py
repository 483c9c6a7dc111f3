"""Front matter: the YAML header of a page, typed and checked on load."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from site_builder.load.content import SourceFile
from site_builder.load.yamlnodes import load_located, not_text
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem, closest, invisible_characters, suggest

PAGE_KINDS = ("lesson", "article", "index")
FRONT_MATTER_KEYS = ("id", "title", "kind", "summary", "label")
MAX_STATES = 500
"""Most states one page may have: each is parsed, checked and rendered, in both sites."""
_STATE_LINE = re.compile(r"^ {0,3}:{3,}[ \t]*\{state\}", re.MULTILINE)
_PAGE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True)
class PageMeta:
    """A page's front matter after validation."""

    id: str
    """Page id: the file's stem unless front matter sets ``id``; the output is ``<id>.html``."""
    title: str
    kind: str
    """``lesson``, ``article`` or ``index``."""
    path: str
    """Source path, for messages."""
    summary: str = ""
    """One line shown in lists of pages."""
    label: str = ""
    """Short label such as ``R55``; defaults to the id."""


@dataclass(frozen=True)
class SplitPage:
    """A page source split into validated front matter and Markdown body."""

    meta: PageMeta
    body: str
    """The Markdown after the front matter, with the front matter lines blanked."""


def split_page(source: SourceFile) -> tuple[SplitPage | None, list[Problem]]:
    """Separate and check the front matter of one page source.

    The body keeps the front matter's lines (blanked), so a token's line in the
    body is its line in the file.
    """
    lines = source.text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, [Problem(source.path, 1, _("a page must start with front matter: a line '---', "
                                "'title: …', then '---'"))]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return None, [Problem(source.path, 1, _("front matter is not closed: add a line '---' after it"))]
    located, problems = load_located("\n".join(lines[1:end]), source.path, first_line=2)
    if located is None:
        return None, problems
    meta, problems = _check_meta(located, source.path)
    body = "\n" * (end + 1) + "\n".join(lines[end + 1:])
    states = _STATE_LINE.finditer(body)
    if (excess := next(itertools.islice(states, MAX_STATES, None), None)) is not None:  # before parsing them all
        return None, problems + [Problem(source.path, body.count("\n", 0, excess.start()) + 1,
                                         _("more than {limit} states on one page: split the lesson",
                                           limit=MAX_STATES))]
    return (SplitPage(meta, body) if meta else None), problems


def _check_meta(located, path: str) -> tuple[PageMeta | None, list[Problem]]:
    if not isinstance(located.value, dict):
        return None, [Problem(path, located.line, _("front matter must be a mapping of 'key: value' lines"))]
    problems = []
    for key, item in located.children.items():
        if key not in FRONT_MATTER_KEYS:
            problems.append(Problem(path, item.line, _("unknown front matter key '{key}'", key=key)
                                    + (suggest(str(key), FRONT_MATTER_KEYS)
                                       or _(" (allowed: {names})", names=", ".join(FRONT_MATTER_KEYS)))))
        elif not isinstance(item.value, str) or not item.value.strip():
            problems.append(Problem(path, item.line, not_text(item.value, key)
                                    or _("front matter key '{key}' must be non-empty text", key=key)))
        elif hidden := invisible_characters(item.value, _("front matter '{key}'", key=key)):
            problems.append(Problem(path, item.line, hidden))
    values = {k: v.strip() for k, v in located.value.items() if isinstance(v, str)}
    misspelt = {close for key in located.value if key not in FRONT_MATTER_KEYS
                for close in closest(str(key), FRONT_MATTER_KEYS, limit=1)}
    if "title" not in located.value and "title" not in misspelt:  # 'titel:' already says it
        problems.append(Problem(path, 1, _("front matter has no 'title'")))
    kind = values.get("kind", "lesson")
    if kind not in PAGE_KINDS:
        problems.append(Problem(path, located.children["kind"].line,
                                _("unknown page kind '{kind}' (use one of: {names})", kind=kind,
                                  names=", ".join(PAGE_KINDS))))
    page_id = values.get("id") or path.rsplit("/", 1)[-1].removesuffix(".md")
    if not _PAGE_ID.fullmatch(page_id):
        line = located.children["id"].line if "id" in values else 1
        problems.append(Problem(path, line, _("page id '{id}' must be lowercase letters, digits and '-'", id=page_id)))
    if problems:
        return None, problems
    return PageMeta(id=page_id, title=values["title"], kind=kind, path=path,
                    summary=values.get("summary", ""), label=values.get("label", "")), []
