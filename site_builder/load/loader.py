"""The loading stage: the only place that reads ``content/``."""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from site_builder.load.bibtex import load_bibtex
from site_builder.load.content import IMAGE_SUFFIXES, Content, ImageFile, Record, SiteConfig, Source, SourceFile
from site_builder.load.editions import EDITION_FILES, LANGUAGE_TAG, translated_content, translation_tags
from site_builder.load.files import MAX_FILE_BYTES, SETTLED_NS, PagesRead, file_stamp, folder_prefix, read_content_file
from site_builder.load.glossary import load_glossary
from site_builder.load.value_text import parse_value_text, with_record_texts
from site_builder.load.yamlnodes import Located, load_located, not_text
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.numbers import VALUE_CLASSES
from site_builder.vocabulary.problems import Problem, invisible_characters, suggest

SITE_KEYS = ("title", "language", "base_url", "pages")
OPTIONAL_SITE_KEYS = ("content_language", "translations", "short_title")
SOURCE_KEYS = ("id", "title", "authors", "year", "url", "checked", "where")
RECORD_KEYS = ("id", "title", "date", "machine", "conditions", "command", "source", "values", "compare", "data")
_SOURCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*\Z")
_RECORD_ID = re.compile(r"^[a-z0-9_]+\Z")
_CONTROL_CHARACTERS = "".join(map(chr, (*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f)))
"""Control characters no text file of the course needs (tab and line ends are allowed)."""
_CONTROL = re.compile(f"[{re.escape(_CONTROL_CHARACTERS)}]")
_CONTROL_BYTES = _CONTROL_CHARACTERS.encode("ascii")
"""The same as bytes: UTF-8 writes them as themselves, and no other character uses those bytes."""
_WEB_URL = re.compile(r"^https?://[^\s\x00-\x1f]+$", re.IGNORECASE)


def load_content(root: Path, content_dir: str = "content",
                 pages_read: PagesRead | None = None) -> tuple[Content | None, list[Problem]]:
    """Read everything under ``content_dir`` (relative to ``root``); check its shape.

    A file that may not be read (a link out of the folder, a FIFO, a device) is
    reported once and then left out, so nothing else complains about it. ``pages_read``: the pages as the
    last load read them (a dev server's); a page whose stamp is the one recorded then is taken as read then,
    and the pages read now replace them.
    """
    base = root / content_dir
    problems: list[Problem] = []
    seen: dict[str, bytes] = {}  # path → the bytes read: the build's inputs are what it read, not what is there later
    reuse = _Reuse(dict(pages_read), pages_read, time.time_ns() - SETTLED_NS) if pages_read is not None else None
    if pages_read is not None:
        pages_read.clear()  # refilled with this load's pages: a page removed is forgotten
    read = _read_pages(root, base, problems, seen, reuse)
    files = {stem: file for stem, file in read.items() if file is not None}
    config_path = base / "site.yml"
    config_file = _read_or_none(root, base, config_path, problems, seen)
    if config_file is None and (config_path.exists() or config_path.is_symlink()):
        return None, problems  # refused: already reported
    config = _load_config(config_file, files, set(read) - set(files), problems, content_dir, base)
    sources = _load_sources(_read_or_none(root, base, base / "sources.yml", problems, seen), problems)
    if bib := _read_or_none(root, base, base / "references.bib", problems, seen):  # MyST's {cite}: more sources
        cited, errors = load_bibtex(bib)
        sources += tuple(s for s in cited if s.id not in {known.id for known in sources})
        problems += errors
    records = tuple(_load_record(source, problems) for p in sorted((base / "records").glob("*.json"))
                    if (source := _read(root, base, p, problems, seen)) is not None)
    glossary_file = _read_or_none(root, base, base / "glossary.yml", problems, seen)
    glossary, glossary_problems = load_glossary(glossary_file.text, glossary_file.path) if glossary_file else ((), [])
    problems += glossary_problems
    value_text, errors = parse_value_text(_read_or_none(root, base, base / "values.yml", problems, seen))
    records, unmatched = with_record_texts(tuple(r for r in records if r), value_text)
    problems += errors + unmatched
    if config is None:
        return None, problems
    pages = tuple(files[page_id] for page_id in config.pages if page_id in files)
    images = _load_images(root, base / "pages", seen)
    content = Content(config, pages, sources, records, glossary, images, value_text,
                      frozenset(read) - (set(config.pages) & set(files)), folder=content_dir)
    editions = tuple(_edition(root, base / tag, content, problems, seen, reuse) for tag in config.translations)
    return replace(content, editions=editions, read=seen), problems


