"""The one allowlist of URLs the build may write, and the check of every page against it.

An output invariant rather than a blacklist of bad schemes: a URL in an attribute
the browser follows (``href``, ``src``, ``xlink:href``, ``action`` …, in HTML,
MathML and SVG alike) is either a web or mail address (``https:``, ``http:``,
``mailto:``) or a path inside the site (``numbers.html#x``, ``static/site.css``,
``#b2``). Anything else — ``javascript:``, ``data:``, ``//host``, ``/etc``,
``../`` — never reaches a page. The check stage refuses such URLs in the
content with ``path:line``; ``check_html`` guards every HTML file as it is
produced, and every figure, so a URL that slips past those checks is a bug that
stops the build. The guard reads a file with a standard parser, never by patterns, and
refuses what that parser could read unlike a browser (see ``url_problems``).
"""

from __future__ import annotations

import functools
import html
import re
from urllib.parse import quote, unquote, urlsplit
from xml.parsers import expat

from selectolax.lexbor import LexborHTMLParser

from site_builder.vocabulary.i18n import _

ALLOWED_SCHEMES = ("https", "http", "mailto")
"""Schemes a link or resource may use; everything else must be a path inside the site."""
URL_ATTRIBUTES = frozenset({"href", "src", "xlink:href", "action", "formaction", "poster", "data", "background",
                            "cite", "longdesc", "ping", "manifest", "codebase", "srcset", "imagesrcset", "srcdoc"})
