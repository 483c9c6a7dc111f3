"""A ``{mark}`` (and an inline ``{fig}``) in a state links to that state's own copy of its figure, even when an
earlier state shows the same figure: following it must not move the stepper back."""

import re
from dataclasses import replace

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import FigureMark

MARK = FigureMark("params", "参数条", (0.1, 0.05, 0.75, 0.3))


def _state(number: int, figure: str, note: str) -> str:
    shown = f":figure: {figure}\n" if figure else ""
    return (f":::{{state}} b{number}\n:title: 第 {number} 步\n{shown}:provenance: teaching\n\n"
            f"正文 {number}，见{{mark}}`{'sketch:' if not figure else ''}params`。\n\n{note}:::\n\n")


@pytest.fixture
def html(tmp_path):
    def built(teacher: bool) -> str:
        base = fake_evidence(tmp_path / "fig")
        evidence = replace(base, figures={**base.figures, "sketch": replace(base.figures["sketch"], marks=(MARK,))})
        note = "::::{teacher}\n指图：{mark}`params`。\n::::\n"
        body = _state(0, "sketch", note) + _state(1, "sketch", note) + _state(2, "", "")
        root = write_site(tmp_path / "site", {"x": lesson(body)})
        return render_site(prepare_site(root, evidence), teacher=teacher)["x.html"].decode()
    return built


def _mark_links(text: str) -> list[str]:
    return re.findall(r'<a class="mark-ref" href="([^"]+)"', text)


@pytest.mark.parametrize("teacher", [False, True], ids=["public", "teacher"])
def test_each_state_s_mark_links_to_its_own_figure(html, teacher):
    page = html(teacher)
    anchors = re.findall(r'<figure class="figure" id="([^"]+)"', page)
    assert anchors == ["x-b0-fig", "x-b1-fig"]  # both states show the figure
    links = _mark_links(page)
    per_state = ["#x-b0-fig", "#x-b1-fig"]
    if teacher:  # the teacher note repeats the mark after each state's text
        assert links == ["#x-b0-fig", "#x-b0-fig", "#x-b1-fig", "#x-b1-fig", "#x-b0-fig"]
    else:
        assert links == [*per_state, "#x-b0-fig"]  # b2 shows no figure: the first state showing it


def test_every_mark_link_lands_on_a_figure_of_the_page(html):
    page = html(True)
    anchors = set(re.findall(r'<figure class="figure" id="([^"]+)"', page))
    assert {link.removeprefix("#") for link in _mark_links(page)} <= anchors