def _edition(root: Path, folder: Path, source: Content, problems: list[Problem], seen: dict[str, bytes],
             reuse: _Reuse | None) -> Content:
    """The translation in ``folder`` (``content/<tag>/``), read the way the source is read."""
    read = _read_pages(root, folder, problems, seen, reuse)
    files = {name: _read_or_none(root, folder, folder / name, problems, seen) for name in EDITION_FILES}
    return translated_content(source, folder.name, {stem: file for stem, file in read.items() if file}, files,
                              _load_images(root, folder / "pages", seen), problems)


@dataclass(frozen=True)
class _Reuse:
    """The pages the last load read (``before``), those of this load (``now``, filled as they are found)."""

    before: PagesRead
    now: PagesRead
    settled: int
    """A page that changed before this time (ns since the epoch) is settled."""


def _read_pages(root: Path, base: Path, problems: list[Problem], seen: dict[str, bytes],
                reuse: _Reuse | None = None) -> dict[str, SourceFile | None]:
    """Each ``*.md`` file of ``base``'s ``pages/`` folder, by its stem, read by ``_read`` (or, with ``reuse``, as
    read before when its stamp is the one recorded then). The folder, when it is one and no link, is opened
    once, and each page its listing says is a plain file (no link, FIFO or device) is opened by its name in it."""
    folder = base / "pages"
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (OSError, AttributeError):  # missing, a link or not a folder (or no O_NOFOLLOW): each page by its path
        return {p.stem: _read(root, base, p, problems, seen) for p in sorted(folder.glob("*.md"), key=str)}
    try:
        with os.scandir(folder_fd) as entries:  # the kind of each entry comes with its name
            listed = sorted((e.name, e.is_file(follow_symlinks=False)) for e in entries if e.name.endswith(".md"))
        inside = folder_prefix(folder)  # each page's path as a string: pathlib would cost more than the reading
        return {name[:-3] if len(name) > 3 else name:  # the stem: ".md" is a name without a suffix
                _reread(root, base, inside + name, problems, seen, folder_fd, reuse) if reuse and plain else
                _read(root, base, inside + name, problems, seen, folder_fd if plain else None)
                for name, plain in listed}
    finally:
        os.close(folder_fd)


def _reread(root: Path, base: Path, path: str, problems: list[Problem], seen: dict[str, bytes], folder_fd: int,
            reuse: _Reuse) -> SourceFile | None:
    """The page at ``path`` as the last load read it if its stamp is the one recorded then (a save changes one
    page and stats the others), else read; kept for the next load when read without a problem and settled."""
    stamp = file_stamp(path.rpartition(os.sep)[2], folder_fd)
    held = reuse.before.get(path)
    if stamp and held and held[0] == stamp:
        reuse.now[path] = held
        seen[held[1].path] = held[2]
        return held[1]
    before = len(problems)
    source = _read(root, base, path, problems, seen, folder_fd)
    if stamp and source and len(problems) == before and stamp[2] < reuse.settled:
        reuse.now[path] = (stamp, source, seen[source.path])
    return source


MAX_PAGES = 5_000
"""Most pages a site may list: every page is parsed, checked and rendered on each full build."""


