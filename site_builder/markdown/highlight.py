"""Code blocks highlighted at build time with Pygments: spans with short class names, no script.

The colours live in site.css ("code highlighting"), one palette per theme, so a block reads in
light and dark mode alike. A fence without a language, or with one Pygments does not know, is
shown as plain text (escaped), never guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from markdown_it.common.utils import escapeHtml


def highlight_code(code: str, lang: str, attrs: str) -> str:
    """markdown-it's ``highlight`` hook: the block's inner HTML (markdown-it wraps it in
    ``<pre><code class="language-…">``)."""
    return _highlighted(code, lang) if lang else escapeHtml(code)


@functools.lru_cache(maxsize=256)
def _highlighted(code: str, lang: str) -> str:
    """Remembered because each page is rendered for both sites in one process, one after the other
    (pipeline.render_sites): the teacher site's copy of a block costs nothing."""
    lexer = _lexer(lang)
    if lexer is None:
        return escapeHtml(code)
    from pygments import highlight

    return highlight(code, lexer, _formatter())


# Lexers and the formatter hold no state between blocks; making them cost more than highlighting a
# short block (the formatter builds its whole style table each time).
@functools.cache
def _lexer(lang: str):
    from pygments.lexer import RegexLexer
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    if type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed:
        # An instance attribute: Pygments' get_tokens() calls it, and so does using(this) inside a rule.
        lexer.get_tokens_unprocessed = Scanner(lexer)
    return lexer


@functools.cache
def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


# ------------------------------------------------------------------ one search per token --
Rule = tuple[Callable, object, object]
"""A processed Pygments rule: the regular expression's ``match``, the action (a token type or a callback) and
the state change."""
_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")
_SCOPED_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
_GROUP_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
"""A back reference or a conditional group: its group numbers would change inside one combined pattern."""


class Scanner:
    """A Pygments ``RegexLexer``'s ``get_tokens_unprocessed``, giving the same tokens with one search per token.

    Pygments tries the rules of the current state one after the other at each position, each a call of its
    own (about 40 for a token of Python code: three quarters of highlighting a block). Here each state's rules
    are the alternatives of one regular expression, in their order, so the engine finds the first rule that
    matches there, as Pygments would, in one call; that rule's own expression then matches again for its
    groups, and the token, the action and the state change are Pygments' own. A state whose rules cannot be
    joined (a back reference, a flag a scope cannot carry) is scanned rule by rule.
    """

    def __init__(self, lexer) -> None:
        self.lexer = lexer
        self.states: dict[str, Callable] = {}
        """State name → its ``_first_rule``, joined when the state is first entered (most blocks use a few)."""

    def first_rule(self, state: str) -> Callable:
        if state not in self.states:
            self.states[state] = _first_rule(self.lexer._tokens[state])
        return self.states[state]

    def __call__(self, text: str, stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, object, str]]:
        from pygments.token import Error, Whitespace, _TokenType

        pos, stack = 0, list(stack)
        first = self.first_rule(stack[-1])
        while True:
            found = first(text, pos)
            if found is None:  # no rule matches: Pygments' recovery
                if pos >= len(text):
                    return
                if text[pos] == "\n":  # at a line's end, back to the root state
                    stack = ["root"]
                    first = self.first_rule("root")
                    yield pos, Whitespace, "\n"
                else:
                    yield pos, Error, text[pos]
                pos += 1
                continue
            match, action, change = found
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, match.group()
                else:
                    yield from action(self.lexer, match)
            pos = match.end()
            if change is not None:
                _change_state(stack, change)
                first = self.first_rule(stack[-1])


def _change_state(stack: list[str], change: object) -> None:
    """Apply a processed rule's state change: a tuple of states to push (or ``#pop``, ``#push``), a number
    of states to pop (never the last), or ``#push``."""
    if isinstance(change, tuple):
        for state in change:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            else:
                stack.append(stack[-1] if state == "#push" else state)
    elif isinstance(change, int):
        del stack[1 if abs(change) >= len(stack) else change:]
    elif change == "#push":
        stack.append(stack[-1])
    else:
        raise ValueError(f"unknown state change {change!r}")


def _first_rule(rules: list[Rule]) -> Callable[[str, int], tuple[re.Match, object, object] | None]:
    """``(text, pos)`` → the first rule matching at ``pos`` (its match, action and state change), or ``None``."""
    def one_by_one(text: str, pos: int):
        for match_at, action, change in rules:
            if match := match_at(text, pos):
                return match, action, change
        return None

    try:
        combined, owners = _combined([match_at.__self__ for match_at, _action, _change in rules])
    except (AttributeError, re.error):  # not a compiled expression's match, or cannot be joined
        return one_by_one

    def at_once(text: str, pos: int):
        found = combined(text, pos)
        if found is None:
            return None
        match_at, action, change = rules[owners[found.lastindex]]
        match = match_at(text, pos)  # the same span; with the rule's own groups, for its action
        return (match, action, change) if match else one_by_one(text, pos)

    return at_once


def _combined(patterns: list[re.Pattern]) -> tuple[Callable, dict[int, int]]:
    """One expression whose alternatives are ``patterns`` in order, each followed by an empty group; and each
    such group's number → its pattern's index. The empty group of the alternative that matched closes last,
    so it is the match's ``lastindex``. The alternatives capture nothing else (``_uncaptured``): an
    alternative that starts with a character or a set is then skipped at once where the text does not."""
    alternatives, owners, group = [], {}, 0
    for index, pattern in enumerate(patterns):
        if pattern.flags & (re.ASCII | re.LOCALE) or _GROUP_REFERENCE.search(pattern.pattern):
            raise re.error("not joinable")
        source = pattern.pattern
        if leading := _LEADING_FLAGS.match(source):  # global flags apply to the whole pattern: scoped below
            source = source[leading.end():]
        on = "".join(letter for flag, letter in _SCOPED_FLAGS if pattern.flags & flag)
        off = "".join(letter for flag, letter in _SCOPED_FLAGS if not pattern.flags & flag)
        verbose = pattern.flags & re.VERBOSE
        # In a verbose pattern a trailing comment must not swallow the ")", and comments are not read for groups.
        source = source + "\n" if verbose else _uncaptured(source)
        alternative = f"(?{on}{'-' if off else ''}{off}:{source})()"
        group += (pattern.groups if verbose else 0) + 1
        owners[group] = index
        alternatives.append(alternative)
    combined = re.compile("|".join(alternatives))
    if combined.groups != group:
        raise re.error("groups moved")
    return combined.match, owners


def _uncaptured(source: str) -> str:
    """A pattern with no back reference (``_GROUP_REFERENCE``), its groups made non-capturing: it matches the
    same text. Reads escapes and character sets (where ``(`` is a character) as Python's ``re`` does."""
    out, at, in_set = [], 0, False
    while at < len(source):
        char = source[at]
        if char == "\\":
            out.append(source[at:at + 2])
            at += 2
            continue
        if in_set:
            in_set = char != "]"
        elif char == "[":
            in_set = True
            first = at + 1 + (source[at + 1:at + 2] == "^")
            if source[first:first + 1] == "]":  # a "]" first in a set is one of its characters
                out.append(source[at:first + 1])
                at = first + 1
                continue
        elif char == "(" and source.startswith("(?P<", at):
            out.append("(?:")
            at = source.index(">", at) + 1
            continue
        elif char == "(" and source[at + 1:at + 2] != "?":
            out.append("(?:")
            at += 1
            continue
        out.append(char)
        at += 1
    return "".join(out)
