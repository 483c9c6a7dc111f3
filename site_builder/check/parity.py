"""Parity of a translated page with its source: the same lesson in another language, on the same evidence.

A translation may say things its own way, but not show other things: for every page present in
both languages it must have the same states in the same order, cite the same values (by name) in
each state, show the same figures, point its teacher notes at the same marks and figures, and cite
the same sources. Each difference is a problem at ``path:line`` of the translation that names the
source's ``path:line`` too, so the translator sees both places.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from site_builder.check.site import resolve_mark
from site_builder.load.bibtex import cited_ids
from site_builder.load.content import SourceFile
from site_builder.parse.page import ParsedPage, StateSource
from site_builder.vocabulary.i18n import Text, _
from site_builder.vocabulary.problems import Problem
from site_builder.vocabulary.roles import CITE_ROLES

Cited = dict[tuple[str, str], dict[str, int]]
"""(kind, state id) → name cited → the line of its first citation."""


def parity_problems(source: ParsedPage, translation: ParsedPage) -> list[Problem]:
    """Every way ``translation`` shows other evidence than ``source``, at the translation's lines."""
    problems = _state_problems(source, translation)
    theirs, ours = _cited(source), _cited(translation)
    states = {s.id: s.line for s in _states(translation)}
    for key in sorted(theirs.keys() | ours.keys()):
        kind, state = key
        if state and (state not in states or state not in {s.id for s in _states(source)}):
            continue  # a missing or extra state is said once, above
        mine, other = ours.get(key, {}), theirs.get(key, {})
        at = states.get(state, 1)
        for name in sorted(mine.keys() - other.keys()):
            problems.append(Problem(translation.meta.path, mine[name], _EXTRA[kind](
                where=_where(kind, state), name=name, other=f"{source.meta.path}:{_line_of(source, state)}")))
        for name in sorted(other.keys() - mine.keys()):
            problems.append(Problem(translation.meta.path, at, _MISSING[kind](
                where=_where(kind, state), name=name, other=f"{source.meta.path}:{other[name]}")))
    return problems


def untranslated_warnings(fallback: Iterable[SourceFile], language: str, folder: str) -> list[Problem]:
    """A page not translated yet: a warning at the source page (the translation shows it with a notice)."""
    return [Problem(file.path, 1, _("not translated into {language} yet: the {language} site shows this page in its "
                                    "source language with a notice; translate it as {path}", language=language,
                                    path=f"{folder}/pages/{file.path.rsplit('/', 1)[-1]}")).as_warning()
            for file in fallback]


def _states(page: ParsedPage) -> list[StateSource]:
    return [b for b in page.blocks if isinstance(b, StateSource)]


def _line_of(page: ParsedPage, state: str) -> int:
    return next((s.line for s in _states(page) if s.id == state), 1)


def _state_problems(source: ParsedPage, translation: ParsedPage) -> list[Problem]:
    """The same states in the same order, each showing the same figure."""
    theirs, ours = _states(source), _states(translation)
    problems = []
    matcher = difflib.SequenceMatcher(None, [s.id for s in theirs], [s.id for s in ours], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        here = ours[j1].line if j1 < len(ours) else (ours[-1].end_line if ours else 1)
        there = theirs[i1].line if i1 < len(theirs) else (theirs[-1].end_line if theirs else 1)
        problems += [Problem(translation.meta.path, here, _(
            "state '{id}' of {other} is missing here (or stands elsewhere): a translation has the same states "
            "in the same order", id=state.id, other=f"{source.meta.path}:{state.line}")) for state in theirs[i1:i2]]
        problems += [Problem(translation.meta.path, state.line, _(
            "state '{id}' does not stand here in {other}: a translation has the same states in the same order",
            id=state.id, other=f"{source.meta.path}:{there}")) for state in ours[j1:j2]]
    by_id = {s.id: s for s in theirs}
    for state in ours:
        if state.id in by_id and state.figure != by_id[state.id].figure:
            problems.append(Problem(translation.meta.path, state.figure_line or state.line, _(
                "state '{id}' shows figure '{mine}' here but '{theirs}' in {other}", id=state.id,
                mine=state.figure or "-", theirs=by_id[state.id].figure or "-",
                other=f"{source.meta.path}:{by_id[state.id].figure_line or by_id[state.id].line}")))
    return problems


def _cited(page: ParsedPage) -> Cited:
    """What the page cites, grouped: values and figures by state, the teacher notes' marks and figures by
    state, sources for the whole page."""
    figures = {s.id: s.figure for s in _states(page)}
    cited: Cited = {}

    def add(kind: str, state: str, name: str, line: int) -> None:
        cited.setdefault((kind, state), {}).setdefault(name, line)

    for use in page.roles:
        if use.name == "num":
            add("value", use.state, use.target, use.line)
        elif use.name == "fig":
            add("note-figure" if use.teacher else "figure", use.state, use.target, use.line)
        elif use.name == "mark" and use.teacher:
            add("mark", use.state, ":".join(resolve_mark(use.target, figures.get(use.state, ""))), use.line)
        elif use.name == "src":
            add("source", "", use.target, use.line)
        elif use.name in CITE_ROLES:
            for key in cited_ids(use.target):
                add("source", "", key, use.line)
    for source_id, line, _last in page.quoted:
        add("source", "", source_id, line)
    return cited


def _where(kind: str, state: str) -> Text:
    if kind in ("mark", "note-figure"):
        return _("the teacher note of state '{id}'", id=state) if state else _("a teacher note outside the states")
    if kind == "source":
        return _("the page")
    return _("state '{id}'", id=state) if state else _("the text outside the states")


_EXTRA = {
    "value": lambda **said: _("{where} cites value '{name}' here but not in {other}", **said),
    "figure": lambda **said: _("{where} shows figure '{name}' here but not in {other}", **said),
    "note-figure": lambda **said: _("{where} points at figure '{name}' here but not in {other}", **said),
    "mark": lambda **said: _("{where} points at mark '{name}' here but not in {other}", **said),
    "source": lambda **said: _("{where} cites source '{name}' here but not in {other}", **said),
}
"""What a translation says that its source does not (at the translation's citation)."""
_MISSING = {
    "value": lambda **said: _("{where} does not cite value '{name}' here, as {other} does", **said),
    "figure": lambda **said: _("{where} does not show figure '{name}' here, as {other} does", **said),
    "note-figure": lambda **said: _("{where} does not point at figure '{name}' here, as {other} does", **said),
    "mark": lambda **said: _("{where} does not point at mark '{name}' here, as {other} does", **said),
    "source": lambda **said: _("{where} does not cite source '{name}' here, as {other} does", **said),
}
"""What the source says that its translation leaves out (at the translation's state, or line 1)."""
