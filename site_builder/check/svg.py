"""Teacher-supplied SVG pictures: written anew from an allowlist, so that nothing in them can run.

An SVG file is a document, not pixels: it may hold scripts, event handlers, HTML (``foreignObject``)
and references to other files or sites, and a reader who opens the published file itself would run
what it holds. So the picture is parsed (expat: no DTD is read, no entity may be declared) and a new
file is written holding only what the allowlists name: drawing elements, their geometry and
presentation attributes, styles made of plain values, references to the picture's own parts (``#id``)
and raster images held inline. What a browser never draws is left out: a drawing program's metadata
(Inkscape, Illustrator …, in their own namespaces, or ``<metadata>``), SVG fonts and attributes
the lists do not name. What would change the picture if it were left out — a script, an event
handler, HTML, a reference to another file or site, an element the list does not name — is an
error naming its line in the SVG and what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.parsers import expat
from xml.sax.saxutils import escape, quoteattr

from site_builder.vocabulary.i18n import Text, _
from site_builder.vocabulary.urls import RASTER_DATA, XLINK

SVG = "http://www.w3.org/2000/svg"
XML = "http://www.w3.org/XML/1998/namespace"
MAX_DEPTH = 100
"""Deepest nesting of elements (a drawing program's groups rarely go past 20)."""


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


_FILTERS = ("feBlend feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting "
            "feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR "
            "feGaussianBlur feMerge feMergeNode feMorphology feOffset fePointLight feSpecularLighting "
            "feSpotLight feTile feTurbulence")
ELEMENTS = _names("svg g defs symbol use switch title desc path rect circle ellipse line polyline polygon "
                  "text tspan textPath linearGradient radialGradient stop clipPath mask pattern marker image "
                  "style filter " + _FILTERS)
"""Elements (in the SVG namespace) a picture may hold: shapes, text, paint servers, clips, masks, filters."""
UNDRAWN = frozenset({"metadata", "font", "font-face"})
"""Elements browsers never draw (metadata, SVG 1.1 fonts): left out with what they hold."""
_TEXT_HOLDERS = frozenset({"text", "tspan", "textPath", "title", "desc", "style"})
"""Elements whose character data is part of the picture; elsewhere it is only layout whitespace."""

PROPERTIES = _names("""
alignment-baseline baseline-shift clip clip-path clip-rule color color-interpolation color-interpolation-filters
color-rendering cursor direction display dominant-baseline enable-background fill fill-opacity fill-rule filter
flood-color flood-opacity font font-family font-size font-size-adjust font-stretch font-style font-variant
font-weight image-rendering isolation letter-spacing lighting-color line-height marker marker-end marker-mid
marker-start mask mix-blend-mode opacity overflow paint-order shape-rendering stop-color stop-opacity stroke
stroke-dasharray stroke-dashoffset stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width
text-anchor text-decoration text-rendering transform transform-origin unicode-bidi vector-effect visibility
white-space word-spacing writing-mode""")
"""Presentation properties: allowed as attributes and in ``style``."""
ATTRIBUTES = PROPERTIES | _names("""
id class style lang viewBox preserveAspectRatio version baseProfile width height x y x1 y1 x2 y2 cx cy r rx ry fx
fy fr d points pathLength dx dy rotate textLength lengthAdjust startOffset method spacing side offset
gradientUnits gradientTransform spreadMethod patternUnits patternContentUnits patternTransform clipPathUnits
maskUnits maskContentUnits markerWidth markerHeight markerUnits refX refY orient filterUnits primitiveUnits in
in2 result stdDeviation mode operator k1 k2 k3 k4 values type tableValues slope intercept amplitude exponent
scale xChannelSelector yChannelSelector radius order kernelMatrix divisor bias targetX targetY edgeMode
preserveAlpha surfaceScale specularConstant specularExponent diffuseConstant kernelUnitLength azimuth elevation
pointsAtX pointsAtY pointsAtZ limitingConeAngle baseFrequency numOctaves seed stitchTiles systemLanguage
""")
"""Attributes (no namespace) kept; ``href`` and ``xlink:href`` are judged on their own."""

_OWN_PART = re.compile(r"#[A-Za-z_][\w.:-]*")
"""A reference to an element of the same picture."""
_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE)
_PLAIN_VALUE = re.compile(r"[\w\s#%.,+\-/'\"!()]*")
"""What a style value may be made of: no backslash (CSS escapes), no ``:;{}<>@``."""
_FUNCTIONS = frozenset({"url", "rgb", "rgba", "hsl", "hsla", "matrix", "translate", "translatex", "translatey",
                        "scale", "rotate", "skewx", "skewy"})
_FUNCTION = re.compile(r"([\w-]+)\s*\(")
_SELECTOR = re.compile(r"[\w\s.#,>*+~:()\-]+")
_NOT_SVG = _("is not an SVG picture: its first element must be <svg xmlns=\"http://www.w3.org/2000/svg\">")
_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
"""CSS pixels per unit of an ``<svg>``'s width and height."""


