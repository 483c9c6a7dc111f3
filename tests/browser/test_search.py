"""Search: a Pagefind index of the public site only, and Chinese queries that find the right page first."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from site_builder.render import search

NO_INDEX = "public site has no search index: build.py must write it with write_site(..., finish=IndexJob.place)"


def test_index_and_query_cut_chinese_into_the_same_pairs():
    assert search.search_terms("键值缓存") == "键值 值缓 缓存"
    assert search.search_terms("缓存与 KV 缓存") == "缓存 存与 KV 缓存"
    assert search.search_terms("第 5 节，RoPE。") == "第 5 节 ， RoPE 。"
    # A word is found inside a longer run: its pair is one of the run's pairs.
    assert "缓存" in search.search_terms("模型把旧的键值缓存保留下来").split()


@pytest.mark.parametrize("site", ["fixture"], indirect=True)  # the rule is the script's, not a course's
def test_the_browser_cuts_a_query_exactly_as_the_index_is_cut(site, open_tab):
    """static/search-engine.js ``terms()`` against search.py ``search_terms()`` on random texts of the characters
    at every edge of the rule's ranges (Chinese, Chinese marks, curly quotes, … and —), Latin, digits, spaces."""
    import random

    ranges = search._CJK + search._CJK_PUNCT + search._SHARED_PUNCT
    alphabet = sorted({chr(c + step) for low, high in ranges for c in (low, high) for step in (-1, 0, 1)}
                      | set("键值缓存 aZ1"))
    rng = random.Random(22)
    texts = ["the “cache” — of it’s", "称为“KV cache”。", "是——缓存……", "（“KV”）"] + \
        ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(3000)]
    tab = open_tab(site.url(False, "index.html"))
    cut = tab.page.evaluate("([url, texts]) => import(url).then(engine => texts.map(engine.terms))",
                            [site.url(False, "static/search-engine.js"), texts])
    assert [(text, mine) for text, mine in zip(texts, cut, strict=True) if mine != search.search_terms(text)] == []


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's words
def test_search_documents_hold_public_text_with_anchored_states_and_no_teacher_notes(site, real_course):
    docs = (site.public_dir / "pagefind").is_dir()
    assert docs, NO_INDEX
    prepared = real_course
    documents = search.site_documents(prepared)
    assert set(documents) == {f"{p}.html" for p in prepared.pages} | {"numbers.html", "sources.html", "glossary.html",
                                                                       "figures.html"}
    for page_id, page in prepared.pages.items():
        document = documents[f"{page_id}.html"]
        for anchor, _, _ in page.anchors:
            assert f'id="{anchor}"' in document, (page_id, anchor)
        lines = page.source.split("\n")
        for start, end in page.teacher_spans:
            for line in lines[start + 1:end - 1]:
                for run in re.findall(r"[\u4e00-\u9fff]{8,}", line):
                    if run not in "\n".join(text for i, text in enumerate(lines)
                                            if not any(s <= i < e for s, e in page.teacher_spans)):
                        assert search.search_terms(run) not in document, (page_id, run)


def test_only_the_public_site_is_indexed(site):
    assert (site.public_dir / "pagefind" / "pagefind.js").is_file(), NO_INDEX
    assert not (site.teacher_dir / "pagefind").exists()
    for path in site.teacher_dir.glob("*.html"):
        assert "data-search" not in path.read_text(encoding="utf-8"), path
    # Pagefind's ready-made UIs are not shipped: the site has its own accessible search box.
    assert not (site.public_dir / "pagefind" / "pagefind-ui.js").exists()


def _search(page, term: str) -> list[str]:
    box = page.get_by_role("searchbox", name="搜索课程")
    box.fill(term)
    expect(page.locator("[data-search-status]")).to_contain_text(f"“{term}”：", timeout=15000)
    links = page.locator("[data-search-list] a")
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_chinese_search_finds_the_right_page(site, open_tab):
    assert (site.public_dir / "pagefind" / "pagefind.js").is_file(), NO_INDEX
    word, page_name = site.search_probe
    tab = open_tab(site.url(False, "index.html"))
    page = tab.page
    hrefs = _search(page, word)
    assert any(h.split("#")[0].endswith(page_name) for h in hrefs), (word, hrefs)
    expect(page.locator("[data-search-status]")).to_contain_text("找到")
    page.locator(f"[data-search-list] a[href*='{page_name}']").first.click()
    page.wait_for_url(f"**/{page_name}*")
    assert tab.errors == []
    assert _search(page, "zzqxjwvk") == []
    expect(page.locator("[data-search-status]")).to_contain_text("没有找到")


