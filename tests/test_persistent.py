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
    from site_builder import prepare_site
    from site_builder.incremental import write_reusing
    project, out, state, teacher = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "1"
    prepared = prepare_site(project, fake_evidence(project / "figs"))
    print(json.dumps(write_reusing(prepared, teacher, out, state, store=project / "assets")))
""").format(root=str(ROOT), tests=str(ROOT / "tests"))


def build(project: Path, out: Path, state: Path, teacher: bool = False) -> tuple[int, int]:
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
    out, state = project / "out", project / "state.json"
    pages, written = build(project, out, state, teacher)
    assert pages >= 2 and written > 0
    assert build(project, out, state, teacher) == (0, 0), "nothing changed: nothing rendered, nothing written"
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    rendered, written = build(project, out, state, teacher)
    assert rendered == 1
    assert 0 < written <= 4  # alpha's HTML, Markdown, source view and zip at most
    assert "改过了" in (out / "alpha.html").read_text(encoding="utf-8")
    clean = project / "clean"
    build(project, clean, project / "clean-state.json", teacher)
    assert on_disk(out) == on_disk(clean)


def test_the_math_font_holds_the_formulas_of_pages_not_rendered_again(project):
    """Only alpha has maths; when only beta is rendered again, the font still holds alpha's characters."""
    out, state = project / "out", project / "state.json"
    build(project, out, state)
    beta = (project / "content" / "pages" / "beta.md").read_text(encoding="utf-8")
    (project / "content" / "pages" / "beta.md").write_text(beta + "\n又一句。\n", encoding="utf-8")
    rendered, _ = build(project, out, state)
    assert rendered == 1
    clean = project / "clean"
    build(project, clean, project / "clean-state.json")
    font = "static/math/stix-two-math.woff2"
    assert (out / font).read_bytes() == (clean / font).read_bytes()
    assert on_disk(out) == on_disk(clean)


def test_a_title_change_rerenders_the_pages_that_show_it(project):
    out, state = project / "out", project / "state.json"
    pages, _ = build(project, out, state)
    edit(project, "beta", "title: 第二课", "title: 第二课（改）")
    rendered, _ = build(project, out, state)
    assert rendered == pages  # the title is in every page's navigation
    clean = project / "clean"
    build(project, clean, project / "clean-state.json")
    assert on_disk(out) == on_disk(clean)


def test_generated_pages_are_kept_until_what_they_list_changes(project):
    """numbers.html, sources.html … are rendered again only when an input they show changed."""
    from sitekit import fake_evidence

    from site_builder import prepare_site
    from site_builder.incremental import plan_reuse
    from site_builder.pipeline import GENERATED

    out, state = project / "out", project / "state.json"

    def kept_after_build() -> frozenset[str]:
        return plan_reuse(prepare_site(project, fake_evidence(project / "figs")), False, out, state).kept

    build(project, out, state)
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    assert GENERATED in kept_after_build(), "a sentence changed: the generated pages list nothing of it"
    build(project, out, state)
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，见 {ref}`beta`")
    assert GENERATED not in kept_after_build(), "a new link: the backlinks on the generated pages change"
    build(project, out, state)
    clean = project / "clean"
    build(project, clean, project / "clean-state.json")
    assert on_disk(out) == on_disk(clean)


def test_state_of_another_folder_is_not_trusted(project):
    """When the output folder is not the one the state describes, everything is rendered again."""
    out, state = project / "out", project / "state.json"
    pages, _ = build(project, out, state)
    shutil.rmtree(out)
    shutil.copytree(project / "content", out)  # something else entirely now lives there
    assert build(project, out, state)[0] == pages
    clean = project / "clean"
    build(project, clean, project / "clean-state.json")
    assert on_disk(out) == on_disk(clean)


def test_shared_assets_are_one_file_in_both_sites(project):
    public, teacher = project / "public", project / "teacher"
    build(project, public, project / "p.json")
    build(project, teacher, project / "t.json", teacher=True)
    css_public, css_teacher = public / "static" / "site.css", teacher / "static" / "site.css"
    from site_builder.pipeline import compact_css

    assert css_public.read_bytes() == compact_css((ROOT / "site_builder" / "static" / "site.css").read_text("utf-8")).encode()
    assert os.stat(css_public).st_ino == os.stat(css_teacher).st_ino


def test_every_download_of_a_lesson_belongs_to_it():
    """A kept page keeps all its files: a download left out of its list vanished from the next build."""
    from site_builder.incremental import _owner

    assert [_owner(rel) for rel in ("r55.html", "r55.md", "r55.source.html", "downloads/r55.zip",
                                    "downloads/r55.ipynb", "figures/r55-b0.svg")] == ["r55"] * 5 + [""]


def test_parsed_pages_are_kept_between_processes_under_their_source(project, tmp_path):
    """A page whose source is unchanged is loaded from the cache and equals a fresh parse; pages of
    sources no longer used are dropped from it."""
    import pickle

    from site_builder.incremental import ParseCache
    from site_builder.load import load_content
    from site_builder.pipeline import parse_sources

    file = tmp_path / "parsed.pickle"
    sources = list(load_content(project)[0].pages)
    first = ParseCache(file)
    first.parse(sources)
    assert len(first.new) == len(sources)
    first.save()
    edit(project, "alpha", "进一步的解释文字", "进一步的解释文字，改过了")
    sources = list(load_content(project)[0].pages)
    second = ParseCache(file)
    parsed = second.parse(sources)
    assert [page.meta.path for page, _ in second.new.values()] == ["content/pages/alpha.md"]
    assert parsed == parse_sources(sources)
    second.save()
    assert len(pickle.loads(file.read_bytes())) == len(sources)
    third = ParseCache(file)
    assert third.parse(sources) == parsed and not third.new
