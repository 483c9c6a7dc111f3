"""The one allowlist of URLs the build may write, and the check of every page against it.

An output invariant rather than a blacklist of bad schemes: a URL in an attribute
the browser follows (``href``, ``src``, ``xlink:href``, ``action`` …, in HTML,
MathML and SVG alike) is either a web or mail address (``https:``, ``http:``,
``mailto:``) or a path inside the site (``numbers.html#x``, ``static/site.css``,
``#b2``). Anything else — ``javascript:``, ``data:``, ``//host``, ``/etc``,
``../`` — never reaches a page. The check stage refuses such URLs in the
content with ``path:line``; ``check_html`` guards every HTML file as it is
produced, so a URL that slips past those checks is a bug that stops the build.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote, unquote, urlsplit

from site_builder.vocabulary.i18n import _

ALLOWED_SCHEMES = ("https", "http", "mailto")
"""Schemes a link or resource may use; everything else must be a path inside the site."""
URL_ATTRIBUTES = frozenset({"href", "src", "xlink:href", "action", "formaction", "poster", "data", "background",
                            "cite", "longdesc", "ping", "manifest", "codebase", "srcset", "srcdoc"})
"""Attributes whose value a browser loads or navigates to (``srcdoc`` holds a whole page: never allowed)."""
RASTER_DATA = re.compile(r"^data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")
"""Inline raster images (matplotlib embeds them in SVG figures): pixels, nothing that runs."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_BROWSER_IGNORED = re.compile(r"[\t\n\r]")
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TAG = re.compile(r"<([A-Za-z][^\s/>]*)((?:[^>\"']+|\"[^\"]*\"|'[^']*')*)>")
_NOT_URLS = re.compile(rb' (?:alttext|style|aria-keyshortcuts)="[^"<>]*"')
"""MathML's TeX source, SVG's inline styles and the search box's key (``/``, which would look like a path
leaving the site and send every public page to the slow check): no browser follows them, and they are most
of the values of a math page or a figure (``fill: #fff`` would look like a scheme)."""
_VALUES = re.compile(rb"=\s*(\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'=<>`]+|[\"'])")
# No look-behind for the start of a name: it makes the scan three times slower, and a name found inside a longer
# one (``data-href``) only adds a value to judge (an over-approximation, like the check it serves).
_SVG_URL_VALUES = re.compile(rb"(?:" + b"|".join(re.escape(n.encode()) for n in sorted(URL_ATTRIBUTES, key=len,
                             reverse=True)) + rb")\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+)")
_FRAGMENT = re.compile(rb'"(?!\.\.")#?[\w.-]*"')
"""A reference inside the same document (a figure's glyphs, ``xlink:href="#DejaVuSans-30"``) or a plain name in the
same folder (a page's ids and links, ``page-0004.html``; not ``..``): allowed as it is."""
_ATTRIBUTE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?")
# Case-insensitive by character classes: re.IGNORECASE makes a search many times slower on CJK text.
_RAW_TEXT = re.compile(r"<([sS][cC][rR][iI][pP][tT]|[sS][tT][yY][lL][eE])\b[^>]*>.*?</\1\s*>", re.DOTALL)


def allowed_url(url: str, *, images: bool = False) -> bool:
    """True if ``url`` (already unescaped) is a web or mail address or a path inside the site.

    Judged the way a browser reads it: tabs and line breaks inside are ignored,
    spaces and control characters around it are stripped. ``images`` also
    allows inline raster ``data:image/…`` (for ``<image>`` in SVG figures).
    """
    if images and RASTER_DATA.match(url):
        return True
    seen = _BROWSER_IGNORED.sub("", url).strip(_C0_OR_SPACE)
    if _CONTROL.search(seen):
        return False
    scheme = _SCHEME.match(seen)
    return scheme.group(1).lower() in ALLOWED_SCHEMES if scheme else site_path(seen)


