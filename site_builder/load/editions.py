"""A course in several languages: site.yml ``translations`` and one folder per translation.

Each translation lives in ``content/<tag>/`` and mirrors the source tree::

    content/en/site.yml        title: (the reader-visible texts of site.yml)
    content/en/pages/ID.md     the page ID, translated (same front matter keys, same states and roles)
    content/en/glossary.yml    its own preferred and discouraged terms (the format of content/glossary.yml)
    content/en/values.yml      group titles, value descriptions and records' texts (the format of content/values.yml)
    content/en/sources.yml     per source id, its reader-visible text only: title, checked, where

One folder per translation keeps the source tree as it was, a translator works in one folder, and the
folder's name is the URL prefix of that edition (``_site/en/``). Everything a reader does not read as
text (page list, base URL, the records' numbers, URLs, dates, the numbers themselves) comes from the source
files only, so the two editions cannot disagree about it. This module reads nothing: the loader
hands it the files it read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from site_builder.load.content import Content, ImageFile, Source, SourceFile
from site_builder.load.glossary import load_glossary
from site_builder.load.value_text import parse_value_text, with_record_texts
from site_builder.load.yamlnodes import Located, load_located, not_text
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem, suggest

LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
"""A BCP 47 tag as a course writes it (``en``, ``zh-CN``): also a safe folder name and URL prefix."""
EDITION_FILES = ("site.yml", "glossary.yml", "values.yml", "sources.yml")
"""The files of a translation's folder besides its pages (each optional)."""
SITE_TEXT_KEYS = ("title", "short_title")
"""What a translation's site.yml may say: the texts readers see."""
SOURCE_TEXT_KEYS = ("title", "checked", "where")
"""What a translation's sources.yml may say of a source: the texts readers see (authors, year and URL are
the source file's)."""


def translation_tags(node: Located | None, path: str, language: str, base: Path) -> tuple[tuple[str, ...],
                                                                                          list[Problem]]:
    """site.yml ``translations`` (``node``; ``None``: not given): the tags, each with a folder under ``base``."""
    if node is None:
        return (), []
    if not isinstance(node.value, list) or not all(isinstance(tag, str) for tag in node.value):
        return (), [Problem(path, node.line, _("site.yml 'translations' must be a list of language tags, "
                                                "e.g. [en]"))]
    tags: list[str] = []
    problems = []
    for item in node.children:
        tag = item.value
        if not LANGUAGE_TAG.match(tag):
            problems.append(Problem(path, item.line, _("'{tag}' is not a language tag such as en or zh-CN", tag=tag)))
        elif tag == language or tag in tags:
            problems.append(Problem(path, item.line, _("the translation '{tag}' is the course's own language or "
                                                       "listed twice: list each other language once", tag=tag)))
        elif not (base / tag).is_dir():
            problems.append(Problem(path, item.line, _("no folder {folder}/ for the translation '{tag}': create it "
                                                       "and put the translated pages in {folder}/pages/",
                                                       folder=f"{base.name}/{tag}", tag=tag)))
        else:
            tags.append(tag)
    return tuple(tags), problems


