"""Links a page's Markdown writes to other files of the site (``numbers.html#x``, ``files/a.pdf``): checked by
every build against the files both sites have, each dead one reported once at its line in the Markdown (not
per site, not at a line of the written HTML), before anything is written."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.builder import Engine, Output
from site_builder.parse.myst import file_links
from site_builder.vocabulary.problems import ContentError

P = "content/pages/x.md"
BODY = (":::{state} b0\n:title: 一\n:provenance: teaching\n\n"
        "见[数字页](numbers.html)、[出处](sources.html#M34)和[第一步](x.html#x-b0)。\n\n"  # line 8: all land
        "[数据](files/missing.csv)\n\n"  # line 10
        "[没有的数](numbers.html#exp.nothing)\n\n"  # line 12
        ":::{teacher}\n[讲稿](slides/a.pdf)\n:::\n"  # line 15
        ":::\n")


def _engine(root, tmp_path):
    return Engine(root, (Output(False, tmp_path / "_site"), Output(True, tmp_path / "_site-teacher")))


def _said(engine, tmp_path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        engine.build(fake_evidence(tmp_path / "fig"))
    return [p.localized("zh-CN") for p in caught.value.problems]


def test_a_dead_link_is_one_error_at_its_markdown_line_in_both_sites_builds(tmp_path):
    root = write_site(tmp_path, {"x": lesson(BODY)})
    assert _said(_engine(root, tmp_path), tmp_path) == [f"{P}:10: 链接指向不存在的文件 'files/missing.csv'",
                                     f"{P}:12: 链接指向不存在的锚点 'numbers.html#exp.nothing'",
                                     f"{P}:15: 链接指向不存在的文件 'slides/a.pdf'"]
    assert not (tmp_path / "_site").exists() and not (tmp_path / "_site-teacher").exists()


def test_a_kept_page_is_checked_against_the_files_of_its_build(tmp_path):
    """The second build (as the dev server makes one after a save) renders only the new page; the kept page's
    anchors are looked for in the files the store holds."""
    root = write_site(tmp_path, {"x": lesson(BODY.split("[数据]")[0] + ":::\n")})
    engine = _engine(root, tmp_path)
    engine.build(fake_evidence(tmp_path / "fig"))
    (root / "content" / "pages" / "y.md").write_text(lesson("[旧页](x.html#b9)\n", front="title: 二\n"),
                                                     encoding="utf-8")
    (root / "content" / "site.yml").write_text((root / "content" / "site.yml").read_text(encoding="utf-8")
                                               .replace("[x]", "[x, y]"), encoding="utf-8")
    assert _said(engine, tmp_path) == ["content/pages/y.md:4: 链接指向不存在的锚点 'x.html#b9'"]


def test_only_links_to_other_files_of_the_site_are_collected():
    from site_builder.markdown import make_markdown

    tokens = make_markdown().parse("[a](files/a.pdf) [b](https://example.org/x) [c](other.md) [d](#label) "
                                   "[e](mailto:a@b.org) [f](numbers.html#x)\n\n[g](../outside.html)\n")
    assert file_links(tokens) == (("files/a.pdf", 1), ("numbers.html#x", 1))
