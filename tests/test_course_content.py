"""The real course in content/: every state CONTENT.md asks for, and no sentence copied from the seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import build
from site_builder import prepare_site
from site_builder.parse import StateSource

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
# (page, states) as CONTENT.md lists them; kv-bytes has one state per topic of its brief.
EXPECTED_STATES = {
    "rc-v1": ("b0", "b1", "b2", "b3"),
    "r55": ("b0", "b1", "b2"),
    "kv-bytes": ("b0", "b1", "b2", "b3", "b4"),
}
RUN = 12
_CJK_RUN = re.compile(r"[\u4e00-\u9fff，、；：（）“”]{%d,}" % RUN)


@pytest.fixture(scope="module")
def prepared():
    evidence, _ = build.measure_and_draw()
    return prepare_site(ROOT, evidence)


@pytest.mark.parametrize("page_id", sorted(EXPECTED_STATES))
def test_every_state_has_figure_provenance_and_teacher_notes(prepared, page_id):
    page = prepared.pages[page_id]
    states = {b.id: b for b in page.blocks if isinstance(b, StateSource)}
    assert set(EXPECTED_STATES[page_id]) <= set(states)
    for state in states.values():
        assert state.figure in prepared.evidence.figures, f"{page_id} {state.id} has no figure"
        assert state.provenance in ("teaching", "computed", "measured", "record")
        teacher_text = " ".join(t.content for t in state.teacher if t.type == "inline")
        assert "不朗读" in teacher_text and "问" in teacher_text, f"{page_id} {state.id} lacks both teacher notes"


def test_knowledge_pages_have_their_sections(prepared):
    assert ("s01" in {a for a, _, _ in prepared.pages["resource-ledger"].anchors})
    assert ("s04" in {a for a, _, _ in prepared.pages["cache-and-effective-context"].anchors})
    assert ("r55-notes" in {a for a, _, _ in prepared.pages["index"].anchors})


def _runs(text: str) -> set[str]:
    return {m[i:i + RUN] for m in _CJK_RUN.findall(text) for i in range(len(m) - RUN + 1)}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed pages (../shared/seeds) are not beside this checkout")
def test_no_sentence_of_the_seeds_is_copied():
    seed_runs = set().union(*(_runs(p.read_text(encoding="utf-8")) for p in SEEDS.glob("*.txt")))
    copied = [f"{path.relative_to(ROOT)}:{number}: {run}"
              for path in sorted((ROOT / "content").rglob("*")) if path.suffix in (".md", ".yml", ".json")
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              for run in sorted(_runs(line) & seed_runs)]
    assert copied == []
