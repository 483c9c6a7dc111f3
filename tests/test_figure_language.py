"""A figure's corner label speaks the course's language (drawn from the catalogs, as the badge beside it is),
and the check compares the two in that language: a Chinese corner in an English course is a problem."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sitekit import SITE_YML, fake_evidence, lesson, write_site

import lessonmodel
from figures.registry import FIGURES
from figures.runner import render
from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.provenance import BADGE_TEXT

ROOT = Path(__file__).resolve().parent.parent
MEASURED = next(f for f in FIGURES if f.provenance == "measured")


@pytest.fixture(scope="module")
def results():
    return lessonmodel.run_all(ROOT / ".cache" / "lessonmodel")


def test_the_corner_label_is_drawn_in_the_course_s_language(tmp_path, results):
    drawn = {language: render(results, {}, tmp_path / language, tmp_path / "cache", registry=[MEASURED],
                              language=language) for language in ("zh-CN", "en")}
    for language, rendered in drawn.items():
        assert rendered.figures[MEASURED.id]["label"] == localize(BADGE_TEXT["measured"], language)
    assert drawn["en"].figures[MEASURED.id]["label"] == "measured by the model"
    svgs = {language: (tmp_path / language / f"{MEASURED.id}.svg").read_bytes() for language in drawn}
    assert svgs["zh-CN"] != svgs["en"]  # the corner differs; the cache keeps the two apart
    assert drawn["en"].drawn == (MEASURED.id,)


def _course(tmp_path: Path, language: str, label: str) -> list[str]:
    state = ":::{state} b0\n:title: One\n:figure: plot\n:provenance: measured\n\nText.\n:::\n"
    root = write_site(tmp_path / language, {"x": lesson(state, front="title: A lesson\n")},
                      site_yml=SITE_YML.format(pages="x").replace("zh-CN", language))
    base = fake_evidence(tmp_path / "fig")
    evidence = replace(base, figures={**base.figures, "plot": replace(base.figures["plot"], label=label)})
    try:
        prepare_site(root, evidence)
    except ContentError as error:
        return [problem.localized(language) for problem in error.problems]
    return []


def test_check_compares_the_corner_with_the_badge_in_the_course_s_language(tmp_path):
    chinese, english = (localize(BADGE_TEXT["measured"], language) for language in ("zh-CN", "en"))
    assert _course(tmp_path, "en", english) == []
    assert _course(tmp_path, "en", chinese) == [
        f"content/pages/x.md:6: figure plot: its corner label '{chinese}' disagrees with its badge "
        "'measured by the model'"]
    assert _course(tmp_path, "zh-CN", chinese) == []
    assert len(_course(tmp_path, "zh-CN", english)) == 1