def _load_images(root: Path, folder: Path, seen: dict[str, bytes]) -> tuple[ImageFile, ...]:
    """Picture files in the pages' folder and below; links that leave the folder are not followed."""
    images = []
    top = folder.resolve()
    # What folder.rglob("*") lists (links to folders are not entered), by name first: the pages' folder holds
    # every page, and a save lists it again; pathlib made a path of each to ask its suffix.
    found = sorted(os.path.join(where, name) for where, _folders, names in os.walk(folder) for name in names
                   if _is_image(name))
    for path in map(Path, found):
        if not path.is_file() or not path.resolve().is_relative_to(top):
            continue
        size = path.stat().st_size
        try:  # read the way page sources are: never a FIFO or device, never through a link out of the folder
            data = read_content_file(folder, path) if size <= MAX_FILE_BYTES else None
        except ValueError:
            continue  # a page showing it is told the picture is not there
        images.append(ImageFile(path.relative_to(root).as_posix(), size, data))
        if data is not None:
            seen[images[-1].path] = data
    return tuple(images)


def _is_image(name: str) -> bool:
    """``Path(name).suffix.lower() in IMAGE_SUFFIXES``, in C first: the pages' folder lists every page."""
    return name.lower().endswith(IMAGE_SUFFIXES) and name.rfind(".") > 0


