"""The build engine (site_builder/engine): incremental and persistent reuse, caches, parallel and
deterministic builds."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sitekit import fake_evidence, lesson, project_copy, write_site

from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import PARALLEL_MIN_PAGES, prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

# ---------------------------------------------------------------------------
# Caches are verified or rebuilt, never trusted (issue #23 item 5).
#
# A cache entry that is unreadable, wrong-shaped or edited is discarded with at most one warning line
# and made again, with no traceback, and the site is what a build from clean caches makes. The shared
# asset edited in place is ``test_an_asset_edited_in_place_...`` below; parsed pages
# are no longer kept between processes (site_builder/engine/builder.py), so there is no parse store to corrupt.


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


def tiny(cfg):
    """An experiment of this test's own, made at once: every cache path is the same for it and for the course's."""
    from lessonmodel.result import Result, Value

    return Result("a test's experiment", cfg, {"n": 3}, (Value("n_layers", cfg.n_layers, "", "layers"),
                                                          Value("half", 0.5, "", "a half")))


@pytest.fixture
def one_experiment(monkeypatch):
    """lessonmodel reduced to ``tiny``: the course's experiments each run the model (seconds)."""
    from lessonmodel import runner
    from lessonmodel.result import experiment

    monkeypatch.setattr(runner, "experiments", lambda: {"tiny": experiment(tiny)})
    return runner


@pytest.mark.parametrize("damage", MODEL_DAMAGE, ids=list(MODEL_DAMAGE))
def test_a_damaged_model_cache_entry_is_recomputed_with_one_warning(one_experiment, tmp_path, capsys, damage):
    cache = tmp_path / "lessonmodel"
    true = one_experiment.run_all(cache)
    assert capsys.readouterr().err == ""
    (file,) = cache.glob("lessonmodel-tiny-*.json")
    MODEL_DAMAGE[damage](file)
    assert one_experiment.run_all(cache) == true
    warning = capsys.readouterr().err.splitlines()
    assert len(warning) == 1 and "tiny" in warning[0], warning
    if cache.is_dir() and file.is_file():  # stored again, and trusted again
        assert one_experiment.run_all(cache) == true and capsys.readouterr().err == ""


def test_an_entry_carries_the_digest_of_its_inputs_and_of_its_content(one_experiment, tmp_path):
    one_experiment.run_all(tmp_path)
    (file,) = tmp_path.glob("lessonmodel-*.json")
    stored = json.loads(file.read_text(encoding="utf-8"))
    assert stored["key"] == one_experiment.cache_key("tiny", one_experiment.DEFAULT_CONFIG,
                                                     one_experiment.source_hash())
    assert stored["entry_sha256"] == one_experiment.entry_digest(stored["entry"])


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


@pytest.fixture(scope="module")
def drawn_sketch(tmp_path_factory):
    """The registry's first sketch (drawn without the model's results) drawn once into ``cache`` and ``out`` of a
    folder: what each kind of damage starts from, in a copy."""
    from figures import FIGURES, render

    figure = next(f for f in FIGURES if not f.inputs)
    folder = tmp_path_factory.mktemp("sketch")
    warned: list[str] = []
    first = render({}, {}, folder / "out", folder / "cache", registry=[figure], warn=warned.append)
    assert first.drawn == (figure.id,) and not warned
    return figure, folder, first


@pytest.mark.parametrize("damage", FIGURE_DAMAGE, ids=list(FIGURE_DAMAGE))
def test_a_damaged_figure_cache_entry_is_drawn_again_with_one_warning(drawn_sketch, tmp_path, damage):
    from figures import render

    figure, drawn, first = drawn_sketch
    shutil.copytree(drawn, tmp_path, dirs_exist_ok=True)
    cache, out = tmp_path / "cache", tmp_path / "out"
    true = on_disk(out)
    warned: list[str] = []
    FIGURE_DAMAGE[damage](cache)
    again = render({}, {}, out, cache, registry=[figure], warn=warned.append)
    assert again.drawn == again.discarded == (figure.id,)
    assert len(warned) == 1 and figure.id in warned[0]
    assert on_disk(out) == true and again.figures == first.figures