@dataclass(frozen=True)
class SafeSvg:
    """A picture rebuilt from the allowlists."""

    data: bytes
    width: int
    """CSS pixels, from the ``<svg>``'s width (or its viewBox)."""
    height: int


class _Unsafe(Exception):
    """Stops the parse: the picture cannot be made safe (``message`` says why and what to do)."""

    def __init__(self, message: Text) -> None:
        super().__init__(message)
        self.message = message


def safe_svg(data: bytes) -> SafeSvg:
    """``data`` rebuilt from the allowlists; ``ValueError`` (a message to the teacher, with the SVG's line) if
    what it holds cannot be left out without changing the picture."""
    writer = _Writer()
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    writer.attach(parser)
    try:
        parser.Parse(data, True)
    except _Unsafe as unsafe:
        raise ValueError(unsafe.message) from None
    except expat.ExpatError as error:
        raise ValueError(_("cannot be read as SVG: line {line} is not well-formed XML; save it again from the "
                           "drawing program", line=error.lineno)) from None
    if writer.size is None:
        raise ValueError(_NOT_SVG)
    width, height = writer.size
    return SafeSvg(("".join(writer.out) + "\n").encode("utf-8"), width, height)


class _Writer:
    """expat's handlers: each allowed element is written as it is read (no tree, no recursion)."""

    def __init__(self) -> None:
        self.out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
        self.open: list[str | None] = []
        """Names of the elements open, ``None`` for one left out (with everything inside it)."""
        self.pending = False
        """The last written start tag still lacks its ``>`` (so an empty element can close as ``/>``)."""
        self.sheet: list[str] = []
        """The text of the ``<style>`` being read."""
        self.size: tuple[int, int] | None = None
        self.parser: expat.XMLParserType | None = None

    def attach(self, parser: expat.XMLParserType) -> None:
        self.parser = parser
        parser.StartDoctypeDeclHandler = self.doctype
        parser.EntityDeclHandler = self.entity
        parser.ProcessingInstructionHandler = self.instruction
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.text

    @property
    def line(self) -> int:
        return self.parser.CurrentLineNumber if self.parser else 0

    def doctype(self, name, system_id, public_id, has_internal_subset) -> None:
        if has_internal_subset:
            self.entity()

    def entity(self, *_args) -> None:
        raise _Unsafe(_("declares entities (line {line}), which can make a small file huge: save it again as "
                        "plain SVG, without a DOCTYPE", line=self.line))

    def instruction(self, target: str, data: str) -> None:
        if target.lower() == "xml-stylesheet":
            raise _Unsafe(_outside(self.line, "?xml-stylesheet", data))

    def start(self, name: str, attributes: dict[str, str]) -> None:
        namespace, _space, tag = name.rpartition(" ")
        if len(self.open) >= MAX_DEPTH:
            raise _Unsafe(_("line {line}: elements nested more than {limit} deep: simplify the drawing",
                            line=self.line, limit=MAX_DEPTH))
        if not self.open and (namespace, tag) != (SVG, "svg"):
            raise _Unsafe(_NOT_SVG)
        if (self.open and self.open[-1] is None) or namespace != SVG or tag in UNDRAWN:
            self.open.append(None)  # never drawn: left out, with all it holds
            return
        if tag not in ELEMENTS:
            raise _Unsafe(_element_message(tag, self.line))
        kept = [kept for attribute, value in attributes.items()
                if (kept := self._attribute(tag, attribute, value)) is not None]
        if not self.open:
            self.size = _size(dict(kept), self.line)
            kept = [("xmlns", SVG), *kept]
        self._close_pending()
        self.out.append(f"<{tag}" + "".join(f" {key}={quoteattr(value)}" for key, value in kept))
        self.pending = True
        self.open.append(tag)

    def _attribute(self, tag: str, attribute: str, value: str) -> tuple[str, str] | None:
        """The attribute as written anew (name, value), or ``None`` to leave it out; ``_Unsafe`` if it matters."""
        namespace, _space, key = attribute.rpartition(" ")
        if key.lower().startswith("on") and namespace in ("", SVG):
            raise _Unsafe(_("line {line}: <{element} {attribute}> is an event handler, code that would run in a "
                            "reader's browser: remove it; pictures here are drawn, never run",
                            line=self.line, element=tag, attribute=key))
        if key == "href" and namespace in ("", XLINK):
            if not (_OWN_PART.fullmatch(value.strip()) or (tag == "image" and RASTER_DATA.match(value))):
                raise _Unsafe(_outside(self.line, tag, value))
            return "href", value.strip()
        if namespace == XML and key in ("space", "lang"):
            return f"xml:{key}", value
        if namespace or key not in ATTRIBUTES:
            return None
        if key == "style":
            style = _declarations(value, tag, self.line)
            return (key, style) if style else None
        if key in PROPERTIES:  # read as CSS: only plain values
            plain = _plain(value, tag, self.line)
            return None if plain is None else (key, plain)
        return key, value

    def end(self, name: str) -> None:
        tag = self.open.pop()
        if tag is None:
            return
        if tag == "style" and self.sheet:
            self._close_pending()
            self.out.append(escape(_style_sheet("".join(self.sheet), self.line)))
            self.sheet = []
        if self.pending:
            self.out.append("/>")
            self.pending = False
        else:
            self.out.append(f"</{tag}>")

    def text(self, data: str) -> None:
        tag = self.open[-1] if self.open else None
        if tag is None or (tag not in _TEXT_HOLDERS and not data.isspace()):
            return
        if tag == "style":  # judged whole at its end: expat may hand over a sheet in pieces
            self.sheet.append(data)
            return
        self._close_pending()
        self.out.append(escape(data))

    def _close_pending(self) -> None:
        if self.pending:
            self.out.append(">")
            self.pending = False