def _read(root: Path, base: Path, path: Path | str, problems: list[Problem], seen: dict[str, bytes],
          folder_fd: int | None = None) -> SourceFile | None:
    """The file's text, or ``None`` (and a problem) when it may not be read; non-UTF-8 is a problem too.
    ``seen`` gets its bytes under its path. ``folder_fd``: see ``read_content_file``."""
    prefix = folder_prefix(root)  # strings where they can be: a build reads every page
    relative = str(path)[len(prefix):].replace(os.sep, "/") if str(path).startswith(prefix) else \
        Path(path).relative_to(root).as_posix()
    if _CONTROL.search(relative) or "\n" in relative or "\r" in relative:  # would break the one-line message
        shown = relative.encode("unicode_escape").decode("ascii")
        problems.append(Problem(shown, 0, _("the file name contains a control character or line break: rename "
                                            "the file")))
        return None
    try:
        data = read_content_file(base, path, folder_fd)
    except ValueError as refused:
        problems.append(Problem(relative, 0, refused.args[0]))
        return None
    seen[relative] = data
    try:
        text = _normalized(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problems.append(Problem(relative, line, _("is not UTF-8 text: save the file as UTF-8")))
        # A page is not read on: what its misread characters would add (numbers, terms) is noise after this.
        # A settings file is read as far as it goes, so that what it holds is not also said to be missing.
        return None if relative.endswith(".md") else SourceFile(relative, data.decode("utf-8", errors="replace"))
    # ESC, BEL …: invisible in an editor, and terminal escapes in a page. Looked for in the bytes first: deleting
    # them is faster than searching the text, and a build reads every page.
    if len(data.translate(None, _CONTROL_BYTES)) != len(data) and (control := _CONTROL.search(text)):
        problems.append(Problem(relative, text.count("\n", 0, control.start()) + 1,
                                _("contains the control character U+{code:04X}: delete it",
                                  code=ord(control.group()))))
    return SourceFile(relative, text)


def _normalized(text: str) -> str:
    """Text as the parsers expect it: without the byte-order mark some editors write (it would hide the
    front matter's first '---') and with '\n' line ends (Windows editors save '\r\n')."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _read_or_none(root: Path, base: Path, path: Path, problems: list[Problem],
                  seen: dict[str, bytes]) -> SourceFile | None:
    return _read(root, base, path, problems, seen) if path.exists() or path.is_symlink() else None


def _unknown_keys(located: Located, allowed: tuple[str, ...], path: str, what: str) -> list[Problem]:
    return [Problem(path, item.line, _("unknown {what} key '{key}'", what=what, key=key)
                    + (suggest(str(key), allowed) or _(" (allowed: {names})", names=", ".join(allowed))))
            for key, item in located.children.items() if key not in allowed]


def _load_config(source: SourceFile | None, files: dict[str, SourceFile], refused: set[str],
                 problems: list[Problem], content_dir: str, base: Path) -> SiteConfig | None:
    if source is None:
        problems.append(Problem(f"{content_dir}/site.yml", 0, _("missing: create it with title, language, "
                                                               "base_url and pages")))
        return None
    located, errors = load_located(source.text, source.path)
    problems += errors
    if located is None or not isinstance(located.value, dict):
        problems += [] if located is None else [Problem(source.path, 1, _("site.yml must be a mapping"))]
        return None
    problems += _unknown_keys(located, SITE_KEYS + OPTIONAL_SITE_KEYS, source.path, "site.yml")
    missing = [k for k in SITE_KEYS if k not in located.value]
    problems += [Problem(source.path, 1, _("site.yml has no '{key}'", key=k)) for k in missing]
    if missing:
        return None
    pages = located.children["pages"]
    if not isinstance(pages.value, list) or not pages.value:
        problems.append(Problem(source.path, pages.line, _("'pages' must be a list of page ids")))
        return None
    if len(pages.children) > MAX_PAGES:
        problems.append(Problem(source.path, pages.line, _("'pages' lists {n} pages, over the limit of {limit}: "
                                                           "split the course", n=len(pages.children), limit=MAX_PAGES)))
        return None
    for item in pages.children:
        if not isinstance(item.value, str):
            problems.append(Problem(source.path, item.line, _("a page id must be text, e.g. 'r55'")))
            return None
    for item in pages.children:
        if item.value not in files and item.value not in refused:
            problems.append(Problem(source.path, item.line,
                                    _("no page '{page}' in {folder}/pages/", page=item.value, folder=content_dir)
                                    + suggest(str(item.value), files)))
    listed = set(pages.value)
    for stem, file in files.items():
        if stem not in listed:
            problems.append(Problem(file.path, 1, _("page '{page}' is not listed in site.yml 'pages'", page=stem)))
    duplicates = sorted(p for p, count in Counter(pages.value).items() if count > 1)
    problems += [Problem(source.path, pages.line, _("page '{page}' is listed twice", page=p)) for p in duplicates]
    scalars = [k for k in (*SITE_KEYS[:3], "short_title")
               if k in located.value and isinstance(located.value[k], (list, dict, set, bool, type(None)))]
    problems += [Problem(source.path, located.children[k].line, not_text(located.value[k], k)
                         or _("site.yml '{key}' must be text", key=k)) for k in scalars]
    if scalars:
        return None
    for key in ("title", "short_title"):
        title = located.children.get(key)
        if title is not None and (hidden := invisible_characters(str(title.value), _("site.yml '{key}'", key=key))):
            problems.append(Problem(source.path, title.line, hidden))
    base_url = str(located.value["base_url"])
    if not _WEB_URL.match(base_url):  # llms.txt links every page under it: no javascript: or data: there either
        problems.append(Problem(source.path, located.children["base_url"].line,
                                _("site.yml 'base_url' must start with https:// or http://")))
        return None
    content_language = located.children.get("content_language")
    if content_language is not None and not LANGUAGE_TAG.match(str(content_language.value)):
        problems.append(Problem(source.path, content_language.line,
                                _("site.yml 'content_language' must be a language tag such as zh-CN or en")))
        return None
    translations, errors = translation_tags(located.children.get("translations"), source.path,
                                            str(located.value["language"]), base)
    problems += errors
    return SiteConfig(title=str(located.value["title"]), language=str(located.value["language"]),
                      base_url=base_url if base_url.endswith("/") else base_url + "/",
                      pages=tuple(str(p) for p in pages.value), path=source.path,
                      content_language=str(content_language.value) if content_language else "",
                      translations=translations, short_title=str(located.value.get("short_title", "")))


def _load_sources(source: SourceFile | None, problems: list[Problem]) -> tuple[Source, ...]:
    if source is None:
        return ()
    located, errors = load_located(source.text, source.path)
    problems += errors
    if located is None:
        return ()
    if not isinstance(located.value, list):
        problems.append(Problem(source.path, located.line, _("sources.yml must be a list of sources")))
        return ()
    sources: list[Source] = []
    for item in located.children:
        entry = _load_source(item, source.path, problems)
        if entry and any(s.id == entry.id for s in sources):
            problems.append(Problem(source.path, item.line, _("duplicate source id '{id}'", id=entry.id)))
        elif entry:
            sources.append(entry)
    return tuple(sources)


def _load_source(item: Located, path: str, problems: list[Problem]) -> Source | None:
    if not isinstance(item.value, dict):
        problems.append(Problem(path, item.line, _("each source must be a mapping with at least id and title")))
        return None
    problems += _unknown_keys(item, SOURCE_KEYS, path, "source")
    source_id, title = str(item.value.get("id", "")), str(item.value.get("title", ""))
    if not _SOURCE_ID.match(source_id):
        problems.append(Problem(path, item.line, _("source id '{id}' must be letters, digits and '-'", id=source_id)))
        return None
    if not title:
        problems.append(Problem(path, item.line, _("source '{id}' has no title", id=source_id)))
    if any(isinstance(item.value.get(k), (list, dict, set)) for k in SOURCE_KEYS):
        problems.append(Problem(path, item.line, _("source '{id}': every field must be text", id=source_id)))
        return None
    unread = [(k, said) for k in SOURCE_KEYS if k in item.value and (said := not_text(item.value[k], k))]
    problems += [Problem(path, item.children[k].line, said) for k, said in unread]
    if unread:
        return None
    fields = {k: str(item.value[k]) for k in SOURCE_KEYS[2:] if k in item.value}
    url = fields.get("url", "")
    if url and not _WEB_URL.match(url):
        # The URL becomes a link on the sources page: a javascript: or data: URL would run in the reader's browser.
        problems.append(Problem(path, item.children["url"].line, _("source '{id}': url must start with "
                                                                   "https:// or http://", id=source_id)))
        return None
    return Source(id=source_id, title=title, line=item.line, **fields)


def _load_record(source: SourceFile, problems: list[Problem]) -> Record | None:
    try:
        data = json.loads(source.text)
    except json.JSONDecodeError as error:
        problems.append(Problem(source.path, error.lineno, _("invalid JSON: {reason}", reason=error.msg)))
        return None
    except RecursionError:
        problems.append(Problem(source.path, 1, _("nested too deeply: a record needs only a few levels")))
        return None
    stem = source.path.rsplit("/", 1)[-1].removesuffix(".json")
    before = len(problems)
    if not isinstance(data, dict):
        problems.append(Problem(source.path, 1, _("a record must be a JSON object")))
        return None
    for key in sorted(set(data) - set(RECORD_KEYS)):
        problems.append(Problem(source.path, _json_line(source.text, key),
                                _("unknown record key '{key}'", key=key) + suggest(key, RECORD_KEYS)))
    if not _RECORD_ID.match(stem) or data.get("id", stem) != stem:
        problems.append(Problem(source.path, _json_line(source.text, "id"),
                                _("record id must equal the file name '{stem}' and use [a-z0-9_]", stem=stem)))
    for key in ("title", "date", "values"):
        if key not in data:
            problems.append(Problem(source.path, 1, _("record has no '{key}'", key=key)))
    if not isinstance(data.get("values", {}), dict):
        problems.append(Problem(source.path, _json_line(source.text, "values"), _("record 'values' must be an object")))
        return None
    compare = data.get("compare") or []
    if not isinstance(compare, list) or not all(isinstance(entry, dict) for entry in compare):
        problems.append(Problem(source.path, _json_line(source.text, "compare"),
                                _("record 'compare' must be a list of objects")))
    for name, entry in (data.get("values") or {}).items():
        if not isinstance(entry, dict) or "value" not in entry:
            problems.append(Problem(source.path, _json_line(source.text, name),
                                    _("record value '{name}' must be an object with 'value' and 'unit'", name=name)))
        elif entry.get("class", "exact") not in VALUE_CLASSES:
            problems.append(Problem(source.path, _json_line(source.text, name),
                                    _("record value '{name}': unknown class '{value_class}' (one of {names})",
                                      name=name, value_class=entry["class"], names=", ".join(VALUE_CLASSES))
                                    + suggest(str(entry["class"]), VALUE_CLASSES)))
    return Record(stem, source.path, data) if len(problems) == before else None


def _json_line(text: str, key: str) -> int:
    """Line of the first ``"key":`` in a JSON text (JSON parsers keep no positions)."""
    match = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else 1
