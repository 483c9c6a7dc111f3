"""The pages' folder as the loader lists and reads it: opened once when it is a plain folder, read page by
page through its path when it is a link, with the same pages, texts and refusals either way."""

from __future__ import annotations

import shutil
from pathlib import Path

from sitekit import lesson, secret_outside, state, write_site

from site_builder.load.loader import load_content


def _site(root: Path) -> Path:
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [a, b]\n"
    write_site(root, {"a": lesson(state()), "b": lesson(state(), front="title: 第二课\n")}, site_yml=site)
    return root / "content" / "pages"


def _texts(root: Path) -> tuple[dict[str, str], list[str]]:
    content, problems = load_content(root)
    return ({page.path: page.text for page in content.pages} if content else {}), [str(p) for p in problems]


def test_a_pages_folder_linked_inside_content_reads_the_same_pages(tmp_path):
    plain = _site(tmp_path / "plain")
    linked = _site(tmp_path / "linked")
    shutil.move(linked, linked.parent / "real-pages")
    linked.symlink_to("real-pages")
    assert _texts(tmp_path / "linked") == _texts(tmp_path / "plain")
    assert _texts(tmp_path / "plain")[0].keys() == {str(plain.relative_to(tmp_path / "plain") / n) for n in
                                                    ("a.md", "b.md")}


def test_a_pages_folder_linked_out_of_content_is_refused_page_by_page(tmp_path):
    pages = _site(tmp_path)
    outside = tmp_path / "outside-pages"
    shutil.move(pages, outside)
    pages.symlink_to(outside)
    texts, problems = _texts(tmp_path)
    assert texts == {}
    assert [p for p in problems if p.startswith("content/pages/")] == [
        "content/pages/a.md: is a link to a file outside content/: copy the file here instead",
        "content/pages/b.md: is a link to a file outside content/: copy the file here instead"]


def test_a_page_linked_beside_plain_pages_is_read_through_its_link(tmp_path):
    pages = _site(tmp_path)
    (pages / "b.md").rename(tmp_path / "content" / "b-source.md")
    (pages / "b.md").symlink_to("../b-source.md")
    texts, problems = _texts(tmp_path)
    assert problems == []
    assert "第二课" in texts["content/pages/b.md"]


def test_a_page_linked_out_of_content_beside_plain_pages_is_refused(tmp_path):
    pages = _site(tmp_path)
    (pages / "b.md").unlink()
    (pages / "b.md").symlink_to(secret_outside(tmp_path))
    texts, problems = _texts(tmp_path)
    assert list(texts) == ["content/pages/a.md"]
    assert problems == ["content/pages/b.md: is a link to a file outside content/: copy the file here instead"]
