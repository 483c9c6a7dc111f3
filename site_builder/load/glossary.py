"""The course glossary (``content/glossary.yml``): one preferred word per idea.

Each entry names a preferred term, the variants a page may also write, the
variants it must not write, and a one-line definition. Prose cites a term with
``{term}`KV 缓存``` (the preferred term or an allowed variant); the site links it
to the glossary page, where the definition also shows as a hover card. The
check flags every forbidden variant in prose with ``path:line`` and the
preferred term.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from site_builder.load.yamlnodes import Located, load_located
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem, suggest
from site_builder.vocabulary.urls import allowed_url, link_problem

TERM_KEYS = ("id", "term", "allowed", "forbidden", "definition")
MAX_WORDINGS = 10_000
"""Most wordings a glossary may hold in all: every one is sought in every page's prose."""
_TERM_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")


@dataclass(frozen=True)
class Term:
    """One glossary entry."""

    id: str
    """Stable anchor on the glossary page (``glossary.html#term-<id>``)."""
    term: str
    """The preferred wording."""
    allowed: tuple[str, ...]
    """Other wordings a page may use (``{term}`` accepts them too)."""
    forbidden: tuple[str, ...]
    """Wordings prose must not use; the check names the preferred term instead."""
    definition: str
    """One line of Markdown under prose's inline rules (``$…$`` is maths, links within the site's allowlist,
    no raw HTML), shown on the glossary page and, as text, in the hover card."""
    line: int
    """Line of the entry in glossary.yml."""
    definition_line: int = 0
    """Line of its definition (the check stage's problems with it point there)."""

    @property
    def anchor(self) -> str:
        return f"term-{self.id}"

    @property
    def plain_definition(self) -> str:
        """The definition for the hover card, which holds text only: ``$d_h$`` reads ``d_h``."""
        from site_builder.markdown.source import inline_text, parse_inline

        return inline_text(parse_inline(self.definition))

    @property
    def formulas(self) -> list[str]:
        """The TeX of each ``$…$`` in the definition."""
        from site_builder.markdown.source import parse_inline

        return [c.content for c in parse_inline(self.definition).children or () if c.type == "math_inline"]

    @property
    def words(self) -> tuple[str, ...]:
        """The wordings prose may use: the preferred term first."""
        return (self.term, *self.allowed)


def load_glossary(text: str, path: str) -> tuple[tuple[Term, ...], list[Problem]]:
    """Parse glossary.yml: a list of entries with id, term, definition and optional variant lists."""
    located, problems = load_located(text, path)
    if located is None:
        return (), problems
    if not isinstance(located.value, list):
        return (), problems + [Problem(path, located.line, _("glossary.yml must be a list of terms"))]
    terms: list[Term] = []
    owners: dict[str, Term] = {}  # id and each wording → its entry: a clash is found in one look-up
    wordings = 0
    for item in located.children:
        term = _load_term(item, path, problems)
        if term is None:
            continue
        wordings += len(term.words) + len(term.forbidden)
        if wordings > MAX_WORDINGS:  # aliases (``allowed: *many``) count each time they are used
            problems.append(Problem(path, item.line, _("the glossary holds more than {limit} wordings (preferred, "
                                                       "allowed and forbidden, aliases counted each time they are "
                                                       "used): keep the entries that prose needs", limit=MAX_WORDINGS)))
            break
        clash = owners.get("id:" + term.id) or next((owners[w] for w in term.words if w in owners), None)
        if clash is not None:
            problems.append(Problem(path, item.line, _("term '{term}' repeats the id or a wording of "
                                                       "'{other}' (line {line})", term=term.term,
                                                       other=clash.term, line=clash.line)))
            continue
        terms.append(term)
        owners.update({"id:" + term.id: term} | {word: term for word in term.words})
    return tuple(terms), problems


def _load_term(item: Located, path: str, problems: list[Problem]) -> Term | None:
    if not isinstance(item.value, dict):
        problems.append(Problem(path, item.line,
                                _("each glossary entry must be a mapping with id, term and definition")))
        return None
    problems += [Problem(path, child.line, _("unknown glossary key '{key}'", key=key)
                         + (suggest(str(key), TERM_KEYS) or _(" (allowed: {names})", names=", ".join(TERM_KEYS))))
                 for key, child in item.children.items() if key not in TERM_KEYS]
    value = item.value
    missing = [k for k in ("id", "term", "definition") if not isinstance(value.get(k), str) or not value[k].strip()]
    if missing:
        problems.append(Problem(path, item.line, _("glossary entry needs {keys} (text)", keys=", ".join(missing))))
        return None
    if not _TERM_ID.match(value["id"]):
        problems.append(Problem(path, item.children["id"].line, _("term id '{id}' must be lower-case letters, "
                                                                  "digits and '-'", id=value["id"])))
        return None
    lists = {}
    for key in ("allowed", "forbidden"):
        words = value.get(key, [])
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            problems.append(Problem(path, item.children[key].line, _("'{key}' must be a list of wordings", key=key)))
            return None
        lists[key] = tuple(w.strip() for w in words)
    return Term(value["id"], value["term"].strip(), lists["allowed"], lists["forbidden"],
                " ".join(value["definition"].split()), item.line, item.children["definition"].line)


