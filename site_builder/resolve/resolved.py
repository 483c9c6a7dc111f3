"""The resolve stage: after ``check``, each page becomes, per site flavour, the one object every output reads.

A ``ResolvedPage`` holds the page's blocks with teacher material already removed (public
flavour; ``without_teacher`` is the only place that removes it), the roles its text uses, its
states with their figure and anchor, its steppers, its pictures, and its source lines with every
role resolved to its text, written as Markdown text (``markdown_text``). HTML, the published
Markdown, the notebook, the zip, the search document, the table of contents, the gallery and the
backlinks of the generated pages are each a function of it; none reads the Markdown again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from markdown_it.token import Token

from site_builder.check.images import Picture
from site_builder.check.refs import locate, number_in, split_title
from site_builder.check.site import derived_provenance, resolve_mark, resolve_ref
from site_builder.load.bibtex import cited_ids
from site_builder.load.content import Content, Evidence, FigureInfo
from site_builder.markdown.source import picture_address, role_pieces
from site_builder.parse.page import ParsedPage, StateSource, image_path
from site_builder.resolve.markdown_text import markdown_text
from site_builder.vocabulary.i18n import _, localize
from site_builder.vocabulary.numbers import display
from site_builder.vocabulary.provenance import BADGE_TEXT
from site_builder.vocabulary.roles import CITE_ROLES, REFERENCE_ROLES

Block = tuple[Token, ...] | StateSource


@dataclass(frozen=True)
class Use:
    """One role in the text of a flavour."""

    name: str
    """Role name: num, fig, src, ref, term, mark, example."""
    target: str
    state: str = ""
    """Id of the state it stands in, or ``''``."""
    block: bool = False
    """A ``{fig}`` alone in its paragraph (the figure itself is shown there)."""


@dataclass(frozen=True)
class ResolvedState:
    """A state as this flavour shows it."""

    source: StateSource
    """The parsed state; the public flavour's has no teacher tokens."""
    anchor: str
    """``<page>-<state>``; its figure's anchor adds ``-fig``."""
    figure: FigureInfo | None
    provenance: str
    """The provenance its public content earns (``check.derived_provenance``)."""


@dataclass(frozen=True)
class Stepper:
    """Consecutive states: one stepper on the page."""

    anchor: str
    """``<page>-steps``, ``<page>-steps-2`` …"""
    states: tuple[ResolvedState, ...]


@dataclass(frozen=True)
class Line:
    """One source line the flavour republishes."""

    pieces: tuple[str | Picture, ...]
    """Its text with roles resolved; a picture stands for its published file's address."""
    directive: tuple[str, str, str] | None = None
    """On a line of directive syntax: (name, ``open``/``close``/option key, argument or value as Markdown)."""


@dataclass(frozen=True)
class ResolvedPage:
    """A page as one site flavour publishes it."""

    page: ParsedPage
    """The parsed page (front matter, anchors, maths)."""
    sections: tuple[tuple[Token, ...] | Stepper, ...]
    """Prose runs and steppers, in order."""
    uses: tuple[Use, ...]
    """Every role of the flavour's text, in order."""
    lines: tuple[str | Line, ...]
    """The source lines the flavour republishes as Markdown, in order, each role replaced by its text written
    as Markdown (``markdown_text``), as is a directive's plain-text argument or value (a ``Line`` where there
    is a picture or directive syntax)."""
    pictures: tuple[Picture, ...]
    """The pictures it shows, each once."""
    shown: dict[str, str]
    """Figure id → its anchor on this page (a state's figure, else a ``{fig}`` alone in its paragraph)."""
    values: tuple[str, ...]
    """Names of the known values it cites, sorted."""

    @property
    def states(self) -> list[ResolvedState]:
        return [s for section in self.sections if isinstance(section, Stepper) for s in section.states]


