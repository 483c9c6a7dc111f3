"""Published Markdown, llms.txt and the lesson zip (site_builder/render/markdown_out): safe text only."""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from PIL import Image
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import FigureMark
from site_builder.resolve.markdown_text import markdown_text, markdown_url
from site_builder.vocabulary.urls import UnsafeOutputError, allowed_url

TAG = "<img src=x onerror=alert(document.domain)>"


LINK = "[j](javascript:alert(document.domain))"


BAD = TAG + LINK


BASE_URL = "https://example.org/c/)[x](javascript:alert(document.domain))<b>/"


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (0, 0, 200)).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Both sites of a lesson with the payload in every field the published Markdown writes."""
    root = tmp_path_factory.mktemp("hostile")
    front = f"title: 标题{BAD}\nsummary: 摘要{BAD}\nlabel: L{TAG}\n"
    body = (f"开场 {{example}}`{BAD}`，来源 {{src}}`M34`(javascript:alert(document.domain))。\n\n"
            f":::{{state}} b0\n:title: 第一步{BAD}\n:figure: plot\n:caption: 图注 {{mark}}`m`\n"
            ":provenance: measured\n\n"
            f"正文 {{num}}`exp.bytes`，见 {{mark}}`m` 与 {{fig}}`plot`。\n\n![公开的图](images/p.jpg)\n:::\n")
    site_yml = f"title: 站{TAG}\nlanguage: zh-CN\nbase_url: {json.dumps(BASE_URL)}\npages: [x]\n"
    write_site(root, {"x": lesson(body, front=front)}, site_yml=site_yml)
    (root / "content" / "pages" / "images").mkdir()
    (root / "content" / "pages" / "images" / "p.jpg").write_bytes(_jpeg())
    evidence = fake_evidence(root / "figures")
    plot = replace(evidence.figures["plot"], alt="曲线" + BAD,
                   marks=(FigureMark("m", "标" + BAD, (0.1, 0.1, 0.5, 0.5)),))
    evidence = replace(evidence, figures={**evidence.figures, "plot": plot}, notebook_setup="def measure(name): pass\n")
    prepared = prepare_site(root, evidence)
    return {teacher: render_site(prepared, teacher=teacher) for teacher in (False, True)}


def published_markdown(files: dict) -> dict[str, str]:
    """Every Markdown text the site publishes: the page, its zip member, its source view, llms.txt, notebook cells."""
    source_view = re.search(r'<pre class="source-text"[^>]*><code>(.*?)</code></pre>',
                            files["x.source.html"].decode(), re.DOTALL)
    notebook = json.loads(files["downloads/x.ipynb"])
    return {"x.md": files["x.md"].decode(),
            "zip x.md": zipfile.ZipFile(io.BytesIO(files["downloads/x.zip"])).read("x.md").decode(),
            "source view": html.unescape(source_view.group(1)), "llms.txt": files["llms.txt"].decode(),
            **{f"notebook cell {n}": "".join(cell["source"]) for n, cell in enumerate(notebook["cells"])
               if cell["cell_type"] == "markdown"}}


_READER = MarkdownIt("commonmark", {"html": True})
_READER.validateLink = lambda url: True  # see every link, whatever a reader would make of it


def markup(text: str) -> list[str]:
    """What a Markdown reader finds in ``text`` that could run: raw HTML, links and pictures outside the allowlist."""
    found = []
    for token in _READER.parse(text):
        found += [token.content] if token.type == "html_block" else []
        for child in token.children or ():
            url = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if child.type == "html_inline" or (child.type in ("link_open", "image") and not allowed_url(url)):
                found.append(f"{child.type} {child.content or url}")
    return found


@pytest.mark.parametrize("teacher", [False, True])
def test_published_markdown_holds_no_raw_html_and_no_script_link(hostile, teacher):
    texts = published_markdown(hostile[teacher])
    found = {name: markup(text) for name, text in texts.items()}
    assert not any(found.values()), found
    assert not re.search(r"(?<!\\)(?:<img|\]\(javascript:)", "".join(texts.values()))  # none unescaped


def test_each_field_is_escaped_not_dropped(hostile):
    texts = published_markdown(hostile[False])
    escaped = markdown_text(BAD)
    assert texts["x.md"].startswith(f"# 标题{escaped}\n")
    assert f"开场 {escaped}，来源 \\[M34\\](javascript:alert(document.domain))。" in texts["x.md"]  # {example}, {src}
    assert f":title: 第一步{escaped}\n" in texts["x.md"]
    assert f":caption: 图注 标{escaped}\n" in texts["x.md"]  # a mark's label in Markdown the teacher wrote
    assert f"见 标{escaped} 与 （图 plot：曲线{escaped}）" in texts["x.md"]  # mark label, figure alt text
    assert texts["source view"] == texts["x.md"] == texts["zip x.md"]
    assert texts["llms.txt"].startswith(f"# 站{markdown_text(TAG)}\n")
    assert (f"- [标题{escaped}](https://example.org/c/%29[x]%28javascript:alert%28document.domain%29%29%3Cb%3E/x.md)"
            f": 摘要{escaped}\n") in texts["llms.txt"]
    cells = "\n".join(text for name, text in texts.items() if name.startswith("notebook"))
    assert f"# 标题{escaped}\n" in cells and f"## 第一步{escaped}\n" in cells
    assert "(https://example.org/c/%29[x]%28javascript:alert%28document.domain%29%29%3Cb%3E/images/" in cells


def test_the_label_reaches_no_published_markdown_and_the_source_view_names_the_file(hostile):
    files = hostile[False]
    assert all("L<img" not in text and "L\\<img" not in text for text in published_markdown(files).values())
    source_view = files["x.source.html"].decode()
    assert "<h1>x.md · " in source_view and "L<img" not in source_view  # the file's name, not the label


_CODE_OR_LINK = re.compile(r"<(?!/?(?:p|em|strong)>)")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from("<>[]()&`\\!*_:/#;ajvscript= \u00a0x"), max_size=40))
def test_escaped_text_opens_no_tag_link_entity_or_code(text):
    assert not markup(markdown_text(text))
    rendered = _READER.renderInline(markdown_text(text))
    assert not _CODE_OR_LINK.search(rendered), rendered  # no element but emphasis: no <a>, <img>, <code>


def test_markdown_url_keeps_one_destination_and_the_allowlist():
    url = markdown_url("https://example.org/a b/(x)<y>\\`z`.md")
    assert url == "https://example.org/a%20b/%28x%29%3Cy%3E%5C%60z%60.md"
    assert markup(f"[t]({url})") == []
    with pytest.raises(UnsafeOutputError):
        markdown_url("javascript:alert(document.domain)")


def test_a_reference_reads_in_the_markdown_as_its_link_reads_on_the_page_and_in_the_search_as_its_page(tmp_path):
    from site_builder.render.search import search_terms, site_documents

    state = ":::{{state}} {id}\n:title: {title}\n:figure: sketch\n:provenance: teaching\n\n{body}\n:::\n"
    x = (state.format(id="b0", title="甲步", body="见 {ref}`x#b1`、{ref}`y#b0`、{ref}`y` 与 {ref}`原话 <y#b0>`。")
         + state.format(id="b1", title="乙步", body="正文。"))
    write_site(tmp_path, {"x": lesson(x), "y": lesson(state.format(id="b0", title="丙步", body="正文。"),
                                                       front="title: 另一课\n")})
    prepared = prepare_site(tmp_path, fake_evidence(tmp_path / "figures"))
    site = render_site(prepared, teacher=False)
    links = re.findall(r'<a class="ref" href="([^"]*)">([^<]*)</a>', site["x.html"].decode())
    assert links == [("#x-b1", "乙步"), ("y.html#y-b0", "另一课 · 丙步"), ("y.html", "《另一课》"),
                     ("y.html#y-b0", "原话")]
    said = "见 《乙步》、《另一课 · 丙步》、《另一课》 与 原话。"  # a state's title in quotes, as a page's is
    assert said in site["x.md"].decode()
    # The search reads each as its page's title: a section's title is that section's text, not the citing page's.
    assert search_terms("见 《一课》、《另一课》、《另一课》 与 原话。") in site_documents(prepared)["x.html"]


def test_an_equation_reference_reads_as_its_number_without_quotes(tmp_path):
    body = (":::{state} b0\n:title: 甲步\n:figure: sketch\n:provenance: teaching\n\n$$\nx = 1\n$$ (eq-one)\n\n"
            "见 {eq}`eq-one` 与 {numref}`图 %s <eq-one>`。\n:::\n")
    write_site(tmp_path, {"x": lesson(body)})
    site = render_site(prepare_site(tmp_path, fake_evidence(tmp_path / "figures")), teacher=False)
    assert "见 (1) 与 图 1。" in site["x.md"].decode()  # as the page shows them, not 《(1)》
