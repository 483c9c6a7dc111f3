"""The search stage's text: what gets indexed, and the check that no teacher note gets there."""

from __future__ import annotations

import shutil
from pathlib import Path

from sitekit import fake_evidence

from site_builder import prepare_site, render_site, search, write_site
from site_builder.verify import verify_output

FIXTURE = Path(__file__).parent / "fixtures" / "basic"
TEACHER_PHRASE = "先指左边的方框再指右边的箭头然后翻页"  # in alpha.md's teacher note


def test_pairs_cut_every_chinese_run_and_leave_the_rest():
    assert search.search_terms("键值缓存") == "键值 值缓 缓存"
    assert search.search_terms("缓") == "缓"
    assert search.search_terms("KV 缓存，字节。") == "KV 缓存 ， 字节 。"


def test_documents_hold_titles_states_and_public_text_only(tmp_path):
    prepared = prepare_site(FIXTURE, fake_evidence(tmp_path / "figures"))
    docs = search.site_documents(prepared)
    assert list(docs) == ["index.html", "alpha.html", "beta.html", "numbers.html", "sources.html"]
    alpha = docs["alpha.html"]
    assert '<h1 data-pagefind-weight="10">' + search.search_terms("第一课：缓存") + "</h1>" in alpha
    assert 'id="alpha-b0"' in alpha and 'id="extra"' in alpha
    assert search.search_terms("进一步的解释文字") in alpha
    assert search.search_terms(TEACHER_PHRASE) not in alpha
    assert search.search_terms(TEACHER_PHRASE[:8]) not in alpha


def test_check_finds_a_teacher_note_in_the_search_text(tmp_path, monkeypatch):
    prepared = prepare_site(FIXTURE, fake_evidence(tmp_path / "figures"))
    public, teacher = tmp_path / "_site", tmp_path / "_site-teacher"
    write_site(render_site(prepared, teacher=False), public)
    write_site(render_site(prepared, teacher=True), teacher)
    assert verify_output(prepared, public, teacher) == []
    real = search.site_documents

    def leaky(prepared):
        docs = real(prepared)
        docs["beta.html"] = docs["beta.html"].replace("</main>", f"<p>{search.search_terms(TEACHER_PHRASE)}</p></main>")
        return docs

    monkeypatch.setattr(search, "site_documents", leaky)
    found = [str(p) for p in verify_output(prepared, public, teacher)]
    assert any(f.startswith("_site/pagefind (search text of beta.html): teacher note from content/pages/alpha.md:")
               for f in found), found
    shutil.rmtree(public)