@dataclass(frozen=True)
class SiteView:
    """The site in one flavour (public or teacher): what resolving and rendering any page needs to know."""

    content: Content
    pages: dict[str, ParsedPage]
    """Parsed pages by id, in site order."""
    evidence: Evidence
    teacher: bool
    """True for the teacher build (teacher notes included)."""
    images: dict[str, Picture] = field(default_factory=dict)
    """Teacher-supplied pictures by project-relative path."""

    def say(self, text: str) -> str:
        """``text`` in the course's language (site.yml ``language``)."""
        return localize(text, self.content.config.language)

    def badge(self, provenance: str) -> str:
        return self.say(BADGE_TEXT[provenance])

    @cached_property
    def uses(self) -> dict[str, tuple[Use, ...]]:
        """Page id → every role of the page's text in this flavour: what the backlinks are made of."""
        return {page_id: block_uses(flavour_blocks(page, self.teacher)[0]) for page_id, page in self.pages.items()}

    @cached_property
    def anchor_names(self) -> dict[str, frozenset[str]]:
        """Page id → the ids of its anchors: where a bare label (``{ref}`label```, ``{eq}``) is looked for."""
        return {page_id: page.anchor_ids for page_id, page in self.pages.items()}

    @cached_property
    def pictures(self) -> list[Picture]:
        """The pictures this flavour's pages show: the only ones it publishes (a picture
        only a teacher note shows stays out of the public site)."""
        return list({p.src: p for page in self.pages.values() if page.images
                     for p in block_pictures(self, page, flavour_blocks(page, self.teacher)[0])}.values())


