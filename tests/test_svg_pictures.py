"""SVG pictures: written anew from an allowlist, so nothing in them can run or load anything; what cannot be
left out without changing the picture (a script, an event handler, HTML, a reference outside it) is one
``path:line`` error naming the line of the SVG and what to do. The hostile pictures are written for the test."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from sitekit import fake_evidence, lesson, time_limit, write_site

from site_builder.check.svg import ATTRIBUTES, ELEMENTS, SVG, XLINK, XML, safe_svg
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n\n%s\n:::\n"  # the picture is on line 10
OPEN = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 20">\n'
OUTSIDE = ("引用了图外的 '{target}'：这里的图只能引用自身的部分（'#id'），栅格图须内嵌"
           "（data:image/png;base64,…）；请把所需内容嵌入，或另存为 PNG")
RUNS = "里有 <script>，它会在读者的浏览器里运行：请删掉；这里的图只绘制，从不运行"


def _site(tmp_path, svg: bytes, markdown: str = "![一张图](images/a.svg)"):
    root = write_site(tmp_path, {"x": lesson(STATE % markdown)})
    (root / "content" / "pages" / "images").mkdir(parents=True, exist_ok=True)
    (root / "content" / "pages" / "images" / "a.svg").write_bytes(svg)
    return root


def _said(root, tmp_path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [p.localized("zh-CN") for p in caught.value.problems]


HOSTILE = [
    (OPEN + "<script>alert(1)</script></svg>", "第 2 行" + RUNS),
    (OPEN + '<rect width="4" height="4" onclick="alert(1)"/></svg>',
     "第 2 行：<rect onclick> 是事件处理器，会在读者的浏览器里运行代码：请删掉；这里的图只绘制，从不运行"),
    (OPEN.replace("viewBox", 'onload="alert(1)" viewBox'),
     "第 1 行：<svg onload> 是事件处理器，会在读者的浏览器里运行代码：请删掉；这里的图只绘制，从不运行"),
    (OPEN + '<foreignObject><p xmlns="http://www.w3.org/1999/xhtml">x</p></foreignObject></svg>',
     "第 2 行含有 HTML（<foreignObject>），可能运行代码：请把图重新导出，文字作为 SVG 文字，或导出为 PNG"),
    (OPEN + '<image xlink:href="https://example.org/track.png" width="4" height="4"/></svg>',
     "第 2 行：<image> " + OUTSIDE.format(target="https://example.org/track.png")),
    (OPEN + '<image href="photo.png" width="4" height="4"/></svg>',
     "第 2 行：<image> " + OUTSIDE.format(target="photo.png")),
    (OPEN + '<use href="other.svg#part"/></svg>', "第 2 行：<use> " + OUTSIDE.format(target="other.svg#part")),
    (OPEN + '<rect width="4" height="4" fill="url(https://example.org/p.svg#g)"/></svg>',
     "第 2 行：<rect> " + OUTSIDE.format(target="https://example.org/p.svg#g")),
    (OPEN + "<rect width=\"4\" height=\"4\" style=\"fill: url('javascript:alert(1)')\"/></svg>",
     "第 2 行：<rect> " + OUTSIDE.format(target="javascript:alert(1)")),
    (OPEN + "<style>@import url(https://example.org/a.css);</style></svg>",
     "第 2 行：<style> 里有 at 规则（'@import'、'@font-face' …），可能载入别的文件：只保留 "
     "'选择器 { 属性: 值 }' 形式的规则"),
    ('<?xml-stylesheet href="https://example.org/a.css"?>\n' + OPEN + "</svg>",
     "第 1 行：<?xml-stylesheet> " + OUTSIDE.format(target='href="https://example.org/a.css"')),
    (OPEN + '<a href="javascript:alert(1)"><rect width="4" height="4"/></a></svg>',
     "第 2 行：<a> 不是这里的图可以含有的元素（可以用形状、文字、渐变、图案、标记、裁剪、蒙版、滤镜、<use> 和 "
     "<image>）：请删掉，或把图另存为 PNG"),
    (OPEN + '<set attributeName="href" to="javascript:alert(1)"/></svg>',
     "第 2 行：<set> 不是这里的图可以含有的元素（可以用形状、文字、渐变、图案、标记、裁剪、蒙版、滤镜、<use> 和 "
     "<image>）：请删掉，或把图另存为 PNG"),
    ('<!DOCTYPE svg [\n<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
     + OPEN + "<text>&b;</text></svg>",
     "声明了实体（第 1 行），实体可以让小文件变得极大：请另存为普通 SVG，不带 DOCTYPE"),
    (OPEN + "<g>" * 101 + "</g>" * 101 + "</svg>", "第 2 行：元素嵌套超过 100 层：请简化这张图"),
    (OPEN + "<rect></svg>", "无法作为 SVG 读取：第 2 行不是格式正确的 XML；请用绘图程序重新保存"),
    ('<svg viewBox="0 0 4 4"/>', '不是 SVG 图：它的第一个元素必须是 <svg xmlns="http://www.w3.org/2000/svg">'),
    ('<svg xmlns="http://www.w3.org/2000/svg"/>', "第 1 行：<svg> 没有尺寸：请给它一个 viewBox（或宽和高）"),
]


@pytest.mark.parametrize(("svg", "said"), HOSTILE)
def test_an_svg_that_cannot_be_made_safe_is_one_line_naming_its_line(tmp_path, svg, said):
    root = _site(tmp_path, svg.encode())
    with time_limit(5):
        assert _said(root, tmp_path) == [f"{P}:10: 图片 'images/a.svg' {said}"]


SILENT = (OPEN + '<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>\n'
          '<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>\n'
          '<font><font-face font-family="x"/></font>\n'
          '<g xmlns:ink="http://www.inkscape.org/namespaces/inkscape" ink:label="layer" data-x="1" xml:base="http://e.org/"'
          ' style="fill:\\75 rl(https://example.org/x);stroke:expression(alert(1));behavior:url(#a);opacity:0.5">\n'
          '<rect width="4" height="4" fill="\\75rl(https://example.org/x)" stroke="#000" xlink:title="t"/>\n'
          '<text x="1" y="9" font-family="Noto Sans CJK SC">注意力 &lt;Q, K&gt;</text>\n'
          "</g></svg>\n")


def _names(svg: bytes) -> tuple[set[str], set[str]]:
    tree = ElementTree.fromstring(svg)
    return {e.tag for e in tree.iter()}, {a for e in tree.iter() for a in e.attrib}


def test_what_a_browser_would_not_draw_is_left_out_and_the_rest_is_on_the_allowlists():
    svg = safe_svg(SILENT.encode())
    elements, attributes = _names(svg.data)
    assert elements == {f"{{{SVG}}}{name}" for name in ("svg", "g", "rect", "text")}
    assert attributes <= ATTRIBUTES | {f"{{{XLINK}}}href", f"{{{XML}}}space", "href"}
    text = svg.data.decode()
    assert "script" not in text and "alert" not in text and "example.org" not in text and "ink:" not in text
    assert 'style="opacity:0.5"' in text and "注意力 &lt;Q, K&gt;" in text
    assert (svg.width, svg.height) == (40, 20)


def test_the_allowlists_name_no_element_or_attribute_that_runs_or_loads():
    assert not {"script", "foreignObject", "a", "set", "animate", "feImage", "iframe", "handler"} & ELEMENTS
    assert not {a for a in ATTRIBUTES if a.lower().startswith("on") or a in ("href", "src", "style-src")}


@pytest.mark.parametrize(("root", "size"), [
    ('width="120pt" height="60pt"', (160, 80)),
    ('width="300" viewBox="0 0 600 200"', (300, 100)),
    ('viewBox="0 0 64.4 20.2"', (64, 20)),
    ('width="100%" height="100%" viewBox="0 0 30 40"', (30, 40)),
])
def test_the_size_comes_from_width_and_height_or_the_viewbox(root, size):
    svg = safe_svg(f'<svg xmlns="http://www.w3.org/2000/svg" {root}/>'.encode())
    assert (svg.width, svg.height) == size


def test_a_safe_svg_is_published_rebuilt_and_shown_with_its_size(tmp_path):
    drawing = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
               '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' + OPEN
               + '<style type="text/css"><![CDATA[\n*{stroke-linejoin: round}\n]]></style>\n'
               '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>\n'
               '<rect width="40" height="20" fill="url(#g)"/><use xlink:href="#g"/>\n'
               '<image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/></svg>\n')
    root = _site(tmp_path, drawing.encode(), "```{figure} images/a.svg\n:name: fig-a\n\n一张渐变图\n```")
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    published = [name for name in files if name.startswith("images/a-")]
    assert len(published) == 1 and published[0].endswith(".svg")
    data = files[published[0]]
    assert data == safe_svg(drawing.encode()).data
    assert b"<!DOCTYPE" not in data and b'fill="url(#g)"' in data and b'<use href="#g"/>' in data
    page = files["x.html"].decode()
    assert f'<img src="{published[0]}" srcset="{published[0]} 40w"' in page
    assert 'width="40" height="20"' in page and 'id="fig-a"' in page
