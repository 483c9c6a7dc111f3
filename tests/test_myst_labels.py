"""MyST labels as Jupyter Book writes them: a label with colons (``(content:figures)=``) linked as
``[](content:figures)``, a label named like the heading it stands before, and a link into another
Sphinx project's inventory (``inv:``). Pages written for the test."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.markdown.myst import page_link
from site_builder.vocabulary.problems import ContentError

A = "# 图与表\n\n(content:figures)=\n## 图片怎样放\n\n正文。\n"
B = "# 另一页\n\n见[](content:figures)和[第二节](content:figures)。\n"


def _files(tmp_path, pages):
    prepared = prepare_site(write_site(tmp_path, pages), fake_evidence(tmp_path / "fig"))
    return prepared, render_site(prepared, teacher=False)


def test_a_label_with_colons_is_linked_by_its_name_with_its_title(tmp_path):
    _prepared, files = _files(tmp_path, {"a": A, "b": B})
    html = files["b.html"].decode()
    assert ('<a href="a.html#content:figures">图与表 · 图片怎样放</a>和'
            '<a href="a.html#content:figures">第二节</a>') in html


@pytest.mark.parametrize(("href", "target"), [
    ("content:figures", "content:figures"), ("content:myst/directives", "content:myst/directives"),
    ("markdown-fig", "markdown-fig"), ("content/cards", "content/cards"), ("files/a.pdf", None),
    ("a.md#x", "a#x"), ("#x", "x"), ("numbers.html", None),
    ("https://example.org/a", None), ("mailto:a@b.org", None), ("inv:sd#sd-tabs", None),
    ("file:///etc/passwd", None), ("data:text/html,x", None), ("tel:123", None)])
def test_which_addresses_are_labels(href, target):
    assert page_link(href) == target


def test_a_link_into_another_projects_inventory_says_what_to_write(tmp_path):
    with pytest.raises(ContentError) as caught:
        _files(tmp_path, {"a": "# 一页\n\n见[标签页](inv:sd#sd-tabs)。\n"})
    assert [p.localized("zh-CN") for p in caught.value.problems] == [
        "content/pages/a.md:3: 链接 'inv:sd#sd-tabs' 指向另一个 Sphinx 项目的清单（intersphinx），本站无法查到："
        "请写出它所指页面的完整 https:// 地址"]


def test_a_label_named_like_its_heading_is_one_anchor(tmp_path):
    page = "# 组件\n\n(custom-blocks)=\n## Custom blocks\n\n见{ref}`custom-blocks`。\n"
    prepared, files = _files(tmp_path, {"a": page})
    html = files["a.html"].decode()
    assert html.count('id="custom-blocks"') == 1 and '<h2 id="custom-blocks">' in html
    assert [a for a in prepared.pages["a"].anchors if a[0] == "custom-blocks"][0][2] == "Custom blocks"
