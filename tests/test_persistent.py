"""A new build process reuses the last build's pages and files, and writes what a clean build writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Every test runs builds in new processes, as the command line does.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "basic" / "content"

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


def on_disk(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    return tmp_path


def edit(project: Path, page: str, old: str, new: str) -> None:
    path = project / "content" / "pages" / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("teacher", [False, True])
def test_an_edit_in_a_new_process_renders_one_page_and_equals_a_clean_build(project, teacher):
    out, state = project / "out", project / "store"
    pages, written = build(project, out, state, teacher)
    assert pages >= 2 and written > 0
    assert build(project, out, state, teacher) == (0, 0), "nothing changed: nothing rendered, nothing written"
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    rendered, written = build(project, out, state, teacher)
    assert rendered == 1
    assert 0 < written <= 4  # alpha's HTML, Markdown, source view and zip at most
    assert "改过了" in (out / "alpha.html").read_text(encoding="utf-8")
    clean = project / "clean"
    build(project, clean, project / "clean-store", teacher)
    assert on_disk(out) == on_disk(clean)


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
    assert on_disk(out) == on_disk(clean)


def test_a_title_change_rerenders_the_pages_that_show_it(project):
    out, state = project / "out", project / "store"
    pages, _ = build(project, out, state)
    edit(project, "beta", "title: 第二课", "title: 第二课（改）")
    rendered, _ = build(project, out, state)
    assert rendered == pages  # the title is in every page's navigation
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk(out) == on_disk(clean)


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
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    assert GENERATED in kept_after_build(), "a sentence changed: the generated pages list nothing of it"
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，见 {ref}`beta`")
    assert GENERATED not in kept_after_build(), "a new link: the backlinks on the generated pages change"
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk(out) == on_disk(clean)


def test_state_of_another_folder_is_not_trusted(project):
    """When the output folder is not the one the state describes, everything is rendered again."""
    out, state = project / "out", project / "store"
    pages, _ = build(project, out, state)
    shutil.rmtree(out)
    shutil.copytree(project / "content", out)  # something else entirely now lives there
    assert build(project, out, state)[0] == pages
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk(out) == on_disk(clean)


def test_a_file_edited_in_the_output_folder_is_made_again(project):
    """The folder is still the one the last build swapped in, but a file in it no longer has the digest
    that build recorded: its page is rendered again, even when nothing else changed."""
    out, state = project / "out", project / "store"
    build(project, out, state)
    (out / "beta.html").write_text("edited by hand", encoding="utf-8")
    assert build(project, out, state)[0] == 1
    clean = project / "clean"
    build(project, clean, project / "clean-store")
    assert on_disk(out) == on_disk(clean)


def test_shared_assets_are_one_file_in_both_sites(project):
    public, teacher = project / "public", project / "teacher"
    build(project, public, project / "p-store")
    build(project, teacher, project / "t-store", teacher=True)
    css_public, css_teacher = public / "static" / "site.css", teacher / "static" / "site.css"
    from site_builder.engine.pipeline import compact_css

    source = (ROOT / "site_builder" / "static" / "site.css").read_text("utf-8")
    assert css_public.read_bytes() == compact_css(source).encode()
    assert os.stat(css_public).st_ino == os.stat(css_teacher).st_ino


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


def test_every_download_of_a_lesson_belongs_to_it():
    """A kept page keeps all its files: a download left out of its list vanished from the next build."""
    from site_builder.engine.builder import _owned

    files = dict.fromkeys(("r55.html", "r55.md", "r55.source.html", "downloads/r55.zip", "downloads/r55.ipynb",
                           "figures/r55-b0.svg"), b"")
    assert _owned(files, {"r55": "key"}) == {"r55": list(files)[:5]}


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
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    sources = list(load_content(project)[0].pages)
    parsed.clear()
    built.build(fake_evidence(project / "figs"))
    assert parsed == ["content/pages/alpha.md"]
    assert built.prepared.pages == {page.meta.id: page for page, _ in parse_sources(sources)}
    from site_builder.engine import parsed_store

    on_disk = [parsed_store.decode(text) for text in parsed_store.load(project / "store" / "parsed.jsonl").values()]
    assert {page.meta.id: page for page in on_disk} == built.prepared.pages
