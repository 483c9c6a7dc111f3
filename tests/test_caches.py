"""Caches are verified or rebuilt, never trusted (issue #23 item 5).

A cache entry that is unreadable, wrong-shaped or edited is discarded with at most one warning line
and made again, with no traceback, and the site is what a build from clean caches makes. The shared
asset edited in place is tests/test_persistent.py's ``test_an_asset_edited_in_place_...``; parsed pages
are no longer kept between processes (site_builder/engine/builder.py), so there is no parse store to corrupt.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sitekit import fake_evidence, project_copy

from site_builder.engine.builder import Engine, Output

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "basic" / "content"


def on_disk(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def rewrite_json(path: Path, change: Callable[[object], object]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")


def replace_by_file(path: Path) -> None:
    """An unreadable folder (the tests run as root, for whom permissions hide nothing): a file in its place."""
    shutil.rmtree(path)
    path.write_text("not a folder", encoding="utf-8")


def replace_by_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


# --------------------------------------------------------------------------------- lessonmodel --
def _first_value(entry: dict) -> dict:
    return next(v for v in entry["values"].values() if isinstance(v.get("value"), (int, float)))


def _edit_value(data: dict) -> dict:
    _first_value(data["entry"])["value"] += 1  # valid JSON, the right key: only its digest tells
    return data


MODEL_DAMAGE = {
    "an edited value": lambda file: rewrite_json(file, _edit_value),
    "an edited entry digest": lambda file: rewrite_json(file, lambda data: {**data, "entry_sha256": "0" * 64}),
    "bad JSON": lambda file: file.write_text('{"key": ', encoding="utf-8"),
    "a list": lambda file: file.write_text("[]", encoding="utf-8"),
    "an entry that is not an object": lambda file: rewrite_json(file, lambda data: {**data, "entry": [1]}),
    "not UTF-8": lambda file: file.write_bytes(b"\xff\xfe\x00"),
    "a folder in its place": replace_by_folder,
    "the cache folder replaced by a file": lambda file: replace_by_file(file.parent),
}


@pytest.fixture
def one_experiment(monkeypatch):
    """lessonmodel reduced to its cheapest experiment: every cache path is the same for one or twelve."""
    from lessonmodel import runner

    monkeypatch.setattr(runner, "EXPERIMENTS", {"kv_bytes": runner.EXPERIMENTS["kv_bytes"]})
    return runner


@pytest.mark.parametrize("damage", MODEL_DAMAGE, ids=list(MODEL_DAMAGE))
def test_a_damaged_model_cache_entry_is_recomputed_with_one_warning(one_experiment, tmp_path, capsys, damage):
    cache = tmp_path / "lessonmodel"
    true = one_experiment.run_all(cache)
    assert capsys.readouterr().err == ""
    (file,) = cache.glob("lessonmodel-kv_bytes-*.json")
    MODEL_DAMAGE[damage](file)
    assert one_experiment.run_all(cache) == true
    warning = capsys.readouterr().err.splitlines()
    assert len(warning) == 1 and "kv_bytes" in warning[0], warning
    if cache.is_dir() and file.is_file():  # stored again, and trusted again
        assert one_experiment.run_all(cache) == true and capsys.readouterr().err == ""


def test_an_entry_carries_the_digest_of_its_inputs_and_of_its_content(one_experiment, tmp_path):
    one_experiment.run_all(tmp_path)
    (file,) = tmp_path.glob("lessonmodel-*.json")
    stored = json.loads(file.read_text(encoding="utf-8"))
    assert stored["key"] == one_experiment.cache_key("kv_bytes", one_experiment.DEFAULT_CONFIG,
                                                     one_experiment.source_hash())
    assert stored["entry_sha256"] == one_experiment.entry_digest(stored["entry"])


# ------------------------------------------------------------------------------------- figures --
def _figure_meta(cache: Path) -> Path:
    return next(p for p in cache.glob("*.json"))


def _edit_mark(data: dict) -> dict:
    data["meta"]["width"] += 1
    return data


FIGURE_DAMAGE = {
    "an edited SVG": lambda cache: next(cache.glob("*[0-9a-f].svg")).write_bytes(b"<svg/>"),
    "an edited dark SVG": lambda cache: next(cache.glob("*.dark.svg")).write_bytes(b"<svg/>"),
    "an edited size": lambda cache: rewrite_json(_figure_meta(cache), _edit_mark),
    "metadata as a list": lambda cache: _figure_meta(cache).write_text("[]", encoding="utf-8"),
    "bad JSON": lambda cache: _figure_meta(cache).write_text("{", encoding="utf-8"),
    "a torn entry": lambda cache: next(cache.glob("*.dark.svg")).unlink(),
    "the cache folder replaced by a file": replace_by_file,
}


@pytest.mark.parametrize("damage", FIGURE_DAMAGE, ids=list(FIGURE_DAMAGE))
def test_a_damaged_figure_cache_entry_is_drawn_again_with_one_warning(tmp_path, damage):
    from figures import BY_ID, render

    figure, cache, out = BY_ID["kv-bytes-formula"], tmp_path / "cache", tmp_path / "out"
    warned: list[str] = []
    first = render({}, {}, out, cache, registry=[figure], warn=warned.append)
    true = on_disk(out)
    assert first.drawn == (figure.id,) and not warned
    FIGURE_DAMAGE[damage](cache)
    again = render({}, {}, out, cache, registry=[figure], warn=warned.append)
    assert again.drawn == again.discarded == (figure.id,)
    assert len(warned) == 1 and figure.id in warned[0]
    assert on_disk(out) == true and again.figures == first.figures


# ---------------------------------------------------------------------- the engine's folder state --
STATE_DAMAGE = {
    "bad JSON": "{",
    "a list": "[]",
    "pages not an object": json.dumps({"pages": 5}),
    "a page entry of the wrong length": json.dumps({"pages": {"alpha": ["key"]}}),
    "files as a list": json.dumps({"files": ["alpha.html"], "identity": []}),
    "not UTF-8": "\udcff",
}


@pytest.mark.parametrize("damage", STATE_DAMAGE, ids=list(STATE_DAMAGE))
def test_a_damaged_folder_state_builds_the_site_anew(tmp_path, damage, capsys):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")

    def build(out: str, store: str) -> None:
        Engine(tmp_path, (Output(False, tmp_path / out),), store=tmp_path / store).build(evidence)

    build("out", "store")
    (state,) = (tmp_path / "store").glob("*.json")
    state.write_bytes(STATE_DAMAGE[damage].encode("utf-8", "surrogateescape"))
    build("out", "store")
    build("clean", "clean-store")
    assert on_disk(tmp_path / "out") == on_disk(tmp_path / "clean")
    assert len(capsys.readouterr().err.splitlines()) <= 1


# ------------------------------------------------------------- every kind, through python build.py --
def _each(root: Path, folder: str, pattern: str) -> list[Path]:
    files = sorted((root / ".cache" / folder).glob(pattern))
    assert files, f"the build kept no .cache/{folder}/{pattern}: nothing to damage"
    return files


def _damage_search(root: Path) -> None:
    for file in _each(root, "search", "documents.json"):
        file.write_text('{"alpha.html": 5, "x": ["a"]}', encoding="utf-8")


def _damage_math_font(root: Path) -> None:
    for subset in _each(root, "math-font", "*.woff2"):
        subset.write_bytes(b"not a font")


def _damage_model_value(root: Path) -> None:
    for file in _each(root, "lessonmodel", "*.json"):
        rewrite_json(file, _edit_value)


def _damage_figures(root: Path) -> None:
    for file in _each(root, "figures", "*.json"):
        file.write_text("[]", encoding="utf-8")


def _damage_state(root: Path) -> None:
    for file in _each(root, "build", "*.json"):
        file.write_text('{"pages": {"index": 3}}', encoding="utf-8")


BUILD_DAMAGE = {"search documents": _damage_search, "math-font subsets": _damage_math_font,
                "model values": _damage_model_value, "figure metadata": _damage_figures,
                "folder states": _damage_state}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A copy of the project built once: its root and its sites' files' digests."""
    root = project_copy(tmp_path_factory.mktemp("course"))
    _build(root)
    return root, _sites(root)


