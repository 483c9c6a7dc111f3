"""The search stage's text: what gets indexed, and the check that no teacher note gets there."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from sitekit import fake_evidence

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.render import search, search_index
from site_builder.write.verify import verify_output
from site_builder.write.writer import write_site

FIXTURE = Path(__file__).parent / "fixtures" / "basic"


TEACHER_PHRASE = "先指左边的方框再指右边的箭头然后翻页"  # in alpha.md's teacher note


def test_pairs_cut_every_chinese_run_and_leave_the_rest():
    assert search.search_terms("键值缓存") == "键值 值缓 缓存"
    assert search.search_terms("缓") == "缓"
    assert search.search_terms("KV 缓存，字节。") == "KV 缓存 ， 字节 。"


def test_documents_hold_titles_states_and_public_text_only(tmp_path):
    prepared = prepare_site(FIXTURE, fake_evidence(tmp_path / "figures"))
    docs = search.site_documents(prepared)
    assert list(docs) == ["index.html", "alpha.html", "beta.html", "numbers.html", "sources.html", "glossary.html",
                          "figures.html"]
    alpha = docs["alpha.html"]
    assert '<h1 data-pagefind-weight="10">' + search.search_terms("第一课：缓存") + search._END + "</h1>" in alpha
    assert 'id="alpha-b0"' in alpha and 'id="extra"' in alpha
    assert search.search_terms("进一步的解释文字") in alpha
    assert search.search_terms(TEACHER_PHRASE) not in alpha
    assert search.search_terms(TEACHER_PHRASE[:8]) not in alpha


def test_check_finds_a_teacher_note_in_the_search_index(tmp_path):
    prepared = prepare_site(FIXTURE, fake_evidence(tmp_path / "figures"))
    public, teacher = tmp_path / "_site", tmp_path / "_site-teacher"
    write_site(render_site(prepared, teacher=False), public, finish=lambda d: search_index.index_site(prepared, d))
    write_site(render_site(prepared, teacher=True), teacher)
    assert verify_output(prepared, public, teacher) == []
    fragment = next(f for f in sorted((public / "pagefind" / "fragment").iterdir())
                    if b'"url":"/beta.html"' in gzip.decompress(f.read_bytes()))
    signature, brace, document = gzip.decompress(fragment.read_bytes()).partition(b"{")
    data = json.loads(brace + document)
    data["content"] += " " + search.search_terms(TEACHER_PHRASE)  # compressed, in pairs, as Pagefind holds it
    fragment.write_bytes(gzip.compress(signature + json.dumps(data, ensure_ascii=False).encode()))
    found = [str(p) for p in verify_output(prepared, public, teacher)]
    assert any(f.startswith(f"_site/pagefind/fragment/{fragment.name}:: teacher note from content/pages/alpha.md:")
               for f in found), found
    shutil.rmtree(public)


def test_an_edit_reindexes_only_its_shard(tmp_path, monkeypatch):
    """Pagefind cannot add a page to an index: the index comes in shards cached by their documents,
    so changing one page runs Pagefind on its shard alone, and the site gets every shard."""
    monkeypatch.setattr(search_index, "SHARD_PAGES", 2)
    runs: list[list[str]] = []
    real_run = search_index._run_pagefind
    monkeypatch.setattr(search_index, "_run_pagefind", lambda docs, out: (runs.append(list(docs)), real_run(docs, out)))
    docs = {f"p{n}.html": search._document([f"<h1>第{n}页</h1><p>{search.search_terms(f'缓存第{n}段')}</p>"])
            for n in range(5)}
    cache = tmp_path / "cache"
    first = search_index.index_documents(docs, cache)
    assert len(first) == 3
    assert sorted(map(sorted, runs)) == [["p0.html", "p1.html"], ["p2.html", "p3.html"], ["p4.html"]]
    runs.clear()
    second = search_index.index_documents({**docs, "p2.html": docs["p2.html"].replace("段", "节")}, cache)
    assert runs == [["p2.html", "p3.html"]]
    assert second[0] == first[0] and second[2] == first[2] and second[1] != first[1]
    site = tmp_path / "site"
    search_index.place_bundle(second, site)
    assert json.loads((site / "pagefind" / search_index.SHARDS_FILE).read_text()) == ["shard-1/", "shard-2/"]
    assert all((site / "pagefind" / folder / "pagefind-entry.json").is_file() for folder in ("", "shard-1", "shard-2"))
    # the browser loads the script and the WebAssembly of the first shard alone (tests/browser/test_search.py
    # searches merged shards), and only for the index's one language
    assert sorted(p.name for p in (site / "pagefind").glob("*.*")) == \
        sorted(["pagefind.js", "pagefind-worker.js", "pagefind-entry.json", "wasm.en.pagefind", "shards.json",
                "synonyms.json", next((site / "pagefind").glob("*.pf_meta")).name])
    assert sorted(p.name for p in (site / "pagefind" / "shard-1").glob("*.*")) == \
        sorted(["pagefind-entry.json", next((site / "pagefind" / "shard-1").glob("*.pf_meta")).name])


def test_documents_kept_between_builds_are_made_again_when_their_inputs_change(tmp_path, monkeypatch):
    """A page's document comes from the cache only while its source, every title and the evidence are unchanged."""
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    evidence = fake_evidence(tmp_path / "figures")
    cache = tmp_path / "cache"
    made: list[str] = []
    real_document = search.page_document
    monkeypatch.setattr(search, "page_document", lambda page, *rest: (made.append(page.meta.id),
                                                                      real_document(page, *rest))[1])
    assert search.site_documents(prepare_site(project, evidence), cache) == search.site_documents(
        prepare_site(project, evidence))
    made.clear()
    alpha = project / "content" / "pages" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("进一步的解释文字", "改过的解释文字"), encoding="utf-8")
    docs = search.site_documents(prepare_site(project, evidence), cache)
    assert made == ["alpha"] and search.search_terms("改过的解释文字") in docs["alpha.html"]
    made.clear()
    beta = project / "content" / "pages" / "beta.md"
    beta.write_text(beta.read_text(encoding="utf-8").replace("title: 第二课", "title: 第二课（改）"), encoding="utf-8")
    search.site_documents(prepare_site(project, evidence), cache)
    assert made == ["index", "alpha", "beta"], "a title is shown wherever a page links to it"
