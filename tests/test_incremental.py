"""The engine in the dev server: only what a save changed is rendered and written, and the result equals
a full build."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sitekit import fake_evidence

from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"


@pytest.fixture
def site(tmp_path: Path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    engine = Engine(tmp_path, (Output(True, tmp_path / "out"),), serving=True)
    engine.build(evidence)
    return tmp_path, engine, evidence


def edit(root: Path, page: str, old: str, new: str) -> None:
    path = root / "content" / "pages" / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def on_disk(folder: Path) -> dict[str, bytes]:
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
    assert on_disk(root / "out") == full_build(root, evidence, teacher=True)
    public = Engine(root, (Output(False, root / "public"),), serving=True)
    public.build(evidence)
    assert on_disk(root / "public") == full_build(root, evidence, teacher=False)


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
    assert report.changed_urls == ("alpha.html", "figures.html")  # figures.html shows every figure


def test_a_site_swapped_in_by_someone_else_is_not_trusted(site):
    root, engine, evidence = site
    shutil.rmtree(root / "out")
    (root / "out").mkdir()
    (root / "out" / "alpha.html").write_text("not ours")
    edit(root, "beta", "第一步。", "第一步，改。")
    engine.build(evidence)
    assert on_disk(root / "out") == full_build(root, evidence, teacher=True)


def test_a_broken_save_leaves_the_site_and_the_next_save_recovers(site):
    root, engine, evidence = site
    good = on_disk(root / "out")
    edit(root, "alpha", "{num}`exp.diff`", "{num}`exp.dif`")
    with pytest.raises(ContentError) as error:
        engine.build(evidence)
    assert [str(p) for p in error.value.problems] == [
        "content/pages/alpha.md:36: unknown value 'exp.dif' (did you mean 'exp.diff'?)"]
    assert on_disk(root / "out") == good
    edit(root, "alpha", "{num}`exp.dif`", "{num}`exp.diff`")
    report = engine.build(evidence)
    assert report.changed_files == ()  # back to exactly the last good site
    assert on_disk(root / "out") == full_build(root, evidence, teacher=True)


def test_removed_page_is_removed_and_reloaded(site):
    root, engine, evidence = site
    site_yml = root / "content" / "site.yml"
    site_yml.write_text(site_yml.read_text(encoding="utf-8").replace(", beta]", "]"), encoding="utf-8")
    edit(root, "index", "，再读 {ref}`beta#b1`", "")
    (root / "content" / "pages" / "beta.md").unlink()
    report = engine.build(evidence)
    assert "beta.html" in report.changed_urls
    assert not (root / "out" / "beta.html").exists()
    assert on_disk(root / "out") == full_build(root, evidence, teacher=True)


def test_an_unchanged_page_is_checked_again_when_what_it_links_to_changes(site):
    """Each page's problems are kept between saves, but not past a change to the anchors it links to."""
    root, engine, evidence = site
    edit(root, "beta", ":::{state} b1", ":::{state} b9")  # index.md links beta#b1; index itself is untouched
    with pytest.raises(ContentError) as error:
        engine.build(evidence)
    assert any(p.path == "content/pages/index.md" and "unknown anchor '#beta-b1'" in str(p)
               for p in error.value.problems)
    edit(root, "beta", ":::{state} b9", ":::{state} b1")
    engine.build(evidence)
    assert on_disk(root / "out") == full_build(root, evidence, teacher=True)


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
