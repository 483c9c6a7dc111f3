"""A page of the course may not take the name of a page the site makes (figures.html, numbers.html …): it would
be written over without a word. ``import`` names such a page ``<name>-page``. Pages written for the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.serve.importer import page_id_for
from site_builder.vocabulary.names import GENERATED_PAGES
from site_builder.vocabulary.problems import ContentError


def test_the_list_names_every_page_the_site_makes(tmp_path):
    files = render_site(prepare_site(write_site(tmp_path, {"a": "# 一页\n"}), fake_evidence(tmp_path / "fig")),
                        teacher=True)
    made = {name.removesuffix(".html") for name in files if name.endswith(".html") and "/" not in name}
    assert made - {"a", "a.source"} == GENERATED_PAGES


@pytest.mark.parametrize("name", sorted(GENERATED_PAGES - {"404"}))
def test_a_page_named_like_one_the_site_makes_is_an_error(tmp_path, name):
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, {name: "# 一页\n"}), fake_evidence(tmp_path / "fig"))
    assert [p.localized("zh-CN") for p in caught.value.problems] == [
        f"content/pages/{name}.md:1: 页面 id '{name}' 与网站自动生成的页面（{name}.html）同名：请给文件改名，"
        f"例如 '{name}-page.md'"]


def test_import_names_such_a_page_with_page_after_it():
    assert page_id_for(Path("docs/content/figures.md")) == "figures-page"
    assert page_id_for(Path("lectures/lln_clt.md")) == "lln-clt"
