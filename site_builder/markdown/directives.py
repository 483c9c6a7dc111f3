"""MyST directives in both fence forms: ``:::{state} b0`` … ``:::`` and ```` ```{note} ```` … ```` ``` ````.

A directive opens with three or more colons or backticks and ``{name}``, may carry
``:key: value`` option lines (or, as MyST allows, a ``---`` block of ``key: value``
lines), and closes with a line of the same character, at least as long. It is a container
in markdown-it's sense, like a block quote: its content is tokenized by the block
rules, and its closer is itself a block rule that ends the innermost open directive
only where that directive's own content is being read. So a fenced code block (or a
nested directive) consumes its lines first, and a ``::::`` line inside it cannot end
the directive around it: a teacher note holding one stays whole.

Directives nest (``::::{more}`` inside ``:::{state}``). A closer with fewer colons
than the innermost open directive ends that one (left unclosed) and is then tried
on the next one out; a state left open ends where the next state begins (states
never nest). One forgotten closer is one problem, reported at its opener, instead
of swallowing the rest of the page. A shorter line of backticks inside a backtick
directive is a code fence, as in MyST.

Every ``{name}`` fence is a directive, known or not: an unknown one is reported by
the parse stage, never published as a code box. A *literal* directive (``{math}``,
``{code-cell}``) holds text, not Markdown: its lines up to the closer become one
``math_block`` or ``fence`` token inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from site_builder.vocabulary.i18n import _


@dataclass(frozen=True)
class Directive:
    """What a directive may hold."""

    options: tuple[str, ...] = ()
    """The option keys it accepts; any other is an error."""
    literal: str = ""
    """``''``: its content is Markdown; ``'math'``, ``'code'`` or ``'figure'``: its content is text, made one
    token (a figure's is its caption); ``'skip'``: its content is not shown (``{index}`` entries, ``{contents}``:
    the page has its own table of contents)."""


ADMONITIONS = {"note": _("Note"), "warning": _("Warning"), "tip": _("Tip"), "important": _("Important"),
               "hint": _("Hint"), "seealso": _("See also"), "caution": _("Caution"), "attention": _("Attention"),
               "danger": _("Danger"), "error": _("Error")}
"""MyST's admonitions, each with its title in the course's language; ``{admonition}`` takes its title as argument."""
_EXERCISES = {"exercise": _("Exercise"), "solution": _("Solution")}
"""sphinx-exercise's boxes: an exercise shows its argument after the title; a solution is always folded."""
_CODE_OPTIONS = ("caption", "linenos", "lineno-start", "emphasize-lines", "name", "dedent")
_LAYOUT = ("class", "name", "margin", "padding", "gutter", "columns", "outline", "shadow", "text-align", "width",
           "class-header", "class-body", "class-footer", "class-container", "class-item", "class-label",
           "class-content", "child-align", "child-direction", "reverse", "sync", "sync-group", "selected", "open",
           "color", "icon", "animate", "chevron", "class-title")
"""sphinx-design's options of layout and colour: the site's own style replaces them (a card's ``:link:`` is
no layout, and stays an error)."""
_DESIGN = {name: Directive(_LAYOUT) for name in ("dropdown", "card", "grid-item-card", "tab-set", "tab-item",
                                                 "grid", "grid-item")} \
    | {name: Directive(("class", "name")) for name in ("margin", "sidebar", "epigraph")}
"""sphinx-design's components, shown in the site's own boxes: a dropdown folded, a card or tab titled, one tab
after the other, a grid's items one below the other; so are Jupyter Book's margin notes, sidebars and
epigraphs (in the text column: the layout has no margin for them)."""

