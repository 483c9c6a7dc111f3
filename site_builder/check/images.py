"""Teacher-supplied pictures: checked, resized to the layout's widths and re-encoded with Pillow.

Only PNG, JPEG, WebP and GIF are read, and only when the file's first bytes are those of the
format its suffix names: Pillow is handed that one format (so it never tries, or loads the
plugin of, another — PostScript would run Ghostscript). Sizes are bounded twice before any
pixel is decoded: the file's bytes (the loader) and the width and height from its header.
An SVG is not decoded but written anew from an allowlist (svg.py), one file for every width.

Each picture a page shows becomes one file per width in ``WIDTHS`` (never
wider than the original), named by a hash of its bytes, so a changed picture
gets a new name and browsers never show a stale one. Re-encoding also drops
metadata (camera, location) the original may carry. Results are cached by the
hash of the original's bytes: the dev server does not resize a picture twice.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field

from site_builder.check.svg import safe_svg
from site_builder.load.content import IMAGE_FORMATS, Content, ImageFile
from site_builder.load.files import MAX_FILE_BYTES
from site_builder.parse.page import ParsedPage, image_path
from site_builder.vocabulary.i18n import Text, _
from site_builder.vocabulary.problems import Problem

WIDTHS = (640, 1280)
"""CSS pixels of the text column (about 612) and twice that for dense screens."""
MAX_PIXELS = 40_000_000
"""Pictures with more pixels are refused before decoding (a huge image could exhaust memory)."""
MAX_SIDE = 12_000
"""Pictures wider or taller are refused before decoding (a 1×39,000,000 strip is few pixels but huge files)."""
_SIGNATURES = (("PNG", re.compile(rb"\x89PNG\r\n\x1a\n")), ("JPEG", re.compile(rb"\xff\xd8\xff")),
               ("GIF", re.compile(rb"GIF8[79]a")), ("WEBP", re.compile(rb"RIFF....WEBP", re.DOTALL)))


@dataclass(frozen=True)
class Picture:
    """A picture ready for the site: its files and what the ``<img>`` needs."""

    src: str
    """Site-relative file for ``src`` (the narrowest width)."""
    srcset: str
    """``file width`` pairs for ``srcset``."""
    width: int
    """Pixel width of ``src``."""
    height: int
    """Pixel height of ``src``."""
    files: dict[str, bytes] = field(repr=False, compare=False, hash=False)
    """Site-relative path → bytes of every width."""


_CACHE: dict[str, Picture] = {}


def prepare_images(content: Content, pages: list[ParsedPage]) -> tuple[dict[str, Picture], list[Problem]]:
    """Every picture the pages show, by project-relative path; problems for missing, huge or unreadable ones."""
    files = {image.path: image for image in content.images}
    pictures: dict[str, Picture] = {}
    problems: list[Problem] = []
    for page in pages:
        for src, line in page.images:
            path = image_path(page.meta.path, src)
            if path in pictures:
                continue
            image = files.get(path)
            if image is None:
                problems.append(Problem(page.meta.path, line,
                                        _("image '{src}' not found: put the file at {path}", src=src, path=path)))
                continue
            try:
                pictures[path] = picture(image)
            except ValueError as error:
                problems.append(Problem(page.meta.path, line, _("image '{src}' ", src=src) + error.args[0]))
    return pictures, problems


def picture(image: ImageFile) -> Picture:
    """The resized files of one picture; ``ValueError`` (a message to the teacher) if it cannot be used."""
    if image.data is None:
        raise ValueError(_("is {size} MiB, over the limit of {limit} MiB: save it smaller (at most 1280 pixels "
                           "wide is enough), e.g. as a JPEG", size=f"{image.size / 2**20:.1f}",
                           limit=f"{MAX_FILE_BYTES / 2**20:.0f}"))
    suffix = "." + image.path.rsplit(".", 1)[-1].lower()
    kind = "SVG" if suffix == ".svg" else _declared(image.data, suffix)
    key = hashlib.sha256(image.data).hexdigest()
    if key not in _CACHE:
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", image.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-")
        _CACHE[key] = _svg(image.data, stem or "image") if kind == "SVG" else _resize(image.data, stem or "image",
                                                                                        kind, suffix)
    return _CACHE[key]


def _svg(data: bytes, stem: str) -> Picture:
    """An SVG written anew from the allowlists (one file: it scales to every width)."""
    svg = safe_svg(data)
    name = _published_name(stem, svg.data, "svg")
    return Picture(name, f"{name} {svg.width}w", svg.width, svg.height, {name: svg.data})


def _declared(data: bytes, suffix: str) -> str:
    """The format the suffix names, when the file's first bytes are that format's; ``ValueError`` otherwise."""
    kind = IMAGE_FORMATS.get(suffix)
    if kind is None:
        raise ValueError(_("is not a PNG, JPEG, WebP or GIF file: save it again as PNG or JPEG"))
    found = next((name for name, signature in _SIGNATURES if signature.match(data)), None)
    if found != kind:
        raise ValueError(_("is named {suffix} but its bytes are {found}: save it again as PNG or JPEG, named by what "
                           "it is", suffix=suffix, found=found or _("not a PNG, JPEG, WebP or GIF picture")))
    return kind


def _resize(data: bytes, stem: str, kind: str, suffix: str) -> Picture:
    # The four plugins imported by name: asked for a format it has not registered, Pillow loads them all.
    from PIL import GifImagePlugin, Image, ImageOps, JpegImagePlugin, PngImagePlugin, WebPImagePlugin  # noqa: F401

    unreadable = _("cannot be read as a {kind} picture (the file is damaged or cut short): save it again as PNG "
                   "or JPEG", kind=kind)
    source = io.BytesIO(data)
    source.name = f"picture{suffix}"  # so that Pillow does not import its common plugins (BMP, PPM …) either
    try:
        with Image.open(source, formats=[kind]) as opened:  # reads the header only
            if opened.width * opened.height > MAX_PIXELS or max(opened.size) > MAX_SIDE:
                raise ValueError(_("has {width}×{height} pixels, over the limit of {limit} pixels or {side} on a "
                                   "side: resize it (at most 1280 pixels wide is enough)", width=opened.width,
                                   height=opened.height, limit=f"{MAX_PIXELS:,}", side=f"{MAX_SIDE:,}"))
            lossless = opened.mode in ("RGBA", "LA", "P", "PA", "1", "L", "I;16") or opened.format in ("PNG", "GIF")
            original = ImageOps.exif_transpose(opened)  # phone photos store their rotation in EXIF
            original.load()
    except (ValueError, OSError, SyntaxError, Image.DecompressionBombError, EOFError) as error:
        if isinstance(error, ValueError) and error.args and isinstance(error.args[0], Text):
            raise  # the size limit's own message
        raise ValueError(unreadable) from None  # Pillow's words are not the teacher's
    mode, kind = ("RGBA", "png") if lossless else ("RGB", "jpg")
    original = original.convert(mode)
    files: dict[str, bytes] = {}
    sizes: list[tuple[str, int, int]] = []
    for width in sorted({min(w, original.width) for w in WIDTHS}):
        height = max(1, round(original.height * width / original.width))
        resized = original if width == original.width else original.resize((width, height), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        if lossless:
            resized.save(out, "PNG", optimize=True)
        else:
            resized.save(out, "JPEG", quality=85, optimize=True, progressive=True)
        name = _published_name(stem, out.getvalue(), kind)
        files[name] = out.getvalue()
        sizes.append((name, width, height))
    src, width, height = sizes[0]
    return Picture(src, ", ".join(f"{n} {w}w" for n, w, _height in sizes), width, height, files)


def _published_name(stem: str, data: bytes, suffix: str) -> str:
    """The published name: the picture's stem and a hash of what is published (a changed picture, a new name)."""
    return f"images/{stem}-{hashlib.sha256(data).hexdigest()[:12]}.{suffix}"