def definition_problems(terms: tuple[Term, ...], path: str) -> list[Problem]:
    """What the glossary page could not show as written (a check, called by the check stage: loading the
    glossary needs no Markdown): each definition is rendered there as Markdown, so it follows the rules of a
    page's prose (no raw HTML, no picture, links within the allowlist, maths that renders)."""
    return [problem for term in terms for problem in _definition_problems(term.definition, path,
                                                                          term.definition_line)]


def _definition_problems(definition: str, path: str, line: int) -> list[Problem]:
    from site_builder.markdown.mathrender import math_problem
    from site_builder.markdown.source import parse_inline

    found = []
    for child in parse_inline(definition).children or ():
        if child.type == "html_inline":
            found.append(Problem(path, line, _("raw HTML is not allowed in a glossary definition; write Markdown "
                                               "(*emphasis*, [text](https://…), $maths$); to show a tag as text, "
                                               "put it in `backticks`")))
        elif child.type == "image":
            found.append(Problem(path, line, _("a glossary definition is one line of text: it cannot show a picture")))
        elif child.type == "link_open" and not allowed_url(str(child.attrGet("href") or "")):
            found.append(Problem(path, line, link_problem(str(child.attrGet("href")))))
        elif child.type == "math_inline" and (wrong := math_problem(child.content)):
            found.append(Problem(path, line, wrong))  # rendered on the glossary page: the author's to fix, here
    return found


def find_term(terms: tuple[Term, ...], wording: str) -> Term | None:
    """The entry whose preferred term or allowed variant is ``wording``."""
    return next((t for t in terms if wording in t.words), None)


@functools.lru_cache(maxsize=8)
def forbidden_uses(terms: tuple[Term, ...]) -> Callable[[str], tuple[tuple[str, Term], ...]]:
    """A function giving the forbidden wordings in a text, each with its entry, in order. Made once per glossary
    and looked up once per page checked and once for the other texts readers see (hashing the glossary compares
    every entry); it keeps what it found in each text, since a dev server checks every figure's and record's
    texts again on each save.

    A forbidden wording inside an accepted one is fine (``头维`` inside ``头维度``):
    matches are taken at each position longest first, over every wording. Chinese has no spaces, so a
    wording counts as a word where at least one of its ends is at a boundary (see ``_at_boundary``):
    ``头维`` in 每个头维是 is flagged, the 头维 that runs across 抬头 and 维持 is not.
    """
    pattern, meaning = _wordings(terms)

    @functools.lru_cache(maxsize=16_384)
    def found_in(text: str) -> tuple[tuple[str, Term], ...]:
        found, previous_end = [], -1
        for match in pattern.finditer(text) if pattern else ():
            word = match.group()
            if meaning[word][1] and (_at_boundary(text, match.start(), previous_end == match.start(), before=True)
                                     or _at_boundary(text, match.end(), pattern.match(text, match.end()) is not None,
                                                     before=False)):
                found.append((word, meaning[word][0]))
            previous_end = match.end()
        return tuple(found)

    return found_in


_FUNCTION_CHARACTERS = frozenset("的地得了着过是在和与及或把被将对从向为以于这那每各其也都很就还又更最比个里中上下")
"""Single-character words that stand between words (particles, prepositions, measure words): a wording
next to one begins or ends there."""


def _at_boundary(text: str, index: int, glossary_neighbour: bool, *, before: bool) -> bool:
    """Whether a wording's end at ``index`` is at a word boundary: the text's edge, a character of another
    kind (space, punctuation, Latin), a one-character function word, or another glossary wording there."""
    if glossary_neighbour:
        return True
    outside, inside = (index - 1, index) if before else (index, index - 1)
    if outside < 0 or outside >= len(text):
        return True
    if _han(text[inside]) and _han(text[outside]):
        return text[outside] in _FUNCTION_CHARACTERS
    return not (text[inside].isalnum() and text[outside].isalnum())


def _han(character: str) -> bool:
    return "\u3400" <= character <= "\u9fff" or "\uf900" <= character <= "\ufaff"


def _wordings(terms: tuple[Term, ...]) -> tuple[re.Pattern | None, dict[str, tuple[Term, bool]]]:
    """One pattern of every wording, longest first (a regex alternation takes the first alternative
    that matches at a position, and scanning goes on after the match), and wording → (entry, forbidden)."""
    words = sorted(((w, t, w in t.forbidden) for t in terms for w in (*t.words, *t.forbidden)),
                   key=lambda x: -len(x[0]))
    meaning: dict[str, tuple[Term, bool]] = {}
    for word, term, bad in words:
        meaning.setdefault(word, (term, bad))
    if not words:
        return None, meaning
    return re.compile("|".join(re.escape(w) for w, _, _ in words)), meaning
