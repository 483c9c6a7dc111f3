"""Mistakes a teacher can make, reported as ``path:line: message``.

Stages collect problems instead of raising on the first one, so a teacher sees
every mistake of a build at once.
"""

from __future__ import annotations

import difflib
import traceback
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from site_builder.vocabulary.i18n import Text, _, localize


@dataclass(frozen=True, order=True)
class Problem:
    """One mistake in the content, located in a file."""

    path: str
    """Path of the file, relative to the project root (e.g. ``content/pages/r55.md``)."""
    line: int
    """1-based line number; 0 when the problem concerns the whole file."""
    message: str
    """What is wrong and, where possible, what to do about it."""

    def __post_init__(self) -> None:
        # Messages quote what the teacher wrote; a line break in it would break the one-line format.
        def one_line(text: str) -> str:
            return text.replace("\r", "\\r").replace("\n", "\\n")

        message = self.message
        object.__setattr__(self, "message", message.map(one_line) if isinstance(message, Text) else one_line(message))

    def __str__(self) -> str:
        return self._located(self.message)

    def localized(self, language: str) -> str:
        """``path:line: message`` in the course's language (English where no translation exists)."""
        return self._located(localize(self.message, language))

    def _located(self, message: str) -> str:
        return f"{self.path}:{self.line}: {message}" if self.line else f"{self.path}: {message}"

    def as_warning(self) -> Problem:
        """This problem said as a warning (``…: 警告：…``): a skeleton's placeholder line is one while a site is
        built, and an error where it decides what is published (``check``)."""
        return Problem(self.path, self.line, _("warning: ") + self.message)


class ContentError(Exception):
    """Raised by the build when the content has problems; carries all of them."""

    def __init__(self, problems: Iterable[Problem], causes: Sequence[str] = (), trace: str = "") -> None:
        """``causes``: paths whose problems others follow from (site.yml, a page that failed to load), said
        first and in this order: the cause comes before what it caused. ``trace``: for an error in a figure's
        or an experiment's code (``code_error``), the trace from its line on, shown folded below it."""
        self.trace = trace
        rank = {path: i for i, path in enumerate(causes)}
        # then reading order: path, line, message (the fields' order)
        self.problems = tuple(sorted(set(problems), key=lambda p: (rank.get(p.path, len(rank)), p)))
        super().__init__("\n".join(str(p) for p in self.problems))


class SearchIndexError(RuntimeError):
    """Pagefind is missing or failed (here, not beside the search stack: ``build.py`` catches it without
    importing that stack)."""


_LOOKALIKE = str.maketrans("lI|iOo", "111100")
"""Characters typed for one another because they look alike (r55-bl for r55-b1)."""


def closest(name: str, known: Iterable[str], *, limit: int = 3) -> list[str]:
    """The known names ``name`` may be a misspelling of, closest first: one that differs only by look-alike
    characters, then by similarity, then in alphabetical order (difflib lists equals backwards: b3, b2, b1)."""
    known, looks = list(known), name.translate(_LOOKALIKE)
    near = {k for k in known if k.translate(_LOOKALIKE) == looks}  # however short: 'bl' for 'b1'
    near.update(difflib.get_close_matches(name, known, n=max(len(known), 1), cutoff=0.6))
    ranked = sorted((k.translate(_LOOKALIKE) != looks, -difflib.SequenceMatcher(None, name, k).ratio(), k)
                    for k in near)
    return [k for _alike, _ratio, k in ranked[:limit]]


def code_error(error: BaseException, root: Path, folders: Collection[str]) -> ContentError:
    """An exception raised by the project's own code in ``folders`` (a figure's ``draw``, an experiment):
    one ``file:line: ExceptionType: message`` at its innermost line there, the trace from that line on."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [i for i, frame in enumerate(frames)
            if any(Path(frame.filename).resolve().is_relative_to(root / folder) for folder in folders)]
    where = frames[ours[-1]] if ours else frames[-1]
    path = Path(where.filename).resolve()
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else where.filename
    said = f"{type(error).__name__}: {str(error).strip()}".removesuffix(": ").split("\n")[0]
    trace = "".join(traceback.format_list(frames[ours[0] if ours else 0:]))
    trace += "".join(traceback.format_exception_only(error))
    return ContentError([Problem(shown, where.lineno or 0, said)], trace=trace.rstrip())


def suggest(name: str, known: Iterable[str], *, limit: int = 3, shown: Mapping[str, str] | None = None) -> str:
    """A ``(did you mean …?)`` suffix naming the closest known names, or ``''``; ``shown`` maps a known name to
    the one to write instead (a spelling a teacher may type → the one a role takes)."""
    close = [near for near in dict.fromkeys((shown or {}).get(near, near) for near in closest(name, known, limit=limit))
             if near != name]  # "did you mean 'y'?" of a name that is known, but not as what was asked
    if not close:
        return ""
    names: str = f"'{close[0]}'"
    for other in close[1:]:
        names = _("{first} or {second}", first=names, second=f"'{other}'")
    return _(" (did you mean {names}?)", names=names)


_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp"})
"""Unicode categories of controls, format characters (bidi overrides, zero-width spaces) and line separators."""


def invisible_characters(text: str, what: str) -> str:
    """A message naming the invisible or bidi control characters in ``text`` (``what`` says where), or ``''``.

    Such characters make a title or an id read differently from what it is (Trojan Source), so
    the places readers navigate by refuse them, as source-code review tools flag them.
    """
    found = sorted({c for c in text if c != "\t" and unicodedata.category(c) in _INVISIBLE})
    if not found:
        return ""
    names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'control')}" for c in found)
    return _("{what} contains invisible control characters ({names}): delete them", what=what, names=names)
