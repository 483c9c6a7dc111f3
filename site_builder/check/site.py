"""The checking stage: everything that can be wrong across pages, collected at once."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping

from site_builder.check.bound_numbers import unbound_numbers
from site_builder.check.refs import EveryAnchor, locate, resolve_ref, split_title
from site_builder.load.bibtex import cited_ids
from site_builder.load.content import Content, Evidence, FigureInfo, FigureMark, Record, Value
from site_builder.load.glossary import Term, definition_problems, find_term, forbidden_uses
from site_builder.load.value_text import ValueText, check_value_text
from site_builder.markdown.mathrender import math_problem
from site_builder.parse.page import ParsedPage, RoleUse, StateSource
from site_builder.parse.positions import describe, word_holds, words_about
from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.numbers import agrees, format_number
from site_builder.vocabulary.problems import Problem, suggest
from site_builder.vocabulary.provenance import BADGE_TEXT, PROVENANCES
from site_builder.vocabulary.roles import CITE_ROLES, REFERENCE_ROLES, ROLE_WORDS, ROLES

_RULES = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt, "==": operator.eq}

def check_site(content: Content, pages: Iterable[ParsedPage], evidence: Evidence,
               memo: Callable[[str, Hashable, Callable[[], list[Problem]]], list[Problem]] | None = None,
               failed: Collection[str] = (), shown: Mapping[str, frozenset[str]] | None = None) -> list[Problem]:
    """All cross-page checks: ids, anchors, roles, figures, provenance, numbers, math, records.

    ``failed``: ids of pages that failed to load or have problems of their own (which say why): a reference
    to one is not reported, neither as a missing page nor as a missing anchor, and its marks wait.
    ``shown``: the anchors of pages the site shows without checking them here (a translation's untranslated
    pages show the source's), which references are checked against.

    ``memo(path, around, check)`` gives one page's problems: a caller keeping them between builds (the
    dev server's engine) looks them up by the source at ``path``, the evidence and ``around`` (what they
    depend on of the other pages, the sources and the glossary) and calls ``check`` only on a miss.
    """
    pages = tuple(pages)
    problems = _duplicate_ids(pages)
    anchors = {**(shown or {}), **{p.meta.id: p.anchor_ids for p in pages}}  # hashable: ``around`` holds them
    problems += _refs_into_teacher_notes(pages, anchors)
    sources = {s.id for s in content.sources}
    around = hash((frozenset(anchors.items()), frozenset(sources), content.glossary, frozenset(failed))) if memo \
        else None
    anchors |= {page_id: EveryAnchor(anchors.get(page_id, ())) for page_id in failed}
    for page in pages:
        check = functools.partial(_page_problems, page, content, anchors, sources, evidence)
        problems += memo(page.meta.path, around, check) if memo else check()
    problems += [problem for record in content.records for entry in record.data.get("compare") or ()
                 for problem in _check_comparison(record.path, entry, evidence.values)]
    problems += definition_problems(content.glossary, f"{content.folder}/glossary.yml")
    problems += reader_text_problems(content, evidence)
    problems += check_value_text(content.value_text, set(evidence.values),
                                 {v.producer for v in evidence.values.values()})
    return problems


def _page_problems(page: ParsedPage, content: Content, anchors: dict[str, frozenset[str]], sources: set[str],
                   evidence: Evidence) -> list[Problem]:
    path, first = page.meta.path, {}  # first: anchor → the index of its first definition
    problems = [Problem(path, line, _("duplicate anchor '#{anchor}' on this page", anchor=anchor))
                for i, (anchor, line, _title) in enumerate(page.anchors) if first.setdefault(anchor, i) != i]
    language = content.config.content_language or content.config.language  # the prose's, for position words
    problems += [p for use in page.roles for p in _check_role(use, page, anchors, sources, evidence, language)]
    problems += [Problem(path, line, _("link to '{target}': no page or label of this site has that name",
                                       target=target) + suggest(target, _labels(anchors)))
                 for target, line in page.links if locate("ref", target, page.meta.id, anchors) is None]
    problems += _term_problems(page, content)
    problems += [Problem(path, line, _("unknown source '{id}'", id=source) + suggest(source, sources)
                         + _(" (sources are listed in content/sources.yml)")) if source else
                 Problem(path, line, _("'{{quoted}}' needs the id of the source its numbers come from, "
                                       "as in ':::{{quoted}} M34'"))
                 for source, line, _last in page.quoted if source not in sources]
    problems += [p for block in page.blocks if isinstance(block, StateSource)
                 for p in _check_state(block, page, evidence, content.config.language)]
    if page.meta.kind in ("lesson", "article"):
        problems += _unbound_numbers(page)
    problems += [Problem(path, line, wrong) for tex, line, display in page.math
                 if (wrong := math_problem(tex, display))]
    return problems


def _duplicate_ids(pages: tuple[ParsedPage, ...]) -> list[Problem]:
    if len({page.meta.id for page in pages}) == len(pages):  # the usual case, on every save
        return []
    first: dict[str, str] = {}  # page id → the path of the first page with it
    return [Problem(page.meta.path, 1, _("duplicate page id '{id}' (also used by {other})", id=page.meta.id,
                                         other=first[page.meta.id]))
            for page in pages if first.setdefault(page.meta.id, page.meta.path) != page.meta.path]


def _check_role(use: RoleUse, page: ParsedPage, anchors: dict[str, frozenset[str]], sources: set[str],
                evidence: Evidence, language: str) -> list[Problem]:
    path = page.meta.path
    if use.name not in ROLES:
        return [Problem(path, use.line, _("unknown role '{{{name}}}'", name=use.name)
                        + (suggest(use.name, [*ROLES, *ROLE_WORDS], shown=ROLE_WORDS)
                           or _(" (known: {names})", names=", ".join(ROLES))))]
    if use.name == "num" and use.target not in evidence.values:
        return [Problem(path, use.line,
                        _("unknown value '{name}'", name=use.target) + suggest(use.target, evidence.values))]
    if use.name == "fig" and use.target not in evidence.figures:
        return [Problem(path, use.line,
                        _("unknown figure '{id}'", id=use.target) + suggest(use.target, evidence.figures))]
    if use.name in (*CITE_ROLES, "src"):
        keys, listed = ([use.target], _(" (sources are listed in content/sources.yml)")) if use.name == "src" else \
            (cited_ids(use.target), _(" (cited keys are read from content/references.bib and content/sources.yml)"))
        return [Problem(path, use.line, _("unknown source '{id}'", id=key) + suggest(key, sources) + listed)
                for key in keys if key not in sources]
    if use.name in REFERENCE_ROLES:
        return _check_ref(use, page, anchors)
    if use.name == "mark":
        # Not on a page with problems of its own (EveryAnchor: see check_site's ``failed``): a state's ':figure:'
        # lost under a misspelt option, or a misnumbered state, points its marks at no figure or the wrong one.
        # They are judged once the page's own problems are fixed.
        return [] if isinstance(anchors.get(page.meta.id), EveryAnchor) else _check_mark(use, page, evidence, language)
    return []


def _term_problems(page: ParsedPage, content: Content) -> list[Problem]:
    """``{term}`` must name a glossary wording; prose must not use a forbidden one."""
    terms, path = content.glossary, page.meta.path
    # a wording in any case, or an entry's id (kv-cache), suggests the wording {term} takes
    wordings = {w.casefold(): w for t in terms for w in t.words} | {t.id: t.term for t in terms}
    unknown = [Problem(path, use.line, _("unknown term '{term}'", term=use.target)
                       + suggest(use.target.casefold(), wordings, shown=wordings)
                       + _(" (terms are listed in content/glossary.yml)"))
               for use in page.roles if use.name == "term" and find_term(terms, use.target) is None]
    return unknown + _forbidden(terms, [(path, line, text, "") for text, line, _where in page.texts])


def reader_text_problems(content: Content, evidence: Evidence) -> list[Problem]:
    """The glossary's forbidden wordings in what readers see beyond page prose: the numbers page's titles and
    descriptions (values.yml), the sources and glossary pages, the records' titles and conditions, and every
    figure's alt text, description, mark labels and drawn texts (titles, axis labels, ticks, legends)."""
    texts = [(content.value_text.path, line, text, "") for _name, text, line in
             (*content.value_text.groups, *content.value_text.patterns)]
    base = content.folder
    texts += [(f"{base}/sources.yml", s.line, text, "") for s in content.sources for text in (s.title, s.checked,
                                                                                              s.where)]
    texts += [(f"{base}/glossary.yml", t.line, t.definition, "") for t in content.glossary]
    texts += [_record_text(r, key, content.value_text) for r in content.records for key in ("title", "conditions")]
    texts += [(f.drawn_at[0] or "figures", f.drawn_at[1], text, f.id) for f in evidence.figures.values()
              for text in (f.alt, f.description, *(m.label for m in f.marks), *f.texts)]
    return _forbidden(content.glossary, texts)


