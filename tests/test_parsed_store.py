"""The engine's persisted parses: a page read back is the page a parse makes, and an entry that is not
exactly what was written is parsed again."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import pytest
from markdown_it.token import Token

from site_builder.engine import parsed_store, pipeline
from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import parse_sources
from site_builder.load.loader import load_content
from site_builder.parse.page import StateSource

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "basic" / "content"
sys.path.insert(0, str(ROOT / "tests"))
from sitekit import fake_evidence  # noqa: E402


def _pages(root: Path, content_dir: str = "content") -> list:
    content, _problems = load_content(root, content_dir)
    return [page for page, _ in parse_sources(list(content.pages)) if page is not None]


@pytest.mark.parametrize("where", [(ROOT, "content"), (FIXTURE.parent, "content")], ids=["course", "fixture"])
def test_a_page_read_back_is_the_parsed_page_with_its_types(where):
    pages = _pages(*where)
    assert pages
    for page in pages:
        back = parsed_store.decode(parsed_store.encode(page))
        assert back == page
        assert repr(back) == repr(page)  # the same types too: tuples stay tuples, tokens tokens
        assert all(type(run) is tuple for block in back.blocks
                   for run in ((block.caption, block.body, block.more, block.teacher)
                               if isinstance(block, StateSource) else (block,)))


def test_a_page_read_back_lazily_decodes_its_tokens_on_first_use_and_equals_the_page():
    pages = _pages(ROOT)
    for page in pages:
        text = parsed_store.encode(page)
        lazy = parsed_store.decode(text, lazy=True)
        runs = [run for block in lazy.blocks for run in ((block.caption, block.body, block.more, block.teacher)
                                                          if isinstance(block, StateSource) else (block,))]
        assert {type(run) for run in runs} == {parsed_store.StoredTokens}
        assert runs[0]._runs.runs is None  # nothing decoded yet: checking a page reads its outline alone
        assert lazy.roles == page.roles and lazy.anchors == page.anchors and lazy.meta == page.meta
        assert lazy == page and repr(lazy) == repr(page)
        assert runs[0]._runs.runs is not None
        assert parsed_store.encode(lazy) == text  # written back as it was read
        tuples = [run for block in page.blocks for run in ((block.caption, block.body, block.more, block.teacher)
                                                           if isinstance(block, StateSource) else (block,))]
        for run, tokens in zip(runs, tuples, strict=True):  # a tuple's behaviour
            assert len(run) == len(tokens) and list(run) == list(tokens) and run[1:] == tokens[1:]
            assert run + tokens == tokens + run == tokens + tokens and bool(run) == bool(tokens)


def test_a_page_holding_what_json_changes_is_not_kept():
    page = _pages(FIXTURE.parent)[0]
    token = next(b for b in page.blocks if isinstance(b, tuple))[0]
    odd = dataclasses.replace(page, blocks=((Token(**{**vars_of(token), "meta": {"span": (1, 2)}}),),))
    assert parsed_store.encode_kept(odd) == b""
    assert parsed_store.encode_kept(dataclasses.replace(page, anchors=list(page.anchors))) == b""


def vars_of(token: Token) -> dict:
    return {f.name: getattr(token, f.name) for f in dataclasses.fields(Token)}


def test_an_entry_changed_on_disk_is_parsed_again(tmp_path, monkeypatch):
    shutil.copytree(FIXTURE, tmp_path / "content")
    store = tmp_path / "store"

    def build(out: str) -> dict[str, bytes]:
        Engine(tmp_path, (Output(False, tmp_path / out),), store=store).build(fake_evidence(tmp_path / "figs"))
        return {p.relative_to(tmp_path / out).as_posix(): p.read_bytes() for p in (tmp_path / out).rglob("*")
                if p.is_file()}

    clean = build("a")
    kept = parsed_store.load(store / "parsed.jsonl")
    assert len(kept) == len(list((tmp_path / "content" / "pages").glob("*.md")))
    # One entry's JSON altered (its recorded digest no longer matches), one cut short, one not JSON.
    lines = (store / "parsed.jsonl").read_text(encoding="utf-8").split("\n")
    lines[0] = lines[0].replace('"', "'", 1)
    lines[1] = lines[1][:len(lines[1]) // 2]
    key, _sha, _text = lines[2].split("\t", 2)
    lines[2] = "\t".join([key, parsed_store._digest(key.encode(), b"[1,2").decode(), "[1,2"])
    (store / "parsed.jsonl").write_text("\n".join(lines), encoding="utf-8")
    parsed = []
    real = pipeline.parse_source
    monkeypatch.setattr(pipeline, "parse_source", lambda source, md: parsed.append(source.path) or real(source, md))
    assert build("b") == clean
    assert len(parsed) == 3
    assert parsed_store.load(store / "parsed.jsonl") == kept  # written again, whole
    parsed.clear()
    assert build("c") == clean
    assert parsed == []
