"""What parsing does for pages written in MyST: the title heading, directive options, labels and their numbers.

A label (``(label)=``, a directive's ``:name:`` or ``:label:``, ``$$…$$ (label)``) is an anchor of the page,
titled so that a ``{ref}`` to it reads well: the heading after a target, an equation's number ``(n)``.
Labelled equations are numbered in reading order; the number is written on the formula's token, which
the renderer shows beside it.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from site_builder.markdown.directives import DIRECTIVES, GATES
from site_builder.markdown.myst import page_link
from site_builder.vocabulary.i18n import Text, _
from site_builder.vocabulary.problems import Problem, suggest
from site_builder.vocabulary.urls import allowed_url
from site_builder.vocabulary.urls import link_problem as url_problem

_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:")
"""A web or mail address: not a file of the site."""


def without_title(tokens: list[Token], line: int) -> list[Token]:
    """``tokens`` without the top-level ``# H1`` on ``line`` (1-based; 0: none): the page shows its title."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.tag == "h1" and token.map \
                and token.map[0] + 1 == line:
            return tokens[:i] + tokens[i + 3:]
    return tokens


def option_problems(directive: Token, path: str) -> list[Problem]:
    """An option the directive does not take, in either fence form, is an error at its line."""
    name, known = directive.meta["name"], DIRECTIVES[directive.meta["name"]].options
    return [Problem(path, line, _("unknown {name} option ':{key}:'", name=name, key=key)
                    + (suggest(key, known) or (_(" (known: {names})", names=", ".join(known)) if known
                                               else _(" ('{{{name}}}' takes no options)", name=name))))
            for key, (_value, line) in directive.meta["options"].items() if key not in known]


def label_anchors(tokens: list[Token], page_title: str) -> list[tuple[str, int, str]]:
    """Each label among ``tokens`` as an anchor (label, line, title); labelled equations get their numbers."""
    anchors, equations, figures = [], 0, 0
    for i, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "myst_target" and not token.meta.get("heading"):
            anchors.append((token.content, line, _target_title(tokens, i + 1, page_title) or token.content))
        elif token.type == "math_block_label" or (token.type == "math_block" and "label" in token.meta):
            equations += 1
            token.meta["number"] = equations
            anchors.append((token.meta.setdefault("label", token.info), line, f"({equations})"))
        elif token.type == "image_figure" and token.meta.get("label"):
            figures += 1
            token.meta["number"] = figures
            anchors.append((token.meta["label"], line, _("Figure {number}", number=figures)))
        elif token.type == "directive_open" and token.meta["name"] == "math":
            label = _option(token, "label") or _option(token, "name")
            if label and i + 1 < len(tokens) and tokens[i + 1].type == "math_block":
                tokens[i + 1].meta["label"] = label  # numbered when the loop reaches it
        elif token.type == "directive_open" and token.meta["name"] not in ("figure", "image") \
                and (name := _option(token, "name") or _option(token, "label")):
            anchors.append((name, line, token.meta["arg"] or name))
    return anchors


def _option(directive: Token, key: str) -> str:
    return directive.meta["options"].get(key, ("", 0))[0]


def _target_title(tokens: list[Token], start: int, page_title: str) -> str:
    """The title a target takes: the heading right after it (the page's title for its ``# H1``), else ``''``."""
    following = tokens[start] if start < len(tokens) else None
    if following is None or following.type != "heading_open":
        return ""
    return page_title if following.tag == "h1" and following.level == 0 else tokens[start + 1].content


def page_links(tokens: list[Token]) -> tuple[tuple[str, int], ...]:
    """Each link to a page or label of this site among ``tokens``: (its ``{ref}`` target, line)."""
    return tuple((target, child.meta.get("line", 0)) for token in tokens if token.type == "inline"
                 for child in token.children or () if child.type == "link_open"
                 and (target := page_link(str(child.attrGet("href") or ""))) is not None)


def file_links(tokens: list[Token]) -> tuple[tuple[str, int], ...]:
    """Each link to another file of the site (``numbers.html#x``, ``files/a.pdf``): (the address as written, line).
    Only the built site knows its files, so the engine checks them once both sites are made."""
    return tuple((href, child.meta.get("line", 0)) for token in tokens if token.type == "inline"
                 for child in token.children or () if child.type == "link_open"
                 and (href := str(child.attrGet("href") or "")) and page_link(href) is None
                 and not _SCHEME.match(href) and allowed_url(href))


def link_problem(href: str) -> Text | None:
    """What is wrong with a Markdown link's address, or ``None``: a page or label of this site, or an address
    the allowlist takes. ``inv:…`` names a page in another Sphinx project's inventory (intersphinx), which
    this site cannot look up."""
    if page_link(href) is not None or allowed_url(href):
        return None
    if href.startswith("inv:"):
        return _("link '{href}' points into another Sphinx project's inventory (intersphinx), which this site "
                 "cannot look up: give the full https:// address of the page it means", href=href)
    return url_problem(href)


def quoted_blocks(tokens: list[Token]) -> tuple[tuple[str, int, int], ...]:
    """Each ``{quoted}`` block: (the source it quotes, its first and last line), 1-based. The numbers typed
    in it are that source's, shown with it, so the hand-typed-number rule leaves them."""
    return tuple((t.meta["arg"].strip(), t.map[0] + 1, t.map[1]) for t in tokens
                 if t.type == "directive_open" and t.meta["name"] == "quoted" and t.map)


def gate_problems(tokens: list[Token], path: str) -> list[Problem]:
    """Each ``{exercise-start}`` (``{solution-start}``) needs its end after it, in the same block, before the next
    start; an end needs its start. The box is open between them, so a missing one would leave it open."""
    problems, open_gate = [], None
    for token in tokens:
        name = token.meta.get("name") if token.type == "directive_open" else None
        line = token.map[0] + 1 if token.map else 0
        if name in GATES:
            if open_gate is not None:
                problems.append(_unended(open_gate, path))
            open_gate = token
        elif name in GATES.values():
            if open_gate is None or GATES[open_gate.meta["name"]] != name or open_gate.level != token.level:
                problems.append(Problem(path, line, _("'{{{name}}}' ends no '{{{start}}}' opened before it in the "
                                                      "same block", name=name, start=name.replace("-end", "-start"))))
                if open_gate is not None:
                    problems.append(_unended(open_gate, path))
            open_gate = None
    return problems + ([_unended(open_gate, path)] if open_gate is not None else [])


def _unended(start: Token, path: str) -> Problem:
    name = start.meta["name"]
    return Problem(path, start.map[0] + 1 if start.map else 0, _(
        "'{{{name}}}' has no '{{{end}}}' after it in the same block: add one where the box ends",
        name=name, end=GATES[name]))
