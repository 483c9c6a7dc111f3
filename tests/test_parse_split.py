"""Parsing a long course over two processes (pipeline ``parse_split``): the same parses as one process makes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from site_builder.engine import parsed_store, pipeline
from site_builder.load.content import SourceFile

FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content" / "pages"
BROKEN = "---\ntitle: 坏页\n---\n\n:::{state} x\n:title: 没有结束\n"
"""A page with a problem (a state never closed): the worker cannot send it back as JSON."""


def _sources(count: int) -> list[SourceFile]:
    texts = [path.read_text(encoding="utf-8") for path in sorted(FIXTURE.glob("*.md"))]
    sources = [SourceFile(f"content/pages/p{n}.md", texts[n % len(texts)]) for n in range(count)]
    sources[-2] = SourceFile("content/pages/broken.md", BROKEN)  # in the worker's first chunk, once it began
    return sources


def test_a_worker_parses_its_share_into_what_this_process_would_make(monkeypatch):
    sources = _sources(pipeline.PARALLEL_MIN_PAGES + 6)
    alone = pipeline.parse_split(sources, workers=1)
    _after_the_worker_began(monkeypatch, len(sources))
    split = pipeline.parse_split(sources, workers=2)
    assert [parsed for parsed, _entry in split] == [parsed for parsed, _entry in alone]
    assert all(entry == b"" for _parsed, entry in alone)
    # The pages parsed here come first, without entries; the worker's are the rest, each sent back as its entry
    # (but the page with a problem, parsed here again).
    entries = [entry for _parsed, entry in split]
    mine = next((n for n, entry in enumerate(entries) if entry), len(entries))
    assert mine <= len(sources) - pipeline.PARSE_CHUNK, "the worker parsed nothing"
    assert entries[:mine] == [b""] * mine
    assert entries[-2] == b"" and split[-2][0][1], "the page with a problem is parsed here, with its problem"
    assert all(parsed_store.read_entry(entry) == parsed for parsed, entry in split[mine:] if entry)
    assert sum(1 for entry in entries if entry) == len(sources) - mine - 1
    assert pipeline._FORKED is None


def test_a_failure_in_this_process_comes_through_and_what_the_worker_inherits_is_let_go(monkeypatch):
    sources = _sources(pipeline.PARALLEL_MIN_PAGES + 6)
    _after_the_worker_began(monkeypatch, len(sources))
    parent, parse = os.getpid(), pipeline.parse_source

    def failing_here(source, md):
        if os.getpid() == parent:
            raise KeyboardInterrupt
        return parse(source, md)

    monkeypatch.setattr(pipeline, "parse_source", failing_here)
    with pytest.raises(KeyboardInterrupt):
        pipeline.parse_split(sources, workers=2, entries=True)
    assert pipeline._FORKED is None


def _after_the_worker_began(monkeypatch, pages: int) -> None:
    """This process takes its first pages only once the worker has taken its own: on a busy machine, this
    process could otherwise parse them all before the worker starts."""
    take = pipeline._take

    def later(bounds, front):
        waited = time.monotonic() + 60
        while front and bounds[1] == pages and time.monotonic() < waited:
            time.sleep(0.005)
        return take(bounds, front)

    monkeypatch.setattr(pipeline, "_take", later)


@pytest.mark.parametrize("workers", [1, 2])
def test_asked_for_entries_every_page_the_store_keeps_has_one(workers):
    sources = _sources(pipeline.PARALLEL_MIN_PAGES + 6)
    split = pipeline.parse_split(sources, workers=workers, entries=True)
    assert [entry for _parsed, entry in split] == [parsed_store.entry(parsed) for parsed, _entry in split]
    assert split[-2][1] == b"" and sum(1 for _parsed, entry in split if entry) > len(sources) // 2


def test_a_short_course_is_parsed_in_this_process(monkeypatch):
    forked = []
    monkeypatch.setattr(pipeline, "ProcessPoolExecutor", lambda *args: forked.append(args))
    sources = _sources(pipeline.PARALLEL_MIN_PAGES - 1)
    assert [parsed for parsed, _ in pipeline.parse_split(sources, workers=2)] == \
        [parsed for parsed, _ in pipeline.parse_split(sources, workers=1)]
    assert forked == []
