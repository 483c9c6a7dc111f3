"""The parsing stage: a page's Markdown becomes tokens grouped into blocks and states.

Parsing never produces HTML. The result keeps every token's line so the check
stage can say ``path:line``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property

from markdown_it import MarkdownIt
from markdown_it.token import Token

from site_builder.load.content import IMAGE_SUFFIXES
from site_builder.load.frontmatter import PageMeta, SplitPage
from site_builder.markdown.directives import DIRECTIVES, directive_lines, unclosed_code
from site_builder.parse import myst
from site_builder.parse.d2l import d2l_problems
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem, invisible_characters, suggest
from site_builder.vocabulary.provenance import PROVENANCES


@dataclass(frozen=True)
class RoleUse:
    """One ``{name}`target``` in the text."""

    name: str
    """Role name: num, fig, src, ref, example."""
    target: str
    line: int
    """Source line."""
    state: str = ""
    """Id of the state it stands in (``b2``), or ``''``."""
    teacher: bool = False
    """True inside a teacher note (not published in the public site)."""
    clause: str = ""
    """Text of the clause just before the role (back to the last punctuation or role): where
    position words such as 左侧 that describe a ``{mark}`` stand."""
    after_mark: str = ""
    """Target of the ``{mark}`` this clause directly follows (``{mark}`a`上方的{mark}`b```), or ``''``."""
    following: str = ""
    """Text right after the role, to the next punctuation or role (``{mark}`a`在底部``)."""


@dataclass(frozen=True)
class StateSource:
    """A ``state`` directive, parsed."""

    id: str
    """``b0``, ``b1`` …"""
    line: int
    """Line of the ``:::{state}`` opener."""
    title: str
    """``:title:``"""
    title_line: int
    """Line of ``:title:`` (the opener's when there is none)."""
    figure: str
    """``:figure:`` id, or ``''``."""
    figure_line: int
    """Line of ``:figure:``."""
    caption: tuple[Token, ...]
    """``:caption:`` parsed as inline Markdown (empty when there is none)."""
    provenance: str
    """Declared ``:provenance:``."""
    provenance_line: int
    """Line of ``:provenance:``."""
    body: tuple[Token, ...]
    """Tokens of the body, without ``more`` and ``teacher``."""
    more: tuple[Token, ...]
    """Tokens inside ``::::{more}``."""
    teacher: tuple[Token, ...]
    """Tokens inside ``::::{teacher}``."""
    end_line: int
    """Last line of the directive."""


@dataclass(frozen=True)
class ParsedPage:
    """A page after parsing: front matter, blocks in order, and what it cites."""

    meta: PageMeta
    source: str
    """The Markdown source text (for the raw ``.md`` and the readable view)."""
    blocks: tuple[tuple[Token, ...] | StateSource, ...]
    """Top-level content in order: token runs between states, and the states."""
    teacher_spans: tuple[tuple[int, int], ...]
    """0-based [start, end) line spans of teacher notes, removed from public Markdown."""
    anchors: tuple[tuple[str, int, str], ...]
    """Every anchor the page defines (heading ids and ``<page>-<state>``): (id, line, title)."""
    roles: tuple[RoleUse, ...]
    """Every role used, in order."""
    texts: tuple[tuple[str, int, str], ...]
    """Prose text runs (content, line, state id) for the unbound-number check."""
    math: tuple[tuple[str, int, bool], ...]
    """Math (tex, line, display) for the render check."""
    pointing: tuple[tuple[int, int, str], ...] = ()
    """Each 指图 list in a teacher note: (line, how many ``{mark}`` it names, state id)."""
    warnings: tuple[Problem, ...] = ()
    """Likely mistakes that still build (a tab-indented list that became a code block)."""
    images: tuple[tuple[str, int], ...] = ()
    """Pictures the page shows: (``src`` as written, line)."""
    directive_lines: tuple[tuple[int, str, str, str], ...] = ()
    """Each line of directive syntax, in order: (0-based line, directive name, ``open``, ``close`` or the
    option's key, the argument or the option's value)."""
    quoted: tuple[tuple[str, int, int], ...] = ()
    """Each ``{quoted}`` block: (source id, first line, last line)."""
    links: tuple[tuple[str, int], ...] = ()
    """Each Markdown link to a page or label of this site (``[](#label)``, ``[x](page.md)``): its ``{ref}`` target
    and line."""
    file_links: tuple[tuple[str, int], ...] = ()
    """Each Markdown link to another file of the site (``numbers.html#x``, ``files/a.pdf``): address and line."""

    @cached_property
    def anchor_ids(self) -> frozenset[str]:
        """The ids of ``anchors``, made once per parse: every save looks references up in every page's."""
        return frozenset(anchor for anchor, _line, _title in self.anchors)

    @cached_property
    def teacher_anchors(self) -> frozenset[str]:
        """The ids of the anchors inside teacher notes: a ``{ref}`` in public text to one would publish it."""
        return frozenset(anchor for start, end in self.teacher_spans for anchor, line, _title in self.anchors
                         if start < line <= end)


def parse_page(page: SplitPage, md: MarkdownIt) -> tuple[ParsedPage, list[Problem]]:
    """Parse one page body and check its structure (directives, options, raw HTML)."""
    meta, problems = page.meta, []
    env: dict = {}
    tokens = md.parse(page.body, env)
    if "nesting_limit" in env:
        problems.append(Problem(meta.path, env["nesting_limit"], _TOO_DEEP))
    problems += [Problem(meta.path, line, message) for line, message in env.get("near_misses", ())]
    _check_tokens(tokens, meta.path, problems)
    problems += d2l_problems(tokens, meta.path) + myst.gate_problems(tokens, meta.path)
    labels = myst.label_anchors(tokens, meta.title)
    tokens = myst.without_title(tokens, meta.title_line)
    blocks, run, state_ids = [], [], []
    for name, part in _top_level(tokens, ("state",)):
        if not name:
            run += part
            continue
        state = _parse_state(part, meta, len(state_ids), md, problems)
        state_ids.append(state.id)
        if run:
            blocks.append(tuple(run))
            run = []
        blocks.append(state)
    if run:
        blocks.append(tuple(run))
    if meta.kind == "lesson" and not state_ids and "nesting_limit" not in env:  # else the states were lost
        problems.append(Problem(meta.path, 1, _("a lesson needs at least one ':::{{state}} b0' block")))
    meta = replace(meta, kind=meta.kind or ("lesson" if state_ids else "article"))
    walker = _Walker(meta.id)
    for block in blocks:
        walker.visit(block)
    teacher_spans = tuple((t.map[0], t.map[1]) for t in tokens
                          if t.type == "directive_open" and t.meta["name"] == "teacher" and t.map)
    return ParsedPage(meta, page.body, tuple(blocks), teacher_spans, tuple(walker.anchors + labels),
                      tuple(walker.roles), tuple(walker.texts), tuple(walker.math), tuple(walker.pointing),
                      page.warnings + _tab_lists(tokens, page.body, meta.path),
                      tuple((t.meta["src"], t.meta["line"]) for t in tokens
                            if t.type == "image_figure" and not _image_src_problem(t.meta["src"])),
                      directive_lines(tokens), myst.quoted_blocks(tokens), myst.page_links(tokens),
                      myst.file_links(tokens)), problems


_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _tab_lists(tokens: list[Token], body: str, path: str) -> tuple[Problem, ...]:
    """Indented code blocks that look like a list indented with a tab: CommonMark reads a tab as 4 columns,
    so an editor's tab-indented list silently becomes code."""
    lines = body.split("\n")
    return tuple(Problem(path, token.map[0] + 1, _("this list is indented with a tab, so it is shown as a code block; "
                                                   "start the list at the margin, or indent with spaces")).as_warning()
                 for token in tokens if token.type == "code_block" and token.map
                 and lines[token.map[0]].startswith("\t") and _LIST_ITEM.match(token.content))


def _top_level(tokens: list[Token], names: tuple[str, ...]) -> Iterator[tuple[str, list[Token]]]:
    """``tokens`` in order: each directive named in ``names`` whole, as (its name, its tokens from opener to
    closer), and every other token alone, as ('', [token])."""
    i = 0
    while i < len(tokens):
        if tokens[i].type == "directive_open" and tokens[i].meta["name"] in names:
            depth, end = 0, i
            for end in range(i, len(tokens)):  # the plugin always pushes a closer for each opener
                depth += tokens[end].nesting if tokens[end].type.startswith("directive_") else 0
                if depth == 0:
                    break
            yield tokens[i].meta["name"], tokens[i:end + 1]
            i = end + 1
        else:
            yield "", [tokens[i]]
            i += 1


def _check_tokens(tokens: list[Token], path: str, problems: list[Problem]) -> None:
    depth_states = 0
    for i, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "heading_open" and (hidden := invisible_characters(tokens[i + 1].content, _("heading"))):
            problems.append(Problem(path, line, hidden))  # its text is also the anchor's title and id
        if token.type == "directive_open":
            name = token.meta["name"]
            if name not in DIRECTIVES:
                problems.append(Problem(path, line, _("unknown directive '{{{name}}}'", name=name)
                                        + (suggest(name, DIRECTIVES)
                                           or _(" (known: {names})", names=", ".join(DIRECTIVES)))))
            else:
                problems += myst.option_problems(token, path)
            for key, again in token.meta["repeated"]:
                problems.append(Problem(path, again, _("option ':{key}:' is given twice (first on line {line}): "
                                                       "keep one of the two lines", key=key,
                                                       line=token.meta["options"][key][1])))
            if not token.meta["closed"]:
                problems.append(Problem(path, line, _("directive '{{{name}}}' is never closed: "
                                                      "add a line '{closer}' after its content",
                                                      name=name, closer=token.markup)
                                        + unclosed_code(token)))
            if name == "state" and (token.level > 0 or depth_states):
                problems.append(Problem(path, line, _("a state must stand at the top level of the page, "
                                                      "not inside another block")))
            depth_states += name == "state"
        elif token.type == "directive_close":
            depth_states -= token.meta["name"] == "state"
        elif token.type == "image_figure":
            problems += image_problems(token.meta, path)
        elif token.type == "html_block":
            problems.append(Problem(path, line, _RAW_HTML))
        elif token.type == "inline":
            for child in token.children or ():
                if child.type in _INLINE_PROBLEMS:
                    problems.append(Problem(path, child.meta["line"], _INLINE_PROBLEMS[child.type]))
                elif child.type == "link_open" and (wrong := myst.link_problem(str(child.attrGet("href") or ""))):
                    problems.append(Problem(path, child.meta["line"], wrong))


_POINTING = re.compile(r"指图|\bPointing\b", re.IGNORECASE)
"""What announces a teacher note's pointing list, in the course's languages (指图与推进, Pointing and pacing)."""
_CLAUSE_END = re.compile(r"[，。；：！？、,.;:!?（）()\n]")
"""Where the clause before a role starts: the last punctuation."""

_TOO_DEEP = _("nesting too deep here (lists, quotes and directives more than 20 levels inside each other): "
              "everything from this line to the end of the enclosing block would be lost; flatten the structure")
_RAW_HTML = _("raw HTML is not allowed in lessons; write Markdown, or a directive "
               "(state, more, teacher); to show a tag as text, put it in `backticks`")
_INLINE_PROBLEMS = {
    "html_inline": _RAW_HTML,
    "math_stray": _("'$$' in running text: leave a blank line before display math, or put each '$$' on a line "
                    "of its own; for a dollar sign write \\$"),
    "math_unclosed": _("inline math opened with '$' is never closed: add a '$' right after the formula "
                       "(no space before it); for a dollar sign write \\$"),
    "image": _("an image must stand alone in its paragraph: put '![alt text](images/file.png \"caption\")' "
               "on a line of its own, with blank lines around it"),
}
"""Inline tokens refused wherever they stand: the message for each."""


def image_problems(image: dict, path: str) -> list[Problem]:
    """A picture must say what it shows (alt text) and come from the page's own folder (no URL, no '..')."""
    src, line, found = image["src"], image["line"], []
    if not image["alt"]:
        found.append(Problem(path, line, _("image '{src}' has no alt text: write what it shows for readers who "
                                           "cannot see it, as in '![a photo of a GPU board](images/gpu.jpg)'",
                                           src=src)))
    if (wrong := _image_src_problem(src)):
        found.append(Problem(path, line, _("image '{src}' ", src=src) + wrong))
    return found


def _image_src_problem(src: str) -> str:
    """What is wrong with an image's path ('' if nothing)."""
    if "\\" in src:  # a Windows path: the file may well be in the page's folder
        return _("separates folders with '\\': write '/' instead, as in 'images/gpu.jpg'")
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src) or src.startswith("/") or {"", ".", ".."} & set(src.split("/")):
        return _("must be a file in this page's folder or below, e.g. 'images/gpu.jpg' "
                 "(no URL, no absolute path, no '..')")
    if not src.lower().endswith(IMAGE_SUFFIXES):
        return _("is not a picture file: use {names}", names=", ".join(IMAGE_SUFFIXES))
    return ""