# The relevance set: a query and the page a reader expects first (its title or a state title holds
# the word, or the page is about it). Quoted queries are exact phrases. The pages write prefill and
# decode, as content/glossary.yml prefers.
RELEVANCE = [
    ("缓存", "cache-and-effective-context.html"),
    ("字节", "kv-bytes.html"),
    ("prefill", "resource-ledger.html"),
    ("decode", "resource-ledger.html"),
    ("资源账本", "resource-ledger.html"),
    ("内存带宽", "resource-ledger.html"),
    ("RoPE", "r55.html"),
    ("双向", "r55.html"),
    ("重算", "cache-and-effective-context.html"),  # its s04 compares the cached path with full recomputation
    ("失效", "r55.html"),
    ("有效上下文", "cache-and-effective-context.html"),
    ("“有效上下文”", "cache-and-effective-context.html"),
    ("字符流", "cache-and-effective-context.html"),
    ("GQA", "kv-bytes.html"),
    ("MQA", "kv-bytes.html"),
    # "当前状态" alone is in two lessons' titles (rc-v1 and kv-bytes), so which comes first is a coin
    # Pagefind tosses with every edit of either page; the question rc-v1's title asks is unambiguous.
    ("当前状态从哪里来", "rc-v1.html"),
    ("旧参数", "rc-v1.html"),
    ("新请求", "rc-v1.html"),
    ("阅读笔记", "index.html"),
]
NOWHERE = ["猫狗鹅", "缓存猫狗", "“RoPE 双向”", "zzqxjwvk"]
"""A made-up word, a real word next to a made-up one, and two words that occur but never side by side."""


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's words
def test_relevance_set_puts_the_expected_page_first(site, open_tab):
    tab = open_tab(site.url(False, "index.html"))
    misses = []
    for term, expected in RELEVANCE:
        word = term.strip("“”")
        source = (site.public_dir / expected.replace(".html", ".md")).read_text(encoding="utf-8")
        assert word in source, f"{expected} no longer contains {word!r}: update the relevance set"
        hrefs = _search(tab.page, term)
        if not hrefs or hrefs[0].split("#")[0].rsplit("/", 1)[-1] != expected:
            misses.append((term, expected, hrefs[:3]))
    assert misses == [], misses
    assert tab.errors == []


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's words
def test_words_that_occur_nowhere_find_nothing(site, open_tab):
    tab = open_tab(site.url(False, "index.html"))
    assert _search(tab.page, "RoPE 双向"), "both words occur (unquoted: on the same page is enough)"
    for term in NOWHERE:
        assert _search(tab.page, term) == [], term
        expect(tab.page.locator("[data-search-status]")).to_contain_text("没有找到")


def _text(html: str) -> str:
    """What a reader reads of some HTML: its text (tags dropped, references decoded), runs of white space as one."""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", "", html)).split())


def _commonest_word(site) -> str:
    """The two Chinese characters in a row that the most lessons' states hold in their prose (then the first
    found): a word that finds several pages, taken from the site rather than named here."""
    held: dict[str, int] = {}
    for name in dict.fromkeys(state.split("#")[0] for state in site.linked_states):
        states = (site.public_dir / name).read_text(encoding="utf-8").split('<section class="state" ', 1)[1]
        prose = " ".join(_text(paragraph) for paragraph in re.findall(r"<p>(.*?)</p>", states, re.S))
        for word in dict.fromkeys(run[i:i + 2] for run in re.findall(r"[\u4e00-\u9fff]{2,}", prose)
                                  for i in range(len(run) - 1)):
            held[word] = held.get(word, 0) + 1
    return max(held, key=held.get)


