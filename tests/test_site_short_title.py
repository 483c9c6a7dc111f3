"""site.yml ``short_title``: the title a phone's header shows when the whole one would wrap to many lines.

The header carries both titles (site.css shows one by the screen's width); every other place (the page's
``<title>``, ``llms.txt``) keeps ``title``. A translation's site.yml gives its own; a translated title
without a short one is shown whole, since the source's short title is in another language.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from editionkit import SITE_YML, course_evidence, line_of, write_course
from sitekit import write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

_TITLE = re.compile(r'<a class="site-title"[^>]*>(.*?)</a>', re.S)


def _header_title(files: dict, name: str) -> str:
    payload = files[name]
    html = (payload if isinstance(payload, bytes) else Path(payload).read_bytes()).decode()
    return _TITLE.search(html).group(1)


def _sites(root: Path) -> dict[str, dict]:
    prepared = prepare_site(root, course_evidence(root / "fig"))
    (edition,) = prepared.editions
    files = render_site(prepared, teacher=False)
    return {"": files, "title": prepared.content.config.title, "short": prepared.content.config.short_title,
            "en": edition.content.config}


def test_the_header_carries_both_titles_and_the_page_title_the_whole_one(tmp_path):
    site_yml = SITE_YML.replace("title: 测试课程\n", "title: 测试课程：很长的一个标题\nshort_title: 测试课程\n")
    assert site_yml != SITE_YML
    built = _sites(write_course(tmp_path, site_yml=site_yml,
                                en_files={"site.yml": "title: A long test course\nshort_title: Test course\n"}))
    assert (built["title"], built["short"]) == ("测试课程：很长的一个标题", "测试课程")
    files = built[""]
    assert _header_title(files, "r1.html") == ('<span class="title-long">测试课程：很长的一个标题</span>'
                                               '<span class="title-short">测试课程</span>')
    assert _header_title(files, "en/r1.html") == ('<span class="title-long">A long test course</span>'
                                                  '<span class="title-short">Test course</span>')
    assert "<title>第一课：缓存 · 测试课程：很长的一个标题</title>" in files["r1.html"].decode()


@pytest.mark.parametrize(("en_site", "expected"), [
    ("title: A long test course\n", ""),  # the source's short title is Chinese: the English one shown whole
    ("", "测试课程"),  # no English title at all: the source's titles, both
])
def test_a_translation_s_short_title(tmp_path, en_site, expected):
    site_yml = SITE_YML.replace("title: 测试课程\n", "title: 测试课程：很长的一个标题\nshort_title: 测试课程\n")
    built = _sites(write_course(tmp_path, site_yml=site_yml, en_files={"site.yml": en_site}))
    assert built["en"].short_title == expected
    assert ('<span class="title-short">' in _header_title(built[""], "en/r1.html")) == bool(expected)


def test_a_course_without_a_short_title_shows_its_title_alone(tmp_path):
    root = write_site(tmp_path, {"index": "---\ntitle: 首页\nkind: index\n---\n\n正文。\n"},
                      site_yml="title: 测试课程\nlanguage: zh-CN\nbase_url: https://example.org/c/\npages: [index]\n")
    files = render_site(prepare_site(root, course_evidence(root / "fig")), teacher=False)
    assert _header_title(files, "index.html") == "测试课程"


@pytest.mark.parametrize("value", ["[a, b]", "~", "true", '"课\u202e程"'])
def test_a_short_title_that_is_no_plain_text_is_an_error_at_its_line(tmp_path, value):
    site_yml = SITE_YML + f"short_title: {value}\n"
    with pytest.raises(ContentError) as caught:
        prepare_site(write_course(tmp_path, site_yml=site_yml), course_evidence(tmp_path / "fig"))
    line = line_of(site_yml, "short_title")
    assert any(str(p).startswith(f"content/site.yml:{line}: ") and "short_title" in str(p)
               for p in caught.value.problems), caught.value.problems