def test_damaged_entries_of_several_figures_are_named_in_one_warning(tmp_path):
    from figures import FIGURES, render

    sketches = [f for f in FIGURES if not f.inputs][:2]
    assert len(sketches) == 2, "the registry has fewer than two sketches"
    cache, out = tmp_path / "cache", tmp_path / "out"
    warned: list[str] = []
    render({}, {}, out, cache, registry=sketches, warn=warned.append)
    for meta in cache.glob("*.json"):
        meta.write_text("[]", encoding="utf-8")
    again = render({}, {}, out, cache, registry=sketches, warn=warned.append)
    assert sorted(again.discarded) == sorted(f.id for f in sketches)
    assert len(warned) == 1 and all(f.id in warned[0] for f in sketches), warned


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
    for file in _each(root, "lessonmodel", "lessonmodel-*.json"):  # each experiment's entry (not the names)
        rewrite_json(file, _edit_value)


def _damage_figures(root: Path) -> None:
    # Every entry of one sketch, in each language (the cache keeps earlier drawings too): every figure drawn again
    # would cost half a minute and show nothing more here; how several damaged figures are said is
    # test_damaged_entries_of_several_figures_are_named_in_one_warning's.
    from figures import FIGURES

    sketch = next(f.id for f in FIGURES if not f.inputs)
    entries = [entry for entry in _each(root, "figures", "*.json")
               if json.loads(entry.read_text(encoding="utf-8")).get("meta", {}).get("id") == sketch]
    assert entries, f"no entry of .cache/figures holds {sketch}"
    for entry in entries:
        entry.write_text("[]", encoding="utf-8")


def _damage_state(root: Path) -> None:
    for file in _each(root, "build", "*.json"):
        file.write_text('{"pages": {"index": 3}}', encoding="utf-8")


BUILD_DAMAGE = {"search documents": _damage_search, "math-font subsets": _damage_math_font,
                "model values": _damage_model_value, "figure metadata": _damage_figures,
                "folder states": _damage_state}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> tuple[Path, dict[str, str], list[str]]:
    """A copy of the project built once: its root, its sites' files' digests, and what a build with
    nothing damaged says anyway (a second build: every case's build must leave the caches settled)."""
    root = project_copy(tmp_path_factory.mktemp("course"))
    _build(root)
    return root, _sites(root), _build(root)


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
    root, true, quiet = course
    BUILD_DAMAGE[damage](root)
    said = _build(root)
    assert len(said) <= len(quiet) + 1, said
    if damage in ("model values", "figure metadata"):  # what was discarded: named in one line
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


# ---------------------------------------------------------------------------
# Two clean builds of the same content are byte-identical.
#
# Each build runs in its own process, in its own copy of the project (different absolute paths),
# at a different time, with a different hash seed and time zone, so nothing that varies between
# machines or runs (paths, dict order of sets, timestamps, the clock) can leak into the output.


ROOT = Path(__file__).resolve().parent.parent


FIXTURE_DETERMINISM = ROOT / "tests" / "fixtures" / "basic"


PROJECT = ("content", "site_builder", "figures", "lessonmodel", "build.py")


def tree_hashes(site: Path) -> dict[str, str]:
    """Relative path → sha256 of every file under ``site`` (the tree's identity)."""
    return {path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def assert_same_tree(a: Path, b: Path) -> None:
    first, second = tree_hashes(a), tree_hashes(b)
    assert first, f"{a} is empty"
    only = sorted(set(first) ^ set(second))
    differ = sorted(name for name in set(first) & set(second) if first[name] != second[name])
    assert not only and not differ, f"{a.name}: files in one build only: {only[:10]}; differing files: {differ[:10]}"


def _copy_project(target: Path, names: tuple[str, ...]) -> Path:
    target.mkdir(parents=True)
    for name in names:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target / name)
    return target


