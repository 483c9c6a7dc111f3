"""The interface's words come from the catalogs with their spacing and word order (placeholders, not
concatenation), the index's title names the course once, and the source link names the page's file."""

import re

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site

STATES = "".join(f":::{{state}} b{i}\n:title: S{i}\n:figure: sketch\n:provenance: teaching\n\nText {i}.\n:::\n\n"
                 for i in range(3))
INDEX = "---\ntitle: {title}\nkind: index\n---\n\nWelcome.\n"


@pytest.fixture
def built(tmp_path):
    def site(language: str) -> dict[str, str]:
        title = "The Course"
        root = write_site(tmp_path / language, {"index": INDEX.format(title=title),
                                                "x": lesson(STATES + "Measured: {num}`exp.diff`.\n",
                                                            front="title: A lesson\nlabel: L1\n")},
                          site_yml=SITE_YML.format(pages="index, x").replace("zh-CN", language)
                          .replace("测试课程", title))
        files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
        return {name: data.decode() for name, data in files.items() if name.endswith(".html")}
    return site


def _text(html: str, pattern: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(pattern, html, re.S).group(1))


def test_english_phrases_are_spaced_and_ordered_by_the_catalog(built):
    pages = built("en")
    assert "<p>Figures: teaching sketch, not measured (1).</p>" in pages["x.html"]
    assert _text(pages["x.html"], r'<h2 class="stepper-title"[^>]*>(.*?)</h2>') == "Step by step (3 steps)"


def test_chinese_phrases_read_as_before(built):
    pages = built("zh-CN")
    assert "<p>图：教学示意 1 幅。</p>" in pages["x.html"]
    assert _text(pages["x.html"], r'<h2 class="stepper-title"[^>]*>(.*?)</h2>') == "分步讲解（共 3 步）"


@pytest.mark.parametrize("language, full_text", [("en", "x.md · full text"), ("zh-CN", "x.md · 可读全文")])
def test_the_index_title_names_the_course_once_and_the_source_link_names_the_file(built, language, full_text):
    pages = built(language)
    assert re.search(r"<title>(.*?)</title>", pages["index.html"]).group(1) == "The Course"
    assert re.search(r"<title>(.*?)</title>", pages["x.html"]).group(1) == "A lesson · The Course"
    assert f'<a href="x.source.html">{full_text}</a>' in pages["x.html"]
    assert f"<h1>{full_text}</h1>" in pages["x.source.html"]