def _record_text(record: Record, key: str, value_text: ValueText) -> tuple[str, int, str, str]:
    """A record's ``key`` text and where to edit it: the line of a translation's values.yml that gives it
    (``records:``), or else the record's own file."""
    line = value_text.record_line(record.id, key)
    return (value_text.path if line else record.path, line, str(record.data.get(key, "")), "")


def _forbidden(terms: tuple[Term, ...], texts: list[tuple[str, int, str, str]]) -> list[Problem]:
    """The glossary's forbidden wordings in ``texts``: (path, line, text, the figure that draws it or '')."""
    found_in = forbidden_uses(terms)
    return [Problem(path, line, _("'{word}' is a forbidden variant in the glossary: write '{term}'", word=word,
                                  term=term.term) + (_(" (figure {figure})", figure=figure) if figure else ""))
            for path, line, text, figure in texts for word, term in found_in(text)]


def state_figure(page: ParsedPage, state_id: str) -> str:
    """The ``:figure:`` of a state on ``page`` (``''`` when it has none or there is no such state)."""
    return next((b.figure for b in page.blocks if isinstance(b, StateSource) and b.id == state_id), "")


def resolve_mark(target: str, figure_id: str) -> tuple[str, str]:
    """``fig:name`` → (fig, name); ``name`` → (the state's figure, name)."""
    figure, sep, name = target.rpartition(":")
    return (figure, name) if sep else (figure_id, target)