"""Attributes whose value a browser loads or navigates to (``srcdoc`` holds a whole page: never allowed)."""
_URL_LISTS = {"srcset": re.compile(r",\s*"), "imagesrcset": re.compile(r",\s*"), "ping": re.compile(r"\s+")}
"""Attributes holding several URLs, and what separates them (a candidate of a srcset is its URL, a space and a
size: the size is cut off)."""
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE)
XLINK = "http://www.w3.org/1999/xlink"
"""The namespace of ``xlink:href``, whatever prefix an SVG file binds to it."""
RASTER_DATA = re.compile(r"^data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")
"""Inline raster images (matplotlib embeds them in SVG figures): pixels, nothing that runs."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_BROWSER_IGNORED = re.compile(r"[\t\n\r]")
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@functools.lru_cache(maxsize=1 << 16)  # a site's pages link to the same pages and assets again and again
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
    # "/x" leaves a site served from a sub-folder; "//host" and "\\host" leave the site; "%2e%2e" is ".." too
    return not path.startswith("/") and ".." not in path.lower().replace("%2e", ".").split("/")


def url_problems(markup: bytes, *, images: bool = False, root: str = "") -> list[str]:
    """Everything in page (or, with ``images``, SVG figure) ``markup`` that could take a reader elsewhere and
    the allowlist refuses, as ``<tag attr="…">``. ``root``: a URL starting with it is judged as the path
    after it (404.html links from the site's path, a translation's pages one folder up).

    The file is read the way a browser reads it, never by patterns: a page by an HTML5 parser (Lexbor, the
    tokenizer rules of the HTML standard: quotes, comments, script bodies, character references, SVG and
    MathML inside), a figure by an XML parser (expat, as a browser opening the file). A scanner of our own
    once let ``title="a=" href="javascript:…"`` through: a quote that does not pair up moved its idea of
    where a value ends away from the browser's. What the two parsers could read unlike a browser is refused
    instead: ``<noscript>`` (markup or text, as scripts run or not), ``<template>`` (markup set aside for a
    script), a figure's DTD declarations and processing instructions.
    """
    if images:
        try:
            elements, found = _figure_elements(markup)
        except expat.ExpatError as error:
            return [f"not well-formed XML: {error}"]
    else:
        elements, found = _page_elements(markup), []
    for tag, attributes in elements:
        for name, value in attributes.items():
            if not allowed_attribute(tag, name, value or "", images=images, root=root):
                found.append(f'<{tag} {name}="{html.escape(value or "")}">')
        if tag in ("template", "noscript"):
            found.append(f"<{tag}>")
    return list(dict.fromkeys(found))  # an element matching two names of the selector comes twice


def allowed_attribute(tag: str, name: str, value: str, *, images: bool = False, root: str = "") -> bool:
    """Whether attribute ``name="value"`` of element ``tag`` (as a parser gives them: references decoded)
    takes a reader nowhere the allowlist refuses (``images``, ``root``: as for ``url_problems``)."""
    name = name.lower().rpartition(" ")[2]  # a figure's attribute in a namespace: its local name
    if name in URL_ATTRIBUTES:
        urls = [part.strip().split(" ")[0] for part in _URL_LISTS[name].split(value)] if name in _URL_LISTS \
            else [value]
        return name != "srcdoc" and all(allowed_url(url.removeprefix(root) if root else url, images=images)
                                        for url in urls if url or name not in _URL_LISTS)
    # An SVG animation that sets a link (``<set attributeName="l:href" to="javascript:…">``, any prefix), a page
    # that sends the reader on by itself: URLs the attributes above do not hold.
    if name == "attributename" and value.lower().rpartition(":")[2] in URL_ATTRIBUTES \
            or tag == "meta" and name == "http-equiv" and value.strip().lower() == "refresh":
        return False
    # A figure opened by itself runs its event handlers and fetches what its styles name (no page's
    # Content-Security-Policy applies to it): handlers are refused, styles' URLs judged.
    return not images or not name.startswith("on") and _allowed_css(value)


def _allowed_css(text: str) -> bool:
    """No ``@import``, no escape (which could spell any of these), no ``image-set(…)`` or ``src(…)`` (which take
    a bare string), every ``url(…)`` allowed (``url(#clip)``)."""
    lowered = text.lower()
    if "@" in text or "\\" in text or "src(" in lowered or "image-set(" in lowered:
        return False
    return "url(" not in lowered or all(allowed_url(m[2]) for m in _CSS_URL.finditer(text))


_LINKING = ",".join([f"[{name.replace(':', chr(92) + ':')}]" for name in sorted(URL_ATTRIBUTES)]
                    + ["[attributeName]", "meta[http-equiv]", "template", "noscript"])
"""The elements ``url_problems`` may refuse, as one CSS selector: Lexbor finds them in C."""


def _page_elements(markup: bytes) -> list[tuple[str, dict[str, str | None]]]:
    # encoding: a byte-order mark or a declared charset is followed, as a browser follows it
    return [(node.tag, node.attributes) for node in LexborHTMLParser(markup, encoding=True).css(_LINKING)]


def _figure_elements(svg: bytes) -> tuple[list[tuple[str, dict[str, str]]], list[str]]:
    """The elements, names by namespace (``http://www.w3.org/1999/xlink href``, whatever prefix the file gave
    it, shown as ``xlink:href``), and what the figure holds that expat would read unlike a browser: a DTD's
    own declarations (expat skips parameter entities), processing instructions (a style sheet to fetch),
    and a ``<style>`` that imports or fetches."""
    elements: list[tuple[str, dict[str, str]]] = []
    refused: list[str] = []
    styles: list[list[str]] = []
    open_tags: list[str] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        open_tags.append(tag.rpartition(" ")[2])
        elements.append((open_tags[-1], {name.replace(f"{XLINK} ", "xlink:"): value
                                          for name, value in attributes.items()}))
        if open_tags[-1] == "style":
            styles.append([])

    def text(data: str) -> None:
        if open_tags and open_tags[-1] == "style":
            styles[-1].append(data)

    def doctype(name: str, system: str | None, public: str | None, internal_subset: int) -> None:
        if internal_subset:
            refused.append(f"<!DOCTYPE {name} [...]>")

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartElementHandler, parser.CharacterDataHandler = start, text
    parser.EndElementHandler = lambda tag: open_tags.pop()
    parser.StartDoctypeDeclHandler = doctype
    parser.ProcessingInstructionHandler = lambda target, data: refused.append(f"<?{target} {data}?>")
    parser.Parse(svg, True)
    refused += [f"<style>{html.escape(css)}</style>" for css in map("".join, styles) if not _allowed_css(css)]
    return elements, refused


class UnsafeOutputError(RuntimeError):
    """A produced file holds a URL outside the allowlist: a check let it through (a bug, not a typo)."""


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
    the allowlist refuses (``root``: as for ``url_problems``)."""
    problems = url_problems(markup, images=images, root=root)
    if problems:
        raise UnsafeOutputError(f"{name}: URL outside the allowlist: " + "; ".join(problems[:5]))
