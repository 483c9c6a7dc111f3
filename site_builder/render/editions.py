"""How the editions of a course in several languages find each other: the language switcher and the
``hreflang`` alternates on every page, the notice on a page not translated yet, and the sitemap.

The source language's edition is at the site's root, each translation in ``<tag>/``; a page has the
same file name in every edition (``r55.html``, ``en/r55.html``), and a state the same anchor, so a link
to the same page in another edition is the other edition's folder and the page's own file name
(static/editions.js adds the state the reader is on when the link is followed).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from site_builder.load.content import SiteConfig
from site_builder.parse.page import ParsedPage
from site_builder.vocabulary.i18n import LOCALES, _, catalog_name, localize
from site_builder.vocabulary.urls import site_root

LANGUAGE_NAME = _("English")
"""The name of a catalog's own language, in that language (the zh_CN catalog says 中文): the switcher names each
language in itself, since a reader looks for their own language's name whatever edition they are on."""


def language_name(tag: str) -> str:
    """``tag``'s language named in itself, where the project has its catalog; else the tag as written."""
    known = catalog_name(tag) == "en" or (LOCALES / catalog_name(tag)).is_dir()
    return localize(LANGUAGE_NAME, tag) if known else tag


def edition_links(config: SiteConfig, teacher: bool) -> list[dict[str, Any]]:
    """The site's editions as every page links them: ``href`` (relative, for the switcher),
    ``alternate`` (for ``hreflang``: absolute on the public site, relative on the teacher's, which is not
    published at ``base_url``), each to be followed by the page's file name, and ``home``, the edition's folder
    from the site's path (404.html's switcher: it is served at any depth). Empty for one language."""
    links = []
    for number, tag in enumerate(config.languages):
        folder = f"{tag}/" if number else ""
        links.append({"lang": tag, "name": language_name(tag), "current": tag == config.language,
                      "href": config.up + folder,
                      "alternate": (config.up if teacher else config.root_url) + folder,
                      "home": site_root(config.root_url) + folder})
    return links


def fallback_notice(config: SiteConfig, page: ParsedPage, fallback_paths: frozenset[str]) -> dict[str, str] | None:
    """For a page a translation shows in the source language (not translated yet): its language and the
    link to it in the source edition; ``None`` for any other page."""
    if page.meta.path not in fallback_paths:
        return None
    return {"lang": config.source_language, "href": f"{config.up}{page.meta.id}.html"}


def sitemap(config: SiteConfig, pages: list[str]) -> str:
    """``sitemap.xml`` of the public site: every page of every edition, each with its alternates."""
    names = [f"{page_id}.html" for page_id in pages] + ["numbers.html", "figures.html", "sources.html",
                                                        "glossary.html"]
    editions = edition_links(config, teacher=False)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for name in names:
        for edition in editions:
            lines.append(f"<url><loc>{escape(edition['alternate'] + name)}</loc>")
            lines += [f'<xhtml:link rel="alternate" hreflang="{escape(other["lang"])}" '
                      f'href="{escape(other["alternate"] + name)}"/>' for other in editions]
            lines.append("</url>")
    return "\n".join([*lines, "</urlset>", ""])


def other_editions(config: SiteConfig, say: Callable[[str], str]) -> str:
    """The end of an edition's ``llms.txt``: where the other editions' are (nothing for one language)."""
    others = [e for e in edition_links(config, teacher=False) if not e["current"]]
    if not others:
        return ""
    return "\n## " + say(_("This course in other languages")) + "\n\n" \
        + "".join(f"- [{e['name']}]({e['alternate']}llms.txt)\n" for e in others)