def _check_mark(use: RoleUse, page: ParsedPage, evidence: Evidence, language: str) -> list[Problem]:
    path = page.meta.path
    figure_id, name = resolve_mark(use.target, state_figure(page, use.state))
    if not figure_id:
        where = _("state {state} has no ':figure:'", state=use.state) if use.state else _("it stands outside any state")
        return [Problem(path, use.line, _("{{mark}}`{target}` points at no figure: {where}; name the figure as "
                                          "{{mark}}`figure-id:{name}`", target=use.target, where=where, name=name))]
    figure = evidence.figures.get(figure_id)
    if figure is None and figure_id == state_figure(page, use.state):
        return []  # the state's ':figure:' line says it, once
    if figure is None:
        return [Problem(path, use.line, _("{{mark}}`{target}`: unknown figure '{figure}'", target=use.target,
                                          figure=figure_id) + suggest(figure_id, evidence.figures))]
    mark = figure.mark(name)
    if mark is None:
        names = [m.name for m in figure.marks]
        known = _(" (its marks: {names})", names=", ".join(names)) if names else \
            _(" (it declares no marks: its draw returns none)")
        return [Problem(path, use.line, _("figure {figure} has no mark '{name}'", figure=figure_id, name=name)
                                        + suggest(name, names) + known)]
    return _check_position(use, page, figure, mark, language)