def _element_message(tag: str, line: int) -> Text:
    if tag == "script":
        return _("line {line} holds <script>, which would run in a reader's browser: remove it; pictures here "
                 "are drawn, never run", line=line)
    if tag == "foreignObject":
        return _("line {line} holds HTML (<foreignObject>), which could run code: export the picture again with "
                 "its text as SVG text, or as PNG", line=line)
    return _("line {line}: <{element}> is not an element a picture here may hold (shapes, text, gradients, "
             "patterns, markers, clips, masks, filters, <use> and <image> are): remove it, or save the picture "
             "as PNG", line=line, element=tag)


def _outside(line: int, tag: str, target: str) -> Text:
    return _("line {line}: <{element}> refers to '{target}' outside the picture: a picture here may refer only to "
             "its own parts ('#id') and hold raster images inline (data:image/png;base64,…); embed what it needs, "
             "or save it as PNG", line=line, element=tag, target=target[:80])


def _plain(value: str, tag: str, line: int) -> str | None:
    """A CSS value made of plain characters and allowed functions, else ``None``; a ``url()`` to anything
    but the picture's own parts is an error (leaving it out would change the picture)."""
    value = value.strip()
    for found in _URL.finditer(value):
        if not _OWN_PART.fullmatch(found.group(2).strip()):
            raise _Unsafe(_outside(line, tag, found.group(2)))
    functions = {name.lower() for name in _FUNCTION.findall(value)}
    return value if _PLAIN_VALUE.fullmatch(value) and functions <= _FUNCTIONS else None


def _declarations(style: str, tag: str, line: int) -> str:
    """A ``style`` attribute's (or rule's) declarations, only those naming an allowed property with a plain
    value."""
    kept = []
    for declaration in re.sub(r"/\*.*?\*/", "", style, flags=re.DOTALL).split(";"):
        prop, colon, value = declaration.partition(":")
        prop = prop.strip().lower()
        if colon and prop in PROPERTIES and (plain := _plain(value, tag, line)) is not None:
            kept.append(f"{prop}:{plain}")
    return ";".join(kept)


def _style_sheet(sheet: str, line: int) -> str:
    """A ``<style>``'s rules, each a plain selector and allowed declarations; an at-rule (``@import``,
    ``@font-face`` …) is an error: it can load another file."""
    sheet = re.sub(r"/\*.*?\*/", "", sheet, flags=re.DOTALL)
    if "@" in sheet:
        raise _Unsafe(_("line {line}: a <style> holds an at-rule ('@import', '@font-face' …), which can load "
                        "another file: keep only rules of the form 'selector {{ property: value }}'", line=line))
    rules = []
    for rule in sheet.split("}"):
        selector, brace, body = rule.partition("{")
        if brace and _SELECTOR.fullmatch(selector.strip()):
            rules.append(f"{selector.strip()}{{{_declarations(body, 'style', line)}}}")
    return "\n".join(rules)


def _size(attributes: dict[str, str], line: int) -> tuple[int, int]:
    """The picture's size in CSS pixels: its width and height; a side not given (or in %) follows the viewBox's
    proportions."""
    box = [float(n) for n in re.findall(r"-?[\d.]+(?:e-?\d+)?", attributes.get("viewBox", ""))]
    width, height = (_length(attributes.get(key, "")) for key in ("width", "height"))
    if len(box) == 4 and min(box[2:]) > 0:
        width, height = (width or (height and height * box[2] / box[3]) or box[2],
                         height or (width and width * box[3] / box[2]) or box[3])
    if not (width and height):
        raise _Unsafe(_("line {line}: the <svg> has no size: give it a viewBox (or a width and a height)",
                        line=line))
    return max(1, round(width)), max(1, round(height))


def _length(given: str) -> float:
    """CSS pixels of a width or height written in absolute units; 0 for none (or ``%``, ``em`` …)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?(?:e-?\d+)?)\s*(px|pt|pc|mm|cm|in|)\s*", given)
    return float(found.group(1)) * _UNITS[found.group(2)] if found else 0.0
