"""The lessons' own language apart from the interface's: ``content_language`` in site.yml puts ``lang`` on each
page's text while ``<html lang>`` stays the interface's."""

import re

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n中文正文。\n:::\n"


def _html(tmp_path, site_yml: str) -> str:
    root = write_site(tmp_path, {"x": lesson(STATE)}, site_yml=site_yml)
    return render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)["x.html"].decode()


def test_chinese_lessons_under_an_english_interface_say_so_on_their_text(tmp_path):
    page = _html(tmp_path, SITE_YML.format(pages="x").replace("zh-CN", "en") + "content_language: zh-CN\n")
    assert re.search(r'<html lang="en"', page)
    assert re.search(r'<article class="lesson" id="x" data-page="x" lang="zh-CN">', page)
    assert "Step by step" in page  # the interface stays English


def test_without_it_the_text_is_in_the_interface_s_language(tmp_path):
    page = _html(tmp_path, SITE_YML.format(pages="x"))
    assert '<html lang="zh-CN"' in page and '<article class="lesson" id="x" data-page="x">' in page


def test_a_content_language_that_is_no_language_tag_is_a_problem(tmp_path):
    root = write_site(tmp_path, {"x": lesson(STATE)}, site_yml=SITE_YML.format(pages="x") + "content_language: 中文\n")
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    assert [p.localized("zh-CN") for p in caught.value.problems] == [
        "content/site.yml:5: site.yml 的 'content_language' 必须是语言标记，例如 zh-CN 或 en"]
