"""A page's prose is rendered once for both sites where its two flavours have the same tokens
(render_sections' ``rendered``): each site's files are the bytes it gets when rendered alone."""

from __future__ import annotations

from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_sites

STATE = ":::{{state}} b0\n:title: 一\n:provenance: {provenance}\n{figure}\n正文，见 {{fig}}`{fig}`。\n{note}:::\n"
NOTE = "\n::::{{teacher}}\n老师看的。\n\n{{fig}}`{fig}`\n::::\n"


def test_each_site_is_what_it_is_alone(tmp_path):
    evidence = fake_evidence(tmp_path / "fig")
    fig = next(f.id for f in evidence.figures.values() if f.provenance == "teaching")
    other = next(f for f in evidence.figures.values() if f.provenance == "measured")
    pages = {
        # A figure only a teacher note shows: the same prose links to it on the page (teacher) or on figures.html.
        "shown": lesson(f"见 {{fig}}`{fig}`。\n\n" + NOTE.format(fig=fig) + "\n后文没有备注。\n"),
        # States with and without a figure of their own, with and without a note.
        "states": lesson(STATE.format(provenance=other.provenance, figure=f":figure: {other.id}\n", fig=other.id,
                                      note=NOTE.format(fig=fig))
                         + "\n" + STATE.format(provenance="teaching", figure="", fig=fig, note="").replace("b0", "b1")
                         .replace(":title: 一", ":title: 二")),
    }
    prepared = prepare_site(write_site(tmp_path / "course", pages), evidence)
    together = render_sites(prepared)
    alone = {teacher: render_sites(prepared, (teacher,))[teacher] for teacher in (False, True)}
    assert together == alone
    public, teacher = (together[t]["shown.html"].decode() for t in (False, True))
    assert f'href="figures.html#fig-{fig}"' in public and f'href="#shown-fig-{fig}"' in teacher