DIRECTIVES: dict[str, Directive] = {
    "state": Directive(("title", "figure", "caption", "provenance")),
    "more": Directive(),
    "teacher": Directive(),
    **{name: Directive(("class", "name")) for name in (*ADMONITIONS, "admonition")},
    "math": Directive(("label", "name"), literal="math"),
    "figure": Directive(("alt", "width", "name", "label", "align", "figwidth", "figclass", "class", "height",
                         "scale", "target"), literal="figure"),
    "image": Directive(("alt", "width", "name", "align", "class", "height", "scale", "target"), literal="figure"),
    "code-cell": Directive(("tags",), literal="code"),
    "code-block": Directive(_CODE_OPTIONS, literal="code"),
    "code": Directive(_CODE_OPTIONS, literal="code"),
    "quoted": Directive(),
    "exercise": Directive(("label", "class", "nonumber", "hidden")),
    "solution": Directive(("label", "class", "hidden")),
    "exercise-start": Directive(("label", "class", "nonumber", "hidden")),
    "exercise-end": Directive(),
    "solution-start": Directive(("label", "class", "hidden")),
    "solution-end": Directive(),
    **_DESIGN,
    "index": Directive(("name",), literal="skip"),
    "contents": Directive(("depth", "local", "backlinks", "class"), literal="skip"),
}
"""The directives a page may use, by name."""
_BOXES = {**ADMONITIONS, "admonition": _("Note"), **_EXERCISES,
          **{f"{name}-start": title for name, title in _EXERCISES.items()},
          "dropdown": _("More"), "card": "", "grid-item-card": "", "tab-item": "", "margin": "", "sidebar": "",
          "epigraph": ""}
"""The directives shown as a titled box (folded with ``:class: dropdown``). sphinx-exercise's gated form,
``{exercise-start}`` … ``{exercise-end}``, opens the box at the start and closes it at the end: what stands
between them is read as the page is (the parse stage checks each start has its end)."""
_TITLED = frozenset({"admonition", "dropdown", "card", "grid-item-card", "tab-item", "margin", "sidebar"})
"""Boxes whose argument is their title."""
GATES = {"exercise-start": "exercise-end", "solution-start": "solution-end"}
_SKIPPED = Directive(literal="skip")
"""How a directive whose content is not read is read: an unknown one in backticks too (the parse stage reports it
once; reading its content as Markdown would report what it holds, raw HTML for one)."""
_LANGUAGES = {"ipython3": "python", "ipython": "python", "python3": "python"}
"""Jupyter kernel names a ``{code-cell}`` gives as its language → the language Pygments knows."""

_OPEN = re.compile(r"^(:{3,}|`{3,})\{([A-Za-z][\w-]*)\}[ \t]*(.*?)\s*$")
_CLOSE = re.compile(r"^(:{3,}|`{3,})\s*$")
_OPTION = re.compile(r"^:([A-Za-z][\w-]*):(?:[ \t]+(.*?))?\s*$")
_YAML_OPTION = re.compile(r"^([A-Za-z][\w-]*):(?:[ \t]+(.*?))?\s*$")
_LIKE_OPTION = re.compile(r"^[:：]([A-Za-z][\w-]*)(?:[:：]|[ \t]|$)")
"""A line meant as an option that ``_OPTION`` did not take: a full-width colon, a colon left out, or an option
standing after a blank line (the options end at the first line that is not one)."""
_STACK = "open_directives"
"""``env`` key: the ``directive_open`` tokens whose content is being read, innermost last."""
_TERMINATES = {"alt": ["paragraph", "blockquote", "list"]}


def directive_plugin(md: MarkdownIt) -> None:
    """Parse colon-fence directives into ``directive_open``/``directive_close`` tokens.

    ``directive_open.meta`` holds ``name``, ``arg``, ``options`` (key → (value,
    line), the first line giving the key), ``repeated`` ((key, line) of each later line giving
    a key again) and ``closed``; ``map`` spans the whole directive.
    """
    md.block.ruler.before("fence", "directive", _directive, _TERMINATES)
    md.block.ruler.before("directive", "directive_end", _directive_end, _TERMINATES)
    md.add_render_rule("directive_open", _render_open)
    md.add_render_rule("directive_close", _render_close)


# States are laid out by the page template; the others render where they stand.
_OPEN_HTML = {
    "more": ('<details class="more"><summary>{}</summary>\n', _("More explanation")),
    "teacher": ('<aside class="teacher-note" data-teacher><p class="teacher-label">{}</p>\n', _("Teacher notes")),
}
_CLOSE_HTML = {"more": "</details>\n", "teacher": "</aside>\n"}
_QUOTED_NOTE = _("The numbers above are quoted from")
_CODE_CELL_NOTE = _("The output of this cell is not produced here: the site shows its code only.")


