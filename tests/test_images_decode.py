"""Pictures by declared type: PNG, JPEG, WebP and GIF only, the bytes must be what the suffix says
before Pillow sees them, Pillow loads no other plugin, sizes are bounded from the header before any
pixel is decoded, and file names in any script (or with spaces) work and are published with safe names."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib

import pytest
from PIL import Image
from sitekit import PROJECT, fake_evidence, lesson, time_limit, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n\n%s\n:::\n"  # the picture is on line 10


def _site(tmp_path, markdown: str, files: dict[str, bytes]):
    root = write_site(tmp_path, {"x": lesson(STATE % markdown)})
    for name, data in files.items():
        (root / "content" / "pages" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / "pages" / name).write_bytes(data)
    return root


def _encoded(kind: str, size=(30, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 200)).save(out, kind)
    return out.getvalue()


def _said(root, tmp_path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [p.localized("zh-CN") for p in caught.value.problems]


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width``×``height`` and whose pixel data is a few bytes."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b""))


NAMED_WRONG = "文件名是 .png，内容却是 {}：请重新保存为 PNG 或 JPEG，并用与内容相符的后缀"
NOT_ALLOWED = "不是 PNG、JPEG、WebP 或 GIF 图片"
POSTSCRIPT = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n"


@pytest.mark.parametrize(("name", "data", "said"), [
    ("photo.png", POSTSCRIPT, NAMED_WRONG.format(NOT_ALLOWED)),
    ("photo.png", _encoded("BMP"), NAMED_WRONG.format(NOT_ALLOWED)),
    ("photo.png", _encoded("TIFF"), NAMED_WRONG.format(NOT_ALLOWED)),
    ("photo.png", _encoded("ICO", (16, 16)), NAMED_WRONG.format(NOT_ALLOWED)),
    ("photo.png", _encoded("JPEG"), NAMED_WRONG.format("JPEG")),
    ("photo.png", _encoded("PNG")[:60], "无法作为 PNG 图片读取（文件已损坏或不完整）：请重新保存为 PNG 或 JPEG"),
    ("photo.png", _png_header(1, 39_000_000),
     "有 1×39000000 像素，超过了 40,000,000 像素或单边 12,000 像素的上限：请缩小（宽 1280 像素就足够）"),
])
def test_a_picture_that_is_not_what_its_name_says_is_one_line(tmp_path, name, data, said):
    root = _site(tmp_path, f"![图]({name})", {name: data})
    with time_limit(5):
        assert _said(root, tmp_path) == [f"{P}:10: 图片 '{name}' {said}"]


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "WEBP", "GIF"])
def test_each_allowed_format_is_published(tmp_path, kind):
    suffix = {"JPEG": "jpg"}.get(kind, kind.lower())
    root = _site(tmp_path, f"![图](images/a.{suffix})", {f"images/a.{suffix}": _encoded(kind)})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    assert [n for n in files if n.startswith("images/a-")]


def test_file_names_in_any_script_or_with_spaces_work_and_are_published_safely(tmp_path):
    root = _site(tmp_path, "![显卡](images/显卡.png)\n\n![图](<images/my photo.png>)",
                 {"images/显卡.png": _encoded("PNG"), "images/my photo.png": _encoded("PNG", (31, 20))})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    published = sorted(n for n in files if n.startswith("images/"))
    assert len(published) == 2
    assert all(n.isascii() and " " not in n for n in published)


def test_pillow_loads_no_plugin_but_the_four_formats(tmp_path):
    """In a fresh process: preparing pictures of each format, and refusing PostScript, never imports
    the plugins that run programs (Ghostscript) or read other formats."""
    pictures = {"png": _encoded("PNG"), "jpg": _encoded("JPEG"), "webp": _encoded("WEBP"), "gif": _encoded("GIF")}
    program = f"""
import sys
sys.path[:0] = [{str(PROJECT)!r}, {str(PROJECT / 'tests')!r}]
from site_builder.check.images import picture
from site_builder.load.content import ImageFile
for suffix, data in {pictures!r}.items():
    picture(ImageFile("content/pages/a." + suffix, len(data), data))
try:
    picture(ImageFile("content/pages/b.png", 10, {POSTSCRIPT!r}))
except ValueError:
    pass
print(sorted(m for m in sys.modules if m.startswith("PIL.") and m.endswith("ImagePlugin")))
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    loaded = set(eval(done.stdout))  # noqa: S307 (our own program's printed list)
    assert "PIL.EpsImagePlugin" not in loaded
    assert loaded <= {"PIL.PngImagePlugin", "PIL.JpegImagePlugin", "PIL.WebPImagePlugin", "PIL.GifImagePlugin",
                      "PIL.BmpImagePlugin", "PIL.PpmImagePlugin", "PIL.TiffImagePlugin", "PIL.MpoImagePlugin"}
