"""``python build.py import PATH``: a MyST or d2l page made a page of this course, and what still needs a hand.

The pages (tests/fixtures/d2l/scores.md, tests/fixtures/myst/lecture.md) were written for this project;
after the hand steps the notes list, the converted page builds.
"""

from __future__ import annotations

import os
from pathlib import Path

from PIL import Image
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.serve.importer import convert_page, run_import
from site_builder.vocabulary.i18n import localize

FIXTURES = Path(__file__).parent / "fixtures"


def expected(path: Path, text: str) -> str:
    """The expected conversion (``UPDATE_FIXTURES=1`` writes it; review the diff)."""
    if os.environ.get("UPDATE_FIXTURES") or not path.exists():
        path.write_text(text, encoding="utf-8")
    return path.read_text(encoding="utf-8")


def notes(converted) -> list[str]:
    return [f"{line}: {localize(note, 'en')}" for line, note in converted.notes]


def test_a_d2l_page_is_converted_and_its_hand_steps_listed():
    converted = convert_page((FIXTURES / "d2l" / "scores.md").read_text(encoding="utf-8"))
    assert converted.text == expected(FIXTURES / "d2l" / "scores.converted.md", converted.text)
    assert notes(converted) == [
        "4: cited key 'Lecture.2017': put its BibTeX entry in content/references.bib",
        "8: picture '../img/scores.png': copy it to content/pages/images/scores.png (PNG, JPEG, GIF, WebP or SVG)"]
    assert "tensorflow" not in converted.text and "#@tab" not in converted.text  # one framework kept


def test_a_myst_page_is_converted_and_what_has_no_equivalent_is_listed():
    converted = convert_page((FIXTURES / "myst" / "lecture.md").read_text(encoding="utf-8"))
    assert converted.text == expected(FIXTURES / "myst" / "lecture.converted.md", converted.text)
    assert notes(converted) == [
        "4: cited key 'Kvcache.2020': put its BibTeX entry in content/references.bib",
        "4: '{{ undefined }}' has no substitution in the front matter: write its text",
        "12: a code cell's output is not produced: if its numbers matter, make it an experiment and cite them "
        "with {num} (docs/reference.md)"]


def test_the_imported_d2l_page_builds_once_its_hand_steps_are_done(tmp_path, capsys):
    root = write_site(tmp_path, {}, site_yml="title: 课\nlanguage: en\nbase_url: https://example.org/\npages: []\n")
    (root / "content" / "references.bib").write_text("@misc{Lecture.2017, title = {一份讲义}}\n", encoding="utf-8")
    assert run_import(root, FIXTURES / "d2l" / "scores.md", "en") == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == ("created content/pages/scores.md and listed it in content/site.yml; 2 thing(s) still need "
                       "a hand (then run python build.py, which names anything else at its line):")
    assert said[1:] == ["content/pages/scores.md:4: cited key 'Lecture.2017': put its BibTeX entry in "
                        "content/references.bib",
                        "content/pages/scores.md:8: picture '../img/scores.png': copy it to "
                        "content/pages/images/scores.png (PNG, JPEG, GIF, WebP or SVG)"]
    page = root / "content" / "pages" / "scores.md"
    (page.parent / "images").mkdir()
    Image.new("RGB", (30, 20), (10, 120, 200)).save(page.parent / "images" / "scores.png")
    prepared = prepare_site(root, fake_evidence(tmp_path / "fig"))
    assert prepared.pages["scores"].meta.title == "注意力分数"


def test_importing_a_page_that_exists_is_refused(tmp_path, capsys):
    root = write_site(tmp_path, {"scores": "# 已有\n"})
    assert run_import(root, FIXTURES / "d2l" / "scores.md", "en") == 1
    assert "content/pages/scores.md already exists: choose another id" in capsys.readouterr().err