def translated_content(source: Content, tag: str, pages: dict[str, SourceFile], files: dict[str, SourceFile | None],
                       images: tuple[ImageFile, ...], problems: list[Problem]) -> Content:
    """The translation into ``tag`` as a ``Content`` of its own: its pages (``pages``: id → file, as read from
    its ``pages/``), its texts (``files``: ``EDITION_FILES`` read, or ``None``) over the source's facts.
    A page not translated yet is in ``fallback``; its problems go to ``problems``."""
    config = source.config
    for page_id, file in pages.items():
        if page_id not in config.pages:
            problems.append(Problem(file.path, 1, _("page '{page}' is not a page of {config}: a translation has "
                                                    "the source's pages only", page=page_id, config=config.path)
                                    + suggest(page_id, config.pages)))
    by_id = {_stem(file.path): file for file in source.pages}
    site = files["site.yml"]
    texts = _site_texts(site, problems) if site else {}
    glossary: tuple = ()
    if files["glossary.yml"]:
        glossary, errors = load_glossary(files["glossary.yml"].text, files["glossary.yml"].path)
        problems += errors
    value_text, errors = parse_value_text(files["values.yml"])
    records, unmatched = with_record_texts(source.records, value_text)
    problems += errors + unmatched
    fallback = tuple(by_id[p] for p in config.pages if p not in pages and p in by_id)
    # A translated title without a short one is shown whole: the source's short title is in another language.
    edition = replace(config, title=texts.get("title") or config.title, language=tag, content_language="",
                      short_title=texts.get("short_title", "" if "title" in texts else config.short_title),
                      base_url=f"{config.base_url}{tag}/", path=site.path if site else config.path,
                      source_language=config.language)
    return Content(edition, tuple(pages[p] for p in config.pages if p in pages),
                   _translated_sources(source.sources, files["sources.yml"], problems), records, glossary,
                   images + source.images, value_text, frozenset(_stem(f.path) for f in fallback), fallback=fallback,
                   folder=f"{source.folder}/{tag}")


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def _site_texts(site: SourceFile, problems: list[Problem]) -> dict[str, str]:
    """The texts a translation's ``site.yml`` gives (``SITE_TEXT_KEYS``), by key."""
    located, errors = load_located(site.text, site.path)
    problems += errors
    if located is None or not isinstance(located.value, dict):
        problems += [] if located is None else [Problem(site.path, 1, _("site.yml must be a mapping"))]
        return {}
    problems += [Problem(site.path, item.line, _("a translation's site.yml gives only '{keys}': '{key}' comes from "
                                                 "the source's site.yml", keys="', '".join(SITE_TEXT_KEYS), key=key))
                 for key, item in located.children.items() if key not in SITE_TEXT_KEYS]
    texts = {}
    for key in SITE_TEXT_KEYS:
        item = located.children.get(key)
        if item is not None and (said := _not_text(item.value, key)):
            problems.append(Problem(site.path, item.line, said))
        elif item is not None:
            texts[key] = str(item.value)
    return texts


def _not_text(value: object, key: str) -> str:
    """What to say when ``key``'s value is not text, or ``''``."""
    return not_text(value, key) or ("" if isinstance(value, (str, int, float)) else _("'{key}' must be text",
                                                                                      key=key))


def _translated_sources(sources: tuple[Source, ...], file: SourceFile | None,
                        problems: list[Problem]) -> tuple[Source, ...]:
    """The source registry with each entry's reader-visible text in the translation's language."""
    if file is None:
        return sources
    located, errors = load_located(file.text, file.path)
    problems += errors
    if located is None:
        return sources
    if not isinstance(located.value, list):
        problems.append(Problem(file.path, located.line, _("sources.yml must be a list of sources")))
        return sources
    known = {s.id: s for s in sources}
    texts: dict[str, dict[str, str]] = {}
    for item in located.children:
        entry = item.value if isinstance(item.value, dict) else {}
        source_id = str(entry.get("id", ""))
        if source_id not in known:
            problems.append(Problem(file.path, item.line, _("unknown source '{id}'", id=source_id)
                                    + suggest(source_id, known) + _(" (sources are listed in content/sources.yml)")))
            continue
        problems += [Problem(file.path, item.children[key].line,
                             _("a translation gives only the text of a source ('{keys}'): '{key}' comes from "
                               "content/sources.yml", keys="', '".join(SOURCE_TEXT_KEYS), key=key))
                     for key in entry if key != "id" and key not in SOURCE_TEXT_KEYS]
        unread = [(key, said) for key in SOURCE_TEXT_KEYS if key in entry and (said := _not_text(entry[key], key))]
        problems += [Problem(file.path, item.children[key].line, said) for key, said in unread]
        texts[source_id] = {key: str(entry[key]) for key in SOURCE_TEXT_KEYS if key in entry}
    return tuple(replace(s, **texts[s.id]) if s.id in texts else s for s in sources)