def _check_position(use: RoleUse, page: ParsedPage, figure: FigureInfo, mark: FigureMark,
                    language: str) -> list[Problem]:
    """Position words around a mark, in the prose's ``language``, must be true of where it is drawn."""
    after = figure.mark(resolve_mark(use.after_mark, figure.id)[1]) if use.after_mark else None
    problems = []
    for word, relative in words_about(use.clause, use.following, after, language):
        if word_holds(word, mark, figure.marks, relative):
            continue
        why = (_("in figure {figure} it sits {where}", figure=figure.id, where=describe(mark, language))
               if relative is None
               else _("it is not {word} of '{other}' in figure {figure}", word=word.text, other=relative.name,
                      figure=figure.id))
        problems.append(Problem(page.meta.path, use.line, _("'{word}' does not describe mark '{name}' ({label}): "
                                                            "{why}", word=word.text, name=mark.name, label=mark.label,
                                                            why=why)))
    return problems


def pointing_warnings(pages: Iterable[ParsedPage]) -> list[Problem]:
    """A 指图 list in a teacher note that names no mark: the presentation has nothing to outline."""
    return [Problem(page.meta.path, line, (_("state {state}: ", state=state) if state else "")
                    + _("the 指图 list names no {{mark}}: write each pointing step with {{mark}}`name` so the "
                        "presentation can outline it")).as_warning()
            for page in pages for line, marks, state in page.pointing if marks == 0]


def _check_ref(use: RoleUse, page: ParsedPage, anchors: dict[str, frozenset[str]]) -> list[Problem]:
    target = split_title(use.target)[1]
    if locate(use.name, target, page.meta.id, anchors) is not None:
        return []
    if use.name == "doc":
        return [Problem(page.meta.path, use.line, _("{{doc}} to unknown page '{page}'", page=target)
                        + suggest(target.removesuffix(".md").rsplit("/", 1)[-1], anchors))]
    if use.name != "ref" and "#" not in target:
        return [Problem(page.meta.path, use.line, _("{{{role}}} to unknown label '{label}'", role=use.name,
                                                    label=target) + suggest(target, _labels(anchors)))]
    target_page, anchor = resolve_ref(target, page.meta.id)
    if target_page not in anchors:
        return [Problem(page.meta.path, use.line, _("{{ref}} to unknown page '{page}'", page=target_page)
                        + suggest(target_page, anchors))]
    return [Problem(page.meta.path, use.line, _("{{ref}} to unknown anchor '#{anchor}' on page '{page}'",
                                                anchor=anchor, page=target_page)
                    + suggest(anchor, anchors[target_page]))]


def _labels(anchors: dict[str, frozenset[str]]) -> set[str]:
    """Every page id and anchor of the site: what a reference may name."""
    return set(anchors).union(*anchors.values())


def _refs_into_teacher_notes(pages: tuple[ParsedPage, ...], anchors: dict[str, frozenset[str]]) -> list[Problem]:
    """A reference in public text to a heading inside a teacher note, as ``page#anchor`` or as a bare label: its
    link text would publish the heading."""
    hidden = {(page.meta.id, anchor) for page in pages for anchor in page.teacher_anchors}
    if not hidden:  # the usual case, and every save checks every page: no reference to resolve
        return []
    found = [(page, use, locate(use.name, split_title(use.target)[1], page.meta.id, anchors))
             for page in pages for use in page.roles if use.name in REFERENCE_ROLES and not use.teacher]
    return [Problem(page.meta.path, use.line,
                    _("{{ref}} to '#{anchor}', a heading inside a teacher note, would publish it: link to a public "
                      "heading, or move the {{ref}} into the note", anchor=target[1]))
            for page, use, target in found if target in hidden]


def derived_provenance(state: StateSource, page: ParsedPage, evidence: Evidence) -> tuple[str, str]:
    """The provenance a state earns from what it shows, and the thing that earned it."""
    used: list[tuple[str, str]] = []
    if state.figure in evidence.figures:
        used.append((evidence.figures[state.figure].provenance, _("figure {id}", id=state.figure)))
    for use in page.roles:
        if use.state == state.id and not use.teacher:
            if use.name == "num" and use.target in evidence.values:
                value = evidence.values[use.target]
                used.append((value.provenance, _("{provenance} value {name}", provenance=value.provenance,
                                                           name=use.target)))
            elif use.name == "fig" and use.target in evidence.figures:
                used.append((evidence.figures[use.target].provenance, _("figure {id}", id=use.target)))
    # the strongest claim the state makes wins
    return next(((kind, what) for strongest in ("measured", "record", "computed") for kind, what in used
                 if kind == strongest), ("teaching", ""))