def without_teacher(page: ParsedPage) -> tuple[tuple[Block, ...], frozenset[int]]:
    """The public page: its blocks with every teacher note dropped at token level (the directive and
    all inside it, in prose and in states), and the source lines the notes stand on.

    The one place teacher material is removed: every public output is made from what this returns.
    """
    def drop(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
        if not any(t.type == "directive_open" and t.meta["name"] == "teacher" for t in tokens):
            return tokens
        kept, depth = [], 0
        for token in tokens:
            teacher = token.type.startswith("directive_") and token.meta["name"] == "teacher"
            depth += teacher and token.nesting == 1
            if depth == 0:
                kept.append(token)
            depth -= teacher and token.nesting == -1
        return tuple(kept)

    blocks = tuple(replace(b, body=drop(b.body), more=drop(b.more), teacher=()) if isinstance(b, StateSource)
                   else drop(b) for b in page.blocks)
    return blocks, frozenset(n for start, end in page.teacher_spans for n in range(start, end))


def flavour_blocks(page: ParsedPage, teacher: bool) -> tuple[tuple[Block, ...], frozenset[int]]:
    """The blocks (and the hidden source lines) of ``page`` in one flavour."""
    return (page.blocks, frozenset()) if teacher else without_teacher(page)


def _tokens(blocks: Iterable[Block]) -> list[tuple[str, Token]]:
    """Every token of ``blocks`` in order, each with the id of the state it stands in (``''`` outside states)."""
    return [(b.id if isinstance(b, StateSource) else "", t) for b in blocks
            for run in ((b.caption, b.body, b.more, b.teacher) if isinstance(b, StateSource) else (b,)) for t in run]


def block_uses(blocks: Iterable[Block]) -> tuple[Use, ...]:
    """Every role in ``blocks``, in order, then the source of each ``{quoted}`` block and each source a ``{cite}``
    names (both cite it)."""
    tokens = _tokens(blocks)
    roles = [(state, child) for state, token in tokens if token.type == "inline"
             for child in token.children or () if child.type == "myst_role"]
    return tuple(Use(role.meta["name"], role.content.strip(), state, bool(role.meta.get("block")))
                 for state, role in roles) \
        + tuple(Use("src", token.meta["arg"].strip(), state, False) for state, token in tokens
                if token.type == "directive_open" and token.meta["name"] == "quoted") \
        + tuple(Use("src", key, state, False) for state, role in roles if role.meta["name"] in CITE_ROLES
                for key in cited_ids(role.content))


def block_pictures(site: SiteView, page: ParsedPage, blocks: Iterable[Block]) -> tuple[Picture, ...]:
    """The pictures ``blocks`` of ``page`` show, each once."""
    return tuple({path: site.images[path] for _state, t in _tokens(blocks) if t.type == "image_figure"
                  if (path := image_path(page.meta.path, t.meta["src"])) in site.images}.values())


def resolve_page(site: SiteView, page: ParsedPage) -> ResolvedPage:
    """``page`` as ``site``'s flavour publishes it."""
    blocks, hidden = flavour_blocks(page, site.teacher)
    states = {b.id: ResolvedState(b, f"{page.meta.id}-{b.id}", site.evidence.figures.get(b.figure),
                                  derived_provenance(b, page, site.evidence)[0])
              for b in blocks if isinstance(b, StateSource)}
    uses = block_uses(blocks)
    shown: dict[str, str] = {}
    for state in states.values():
        if state.source.figure:
            shown.setdefault(state.source.figure, f"#{state.anchor}-fig")
    for use in uses:
        if use.block and use.name == "fig":
            shown.setdefault(use.target, f"#{page.meta.id}-fig-{use.target}")
    return ResolvedPage(page, _sections(page.meta.id, blocks, states), uses,
                        _lines(site, page, hidden, list(states.values())), block_pictures(site, page, blocks), shown,
                        tuple(sorted({u.target for u in uses if u.name == "num"} & set(site.evidence.values))))


def _sections(page_id: str, blocks: tuple[Block, ...],
              states: dict[str, ResolvedState]) -> tuple[tuple[Token, ...] | Stepper, ...]:
    """Prose runs and steppers: consecutive states form one stepper; a run left empty (a teacher note, in
    the public flavour) does not end it."""
    sections: list[tuple[Token, ...] | Stepper] = []
    for block in blocks:
        if not isinstance(block, StateSource):
            if block:
                sections.append(block)
        elif sections and isinstance(sections[-1], Stepper):
            sections[-1] = replace(sections[-1], states=sections[-1].states + (states[block.id],))
        else:
            number = sum(isinstance(s, Stepper) for s in sections) + 1
            sections.append(Stepper(f"{page_id}-steps" + (f"-{number}" if number > 1 else ""), (states[block.id],)))
    return tuple(sections)


def _lines(site: SiteView, page: ParsedPage, hidden: frozenset[int],
           states: list[ResolvedState]) -> tuple[str | Line, ...]:
    source = page.source.split("\n")
    figures = [""] * len(source)  # each line's state's figure: {mark} names resolve against it
    for state in states:
        first, last = state.source.line - 1, state.source.end_line
        figures[first:last] = [state.source.figure] * (last - first)
    pictures = {line - 1: site.images.get(image_path(page.meta.path, src)) for src, line in page.images}
    syntax = {line: (name, part, value) for line, name, part, value in page.directive_lines}

    def text(piece: str, number: int, role: Callable[[str], str] = markdown_text) -> str:
        """``piece`` with each role replaced by ``role`` of its text (by default: as Markdown that reads as it)."""
        if "`" not in piece:  # most lines hold no role: skip the search for one
            return piece
        return "".join(p if isinstance(p, str) else role(role_text(site, *p, figures[number], page.meta.id))
                       for p in role_pieces(piece))

    lines: list[str | Line] = []
    for number, line in enumerate(source):
        if number in hidden:
            continue
        if number in syntax:
            name, part, value = syntax[number]
            shown = text(value, number) if (name, part) in _MARKDOWN_OPTIONS \
                else markdown_text(text(value, number, str))
            at = line.rfind(value)  # the parser stripped the value from the end of the line
            lines.append(Line((line[:at] + shown + line[at + len(value):],), (name, part, shown)))
        elif pictures.get(number) and (span := picture_address(line)):
            lines.append(Line((text(line[:span[0]], number), pictures[number], text(line[span[1]:], number))))
        else:
            lines.append(text(line, number))
    return tuple(lines)


_MARKDOWN_OPTIONS = frozenset({("state", "caption")})
"""Directive options whose value is Markdown (the parse stage checks a state's caption as prose); every other
argument and value is plain text, which the HTML pages escape and the published Markdown too."""


def role_text(site: SiteView, name: str, target: str, state_figure: str = "", page_id: str = "") -> str:
    """A role as plain text: what the Markdown, the notebook (escaped by ``markdown_text``) and the search read
    in its place (a reference reads as its link on the HTML page ``page_id`` does; without ``page_id``, as its
    page's title)."""
    evidence = site.evidence
    if name == "mark":
        figure_id, mark_name = resolve_mark(target, state_figure)
        mark = evidence.figures[figure_id].mark(mark_name) if figure_id in evidence.figures else None
        return mark.label if mark else target
    if name == "num" and target in evidence.values:
        return site.say(display(evidence.values[target]))
    if name == "fig" and target in evidence.figures:
        return site.say(_("(figure {id}: {alt})", id=target, alt=evidence.figures[target].alt))
    if name == "src":
        return f"[{target}]"
    if name in CITE_ROLES:
        return " ".join(f"[{key}]" for key in cited_ids(target))
    if name in REFERENCE_ROLES and not page_id:
        # The search reads a reference as its page's title only: the title of the section it points to belongs to
        # that section, and a lesson naming it in a link would outrank it (lessons rank above the index page).
        text, target = split_title(target)
        page = site.pages.get(target.removesuffix(".md").rsplit("/", 1)[-1] if name == "doc"
                              else target.partition("#")[0])
        return text or (site.say(_("“{title}”", title=page.meta.title)) if page else target)
    if name in REFERENCE_ROLES:  # the link's text; without the link around it, a title is set in quotes
        href, shown = ref_link(site, target, page_id, name)
        titled = name in ("ref", "doc") and "#" in href and not split_title(target)[0]  # not "(1)" nor "图 1"
        return site.say(_("“{title}”", title=shown)) if titled else shown
    return target


def ref_link(site: SiteView, target: str, page_id: str, name: str = "ref") -> tuple[str, str]:
    """The URL and link text of a ``{ref}`` (``{eq}``, ``{numref}``, ``{doc}``) target: its own text when it
    gives one (``{ref}`text <label>```; ``%s`` in a ``{numref}``'s text is the number), else the title of
    what it points at."""
    text, target = split_title(target)
    found = resolve_ref(target, page_id)
    if name in ("eq", "numref") or found[0] not in site.pages:  # a label or a {doc} path: look for it
        found = locate(name, target, page_id, site.anchor_names) or found
    target_page, anchor = found
    page = site.pages[target_page]
    if not anchor:
        # A work's title: 《…》 in Chinese.
        return f"{target_page}.html", text or site.say(_("“{title}”", title=page.meta.title))
    title = site.say(next((text for a, _, text in page.anchors if a == anchor), anchor))
    href = f"#{anchor}" if target_page == page_id else f"{target_page}.html#{anchor}"
    if text:
        return href, text.replace("%s", number_in(title)) if name == "numref" else text
    return href, title if target_page == page_id else f"{page.meta.label or page.meta.title} · {title}"


def backlinks(site: SiteView, name: str, key: Callable[[str], Hashable] = str,
              states: bool = True) -> dict[Hashable, list[dict[str, str]]]:
    """``key(target)`` → a link to every page of this flavour (to each state, with ``states``) that cites
    it with role ``name``, in site order, each once."""
    uses: dict[Hashable, list[dict[str, str]]] = {}
    for page_id, page in site.pages.items():
        for use in site.uses[page_id]:
            if use.name == name:
                link, found = cited_at(page, use.state if states else ""), uses.setdefault(key(use.target), [])
                if link not in found:
                    found.append(link)
    return uses


def cited_at(page: ParsedPage, state: str) -> dict[str, str]:
    """The link to a page, or to one of its states."""
    label = page.meta.label or page.meta.title
    if not state:
        return {"url": f"{page.meta.id}.html", "text": label}
    return {"url": f"{page.meta.id}.html#{page.meta.id}-{state}", "text": f"{label} · {state}"}

