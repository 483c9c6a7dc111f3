"""d2l (d2lbook) Markdown: each construct is a ``path:line`` error that names the conversion to make.

The page tests/fixtures/d2l/scores.md was written for this project in d2lbook's dialect.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

PAGE = (Path(__file__).parent / "fixtures" / "d2l" / "scores.md").read_text(encoding="utf-8")
P = "content/pages/scores.md"


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, {"scores": text}), fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


def conversion(line: int, written: str, advice: str) -> str:
    return f"{P}:{line}: d2l's '{written}' is published as text here: {advice}"


TABS = "keep one framework's text and delete the ':begin_tab:' and ':end_tab:' lines"
CODE = ("keep one framework's code in a ```python block (without its '@tab' line); python build.py import "
        "converts the page")
LABEL = "on the line before the heading or picture it labels"


def test_every_d2l_construct_is_an_error_with_its_conversion(tmp_path):
    assert problems(tmp_path, PAGE) == [
        conversion(2, ":label:`sec_scores`", f"write '(sec_scores)=' {LABEL}"),
        conversion(4, ":cite:`Lecture.2017`",
                   "write {cite}`Lecture.2017` and put its BibTeX entry in content/references.bib"),
        conversion(4, ":eqref:`eq_score`", "write {eq}`eq_score`"),
        conversion(7, ":eqlabel:`eq_score`", "write the formula as '$$ … $$ (eq_score)'"),
        f"{P}:9: an image must stand alone in its paragraph: put '![alt text](images/file.png \"caption\")' on a "
        "line of its own, with blank lines around it",
        conversion(10, ":width:`300px`", "write the picture as a ```{figure} with ':width: 300px'"),
        conversion(11, ":label:`fig_scores`", f"write '(fig_scores)=' {LABEL}"),
        conversion(13, ":numref:`fig_scores`", "write {numref}`fig_scores`"),
        f"{P}:15: d2l code block '#@tab pytorch': {CODE}",
        f"{P}:21: d2l code block '#@tab tensorflow': {CODE}",
        conversion(27, ":begin_tab:`pytorch`", TABS),
        conversion(29, ":end_tab:", TABS),
        conversion(31, ":begin_tab:`tensorflow`", TABS),
        conversion(33, ":end_tab:", TABS),
    ]