def image_path(page_path: str, src: str) -> str:
    """The project-relative path of a page's image (``content/pages`` + ``images/x.png``)."""
    return f"{page_path.rsplit('/', 1)[0]}/{src}"


def _parse_state(tokens: list[Token], meta: PageMeta, index: int, md: MarkdownIt,
                 problems: list[Problem]) -> StateSource:
    opener = tokens[0]
    line, path, state_id, expected = opener.map[0] + 1, meta.path, opener.meta["arg"].strip(), f"b{index}"
    if state_id != expected:
        problems.append(Problem(path, line, _("state id '{id}' should be '{expected}': states are "
                                              "numbered b0, b1, … in order", id=state_id, expected=expected)))
    options, lost = opener.meta["options"], opener.meta.get("lost", {})  # lost: misspelt, said at their lines
    title, title_line = options.get("title", ("", line))
    if not title and "title" not in lost:
        problems.append(Problem(path, title_line, _("state {id} needs ':title: …'", id=state_id)))
    elif hidden := invisible_characters(title, _("state {id} title", id=state_id)):
        problems.append(Problem(path, title_line, hidden))
    provenance, provenance_line = options.get("provenance", ("", line))
    if provenance not in PROVENANCES and (provenance or "provenance" not in lost):
        problems.append(Problem(path, provenance_line, _("state {id} needs ':provenance:' set to one of {names}",
                                  id=state_id, names=", ".join(PROVENANCES))
                                + (_(", not '{value}'", value=provenance) + suggest(provenance, PROVENANCES)
                                   if provenance else "")))
    figure, figure_line = options.get("figure", ("", line))
    body, more, teacher = _split_state_body(tokens[1:-1])
    caption, caption_line = options.get("caption", ("", line))
    said: dict = {}  # what the caption's parse notes: a role's name left in its text (nearmiss.py)
    caption_tokens = tuple(md.parseInline(caption, said)) if caption else ()
    problems += [Problem(path, caption_line, message) for _line, message in said.get("near_misses", ())]
    for token in caption_tokens:
        token.map = [caption_line - 1, caption_line]
        for child in token.children or ():
            child.meta = {**(child.meta or {}), "line": caption_line}
    _check_tokens(list(caption_tokens), path, problems)  # a caption is rendered too: no raw HTML in it either
    return StateSource(state_id, line, title, title_line, figure, figure_line, caption_tokens,
                       provenance, provenance_line, body, more, teacher, opener.map[1])


