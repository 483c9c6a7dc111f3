"""The leak check: nothing that only a teacher note holds is found in any file of the public site.

It depends on neither the language nor the file format. Text is compared as tokens: a word of a
script written with spaces (English, Russian …) or one character of a script written without
(Chinese, Japanese, Thai …), case-folded, with punctuation, whitespace and HTML tags left out (their
attribute values are read after the text). Each run of ``WINDOW`` tokens in a teacher note that occurs
nowhere in the public source (the pages outside their notes, their front matter, the glossary, sources,
records, values, figures and experiment code) is teacher-only; so is every picture only teacher notes
show, by the SHA-256 of its bytes.

Every public file is opened by what it holds, not by its name: a zip's members and a gzip's content
are opened in turn, JSON is read as its strings (a notebook's cells, a Pagefind fragment after its
``pagefind_dcd`` signature), other UTF-8 as text; the windows of each text are looked up in the
teacher-only set, and the digest of each file and member in the pictures' digests. Pagefind's word
index (``pf_index``, CBOR) lists single words in sorted order, never a run of the text: the fragments
beside it hold each page's text, and they are read.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import html
import io
import itertools
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from site_builder.check.prepared import PreparedSite
from site_builder.resolve.resolved import SiteView, flavour_blocks
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem

WINDOW = 6
"""Tokens in a run: six words is one short English sentence ("Tell them the answer is 42"). A leak is
reported when a public text repeats teacher-only runs that together hold six words, or eight characters
of an unspaced script (a character counts ¾ of a word: six Chinese characters next to a page title or a
label the build adds are a chance meeting, not a note). A run with two numbers or more is left out
(counters, axes)."""
_UNSPACED = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, CJK): one token a character."""
_TOKEN = re.compile(f"[{_UNSPACED}]|[^\\W_{_UNSPACED}]+")
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED}]")
_PAIRS = re.compile(f"[{_UNSPACED}]{{2}}(?: [{_UNSPACED}]{{2}})+")
"""Search text holds such runs as overlapping pairs (缓存 存与, see render/search.py): joined back, 缓存与."""
_TAG = re.compile(r"<[/!]?[A-Za-z][^<>]*>")
_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)')""")
_ROLE = re.compile(r"\{[A-Za-z][\w-]*\}")
"""``{term}`` in ``{term}`KV 缓存```: the page shows the target, not the role's name."""
_MARKUP = re.compile(r"<[A-Za-z][^<>]*?(data-teacher|teacher-note)")
"""A tag of a teacher note's HTML (markdown/directives.py); the style sheet's selectors are no tags."""
_NESTED = 3
"""Zips and gzips inside each other deeper than this are not opened (a public site holds one level)."""

Window = tuple[str, ...]


def tokens(text: str) -> list[str]:
    """``text`` as the leak check compares it: its words outside tags (a sentence split by ``<em>`` is one run),
    then the words of its tags' attribute values (what ``alt``, ``title`` or ``aria-label`` holds is shown too)."""
    text = _ROLE.sub(" ", text)
    values = "\n".join(double or single for double, single in _VALUE.findall("\n".join(_TAG.findall(text))))
    return _words(_TAG.sub(" ", text)) + (_words(values) if values else [])


def _words(text: str) -> list[str]:
    return _TOKEN.findall(_PAIRS.sub(_unpaired, html.unescape(text)).casefold())


def _unpaired(chain: re.Match) -> str:
    # The k-th pair is text[3k:3k+2]: compared and joined by slicing (a search index holds a hundred
    # thousand such chains at 1000 pages).
    text = chain.group()
    firsts, seconds = text[0::3], text[1::3]
    if seconds[:-1] != firsts[1:]:
        return text  # words that merely stand side by side
    return firsts[0] + seconds


def _windows(found: list[str]) -> Iterator[Window]:
    return zip(*(found[i:] for i in range(WINDOW)), strict=False)  # the shorter tails end it


@dataclasses.dataclass(frozen=True)
class TeacherOnly:
    """What only teacher notes hold."""

    runs: dict[Window, tuple[str, int]]
    """Each teacher-only run → where it was written (path, line)."""
    pictures: dict[str, str]
    """SHA-256 of each file of a picture only teacher notes show (the original and every width) → its path."""


def teacher_only(prepared: PreparedSite) -> TeacherOnly:
    """The teacher-only runs and pictures of ``prepared``."""
    runs: dict[Window, tuple[str, int]] = {}
    public = [tokens("\n".join(_public_source(prepared)))]
    for page in prepared.pages.values():
        lines, syntax = page.source.split("\n"), {n for n, *_rest in page.directive_lines}
        hidden = flavour_blocks(page, teacher=False)[1]  # the lines the public flavour leaves out
        public.append(tokens("\n".join(line for n, line in enumerate(lines) if n not in hidden)))
        for start, end in page.teacher_spans:
            placed = [(token, n) for n in range(start, end) if n not in syntax for token in tokens(lines[n])]
            found = [t for t, _n in placed]
            digits = list(itertools.accumulate((t.isdigit() for t in found), initial=0))  # numbers before each token
            for i, window in enumerate(_windows(found)):
                if digits[i + WINDOW] - digits[i] < 2:  # "第 1 层第 2 层": counters and axes repeat everywhere
                    runs.setdefault(window, (page.meta.path, placed[i][1] + 1))
    for text in public:  # a run public text holds too proves nothing
        for window in runs.keys() & _windows(text):
            del runs[window]
    return TeacherOnly(runs, _teacher_pictures(prepared))