def _environment(seed: str, tz: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": tz, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    return env


FIXTURE_BUILD = """
import sys
from pathlib import Path
root = Path.cwd()
sys.path[:0] = [str(root), {tests!r}]
from sitekit import fake_evidence
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.write.writer import write_site
prepared = prepare_site(root, fake_evidence(root / "figures-in"))
write_site(render_site(prepared, teacher=False), root / "_site")
write_site(render_site(prepared, teacher=True), root / "_site-teacher")
"""


@pytest.mark.slow  # two builds in fresh processes, a second apart
def test_fixture_site_builds_are_byte_identical(tmp_path):
    builds = []
    for n, (seed, tz) in enumerate((("1", "UTC"), ("4242", "Asia/Shanghai"))):
        if n:
            time.sleep(1.1)  # a second apart: any wall-clock timestamp in the output would differ
        work = _copy_project(tmp_path / f"build-{n}" / "project", ("site_builder",))
        shutil.copytree(FIXTURE_DETERMINISM / "content", work / "content")
        subprocess.run([sys.executable, "-c", FIXTURE_BUILD.format(tests=str(ROOT / "tests"))], cwd=work,
                       env=_environment(seed, tz), check=True, capture_output=True, timeout=120)
        builds.append(work)
    for name in ("_site", "_site-teacher"):
        assert_same_tree(builds[0] / name, builds[1] / name)


def _real_build(work: Path, seed: str, tz: str, *python: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *python, "build.py"], cwd=work, env=_environment(seed, tz),
                          capture_output=True, text=True, timeout=600)


NOT_FOR_NOTHING = {"numpy", "matplotlib", "markdown_it", "latex2mathml", "jinja2", "pygments", "babel"}
"""What a build that changes nothing must not import: the model, the drawing, Markdown, templates, Babel."""


@pytest.mark.slow  # the real course built clean twice (model, figures, sites)
def test_real_course_builds_are_byte_identical(tmp_path):
    """The real content through build.py: model, figures and both sites, from two fresh copies,
    and a no-change rebuild from the warm cache."""
    first = _copy_project(tmp_path / "a" / "course", PROJECT)
    result = _real_build(first, "1", "UTC")
    assert result.returncode == 0, (result.stderr or result.stdout)[-2000:]
    clean = {name: tree_hashes(first / name) for name in ("_site", "_site-teacher")}
    result = _real_build(first, "77", "UTC", "-X", "importtime")  # nothing changed: all from the warm caches
    assert result.returncode == 0, result.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines() if line.startswith("import")}
    assert imported and not imported & NOT_FOR_NOTHING, imported & NOT_FOR_NOTHING
    for name, hashes in clean.items():
        assert tree_hashes(first / name) == hashes, f"{name}: a warm-cache build differs from the clean one"
    time.sleep(1.1)
    second = _copy_project(tmp_path / "b" / "elsewhere" / "course", PROJECT)
    result = _real_build(second, "98765", "America/New_York")
    assert result.returncode == 0, result.stderr[-2000:]
    for name in ("_site", "_site-teacher"):
        assert_same_tree(first / name, second / name)


# ---------------------------------------------------------------------------
# The engine in the dev server: only what a save changed is rendered and written, and the result equals
# a full build.


FIXTURE_INCREMENTAL = Path(__file__).parent / "fixtures" / "basic" / "content"


