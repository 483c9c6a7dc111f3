"""Search: a Pagefind index of the public site only, and Chinese queries that find the right page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from site_builder import search


def test_index_self_test_fails_loudly_when_chinese_is_not_segmented(monkeypatch, tmp_path):
    search._check_chinese_segmentation()  # the installed Pagefind segments Chinese
    search._check_chinese_segmentation.cache_clear()
    monkeypatch.setattr(search, "_SELF_TEST_WORD", "存保")  # never a word of the sentence
    with pytest.raises(search.SearchIndexError, match="search self-test failed"):
        search._check_chinese_segmentation()
    search._check_chinese_segmentation.cache_clear()


NO_INDEX = "public site has no search index: build.py must write it with write_site(..., finish=index_site)"


def test_only_the_public_site_is_indexed(site):
    assert (site.public_dir / "pagefind" / "pagefind.js").is_file(), NO_INDEX
    assert not (site.teacher_dir / "pagefind").exists()
    for path in site.teacher_dir.glob("*.html"):
        assert "data-search" not in path.read_text(encoding="utf-8"), path
    # Pagefind's ready-made UIs are not shipped: the site has its own accessible search box.
    assert not (site.public_dir / "pagefind" / "pagefind-ui.js").exists()


def test_chinese_search_finds_the_right_page(site, open_tab):
    if site.search_probe is None:
        pytest.skip(f"{site.kind} site: none of the probe words is on its page any more")
    assert (site.public_dir / "pagefind" / "pagefind.js").is_file(), NO_INDEX
    word, page_name = site.search_probe
    tab = open_tab(site.url(False, "index.html"))
    page = tab.page
    box = page.get_by_role("searchbox", name="搜索课程")
    box.fill(word)
    results = page.locator("[data-search-list] a")
    expect(results.first).to_be_visible()
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert any(h.split("#")[0].endswith(page_name) for h in hrefs), (word, hrefs)
    expect(page.locator("[data-search-status]")).to_contain_text("找到")
    page.locator(f"[data-search-list] a[href*='{page_name}']").first.click()
    page.wait_for_url(f"**/{page_name}*")
    assert tab.errors == []
    box = page.get_by_role("searchbox", name="搜索课程")
    box.fill("zzqxjwvk")
    expect(page.locator("[data-search-status]")).to_contain_text("没有找到")
