"""Parsing a long course over two processes (pipeline ``parse_split``): the same parses as one process makes."""

from __future__ import annotations

from pathlib import Path

from site_builder.engine import parsed_store, pipeline
from site_builder.load.content import SourceFile

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content" / "pages"
BROKEN = "---\ntitle: 坏页\n---\n\n:::{state} x\n:title: 没有结束\n"
"""A page with a problem (a state never closed): the worker cannot send it back as JSON."""


def _sources(count: int) -> list[SourceFile]:
    texts = [path.read_text(encoding="utf-8") for path in sorted(FIXTURE.glob("*.md"))]
    sources = [SourceFile(f"content/pages/p{n}.md", texts[n % len(texts)]) for n in range(count)]
    sources[-2] = SourceFile("content/pages/broken.md", BROKEN)  # in the worker's share
    return sources


def test_a_worker_parses_its_share_into_what_this_process_would_make():
    sources = _sources(pipeline.PARALLEL_MIN_PAGES + 6)
    alone = pipeline.parse_split(sources, workers=1)
    split = pipeline.parse_split(sources, workers=2)
    assert [parsed for parsed, _entry in split] == [parsed for parsed, _entry in alone]
    assert all(entry == b"" for _parsed, entry in alone)
    share = round(len(sources) * pipeline.WORKER_SHARE)
    entries = [entry for _parsed, entry in split]
    assert entries[:len(sources) - share] == [b""] * (len(sources) - share)  # parsed here: the store encodes them
    assert entries[-2] == b"" and split[-2][0][1], "the page with a problem is parsed here, with its problem"
    assert all(parsed_store.read_entry(entry) == parsed for parsed, entry in split[len(sources) - share:] if entry)
    assert sum(1 for entry in entries if entry) == share - 1


def test_a_short_course_is_parsed_in_this_process(monkeypatch):
    forked = []
    monkeypatch.setattr(pipeline, "ProcessPoolExecutor", lambda *args: forked.append(args))
    sources = _sources(pipeline.PARALLEL_MIN_PAGES - 1)
    assert [parsed for parsed, _ in pipeline.parse_split(sources, workers=2)] == \
        [parsed for parsed, _ in pipeline.parse_split(sources, workers=1)]
    assert forked == []