def link_problem(href: str) -> str:
    """What to tell the author of a link that ``allowed_url`` refuses (in a page or a glossary definition)."""
    if re.match(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:", href):
        return _("link '{href}' uses a scheme the site does not allow: give a full https:// URL, "
                 "or link to a page with {{ref}}`id`", href=href)
    # A relative link that climbs out of the site (../x) or an absolute path on the host (/etc).
    return _("link '{href}' leaves the site: link to a page with {{ref}}`id`, or give a full https:// URL", href=href)


def site_path(url: str) -> bool:
    """A relative reference that stays inside the site: no ``/`` or ``\\`` at the start, no ``..``."""
    path = re.split(r"[?#]", url, maxsplit=1)[0].replace("\\", "/")  # browsers read \ as / in web URLs
    # "/x" leaves a site served from a sub-folder; "//host" and "\\host" leave the site
    return not path.startswith("/") and ".." not in path.split("/")


def url_problems(markup: str, *, images: bool = False, root: str = "") -> list[str]:
    """Every URL-bearing attribute of ``markup`` (HTML or SVG) that the allowlist refuses, as ``<tag attr="…">``
    (``root``: as for ``check_html``)."""
    if root:
        markup = markup.replace('="' + root, '="')
    found = []
    for tag in _TAG.finditer(_RAW_TEXT.sub(_keep_opening_tag, markup)):
        for name, quoted in _ATTRIBUTE.findall(tag.group(2)):
            name = name.lower()
            if name not in URL_ATTRIBUTES:
                continue
            value = html.unescape(quoted[1:-1] if quoted[:1] in ("'", '"') else quoted)
            urls = [part.strip().split(" ")[0] for part in value.split(",")] if name == "srcset" else [value]
            if name == "srcdoc" or not all(allowed_url(url, images=images) for url in urls):
                found.append(f"<{tag.group(1)} {name}={quoted or '(empty)'}>")
    return found


def _surely_allowed(markup: bytes) -> bool:
    """A fast over-approximation of ``not url_problems(markup)``: every attribute-like value in the page
    (``=`` then a value, tags or not) passes the allowlist whole and word by word.

    Parsing each tag costs more than rendering the page; most values repeat on every page
    (navigation, footer), so they are judged once. A page where this says no is parsed properly.
    """
    if b"srcdoc" in markup.lower():  # holds a page, not a URL: never allowed
        return False
    unseen = set(_VALUES.findall(_NOT_URLS.sub(b"", markup))) - _ALLOWED_VALUES
    if not all(map(_value_allowed, unseen)):
        return False
    if len(_ALLOWED_VALUES) > 100_000:  # a long dev-server session: start afresh rather than grow
        _ALLOWED_VALUES.clear()
    _ALLOWED_VALUES.update(unseen)
    return True


_ALLOWED_VALUES: set[bytes] = set()
"""Values already judged allowed: a set difference (in C) skips them on the next page."""


def _value_allowed(value: bytes, images: bool = False) -> bool:
    if _FRAGMENT.fullmatch(value):  # nothing in it to unescape or split: most of a figure's or page's values
        return True
    if value[:1] in (b'"', b"'"):
        if len(value) < 2 or value[-1:] != value[:1]:
            return False  # a quote that does not close before < or >: not our serializers' output
        value = value[1:-1]
    text = html.unescape(value.decode("utf-8", errors="replace"))
    if images and RASTER_DATA.match(text):
        return True
    # Word by word too, unless the value is one word (most are: ids, paths), which was just judged.
    return allowed_url(text, images=images) and all(allowed_url(word, images=images)
                                                     for word in re.split(r"[\s,]+", text) if word and word != text)


def _keep_opening_tag(match: re.Match[str]) -> str:
    """Script and style bodies are not markup; their opening tag (``src``) still counts."""
    return match.group(0)[:match.group(0).index(">") + 1]


class UnsafeOutputError(RuntimeError):
    """A produced file holds a URL outside the allowlist: a check let it through (a bug, not a typo)."""


def _svg_surely_allowed(svg: bytes) -> bool:
    """The fast check for SVG figures: XML attribute names are case-sensitive, so the URL attributes
    can be found by name (a figure's thousands of coordinates and styles are no URLs)."""
    return all(_value_allowed(value, images=True) for value in set(_SVG_URL_VALUES.findall(svg)))


def site_root(base_url: str) -> str:
    """The path the site is published under (``https://x.org/c/`` → ``/c/``): 404.html links from it, so
    that its links and assets hold at any depth and on any host that serves the site at that path."""
    path = quote(unquote(urlsplit(base_url).path), safe="/")  # percent-encoded: nothing in it needs escaping
    return path.rstrip("/") + "/"


def page_root(markup: str) -> str:
    """The site path a page's links start from: ``site_root`` on 404.html, ``''`` (relative links) elsewhere."""
    match = re.search(r'href="(/[^"]*)static/site\.css"', markup)
    return match[1] if match else ""


def check_html(name: str, markup: bytes, *, images: bool = False, root: str = "") -> None:
    """Raise ``UnsafeOutputError`` if page (or, with ``images``, SVG figure) ``name`` holds a URL
    the allowlist refuses. ``root`` (404.html: ``site_root``): links starting with it are judged as the
    same paths inside the site."""
    if root:
        markup = markup.replace(b'="' + root.encode(), b'="')
    if _svg_surely_allowed(markup) if images else _surely_allowed(markup):
        return
    problems = url_problems(markup.decode("utf-8"), images=images)
    if problems:
        raise UnsafeOutputError(f"{name}: URL outside the allowlist: " + "; ".join(problems[:5]))
