"""Search on a site that lives under a sub-path (GitHub Pages: https://host/course/): every result,
from the first shard of the index and from the shards merged into it, links into that sub-path and
opens the page it names. Pagefind's command line records a page's URL from the site's root
(``/alpha.html``); the browser resolves it against the site's path as it did the relative URLs of
its ``--service`` (``alpha.html``)."""

from __future__ import annotations

import http.server
from pathlib import Path

from conftest import search_hrefs  # tests/browser/conftest.py

PREFIX = "/course/"


class _UnderPrefix(http.server.SimpleHTTPRequestHandler):
    """Serves the site under ``PREFIX`` only; any other path is a 404."""

    def log_message(self, *args) -> None:
        pass

    def translate_path(self, path: str) -> str:
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "__missing__")
        return super().translate_path("/" + path[len(PREFIX):])


def test_results_of_every_shard_link_into_the_sub_path_and_open_their_page(monkeypatch, tmp_path, open_tab):
    from conftest import serve_fixture_under

    from site_builder.render import search_index

    monkeypatch.setattr(search_index, "SHARD_PAGES", 2)  # alpha in the first shard, beta in the second
    root, public, server = serve_fixture_under(PREFIX, _UnderPrefix, tmp_path)
    assert (public / "pagefind" / "shard-1" / "pagefind-entry.json").is_file()
    try:
        tab = open_tab(root + "index.html")
        for word, page_name in (("缓存", "alpha.html"), ("继续", "beta.html")):
            hrefs = search_hrefs(tab.page, word)
            mine = [h for h in hrefs if h.split("#")[0] == PREFIX + page_name]
            assert mine, (word, hrefs)
            assert all(h.startswith(PREFIX) and "//" not in h for h in hrefs), hrefs
        tab.page.locator("[data-search-list] a").first.click()
        tab.page.wait_for_load_state()
        assert tab.page.url.startswith(root) and tab.page.url.split("#")[0].endswith(".html")
        assert "找不到" not in (tab.page.locator("h1").first.text_content() or "")
        assert tab.errors == []
    finally:
        server.shutdown()