@pytest.mark.parametrize("site", ["real"], indirect=True)  # several lessons: a word found on more than one page
def test_quoted_word_and_results_read_as_text(site, open_tab):
    """A quoted word finds pages; titles and excerpts show the text, not the indexed pairs: each result's title is
    its page's heading as written, then the heading of the part it lands on as the page writes it."""
    word = _commonest_word(site)
    tab = open_tab(site.url(False, "index.html"))
    hrefs = _search(tab.page, f"“{word}”")
    titles = tab.page.locator("[data-search-list] a").all_inner_texts()
    assert hrefs and len(titles) == len(hrefs), (word, titles)
    for href, title in zip(hrefs, titles, strict=True):
        html = (site.public_dir / href.split("#")[0].rsplit("/", 1)[-1]).read_text(encoding="utf-8")
        # The headings as the page writes them, but for spaces: the index cannot tell the page's own spaces
        # around Chinese punctuation (“I gave” in a Chinese title) from those the pairs put there.
        page_title, _, part = title.partition(" · ")
        heading = _text(re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)[1])
        assert page_title.replace(" ", "") == heading.replace(" ", ""), (href, title, heading)
        assert part.replace(" ", "") in _text(html).replace(" ", ""), (href, title)  # no chained pairs
        assert not re.search(r" [，。、；：？！）”]", title), title  # no space the pairs added before ，
    _search(tab.page, word)
    excerpts = tab.page.locator("[data-search-list] .search-excerpt").all_inner_texts()
    marks = tab.page.locator("[data-search-list] .search-excerpt mark").all_inner_texts()
    assert excerpts and marks and all(word in m for m in marks), marks
    titles = tab.page.locator("[data-search-list] a").all_inner_texts()
    for title, excerpt in zip(titles, excerpts, strict=True):  # no excerpt starts inside the heading shown above it
        shown = title.rpartition(" · ")[2]
        assert not [n for n in range(3, len(shown) + 1) if excerpt.startswith(shown[-n:] + " ")], (title, excerpt)
    for excerpt in excerpts:
        # Chained pairs would read 缓存 存与 与有; joined back they read 缓存与有.
        assert not re.search(r"([\u4e00-\u9fff])([\u4e00-\u9fff]) \2", excerpt), excerpt
        assert not re.search(r"[，。、；：？！）”] ", excerpt), excerpt  # nor a space after 。 where a block ended


def test_a_sharded_index_is_searched_as_one(monkeypatch, tmp_path, open_tab):
    """Large sites are indexed in shards (an edit re-indexes one); the browser merges them."""
    from conftest import build_fixture_sites, serve

    from site_builder.render import search_index

    monkeypatch.setattr(search_index, "SHARD_PAGES", 2)
    public, _ = build_fixture_sites(tmp_path)
    assert (public / "pagefind" / "shard-1" / "pagefind-entry.json").is_file()
    url, server = serve(public)
    try:
        tab = open_tab(f"{url}/index.html")
        first_half = _search(tab.page, "缓存")  # alpha.html: in the first shard
        second_half = _search(tab.page, "继续")  # beta.html's second state: in the second shard
        assert any(h.split("#")[0].endswith("alpha.html") for h in first_half), first_half
        assert any(h.split("#")[0].endswith("beta.html") for h in second_half), second_half
        assert _search(tab.page, "猫狗鹅") == []
        assert tab.errors == []
    finally:
        server.shutdown()