def _render_open(self, tokens, idx, options, env) -> str:
    meta, say = tokens[idx].meta, env.get("say", str)  # in the course's language
    if meta["name"] in _BOXES:
        title = meta["arg"] if meta["name"] in _TITLED and meta["arg"] else say(_BOXES[meta["name"]])
        title += f" {meta['arg']}" if meta["name"].startswith("exercise") and meta["arg"] else ""
        kind, folded = _admonition_kind(meta)
        tag, head = ("details", "summary") if folded else ("aside", "p")
        label = meta["options"].get("name", meta["options"].get("label", ("", 0)))[0]
        anchor = f' id="{escapeHtml(label)}"' if label else ""  # the anchor its :name: or :label: gives the page
        return (f'<{tag} class="admonition {kind}"{anchor}>' + (f'<{head} class="admonition-title">'
                f"{escapeHtml(title)}</{head}>" if title or folded else "") + "\n")
    if meta["name"] == "code-cell":
        return '<div class="code-cell">\n'
    if meta["name"] == "quoted":
        return '<div class="quoted">\n'
    if meta["name"] in ("math", "figure", "image", *GATES.values()) \
            or DIRECTIVES.get(meta["name"], _SKIPPED).literal == "skip":
        return ""  # the formula or picture shows its own number and anchor; a skipped one shows nothing
    if meta["name"] not in _OPEN_HTML:
        return "<div>\n"
    html, label = _OPEN_HTML[meta["name"]]
    return html.format(escapeHtml(say(label)))


def _render_close(self, tokens, idx, options, env) -> str:
    meta = tokens[idx].meta
    if meta["name"] in GATES:
        return ""  # the box stays open until its end
    if meta["name"] in GATES.values():
        return "</details>\n" if meta["name"] == "solution-end" else "</aside>\n"  # what its start opened
    if meta["name"] in _BOXES:
        return "</details>\n" if _admonition_kind(meta)[1] else "</aside>\n"
    if meta["name"] in ("math", "figure", "image") or DIRECTIVES.get(meta["name"], _SKIPPED).literal == "skip":
        return ""
    if meta["name"] == "quoted" and "role_html" in env:  # the source as {src} shows it, linked to sources.html
        said = escapeHtml(env.get("say", str)(_QUOTED_NOTE))
        return f'<p class="quoted-source">{said} {env["role_html"]("src", meta["arg"], False)}</p></div>\n'
    if meta["name"] == "code-cell":
        return f'<p class="code-cell-note">{escapeHtml(env.get("say", str)(_CODE_CELL_NOTE))}</p></div>\n'
    return _CLOSE_HTML.get(meta["name"], "</div>\n")


def _admonition_kind(meta: dict) -> tuple[str, bool]:
    """An admonition's style (``{admonition}`` takes it from its ``:class:``, else ``note``) and whether
    ``:class: dropdown`` folds it."""
    classes = meta["options"].get("class", ("", 0))[0].split()
    kind = meta["name"] if meta["name"] != "admonition" else next((c for c in classes if c in ADMONITIONS), "note")
    gated = meta["name"] in GATES  # its end closes it, so it is folded only if a solution
    folded = meta["name"] == "dropdown" or meta["name"].startswith("solution") or ("dropdown" in classes
                                                                                  and not gated)
    return kind.removesuffix("-start"), folded


def _line(state: StateBlock, number: int) -> str:
    return state.src[state.bMarks[number] + state.tShift[number]:state.eMarks[number]]


def _innermost(state: StateBlock) -> Token | None:
    """The directive whose own content is being read at this point, if any (not one further out, nor
    one whose content holds the list or quote being read)."""
    stack = state.env.get(_STACK)
    return stack[-1] if stack and stack[-1].level + 1 == state.level else None


def _stop(state: StateBlock, directive: Token, line: int, end: int, closed: bool) -> bool:
    """End ``directive``'s content at ``line`` (its closer when ``closed``): stop the tokenizer reading it."""
    directive.meta["closed"], directive.meta["end"] = closed, line
    state.line = end
    return True