def _build(root: Path) -> list[str]:
    result = subprocess.run([sys.executable, "build.py"], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return result.stderr.splitlines()


def _sites(root: Path) -> dict[str, str]:
    return {f"{site}/{rel}": hashlib.sha256(data).hexdigest() for site in ("_site", "_site-teacher")
            for rel, data in on_disk(root / site).items()}


@pytest.mark.slow  # each case is a python build.py of the real course (a few seconds)
@pytest.mark.parametrize("damage", BUILD_DAMAGE, ids=list(BUILD_DAMAGE))
def test_a_damaged_cache_of_each_kind_leaves_the_real_course_as_built(course, damage):
    root, true = course
    quiet = _build(root)  # nothing damaged: what a build says anyway
    BUILD_DAMAGE[damage](root)
    said = _build(root)
    assert len(said) <= len(quiet) + 1, said
    if damage in ("model values", "figure metadata"):  # every entry discarded: named in one line
        assert len(said) == len(quiet) + 1, said
    if damage == "figure metadata":  # in the course's language, through the catalogs
        assert any(line.startswith("图缓存：") for line in said), said
    assert _sites(root) == true


def test_a_folder_where_a_math_font_subset_was_is_made_again(tmp_path, monkeypatch):
    from site_builder.render import mathfont

    monkeypatch.setattr(mathfont, "CACHE_DIR", tmp_path)
    key = hashlib.sha256(b"x").hexdigest()[:32]
    (tmp_path / f"{key}-{'0' * 32}.woff2").mkdir()
    assert mathfont.math_font.__wrapped__("x") == mathfont.subset_font("x")


def test_a_search_document_edited_in_the_cache_is_not_read_back(tmp_path):
    from site_builder.render import search

    search._hold_documents(tmp_path, {"a.html": ("key-a", "<p>缓存</p>"), "b.html": ("key-b", "<p>状态</p>")})
    kept = tmp_path / search._DOCUMENTS
    kept.write_text(kept.read_text(encoding="utf-8").replace("缓存", "泄露"), encoding="utf-8")
    assert search._held_documents(tmp_path) == {"b.html": ("key-b", "<p>状态</p>")}
