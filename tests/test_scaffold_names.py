"""Scaffold names: an id that is a Python module's name (``os``, ``json``, ``tempfile``, ``hashlib``, an
installed package) or longer than the limit is one line, in the course's language, and nothing is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sitekit import lesson, write_site

from figures.scaffold import new_figure
from lessonmodel.scaffold import new_experiment
from site_builder.serve.scaffold import new_lesson
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.names import MAX_ID_LENGTH

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def packages(tmp_path):
    for package in ("figures", "lessonmodel"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", ["os", "json", "tempfile", "hashlib", "numpy", "yaml"])
def test_a_module_name_is_refused_for_an_experiment(packages, name):
    before = _files(packages)
    with pytest.raises(ValueError) as refused:
        new_experiment(name, packages / "lessonmodel")
    assert localize(refused.value.args[0], "zh-CN") == \
        f"'{name}' 已经是一个 Python 模块的名字（{name}）：请换一个 id，例如 '{name}_demo'"
    assert _files(packages) == before


def test_a_module_name_is_refused_for_a_figure(packages):
    before = _files(packages)
    with pytest.raises(ValueError) as refused:
        new_figure("tempfile", (), packages / "figures")
    assert localize(refused.value.args[0], "zh-CN") == \
        "'tempfile' 已经是一个 Python 模块的名字（tempfile）：请换一个 id，例如 'tempfile_demo'"
    assert _files(packages) == before


def test_a_300_character_lesson_id_is_one_line(tmp_path):
    write_site(tmp_path, {"a": lesson("正文\n")})
    before = {p: p.read_bytes() for p in (tmp_path / "content").rglob("*") if p.is_file()}
    with pytest.raises(ValueError) as refused:
        new_lesson(tmp_path, "r" * 300)
    assert localize(refused.value.args[0], "zh-CN") == f"这个 id 有 300 个字符：最多 {MAX_ID_LENGTH} 个"
    assert {p: p.read_bytes() for p in (tmp_path / "content").rglob("*") if p.is_file()} == before
    with pytest.raises(ValueError):
        new_experiment("e" * 300, tmp_path)
