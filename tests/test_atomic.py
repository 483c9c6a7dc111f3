"""The one atomic write (site_builder/vocabulary/atomic.py): old or new, never half, nothing left behind."""

from __future__ import annotations

import os

import pytest

from site_builder.vocabulary.atomic import write_atomic


def test_writes_text_and_bytes_and_makes_the_folder(tmp_path):
    write_atomic(tmp_path / "a" / "b.txt", "缓存\n")
    write_atomic(tmp_path / "a" / "c.bin", b"\x00\x01")
    assert (tmp_path / "a" / "b.txt").read_text(encoding="utf-8") == "缓存\n"
    assert (tmp_path / "a" / "c.bin").read_bytes() == b"\x00\x01"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_scratch(tmp_path, monkeypatch):
    target = tmp_path / "manifest.json"
    target.write_text("old")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]
