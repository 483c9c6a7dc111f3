"""Read only what is needed, only what is ours: the content digest walks content/ as the loader does
(no link followed, nothing over the size limit read, memory bounded), and a file that cannot be read
is one ``path: message``."""

from __future__ import annotations

import errno
import os
import time
import tracemalloc

import pytest
from sitekit import lesson, write_site

from site_builder.load.digest import content_digest
from site_builder.load.loader import MAX_FILE_BYTES, load_content

PAGE = lesson(":::{state} b0\n:title: 开始\n:provenance: teaching\n\n正文。\n:::\n")


def test_a_huge_unreferenced_file_is_not_read(tmp_path, monkeypatch):
    write_site(tmp_path, {"a": PAGE})
    with open(tmp_path / "content" / "pages" / "huge.bin", "wb") as huge:
        huge.truncate(3 * 2**30)  # 3 GiB, sparse: no disk used
    opened, real_open = [], os.open

    def recording(path, *args, **kwargs):
        opened.append(str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(os, "open", recording)
    tracemalloc.start()
    first = content_digest(tmp_path)
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert opened and not any(path.endswith("huge.bin") for path in opened) and peak < 4 * 2**20
    os.utime(tmp_path / "content" / "pages" / "huge.bin", ns=(1, 1))  # changed as the loader would see it
    assert content_digest(tmp_path) != first


def test_a_link_out_of_content_is_never_opened(tmp_path, monkeypatch):
    write_site(tmp_path, {"a": PAGE})
    secret = tmp_path / "secret.txt"
    secret.write_text("机密", encoding="utf-8")
    (tmp_path / "content" / "pages" / "notes.txt").symlink_to(secret)
    opened = []
    real_open = os.open

    def recording(path, *args, **kwargs):
        opened.append(str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(os, "open", recording)
    before = content_digest(tmp_path)
    assert opened and not any("secret" in path or path.endswith("notes.txt") for path in opened)
    secret.write_text("改过", encoding="utf-8")
    assert content_digest(tmp_path) == before  # what is outside is not ours
    (tmp_path / "content" / "pages" / "a.md").write_text(PAGE + "\n", encoding="utf-8")
    assert content_digest(tmp_path) != before


def test_an_unreadable_page_is_one_line_and_the_digest_does_not_fail(tmp_path, monkeypatch):
    write_site(tmp_path, {"a": PAGE, "b": PAGE})
    real_open = os.open

    def refusing(path, *args, **kwargs):
        if str(path).endswith("b.md"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(os, "open", refusing)
    assert content_digest(tmp_path)
    _content, problems = load_content(tmp_path)
    assert [p.localized("zh-CN") for p in problems] == ["content/pages/b.md: 无法读取（没有权限）"]


def test_a_page_over_the_size_limit_is_one_line(tmp_path):
    write_site(tmp_path, {"a": PAGE + "x" * MAX_FILE_BYTES})
    _content, problems = load_content(tmp_path)
    assert [p.localized("zh-CN") for p in problems] == \
        ["content/pages/a.md: 有 8.0 MiB，超过了 content/ 下单个文件 8 MiB 的上限：请拆分或移出"]



def _save_in_place(root):
    (root / "content" / "pages" / "a.md").write_text(PAGE.replace("正文。", "改过的正文。"), encoding="utf-8")


def _save_through_a_link(root):
    shared = root / "content" / "shared.md"
    shared.write_text(PAGE.replace("正文。", "改过的正文。"), encoding="utf-8")


def _add_a_page(root):
    (root / "content" / "pages" / "zz.md").write_text(PAGE, encoding="utf-8")


@pytest.mark.parametrize("change", [_save_in_place, _save_through_a_link, _add_a_page])
def test_a_change_made_during_a_build_is_built_by_the_next_one(tmp_path, change):
    """The build's "nothing changed" key is made of what it read: a save, a save of a page read through a
    link, or a new page, made after the loader read the folder (while the build runs), leaves the key of
    what was built, so the next build takes the change (renders it, or says what is wrong with it)."""
    from sitekit import fake_evidence

    from site_builder.engine.builder import Engine, Output
    from site_builder.vocabulary.problems import ContentError

    write_site(tmp_path, {"a": PAGE})
    if change is _save_through_a_link:
        (tmp_path / "content" / "shared.md").write_text(PAGE, encoding="utf-8")
        (tmp_path / "content" / "pages" / "a.md").unlink()
        (tmp_path / "content" / "pages" / "a.md").symlink_to(os.path.join("..", "shared.md"))
    evidence = fake_evidence(tmp_path / "figs")

    def engine() -> Engine:
        return Engine(tmp_path, (Output(False, tmp_path / "out"),), store=tmp_path / "store")

    loaded = load_content(tmp_path)
    change(tmp_path)
    assert engine().build(evidence, loaded).prepared is not None
    assert "改过的正文" not in (tmp_path / "out" / "a.html").read_text(encoding="utf-8")
    try:
        assert engine().build(evidence).prepared is not None, "the change was taken for what was built"
    except ContentError as refused:  # the new page is not in site.yml: said, as a build from scratch says it
        assert [str(p) for p in refused.problems] == ["content/pages/zz.md:1: page 'zz' is not listed in site.yml "
                                                      "'pages'"]
        return
    assert "改过的正文" in (tmp_path / "out" / "a.html").read_text(encoding="utf-8")
    assert engine().build(evidence).prepared is None  # and then nothing changed


def _later(monkeypatch):
    """Every page's last change settled (``SETTLED_NS``): the loader's clock ten seconds ahead."""
    import site_builder.load.loader as loader

    now = time.time_ns() + 10 * 10**9
    monkeypatch.setattr(loader.time, "time_ns", lambda: now)


def test_a_dev_servers_load_reads_only_the_pages_whose_stamp_changed(tmp_path, monkeypatch):
    """A page kept from the last load (``pages_read``) is the very page read then only while its stamp is the one
    recorded; a page saved in place, saved by renaming over it, removed, added, or turned into a link or FIFO is
    read (or refused) as a load from scratch does."""
    write_site(tmp_path, {"a": PAGE, "b": PAGE, "c": PAGE, "d": PAGE})
    pages = tmp_path / "content" / "pages"
    pages_read = {}
    first, _problems = load_content(tmp_path, "content", pages_read)
    assert pages_read == {}, "pages changed a moment ago are not kept: a write in the same clock step keeps the stamp"
    _later(monkeypatch)
    first, _problems = load_content(tmp_path, "content", pages_read)
    assert sorted(pages_read) == [str(pages / f"{p}.md") for p in "abcd"]
    again, problems = load_content(tmp_path, "content", pages_read)
    assert all(new is old for new, old in zip(again.pages, first.pages, strict=True)) and not problems
    assert again.read == first.read
    (pages / "a.md").write_text(PAGE + "改过的正文\n", encoding="utf-8")
    (pages / "b.md.new").write_text(PAGE.replace("正文", "新文"), encoding="utf-8")  # as long as b.md
    os.replace(pages / "b.md.new", pages / "b.md")
    (pages / "c.md").unlink()
    (pages / "c.md").symlink_to(tmp_path / "elsewhere.md")
    (tmp_path / "elsewhere.md").write_text(PAGE, encoding="utf-8")
    (pages / "d.md").unlink()
    os.mkfifo(pages / "d.md")
    (pages / "e.md").write_text(PAGE, encoding="utf-8")
    changed, problems = load_content(tmp_path, "content", pages_read)
    fresh, fresh_problems = load_content(tmp_path)
    assert changed == fresh and problems == fresh_problems and changed.read == fresh.read
    assert [str(p) for p in problems if p.path.endswith(("c.md", "d.md"))] == [
        "content/pages/c.md: is a link to a file outside content/: copy the file here instead",
        "content/pages/d.md: is not a regular file: save the text in an ordinary file"]
    assert "改过的正文" in changed.pages[0].text and "新文" in changed.pages[1].text
    assert sorted(pages_read) == [str(pages / f"{p}.md") for p in "abe"]