def _split_state_body(tokens: list[Token]) -> tuple[tuple[Token, ...], tuple[Token, ...], tuple[Token, ...]]:
    """Separate top-level ``more`` and ``teacher`` directives from the body."""
    parts: dict[str, list[Token]] = {"": [], "more": [], "teacher": []}
    for name, part in _top_level(tokens, ("more", "teacher")):
        parts[name] += part[1:-1] if name else part
    return tuple(parts[""]), tuple(parts["more"]), tuple(parts["teacher"])


class _Walker:
    """Collects anchors, roles, prose text and math from a page's blocks."""

    def __init__(self, page_id: str) -> None:
        self.page_id = page_id
        self.anchors: list[tuple[str, int, str]] = []
        self.roles: list[RoleUse] = []
        self.texts: list[tuple[str, int, str]] = []
        self.math: list[tuple[str, int, bool]] = []
        self.pointing: list[tuple[int, int, str]] = []

    def visit(self, block: tuple[Token, ...] | StateSource) -> None:
        if isinstance(block, StateSource):
            self.anchors.append((f"{self.page_id}-{block.id}", block.line, block.title))
            self.texts.append((block.title, block.title_line, block.id))
            self.tokens(block.caption + block.body + block.more, block.id, teacher=False)
            self.tokens(block.teacher, block.id, teacher=True)
        else:
            self.tokens(block, "", teacher=False)

    def tokens(self, tokens: tuple[Token, ...], state: str, teacher: bool) -> None:
        in_teacher, announced = 0, False  # announced: a paragraph of a teacher note announced pointing
        for i, token in enumerate(tokens):
            if token.type.startswith("directive_") and token.meta["name"] == "teacher":
                in_teacher += token.nesting
            line = token.map[0] + 1 if token.map else 0
            if token.type == "heading_open":
                self.anchors.append((token.attrGet("id"), line, tokens[i + 1].content))
            elif token.type in ("math_block", "math_block_label"):
                self.math.append((token.content.strip(), line, True))
            elif token.type == "inline":
                self.inline(token, state, teacher or in_teacher > 0)
                announced = announced or bool((teacher or in_teacher) and _POINTING.search(token.content))
            elif token.type in ("bullet_list_open", "ordered_list_open") and announced:
                # the list after a paragraph that announces pointing (_POINTING): how many marks it names
                announced = False
                end = next(j for j in range(i + 1, len(tokens)) if tokens[j].type == token.type.replace("open", "close")
                           and tokens[j].level == token.level)
                marks = sum(c.type == "myst_role" and c.meta["name"] == "mark" for t in tokens[i:end]
                            if t.type == "inline" for c in t.children or ())
                self.pointing.append((line, marks, state))

    def inline(self, token: Token, state: str, teacher: bool) -> None:
        clause, after_mark = "", ""
        last: RoleUse | None = None  # a {mark} whose following words ("…在底部") are still being read
        for child in token.children or ():
            line = child.meta.get("line", 0)
            if child.type in ("text", "code_inline"):
                parts = _CLAUSE_END.split(child.content)
                head, tail = parts[0], parts[-1]
                if last is not None:
                    self.roles[-1] = last = replace(last, following=last.following + head)
                    last = last if head == child.content else None
                if tail != child.content:
                    clause, after_mark = "", ""
                clause += tail
            if child.type == "myst_role":
                name = child.meta["name"]
                self.roles.append(RoleUse(name, child.content.strip(), line, state, teacher, clause, after_mark))
                clause, after_mark = "", child.content.strip() if name == "mark" else ""
                last = self.roles[-1] if name == "mark" else None
            elif child.type == "math_inline":
                self.math.append((child.content, line, False))
            elif child.type == "text" and not teacher:
                self.texts.append((child.content, line, state))