def test_the_status_counts_every_page_found_and_a_button_lists_the_rest(tmp_path, open_tab):
    """Twelve pages hold the word; eight are listed, the status says twelve were found, and a button lists
    the other four."""
    from conftest import serve
    from sitekit import fake_evidence, lesson, write_site

    from site_builder.engine.pipeline import prepare_site, render_site
    from site_builder.render.search_index import index_site
    from site_builder.write.writer import write_site as write_output

    body = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n这一页讲缓存的第 %d 个例子。\n:::\n"
    root = write_site(tmp_path / "course", {f"p{n:02d}": lesson(body % n, front=f"title: 第 {n} 页\n")
                                           for n in range(12)})
    prepared = prepare_site(root, fake_evidence(tmp_path / "figures"))
    public = tmp_path / "public"
    write_output(render_site(prepared, teacher=False), public, finish=lambda staging: index_site(prepared, staging))
    url, server = serve(public)
    try:
        tab = open_tab(f"{url}/p00.html")
        first = _search(tab.page, "缓存")
        assert len(first) == 8
        assert tab.page.locator("[data-search-status]").text_content() == "“缓存”：找到 12 个页面，这里列出前 8 个"
        # the keys reach the button and come back from it
        more = tab.page.get_by_role("button", name="更多结果")
        tab.page.locator("[data-search-list] a").last.focus()
        tab.page.keyboard.press("ArrowDown")
        assert tab.page.evaluate("document.activeElement.textContent") == "更多结果"
        tab.page.keyboard.press("ArrowUp")
        assert _focused(tab.page) == first[-1]
        # the rest on asking (twice, in a hurry: listed once), after the first ones, the focus on the first of them,
        # and no button once all are shown
        more.dblclick()
        expect(tab.page.locator("[data-search-status]")).to_have_text("“缓存”：找到 12 个页面")
        links = tab.page.locator("[data-search-list] a")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        assert hrefs[:8] == first and len(hrefs) == len(set(hrefs)) == 12
        assert _focused(tab.page) == hrefs[8]
        assert tab.page.get_by_role("button", name="更多结果").count() == 0
        assert tab.errors == []
    finally:
        server.shutdown()


def _focused(page) -> str:
    return page.evaluate("document.activeElement.getAttribute('href') || document.activeElement.id")


def test_keys_reach_the_box_move_through_results_and_open_one(site, open_tab):
    """"/" goes to the box; ArrowDown/ArrowUp move focus between the box and the result links (so a
    screen reader reads each); Escape closes the list and returns; Enter opens the first result."""
    word, _page_name = site.search_probe
    tab = open_tab(site.url(False, "index.html"))
    page = tab.page
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("/")
    assert _focused(page) == "site-search-input"
    assert page.get_by_role("searchbox").input_value() == ""  # the key went to the box, not into it
    hrefs = _search(page, word)
    assert hrefs
    page.keyboard.press("ArrowDown")
    assert _focused(page) == hrefs[0]
    if len(hrefs) > 1:
        page.keyboard.press("ArrowDown")
        assert _focused(page) == hrefs[1]
        page.keyboard.press("ArrowUp")
        assert _focused(page) == hrefs[0]
    page.keyboard.press("ArrowUp")
    assert _focused(page) == "site-search-input"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert _focused(page) == "site-search-input"
    expect(page.locator("[data-search-results]")).to_be_hidden()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{hrefs[0].split('#')[0]}*")
    assert tab.errors == []


@pytest.mark.parametrize("site", ["real"], indirect=True)  # the real course's words and maths
def test_excerpts_are_plain_text_with_exact_highlights(site, open_tab):
    """No block marks, no ". " joins, no TeX in excerpts; every highlight is part of the Chinese query
    or of another wording the glossary gives its term (searched as a synonym)."""
    from site_builder.load.loader import load_content

    content, _ = load_content(Path(__file__).resolve().parents[2])
    queries = [w for t in content.glossary for w in t.words if re.fullmatch(r"[\u4e00-\u9fff]{2,}", w)]
    queries += ["有效上下文", "字节数公式", "层数"]
    tab = open_tab(site.url(False, "index.html"))
    for query in queries:
        _search(tab.page, query)
        items = tab.page.locator("[data-search-list] li")
        for i in range(items.count()):
            excerpt = items.nth(i).locator(".search-excerpt")
            text = excerpt.inner_text()
            assert "\u00b6" not in text and not re.search(r"\\[a-z]+|[\u4e00-\u9fff]\. ", text), (query, text)
            wordings = [query, *(w for t in content.glossary if query in t.words for w in t.words)]
            for mark in excerpt.locator("mark").all_inner_texts():
                assert any(mark.strip() in w for w in wordings), (query, mark, text)
    assert tab.errors == []