@pytest.fixture
def site(tmp_path: Path):
    shutil.copytree(FIXTURE_INCREMENTAL, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    engine = Engine(tmp_path, (Output(True, tmp_path / "out"),), serving=True)
    engine.build(evidence)
    return tmp_path, engine, evidence


def edit(root: Path, page: str, old: str, new: str) -> None:
    path = root / "content" / "pages" / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def on_disk_incremental(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def full_build(root: Path, evidence, teacher: bool) -> dict[str, bytes]:
    files = render_site(prepare_site(root, evidence), teacher=teacher)
    return {k: v.read_bytes() if isinstance(v, Path) else v for k, v in files.items()}


def test_prose_edit_renders_and_reloads_only_that_page(site):
    root, engine, evidence = site
    edit(root, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    report = engine.build(evidence)
    assert report.rendered == ("alpha",)
    assert report.changed_urls == ("alpha.html", "alpha.source.html")
    assert set(report.changed_files) == {"alpha.html", "alpha.md", "alpha.source.html", "downloads/alpha.zip"}
    assert "改过了" in (root / "out" / "alpha.html").read_text(encoding="utf-8")


def test_output_equals_a_full_build_after_edits(site):
    root, engine, evidence = site
    edit(root, "alpha", "进一步的解释文字", "新的解释")
    engine.build(evidence)
    edit(root, "beta", "title: 第二课", "title: 第二课（改）")
    engine.build(evidence)
    assert on_disk_incremental(root / "out") == full_build(root, evidence, teacher=True)
    public = Engine(root, (Output(False, root / "public"),), serving=True)
    public.build(evidence)
    assert on_disk_incremental(root / "public") == full_build(root, evidence, teacher=False)


def test_title_change_rerenders_every_page_that_shows_the_nav(site):
    root, engine, evidence = site
    edit(root, "beta", "title: 第二课", "title: 第二课（改）")
    report = engine.build(evidence)
    assert report.rendered == ("index", "alpha", "beta")
    assert {"index.html", "alpha.html", "beta.html", "numbers.html", "sources.html"} <= set(report.changed_urls)


def test_state_title_change_rerenders_the_page_and_pages_linking_to_it(site):
    root, engine, evidence = site
    edit(root, "beta", ":title: 继续", ":title: 继续下去")
    report = engine.build(evidence)
    assert report.rendered == ("index", "beta")  # index links {ref}`beta#b1`, alpha does not
    assert "第二课 · 继续下去" in (root / "out" / "index.html").read_text(encoding="utf-8")


def test_unchanged_files_are_hard_linked_not_rewritten(site):
    root, engine, evidence = site
    before = (root / "out" / "beta.html").stat().st_ino
    edit(root, "alpha", "进一步的解释文字", "再改")
    engine.build(evidence)
    assert (root / "out" / "beta.html").stat().st_ino == before
    assert (root / "out" / "alpha.html").stat().st_ino != before


def test_nothing_changed_writes_nothing(site):
    root, engine, evidence = site
    folder = (root / "out").stat().st_ino
    report = engine.build(evidence)
    assert (report.rendered, report.changed_files, report.changed_urls) == ((), (), ())
    assert (root / "out").stat().st_ino == folder


def test_redrawn_figure_reloads_only_pages_showing_it(site):
    root, engine, evidence = site
    (Path(evidence.figure_dir) / "plot.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><g/></svg>")
    report = engine.build(evidence)
    assert report.rendered == ()
    assert report.changed_files == ("figures/plot.svg",)
    assert report.changed_urls == ("alpha.html", "figures.html", "gallery.html")  # each shows every figure


def test_a_site_swapped_in_by_someone_else_is_not_trusted(site):
    root, engine, evidence = site
    shutil.rmtree(root / "out")
    (root / "out").mkdir()
    (root / "out" / "alpha.html").write_text("not ours")
    edit(root, "beta", "第一步。", "第一步，改。")
    engine.build(evidence)
    assert on_disk_incremental(root / "out") == full_build(root, evidence, teacher=True)


def test_a_broken_save_leaves_the_site_and_the_next_save_recovers(site):
    root, engine, evidence = site
    good = on_disk_incremental(root / "out")
    edit(root, "alpha", "{num}`exp.diff`", "{num}`exp.dif`")
    with pytest.raises(ContentError) as error:
        engine.build(evidence)
    assert [str(p) for p in error.value.problems] == [
        "content/pages/alpha.md:36: unknown value 'exp.dif' (did you mean 'exp.diff'?)"]
    assert on_disk_incremental(root / "out") == good
    edit(root, "alpha", "{num}`exp.dif`", "{num}`exp.diff`")
    report = engine.build(evidence)
    assert report.changed_files == ()  # back to exactly the last good site
    assert on_disk_incremental(root / "out") == full_build(root, evidence, teacher=True)


def test_removed_page_is_removed_and_reloaded(site):
    root, engine, evidence = site
    site_yml = root / "content" / "site.yml"
    site_yml.write_text(site_yml.read_text(encoding="utf-8").replace(", beta]", "]"), encoding="utf-8")
    edit(root, "index", "，再读 {ref}`beta#b1`", "")
    (root / "content" / "pages" / "beta.md").unlink()
    report = engine.build(evidence)
    assert "beta.html" in report.changed_urls
    assert not (root / "out" / "beta.html").exists()
    assert on_disk_incremental(root / "out") == full_build(root, evidence, teacher=True)


def test_an_unchanged_page_is_checked_again_when_what_it_links_to_changes(site):
    """Each page's problems are kept between saves, but not past a change to the anchors it links to."""
    root, engine, evidence = site
    last_state = "\n:::{state} b1\n:title: 继续\n:provenance: measured\n\n字节数 {num}`exp.bytes`。\n:::\n"
    edit(root, "beta", last_state, "")  # index.md links beta#b1; index itself is untouched
    with pytest.raises(ContentError) as error:
        engine.build(evidence)
    assert any(p.path == "content/pages/index.md" and "unknown anchor '#beta-b1'" in str(p)
               for p in error.value.problems)
    edit(root, "beta", "第一步。\n:::\n", "第一步。\n:::\n" + last_state)
    engine.build(evidence)
    assert on_disk_incremental(root / "out") == full_build(root, evidence, teacher=True)


def test_a_save_keeping_size_and_modification_time_is_still_seen(site):
    """A page is read again unless its file is the very one read before (the change time moves on any write)."""
    root, engine, evidence = site
    path = root / "content" / "pages" / "alpha.md"
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert "进一步的解释文字" in text
    path.write_text(text.replace("进一步的解释文字", "进一步的说明文字", 1), encoding="utf-8")  # same length in bytes
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    report = engine.build(evidence)
    assert report.rendered == ("alpha",)
    assert "进一步的说明文字" in (root / "out" / "alpha.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# Rendering pages in forked workers gives exactly the files of rendering them in one process.


STATE = ":::{state} b0\n:title: 第{n}课\n:provenance: teaching\n\n正文 $x_{n}$，见 {ref}`p0`。\n:::\n"


def test_parallel_render_equals_serial(tmp_path):
    pages = {f"p{n}": lesson(STATE.replace("{n}", str(n)), front=f"title: 第{n}课\n")
             for n in range(PARALLEL_MIN_PAGES + 3)}
    prepared = prepare_site(write_site(tmp_path, pages), fake_evidence(tmp_path / "fig"))
    for teacher in (False, True):
        assert render_site(prepared, teacher, workers=2) == render_site(prepared, teacher, workers=1)


# ---------------------------------------------------------------------------
# A new build process reuses the last build's pages and files, and writes what a clean build writes.


FIXTURE_PERSISTENT = ROOT / "tests" / "fixtures" / "basic" / "content"


# One build in its own Python process: nothing but the files on disk carries over between builds.
BUILD = textwrap.dedent("""
    import json, sys
    sys.path[:0] = [{root!r}, {tests!r}]
    from pathlib import Path
    from sitekit import fake_evidence
    from site_builder.engine.builder import Engine, Output
    project, out, store, teacher = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "1"
    engine = Engine(project, (Output(teacher, out),), store=store, assets=project / "assets")
    report = engine.build(fake_evidence(project / "figs"))
    print(json.dumps([len(report.rendered), len(report.changed_files)]))
""").format(root=str(ROOT), tests=str(ROOT / "tests"))


def build(project: Path, out: Path, state: Path, teacher: bool = False) -> tuple[int, int]:
    """Build in a new process, the engine's store in the folder ``state``: (pages rendered, files changed)."""
    import json

    result = subprocess.run([sys.executable, "-c", BUILD, str(project), str(out), str(state), "1" if teacher else "0"],
                            capture_output=True, text=True, check=True)
    return tuple(json.loads(result.stdout.strip().splitlines()[-1]))


def on_disk_persistent(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE_PERSISTENT, tmp_path / "content")
    return tmp_path


def edit_persistent(project: Path, page: str, old: str, new: str) -> None:
    path = project / "content" / "pages" / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
@pytest.mark.parametrize("teacher", [False, True])
def test_an_edit_in_a_new_process_renders_one_page_and_equals_a_clean_build(project, teacher):
    out, state = project / "out", project / "store"
    pages, written = build(project, out, state, teacher)
    assert pages >= 2 and written > 0
    assert build(project, out, state, teacher) == (0, 0), "nothing changed: nothing rendered, nothing written"
    edit_persistent(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    rendered, written = build(project, out, state, teacher)
    assert rendered == 1
    assert 0 < written <= 4  # alpha's HTML, Markdown, source view and zip at most
    assert "改过了" in (out / "alpha.html").read_text(encoding="utf-8")
    clean = project / "clean"
    build(project, clean, project / "clean-store", teacher)
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_the_math_font_holds_the_formulas_of_pages_not_rendered_again(project):
    """Only alpha has maths; when only beta is rendered again, the font still holds alpha's characters."""
    out, state = project / "out", project / "store"
    build(project, out, state)
    beta = (project / "content" / "pages" / "beta.md").read_text(encoding="utf-8")
    (project / "content" / "pages" / "beta.md").write_text(beta + "\n又一句。\n", encoding="utf-8")
    rendered, _ = build(project, out, state)
    assert rendered == 1
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    font = "static/math/stix-two-math.woff2"
    assert (out / font).read_bytes() == (clean / font).read_bytes()
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_a_title_change_rerenders_the_pages_that_show_it(project):
    out, state = project / "out", project / "store"
    pages, _ = build(project, out, state)
    edit_persistent(project, "beta", "title: 第二课", "title: 第二课（改）")
    rendered, _ = build(project, out, state)
    assert rendered == pages  # the title is in every page's navigation
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_generated_pages_are_kept_until_what_they_list_changes(project, monkeypatch):
    """numbers.html, sources.html … are rendered again only when an input they show changed."""
    from sitekit import fake_evidence

    from site_builder.engine import builder as engine
    from site_builder.engine import pipeline
    from site_builder.engine.pipeline import GENERATED

    out, state = project / "out", project / "store"
    skipped = []
    render_sites = pipeline.render_sites
    monkeypatch.setattr(pipeline, "render_sites", lambda prepared, sites, workers, skip, jinja: (
        skipped.append(skip[False]), render_sites(prepared, sites, workers, skip, jinja))[1])

    def kept_after_build() -> set[str]:
        engine.Engine(project, (engine.Output(False, out),), store=state).build(fake_evidence(project / "figs"))
        return skipped[-1]

    build(project, out, state)
    edit_persistent(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    assert GENERATED in kept_after_build(), "a sentence changed: the generated pages list nothing of it"
    edit_persistent(project, "alpha", "进一步的解释文字", "进一步的解释文字，见 {ref}`beta`")
    assert GENERATED not in kept_after_build(), "a new link: the backlinks on the generated pages change"
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_state_of_another_folder_is_not_trusted(project):
    """When the output folder is not the one the state describes, everything is rendered again."""
    out, state = project / "out", project / "store"
    pages, _ = build(project, out, state)
    shutil.rmtree(out)
    shutil.copytree(project / "content", out)  # something else entirely now lives there
    assert build(project, out, state)[0] == pages
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_a_file_edited_in_the_output_folder_is_made_again(project):
    """The folder is still the one the last build swapped in, but a file in it no longer has the digest
    that build recorded: its page is rendered again, even when nothing else changed."""
    out, state = project / "out", project / "store"
    build(project, out, state)
    (out / "beta.html").write_text("edited by hand", encoding="utf-8")
    assert build(project, out, state)[0] == 1
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk_persistent(out) == on_disk_persistent(clean)


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_shared_assets_are_one_file_in_both_sites(project):
    public, teacher = project / "public", project / "teacher"
    build(project, public, project / "p-store")
    build(project, teacher, project / "t-store", teacher=True)
    css_public, css_teacher = public / "static" / "site.css", teacher / "static" / "site.css"
    from site_builder.engine.pipeline import compact_css

    source = (ROOT / "site_builder" / "static" / "site.css").read_text("utf-8")
    assert css_public.read_bytes() == compact_css(source).encode()
    assert os.stat(css_public).st_ino == os.stat(css_teacher).st_ino


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_an_asset_edited_in_place_in_one_site_is_written_again_into_both(project):
    """Both sites link one copy of a shared asset from the store: editing it in one site edits that copy.
    The next build finds that the copy no longer has its digest and writes both sites' file anew."""
    public, teacher = project / "public", project / "teacher"
    build(project, public, project / "p-store")
    build(project, teacher, project / "t-store", teacher=True)
    css = "static/site.css"
    good = (public / css).read_bytes()
    (teacher / css).chmod(0o644)
    (teacher / css).write_bytes(b"body { display: none }")  # the same inode as public's copy and the store's
    build(project, public, project / "p-store")
    build(project, teacher, project / "t-store", teacher=True)
    assert (public / css).read_bytes() == good and (teacher / css).read_bytes() == good


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_every_download_of_a_lesson_belongs_to_it():
    """A kept page keeps all its files: a download left out of its list vanished from the next build. A
    translation's page has the same files in its folder, and its generated pages are its own."""
    from site_builder.render.keys import GENERATED, files_of_pages

    mine = ("r55.html", "r55.md", "r55.source.html", "downloads/r55.zip", "downloads/r55.ipynb")
    files = dict.fromkeys((*mine, *(f"en/{name}" for name in mine), "figures/r55-b0.svg", "en/numbers.html"), b"")
    keys = dict.fromkeys(("r55", "en/r55", GENERATED, f"en/{GENERATED}"), "key")
    assert files_of_pages(files, keys, keys) == {"r55": list(mine), "en/r55": [f"en/{name}" for name in mine],
                                                 GENERATED: [], f"en/{GENERATED}": ["en/numbers.html"]}


@pytest.mark.slow  # Every test runs builds in new processes, as the command line does.
def test_parsed_pages_are_kept_under_their_source_in_memory_and_on_disk(project, monkeypatch):
    """A second build of the same engine (the dev server's) parses only the edited page, and its pages
    equal a fresh parse; the store on disk holds the same pages (as JSON, each entry with its digest:
    tests/test_parsed_store.py)."""
    from sitekit import fake_evidence

    from site_builder.engine import builder as engine
    from site_builder.engine import pipeline
    from site_builder.engine.pipeline import parse_sources
    from site_builder.load.loader import load_content

    parsed = []
    parse_source = pipeline.parse_source
    monkeypatch.setattr(pipeline, "parse_source", lambda source, md: (parsed.append(source.path),
                                                                    parse_source(source, md))[1])
    built = engine.Engine(project, (engine.Output(False, project / "out"),), store=project / "store")
    built.build(fake_evidence(project / "figs"))
    assert len(parsed) == len(load_content(project)[0].pages)
    edit_persistent(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    sources = list(load_content(project)[0].pages)
    parsed.clear()
    built.build(fake_evidence(project / "figs"))
    assert parsed == ["content/pages/alpha.md"]
    assert built.prepared.pages == {page.meta.id: page for page, _ in parse_sources(sources)}
    from site_builder.engine import parsed_store

    on_disk = [parsed_store.decode(text) for text in parsed_store.load(project / "store" / "parsed.jsonl").values()]
    assert {page.meta.id: page for page in on_disk} == built.prepared.pages


def test_a_kept_file_digest_follows_a_rewrite_of_the_same_size_and_time(tmp_path, monkeypatch):
    """A file's digest is kept under its stamp once settled; a rewrite that keeps its size and then restores its
    modification time (as ``os.utime`` can) still moves its change time, so the digest is taken again."""
    from site_builder.render import keys

    monkeypatch.setattr(keys, "SETTLED_NS", -10**12)  # every stamp counts as settled: the digest is kept at once
    monkeypatch.setattr(keys, "_DIGESTS", {})
    file = tmp_path / "figure.svg"
    file.write_bytes(b"<svg>one</svg>")
    first = keys.file_digest(file)
    assert keys._DIGESTS[str(file)][1] == first == hashlib.sha256(b"<svg>one</svg>").hexdigest()
    times = file.stat().st_atime_ns, file.stat().st_mtime_ns
    time.sleep(0.02)  # past the file system's clock step
    file.write_bytes(b"<svg>two</svg>")
    os.utime(file, ns=times)
    assert keys.file_digest(file) == hashlib.sha256(b"<svg>two</svg>").hexdigest()


def test_a_file_changed_within_the_settling_time_is_not_kept(tmp_path, monkeypatch):
    from site_builder.render import keys

    monkeypatch.setattr(keys, "_DIGESTS", {})
    file = tmp_path / "figure.svg"
    file.write_bytes(b"<svg/>")
    keys.file_digest(file)
    assert str(file) not in keys._DIGESTS