def _public_source(prepared: PreparedSite) -> Iterator[str]:
    """Every text the public site is made of besides the pages' bodies."""
    content, evidence = prepared.content, prepared.evidence
    yield from _strings((content.config, content.sources, [r.data for r in content.records], content.glossary,
                         content.value_text, evidence.values, evidence.figures,
                         [page.meta for page in prepared.pages.values()]))
    for path in evidence.experiment_files.values():  # published whole in code/
        yield Path(path).read_text(encoding="utf-8", errors="replace")


def _strings(data: Any) -> Iterator[str]:
    if dataclasses.is_dataclass(data):
        data = [getattr(data, field.name) for field in dataclasses.fields(data)]
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict | list | tuple):
        for item in data.values() if isinstance(data, dict) else data:
            yield from _strings(item)


def _teacher_pictures(prepared: PreparedSite) -> dict[str, str]:
    def shown(teacher: bool) -> set[str]:
        return {p.src for p in SiteView(prepared.content, prepared.pages, prepared.evidence, teacher,
                                        prepared.images).pictures}

    hidden = shown(True) - shown(False)
    originals = {image.path: image.data for image in prepared.content.images}
    return {hashlib.sha256(data).hexdigest(): path for path, picture in prepared.images.items() if picture.src in hidden
            for data in (*picture.files.values(), *filter(None, [originals.get(path)]))}


def teacher_leaks(prepared: PreparedSite, site: Path) -> list[Problem]:
    """Teacher-only text, markup or pictures in any file of ``site`` (the public site): the source's notes
    anywhere in it, each translation's (``prepared.editions``) in its folder. Each file is read and its text
    made tokens once, whichever editions look for their notes in it."""
    editions = [(teacher_only(prepared), "", site.name)] + [
        (teacher_only(edition), f"{edition.content.config.language}/", edition.content.config.language)
        for edition in prepared.editions]
    found: dict[tuple[int, str], list[str]] = {}  # by digest: the same bytes (a page and its copy in the zip) once
    problems: list[list[Problem]] = [[] for _edition in editions]  # each edition's, in turn
    for name, data in _files(site):
        digest, text, words = hashlib.sha256(data).hexdigest(), None, None
        for n, (only, folder, shown) in enumerate(editions):
            if not name.startswith(folder):
                continue
            where = f"{shown}/{name.removeprefix(folder)}"
            if digest in only.pictures:
                problems[n].append(Problem(where, 0, _("picture {path} is shown only in a teacher note but is "
                                                       "published here", path=only.pictures[digest])))
            if (n, digest) not in found:
                if words is None:
                    text = _text(data)
                    words = tokens(text) if text is not None else []
                found[n, digest] = _text_leaks(text, words, only.runs) if text is not None else []
            problems[n] += [Problem(where, 0, message) for message in found[n, digest]]
    return [problem for edition in problems for problem in edition]


def _files(site: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(site.rglob("*")):
        if path.is_file():
            yield from _opened(path.relative_to(site).as_posix(), path.read_bytes(), 0)


def _opened(name: str, data: bytes, depth: int) -> Iterator[tuple[str, bytes]]:
    """The file and, for a zip or a gzip, what it holds (members named ``file.zip:member``)."""
    yield name, data
    if depth >= _NESTED:
        return
    try:
        if data[:4] == b"PK\x03\x04":
            with zipfile.ZipFile(io.BytesIO(data)) as bundle:
                for member in bundle.namelist():
                    yield from _opened(f"{name}:{member}", bundle.read(member), depth + 1)
        elif data[:2] == b"\x1f\x8b":
            yield from _opened(f"{name}:", gzip.decompress(data), depth + 1)
    except (OSError, zipfile.BadZipFile, EOFError):
        return  # not what its first bytes said: read as it is


def _text(data: bytes) -> str | None:
    """The text a file holds: JSON's strings (after a short signature, as in Pagefind's files), else the
    file as UTF-8; ``None`` for binary data."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    start = min((i for i in (text.find("{", 0, 64), text.find("[", 0, 64)) if i >= 0), default=-1)
    if start >= 0:
        try:
            return "\n".join(_strings(json.loads(text[start:])))
        except ValueError:
            pass
    return text


def _text_leaks(text: str, found: list[str], runs: dict[Window, tuple[str, int]]) -> list[str]:
    """What of the teacher notes ``text`` (its ``tokens``: ``found``) holds: one message for each note line it
    repeats."""
    problems = [_("teacher-only markup '{markup}' in the public site", markup=m)
                for m in sorted(set(_MARKUP.findall(text)))]
    if runs.keys().isdisjoint(_windows(found)):
        return problems
    first: dict[tuple[str, int], Window] = {}
    for start, end, window in _spans([i for i, w in enumerate(_windows(found)) if w in runs], found):
        if sum(1 if len(t) > 1 or not _UNSPACED_CHAR.match(t) else 0.75 for t in found[start:end]) >= WINDOW:
            first.setdefault(runs[window], tuple(found[start:end]))
    return problems + [_("teacher note from {path}:{line} leaks into the public site: '{text}…'",
                         path=path, line=line, text=_joined(window[:10]))
                       for (path, line), window in sorted(first.items())]


def _spans(hits: list[int], found: list[str]) -> Iterator[tuple[int, int, Window]]:
    """Runs of teacher-only tokens: (start, end, first window), overlapping windows joined."""
    i = 0
    while i < len(hits):
        j = i
        while j + 1 < len(hits) and hits[j + 1] < hits[j] + WINDOW:
            j += 1
        yield hits[i], hits[j] + WINDOW, tuple(found[hits[i]:hits[i] + WINDOW])
        i = j + 1


def _joined(window: Iterable[str]) -> str:
    """Tokens as text: a space between words, none between characters of an unspaced script."""
    out = ""
    for token in window:
        spaced = out and not (_UNSPACED_CHAR.match(token) and _UNSPACED_CHAR.match(out[-1]))
        out += (" " if spaced else "") + token
    return out
