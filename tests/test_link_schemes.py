"""Links and pictures with schemes the site does not allow (javascript:, data:, file:) are the documented
``path:line`` error in prose and in glossary definitions, never silent text."""

from __future__ import annotations

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

BODY = (":::{state} b0\n:title: 一\n:provenance: teaching\n\n"
        "[甲](javascript:alert(1)) [乙](data:text/html,x) [丙](file:///etc/passwd)\n\n"
        "![图](data:image/png;base64,AAAA)\n:::\n")
GLOSSARY = "- id: a\n  term: 甲\n  definition: 见 [这里](javascript:alert(1)) 和 [那里](file:///etc/passwd)。\n"
SCHEME = "链接 '{}' 用了站点不允许的协议：请写完整的 https:// 地址，或用 {{ref}}`id` 链接到页面"


def test_other_schemes_are_errors_in_prose_and_definitions(tmp_path):
    write_site(tmp_path, {"x": lesson(BODY)}, glossary=GLOSSARY)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, fake_evidence(tmp_path / "figs"))
    assert [p.localized("zh-CN") for p in caught.value.problems] == [
        "content/glossary.yml:3: " + SCHEME.format("file:///etc/passwd"),
        "content/glossary.yml:3: " + SCHEME.format("javascript:alert(1)"),
        "content/pages/x.md:8: " + SCHEME.format("data:text/html,x"),
        "content/pages/x.md:8: " + SCHEME.format("file:///etc/passwd"),
        "content/pages/x.md:8: " + SCHEME.format("javascript:alert(1)"),
        "content/pages/x.md:10: 图片 'data:image/png;base64,AAAA' 必须是本页所在文件夹或其子文件夹里的文件，"
        "例如 'images/gpu.jpg'（不能是网址、绝对路径，也不能含 '..'）"]
