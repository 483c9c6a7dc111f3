"""404.html works at any depth and on any host serving the site at its path: its links and assets start
at base_url's path (same origin wherever it is served), each names a file of the site, and its own
security policy ('self') allows every one of them."""

from __future__ import annotations

import re

from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.write.writer import write_site as write_output

PAGE = lesson(":::{state} b0\n:title: 开始\n:provenance: teaching\n\n正文。\n:::\n")


def test_the_not_found_page_links_from_the_sites_path(tmp_path):
    write_site(tmp_path, {"index": "---\ntitle: 总览\nkind: index\n---\n欢迎。\n", "a": PAGE})  # at https://example.org/c/
    prepared = prepare_site(tmp_path, fake_evidence(tmp_path / "figs"))
    out = tmp_path / "_site"
    write_output(render_site(prepared, teacher=False), out)
    page = (out / "404.html").read_text(encoding="utf-8")
    urls = [url for url in re.findall(r'(?:href|src)="([^"]*)"', page) if not url.startswith("#")]
    assert urls and "https://example.org" not in page
    assert all(url.startswith("/c/") for url in urls), urls
    assert all((out / url.removeprefix("/c/").split("#")[0]).is_file() for url in urls), urls
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src 'self'" in policy and "style-src 'self'" in policy and "img-src 'self'" in policy
