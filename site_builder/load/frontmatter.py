"""Front matter: the YAML header of a page, typed and checked on load."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from site_builder.load.content import SourceFile
from site_builder.load.yamlnodes import not_text, parse_located
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.names import GENERATED_PAGES
from site_builder.vocabulary.problems import Problem, closest, invisible_characters, suggest

PAGE_KINDS = ("lesson", "article", "index")
FRONT_MATTER_KEYS = ("id", "title", "kind", "summary", "label")
NOTEBOOK_KEYS = ("jupytext", "kernelspec", "jupyter")
"""Keys a Jupytext/Jupyter Book header carries for the notebook tools: accepted and left alone."""
FOREIGN_KEYS = ("myst", "substitutions", "mystnb", "execution", "html_meta", "file_format", "authors", "author",
                "date", "description", "subtitle", "short_title", "keywords", "tags", "subject", "license",
                "copyright", "numbering", "math", "abbreviations", "exports", "downloads", "thumbnail", "banner",
                "bibliography", "venue", "doi", "github", "binder", "affiliations", "site", "project", "options")
"""Front matter keys of MyST and Jupyter Book that this site does not use: a warning each, not an error."""
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
    """``lesson``, ``article`` or ``index``; ``''`` when the front matter does not say, which parsing settles
    (a page with states is a lesson, one without an article)."""
    path: str
    """Source path, for messages."""
    summary: str = ""
    """One line shown in lists of pages."""
    label: str = ""
    """Short label such as ``R55``; defaults to the id."""
    title_line: int = 0
    """Line of the page's first ``# H1``, or 0: parsing drops it from the body, as the page shows its
    title above the body (from front matter ``title``, else from this heading)."""


@dataclass(frozen=True)
class SplitPage:
    """A page source split into validated front matter and Markdown body."""

    meta: PageMeta
    body: str
    """The Markdown after the front matter, with the front matter lines blanked."""
    warnings: tuple[Problem, ...] = ()
    """Front matter keys of other tools (MyST, Jupyter Book) that this site ignores."""


def split_page(source: SourceFile) -> tuple[SplitPage | None, list[Problem]]:
    """Separate and check the front matter of one page source (optional: a page may start with its ``# H1``).

    The body keeps the front matter's lines (blanked), so a token's line in the
    body is its line in the file.
    """
    lines = source.text.split("\n")
    if lines[0].strip() != "---":
        return _with_meta({}, source.path, lines, 0)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return None, [Problem(source.path, 1, _("front matter is not closed: add a line '---' after it"))]
    located, problems = parse_located("\n".join(lines[1:end]), source.path, first_line=2)
    if located is None:
        return None, problems
    if not isinstance(located.value, dict):
        return None, [Problem(source.path, located.line, _("front matter must be a mapping of 'key: value' lines"))]
    return _with_meta(located.children, source.path, lines, end + 1)


def _with_meta(children: dict, path: str, lines: list[str], start: int) -> tuple[SplitPage | None, list[Problem]]:
    """The page whose front matter (key → Located) ends before line ``start`` (0-based), checked."""
    heading = _first_heading(lines, start)
    problems, warnings = _check_keys(children, path)
    values = {k: item.value.strip() for k, item in children.items() if isinstance(item.value, str)}
    title = values.get("title") or heading[1]
    misspelt = {close for key in children if key not in FRONT_MATTER_KEYS
                for close in closest(str(key), FRONT_MATTER_KEYS, limit=1)}
    if "title" not in children and not title and "title" not in misspelt:  # 'titel:' already says it
        problems.append(Problem(path, 1, _("a page needs a title: start it with a line '# Title', or with front "
                                           "matter: a line '---', 'title: …', then '---'")))
    kind = values.get("kind", "")
    if kind and kind not in PAGE_KINDS:
        problems.append(Problem(path, children["kind"].line, _("unknown page kind '{kind}' (use one of: {names})",
                                                               kind=kind, names=", ".join(PAGE_KINDS))))
    page_id = values.get("id") or path.rsplit("/", 1)[-1].removesuffix(".md")
    if not _PAGE_ID.fullmatch(page_id):
        line = children["id"].line if "id" in values else 1
        problems.append(Problem(path, line, _("page id '{id}' must be lowercase letters, digits and '-'", id=page_id)))
    elif page_id in GENERATED_PAGES:  # its page would be written over by the one the site makes
        problems.append(Problem(path, children["id"].line if "id" in values else 1, _(
            "page id '{id}' is the name of a page the site makes ({id}.html): rename the file, e.g. '{id}-page.md'",
            id=page_id)))
    if problems:
        return None, problems
    meta = PageMeta(id=page_id, title=title, kind=kind, path=path, summary=values.get("summary", ""),
                    label=values.get("label", ""), title_line=heading[0])
    body = "\n" * start + "\n".join(lines[start:])
    states = _STATE_LINE.finditer(body)
    if (excess := next(itertools.islice(states, MAX_STATES, None), None)) is not None:  # before parsing them all
        return None, [Problem(path, body.count("\n", 0, excess.start()) + 1,
                              _("more than {limit} states on one page: split the lesson", limit=MAX_STATES))]
    return SplitPage(meta, body, tuple(warnings)), []


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def _first_heading(lines: list[str], start: int) -> tuple[int, str]:
    """The 1-based line and text of the first ``# H1`` from line ``start`` on, outside code; (0, '') if none."""
    fence = ""
    for number in range(start, len(lines)):
        line = lines[number]
        if fence:
            fence = "" if line.strip().startswith(fence) and not line.strip().strip(fence[0]) else fence
        elif opened := _FENCE.match(line):
            fence = opened.group(1)
        elif heading := _H1.match(line):
            return number + 1, heading.group(1).strip()
    return 0, ""


def _check_keys(children: dict, path: str) -> tuple[list[Problem], list[Problem]]:
    """Problems and warnings of each front matter key: ours are non-empty text, a notebook tool's are left
    alone, another known tool's are a warning, anything else an error."""
    problems, warnings = [], []
    for key, item in children.items():
        if key in NOTEBOOK_KEYS:
            continue
        if key in FOREIGN_KEYS:
            warnings.append(Problem(path, item.line, _("front matter key '{key}' is not used by this site and is "
                                                       "ignored", key=key)).as_warning())
        elif key not in FRONT_MATTER_KEYS:
            problems.append(Problem(path, item.line, _("unknown front matter key '{key}'", key=key)
                                    + (suggest(str(key), FRONT_MATTER_KEYS)
                                       or _(" (allowed: {names})", names=", ".join(FRONT_MATTER_KEYS)))))
        elif not isinstance(item.value, str) or not item.value.strip():
            problems.append(Problem(path, item.line, not_text(item.value, key)
                                    or _("front matter key '{key}' must be non-empty text", key=key)))
        elif hidden := invisible_characters(item.value, _("front matter '{key}'", key=key)):
            problems.append(Problem(path, item.line, hidden))
    return problems, warnings