def figure_label_problem(figure: FigureInfo, language: str) -> str:
    """A figure's corner label must say what its badge says, in the course's ``language`` (both come from its
    provenance; figures are drawn in the course's language)."""
    badge = BADGE_TEXT.get(figure.provenance, "")
    if figure.label and figure.label != localize(badge, language):
        return _("figure {id}: its corner label '{label}' disagrees with its badge '{badge}'",
                 id=figure.id, label=figure.label, badge=badge)
    return ""


def _check_state(state: StateSource, page: ParsedPage, evidence: Evidence, language: str) -> list[Problem]:
    path, problems = page.meta.path, []
    if state.figure and state.figure not in evidence.figures:
        problems.append(Problem(path, state.figure_line, _("unknown figure '{id}'", id=state.figure)
                                + suggest(state.figure, evidence.figures)))
    elif state.figure and (wrong := figure_label_problem(evidence.figures[state.figure], language)):
        problems.append(Problem(path, state.figure_line, wrong))
    if state.provenance in PROVENANCES and (not state.figure or state.figure in evidence.figures):
        # (what an unknown figure would have shown is unknown: its own problem above comes first)
        derived, what = derived_provenance(state, page, evidence)
        if derived != state.provenance:
            reason = (_("uses {what}", what=what) if what
                      else _("uses no computed or measured value or figure, and no record"))
            problems.append(Problem(path, state.provenance_line,
                                    _("state {id} declares {declared} but {reason}: declare {derived}",
                                      id=state.id, declared=state.provenance, reason=reason, derived=derived)))
    return problems


def _unbound_numbers(page: ParsedPage) -> list[Problem]:
    # a {quoted} block's numbers are its source's, shown with it
    quoting = {line for _source, first, last in page.quoted for line in range(first, last + 1)}
    headings = {line for _id, line, _title in page.anchors} \
        | {block.title_line for block in page.blocks if isinstance(block, StateSource)}  # a title may be numbered
    return [Problem(page.meta.path, line, (_("state {id}: ", id=state) if state else "")
                    + _("number '{number}' is written by hand: cite a value with {{num}}`name`, or mark an "
                        "illustration with {{example}}`…`", number=number))
            for number, line, state in unbound_numbers(page.texts, headings) if line not in quoting]


def _check_comparison(path: str, entry: dict, values: dict[str, Value]) -> list[Problem]:
    """A record's declared comparison with today's measurement must hold."""
    name, rule, bound = entry.get("with", ""), entry.get("rule", ""), entry.get("bound")
    if name not in values:
        return [Problem(path, 0, _("comparison with unknown value '{name}'", name=name) + suggest(name, values))]
    if rule not in _RULES or not isinstance(bound, (int, float)):
        return [Problem(path, 0, _("comparison with '{name}' needs 'rule' (one of {rules}) "
                                   "and a numeric 'bound'", name=name, rules=" ".join(_RULES)))]
    today = values[name]
    if today.value_class == "timing":
        return [Problem(path, 0, _("comparison with '{name}': a timing value depends on the machine and its "
                                   "load; it is recorded, never compared", name=name))]
    said = {"name": name, "today": format_number(today.value, today.unit), "bound": format_number(bound, today.unit)}
    if rule == "==" and today.value_class == "rounding":  # equal within the value's tolerance
        return [] if agrees(today.value, bound, "rounding", today.rtol, today.atol) else [Problem(path, 0, _(
            "today's {name} = {today} breaks the record's comparison == {bound} (a rounding value: within rtol "
            "{rtol}, atol {atol})", **said, rtol=f"{today.rtol:g}", atol=f"{today.atol:g}"))]
    return [] if _RULES[rule](today.value, bound) else [Problem(path, 0, _(
        "today's {name} = {today} breaks the record's comparison {rule} {bound}", **said, rule=rule))]
