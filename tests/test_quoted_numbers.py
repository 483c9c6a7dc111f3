"""Numbers quoted from a cited source: a ``{quoted}`` block's numbers are its source's, shown with it.

The page tests/fixtures/myst/quoted.md was written for this project.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import fake_evidence, write_site

from site_builder.check.bound_numbers import hand_typed
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError

PAGE = (Path(__file__).parent / "fixtures" / "myst" / "quoted.md").read_text(encoding="utf-8")


def test_a_quoted_block_keeps_its_numbers_and_shows_its_source(tmp_path):
    prepared = prepare_site(write_site(tmp_path, {"hw": PAGE}), fake_evidence(tmp_path / "fig"))
    files = render_site(prepared, teacher=False)
    html = files["hw.html"].decode()
    assert '<td>32 GB/s</td>' in html
    assert ('<p class="quoted-source">以上数字引自 <a class="src" href="sources.html#M34">[M34]</a></p></div>'
            in html)
    sources = files["sources.html"].decode()
    assert 'href="hw.html"' in sources  # the sources page lists the page among those citing M34


def test_the_same_numbers_outside_the_block_are_each_an_error(tmp_path):
    page = PAGE.replace(":::{quoted} M34\n", "").replace("\n:::\n", "\n")
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, {"hw": page}), fake_evidence(tmp_path / "fig"))
    found = [str(p).split(": ", 1)[1].split("'")[1] for p in caught.value.problems]
    assert found == ["32 GB/s", "4.0", "100 Gbit/s", "25 Gbps", "2 μs", "80 GB"]  # PCIe 4.0: a bare decimal


@pytest.mark.parametrize("source, message", [
    ("M43", "content/pages/hw.md:5: unknown source 'M43' (did you mean 'M34'?) (sources are listed in "
            "content/sources.yml)"),
    ("", "content/pages/hw.md:5: '{quoted}' needs the id of the source its numbers come from, as in "
         "':::{quoted} M34'"),
])
def test_a_quoted_block_must_name_a_known_source(tmp_path, source, message):
    page = PAGE.replace(":::{quoted} M34", f":::{{quoted}} {source}".rstrip())
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, {"hw": page}), fake_evidence(tmp_path / "fig"))
    assert [str(p) for p in caught.value.problems] == [message]


@pytest.mark.parametrize("written", ["3 μs", "3 µs", "16 GB/s", "100 Gbit/s", "10 Gb/s", "25 Gbps", "12 Mbps",
                                     "16 GT/s"])
def test_the_unit_list_covers_common_spellings_of_rates_and_the_micro_sign(written):
    assert hand_typed(f"带宽是 {written}。") == [written]