def _directive_end(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line of colons: the closer of the innermost directive, or where an unclosed one ends."""
    if state.sCount[start] - state.blkIndent >= 4 or not state.env.get(_STACK):
        return False
    closed = _CLOSE.match(_line(state, start))
    if closed is None:
        return False
    if silent:  # it ends the paragraph, list or quote before it: they lie inside a directive
        return True
    directive = _innermost(state)
    if directive is None or directive.markup[0] != closed.group(1)[0]:  # text in a list or quote; a code fence
        return False
    long_enough = len(directive.markup) <= len(closed.group(1))
    if not long_enough and directive.markup[0] == "`":  # a shorter line of backticks opens a code block
        return False
    return _stop(state, directive, start, end, long_enough)


def _directive(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    opened = _OPEN.match(_line(state, start))
    if opened is None:
        return False
    around = _innermost(state)
    if opened.group(2) == "state" and around is not None and around.meta["name"] == "state":
        return silent or _stop(state, around, start, end, False)  # states never nest: the open one ends here
    if silent:
        return True
    options, repeated, body = _options(state, start + 1, end)
    spec = DIRECTIVES.get(opened.group(2), _SKIPPED if opened.group(1)[0] == "`" else None)
    # (a code or maths directive's content is kept as written: `:param x:` lines there are code, not options)
    lost = {} if spec is not None and spec.literal else _misspelt_options(state, body, end)
    token = state.push("directive_open", "div", 1)
    token.block = True
    token.markup = opened.group(1)
    token.meta = {"name": opened.group(2), "arg": opened.group(3), "options": options, "repeated": repeated,
                  "lost": lost, "closed": False}
    token.map = [start, start + 1]  # until its end is known
    if spec is not None and spec.literal:  # (an unknown one in backticks is skipped whole: it is one error)
        last = _literal(state, token, spec.literal, body, end)
    else:
        stack = state.env.setdefault(_STACK, [])
        stack.append(token)
        old_parent = state.parentType
        state.parentType = "directive"
        state.md.block.tokenize(state, body, end)
        state.parentType = old_parent
        stack.pop()
        last = token.meta.pop("end", max(min(state.line, end), body))  # else where the tokenizer stopped
    if not token.meta["closed"]:
        token.meta["closer_in_code"] = _closer_in_code(state.tokens[state.tokens.index(token) + 1:], token.markup)
    token.map = [start, last + 1 if token.meta["closed"] else last]

    closing = state.push("directive_close", "div", -1)
    closing.block = True
    closing.meta = {"name": opened.group(2), "arg": opened.group(3).strip(), "options": options}
    state.line = token.map[1]
    return True


def _options(state: StateBlock, line: int, end: int) -> tuple[dict[str, tuple[str, int]], list[tuple[str, int]], int]:
    """The options at ``line`` (``:key: value`` lines, or a ``---`` block of ``key: value`` lines) as key →
    (value, 1-based line), each key given again (key, its line: neither line may silently win, the parse stage
    reports it), and the line the content starts on."""
    found: list[tuple[str, str, int]] = []
    if line < end and _line(state, line).strip() == "---":
        close = next((n for n in range(line + 1, end) if _line(state, n).strip() == "---"), None)
        if close is not None and all(_YAML_OPTION.match(_line(state, n)) for n in range(line + 1, close)):
            for n in range(line + 1, close):
                option = _YAML_OPTION.match(_line(state, n))
                found.append((option.group(1), (option.group(2) or "").strip().strip("\"'"), n + 1))
            line = close + 1
    if not found:
        while line < end and (option := _OPTION.match(_line(state, line))):
            found.append((option.group(1), (option.group(2) or "").strip(), line + 1))
            line += 1
    options: dict[str, tuple[str, int]] = {}
    repeated = []
    for key, value, number in found:
        if key in options:
            repeated.append((key, number))
        else:
            options[key] = (value, number)
    return options, repeated, line


def _misspelt_options(state: StateBlock, line: int, end: int) -> dict[str, int]:
    """The options meant on the lines from ``line`` (where the options ended) but read as content, key → line, until
    the first line that is neither blank nor one; each noted in ``env["near_misses"]`` with the right spelling."""
    lost: dict[str, int] = {}
    after_blank = False
    while line < end:
        text = _line(state, line).strip()
        meant = _LIKE_OPTION.match(text)
        if meant is None and text:
            break
        if meant is not None:
            key = meant.group(1)
            lost[key] = line + 1
            said = None  # a right spelling under a wrong one is lost with it, and is read again once that is fixed
            if not _OPTION.match(text):
                said = _("'{written}' is not an option's spelling, so it is read as text: write ':{key}: …', with "
                         "ASCII colons on both sides of the name", written=text, key=key)
            elif after_blank:
                said = _("option ':{key}:' stands after a blank line, so it is read as text: keep a directive's "
                         "options together, right under its first line", key=key)
            notes = state.env.setdefault("near_misses", [])
            if said and all(noted != line + 1 for noted, _said in notes):  # a directive may be read twice
                notes.append((line + 1, said))
        after_blank = after_blank or not text
        line += 1
    return lost


def _literal(state: StateBlock, directive: Token, kind: str, body: int, end: int) -> int:
    """The text from ``body`` to ``directive``'s closer as one ``math_block`` or ``fence`` token; the closer's line
    (or where the text ends, left unclosed)."""
    fence = directive.markup
    close = next((n for n in range(body, end) if state.sCount[n] - state.blkIndent < 4
                  and (closer := _CLOSE.match(_line(state, n))) and closer.group(1)[0] == fence[0]
                  and len(closer.group(1)) >= len(fence)), None)
    stop = end if close is None else close
    directive.meta["closed"] = close is not None
    state.line = stop
    text = state.getLines(body, stop, state.blkIndent, True)
    if kind in ("figure", "skip"):
        if kind == "figure":
            _figure(state, directive, " ".join(text.split()))
        return stop
    token = state.push("math_block" if kind == "math" else "fence", "math" if kind == "math" else "code", 0)
    token.block = True
    token.content = text
    language = directive.meta["arg"].strip() or ("python" if directive.meta["name"] == "code-cell" else "")
    token.info = _LANGUAGES.get(language, language) if kind == "code" else ""
    token.markup = "```"
    token.map = [body, stop]
    return stop


def _figure(state: StateBlock, directive: Token, caption: str) -> None:
    """A ``{figure}`` or ``{image}``: the picture as an ``image_figure`` token, as ``![alt](src "caption")`` makes
    (a figure without ``:alt:`` is described by its caption); its ``:name:`` or ``:label:`` is its label."""
    options = {key: value for key, (value, _line) in directive.meta["options"].items()}
    token = state.push("image_figure", "figure", 0)
    token.block, token.map = True, list(directive.map)
    token.meta = {"src": directive.meta["arg"].strip(), "caption": caption,
                  "alt": options.get("alt") or (caption if directive.meta["name"] == "figure" else ""),
                  "line": token.map[0] + 1, "width": options.get("width", ""),
                  "label": options.get("name") or options.get("label", "")}


def _closer_in_code(tokens: list[Token], fence: str) -> tuple[int, int]:
    """The line (1-based) of a line of at least ``fence`` colons held by a code block among ``tokens`` (a code
    block left open, or closed after the directive's closer, took it), and the line that block opens on; or 0s."""
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            for number, line in enumerate(token.content.split("\n"), token.map[0] + 1 + (token.type == "fence")):
                if (closer := _CLOSE.match(line.strip())) and closer.group(1)[0] == fence[0] \
                        and len(closer.group(1)) >= len(fence):
                    return number, token.map[0] + 1
    return 0, 0


def unclosed_code(directive: Token) -> str:
    """For a directive never closed whose closer a code block took: where, and what to do (else ``''``).
    The code block is the cause (its closing fence is missing or misplaced): its first line is named."""
    line, opened = directive.meta.get("closer_in_code", (0, 0))
    return _("; line {line} is inside the code block that opens on line {opened}, so it closes nothing: "
             "close that code block before line {line}", line=line, opened=opened) if line else ""


def directive_lines(tokens: list[Token]) -> tuple[tuple[int, str, str, str], ...]:
    """Each line of directive syntax among ``tokens``, in order: (0-based line, directive name, ``open``,
    ``close`` or the option's key, the argument or the option's value)."""
    found = []
    for token in tokens:
        if token.type == "directive_open" and token.map:
            name = token.meta["name"]
            found.append((token.map[0], name, "open", token.meta["arg"].strip()))
            found += [(line - 1, name, key, value) for key, (value, line) in token.meta["options"].items()]
            if token.meta["closed"]:
                found.append((token.map[1] - 1, name, "close", ""))
    return tuple(sorted(found))
