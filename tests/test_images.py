"""Teacher-supplied pictures: alt text required, the page's folder only, resized, hashed, size-limited."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from sitekit import fake_evidence, lesson, write_site

from site_builder.check import images as images_module
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n\n%s\n:::\n"  # the picture is on line 10


def site_with(tmp_path, picture_markdown: str, files: dict[str, bytes]):
    root = write_site(tmp_path, {"x": lesson(STATE % picture_markdown)})
    for name, data in files.items():
        (root / "content" / "pages" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / "pages" / name).write_bytes(data)
    return root


def jpeg(width: int, height: int, **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (180, 40, 40)).save(out, "JPEG", **save)
    return out.getvalue()


def problems(root, tmp_path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


def test_an_image_with_alt_is_a_figure_resized_hashed_and_badged(tmp_path):
    exif = Image.Exif()
    exif[0x010F] = "CameraMaker"
    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000, exif=exif.tobytes())})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    html = files["x.html"].decode()
    figure = re.search(r'<figure class="figure image-figure".*?</figure>', html, re.S).group(0)
    small, large = re.findall(r"images/gpu-[0-9a-f]{12}\.jpg", figure)[1:3]
    assert f'<img src="{small}" srcset="{small} 640w, {large} 1280w"' in figure
    assert 'alt="一块 GPU 板卡的照片" width="640" height="320"' in figure
    assert '<span class="badge" data-provenance="illustration">插图</span> 实验室里的 GPU 板卡' in figure
    for name, width in ((small, 640), (large, 1280)):
        with Image.open(io.BytesIO(files[name])) as out:
            assert out.size == (width, width // 2) and out.format == "JPEG"
            assert not out.getexif()  # camera metadata is not published
    assert not any(name.endswith("gpu.jpg") for name in files)  # only the re-encoded files


def test_a_small_png_keeps_its_width_and_format(tmp_path):
    out = io.BytesIO()
    Image.new("RGBA", (300, 200), (0, 0, 255, 128)).save(out, "PNG")
    root = site_with(tmp_path, "![半透明的蓝色方块](diagram.png)", {"diagram.png": out.getvalue()})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    [name] = [n for n in files if n.startswith("images/diagram-")]
    assert name.endswith(".png") and Image.open(io.BytesIO(files[name])).size == (300, 200)
    assert f'srcset="{name} 300w"' in files["x.html"].decode()


def test_names_change_with_the_picture_and_only_then(tmp_path):
    names = []
    for color in (1, 1, 2):
        out = io.BytesIO()
        Image.new("RGB", (100, 50), (color, 0, 0)).save(out, "PNG")
        root = site_with(tmp_path / str(len(names)), "![色块](c.png)", {"c.png": out.getvalue()})
        files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
        names.append([n for n in files if n.startswith("images/")])
    assert names[0] == names[1] != names[2]


@pytest.mark.parametrize(("markdown", "message"), [
    ("![](images/gpu.jpg)", f"{P}:10: image 'images/gpu.jpg' has no alt text: write what it shows for readers who "
                            "cannot see it, as in '![a photo of a GPU board](images/gpu.jpg)'"),
    ("![图](../secret.png)", f"{P}:10: image '../secret.png' must be a file in this page's folder or below, e.g. "
                            "'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](https://example.org/a.png)", f"{P}:10: image 'https://example.org/a.png' must be a file in this page's "
                                        "folder or below, e.g. 'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](/etc/a.png)", f"{P}:10: image '/etc/a.png' must be a file in this page's folder or below, e.g. "
                         "'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](notes.txt)", f"{P}:10: image 'notes.txt' is not a picture file: use .png, .jpg, .jpeg, .gif, .webp"),
    ("![图](images/none.png)", f"{P}:10: image 'images/none.png' not found: put the file at "
                              "content/pages/images/none.png"),
    ("文字 ![图](images/gpu.jpg) 文字", f"{P}:10: an image must stand alone in its paragraph: put "
                                     "'![alt text](images/file.png \"caption\")' on a line of its own, with blank "
                                     "lines around it"),
])
def test_image_mistakes(tmp_path, markdown, message):
    root = site_with(tmp_path, markdown, {"images/gpu.jpg": jpeg(20, 10)})
    assert problems(root, tmp_path) == [message]


def test_oversized_and_unreadable_pictures_are_clear_errors(tmp_path, monkeypatch):
    root = site_with(tmp_path, "![大图](big.png)\n\n![坏图](bad.png)\n\n![很多像素](wide.jpg)",
                     {"big.png": b"\0" * (8 * 2**20 + 1), "bad.png": b"not a picture", "wide.jpg": jpeg(200, 100)})
    monkeypatch.setattr(images_module, "MAX_PIXELS", 10_000)
    found = problems(root, tmp_path)
    assert found[0] == (f"{P}:10: image 'big.png' is 8.0 MiB, over the limit of 8 MiB: save it smaller "
                        "(at most 1280 pixels wide is enough), e.g. as a JPEG")
    assert found[1] == (f"{P}:12: image 'bad.png' is named .png but its bytes are not a PNG, JPEG, WebP or GIF "
                        "picture: save it again as PNG or JPEG, named by what it is")
    assert found[2] == (f"{P}:14: image 'wide.jpg' has 200×100 pixels, over the limit of 10,000 pixels or 12,000 on "
                        "a side: resize it (at most 1280 pixels wide is enough)")


def test_the_published_markdown_and_the_lesson_zip_link_a_picture_that_exists(tmp_path):
    import zipfile

    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000)})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    linked = re.findall(r'!\[一块 GPU 板卡的照片\]\(([^ )]+) "实验室里的 GPU 板卡"\)', files["x.md"].decode())
    assert len(linked) == 1 and re.fullmatch(r"images/gpu-[0-9a-f]{12}\.jpg", linked[0])
    with Image.open(io.BytesIO(files[linked[0]])) as out:  # the site holds it (the widest re-encoding)
        assert out.size == (1280, 640)
    with zipfile.ZipFile(io.BytesIO(files["downloads/x.zip"])) as bundle:
        markdown = bundle.read("x.md").decode()
        assert markdown == files["x.md"].decode()
        assert bundle.read(linked[0]) == files[linked[0]]  # the zip ships it where its Markdown looks
    assert "images/gpu.jpg" not in files["x.md"].decode()


def test_the_lesson_notebook_shows_the_published_picture_by_its_address(tmp_path):
    """A notebook is read away from the site: its prose links the picture's published file under base_url."""
    import dataclasses
    import json

    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000)})
    evidence = dataclasses.replace(fake_evidence(tmp_path / "fig"),
                                   notebook_setup="def measure(name):\n    return {}\n")
    prepared = prepare_site(root, evidence)
    files = render_site(prepared, teacher=False)
    prose = "".join("".join(cell["source"]) for cell in json.loads(files["downloads/x.ipynb"])["cells"]
                    if cell["cell_type"] == "markdown")
    linked = re.findall(r"!\[一块 GPU 板卡的照片\]\(([^ )]+)", prose)
    base = prepared.content.config.base_url
    assert len(linked) == 1 and linked[0].startswith(base) and linked[0].removeprefix(base) in files, linked
