"""The URL allowlist's fast check (urls ``_surely_allowed``) passes the pages the build makes: a page it refuses
is parsed tag by tag, about three times the cost, and one attribute on every page (the search box's
``aria-keyshortcuts="/"``) once sent every public page there."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import fake_evidence

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary import urls

FIXTURE = Path(__file__).parent / "fixtures" / "basic"


@pytest.mark.parametrize("teacher", [False, True])
def test_every_page_of_both_sites_passes_the_fast_check(tmp_path, teacher):
    files = render_site(prepare_site(FIXTURE, fake_evidence(tmp_path / "figures")), teacher=teacher)
    pages = {name: data for name, data in files.items() if name.endswith(".html") and name != "404.html"}
    assert {"index.html", "alpha.html", "beta.html", "numbers.html"} <= set(pages)
    assert [name for name, data in pages.items() if not urls._surely_allowed(data)] == []


def test_the_search_key_is_no_url_but_a_path_leaving_the_site_still_is():
    assert urls._surely_allowed(b'<input aria-keyshortcuts="/">')
    assert not urls._surely_allowed(b'<a href="/">')
    assert not urls._surely_allowed(b'<a aria-keyshortcuts="/" href="/etc">')


@pytest.mark.parametrize("value", ['"page-0004-b1"', '"#page-0004-b1"', '"page-0004.html"', '"#.."', '"."', '""',
                                   '"..."', '".."', '"a/b"', '"a:b"', '"&#47;x"', '"a b"', '"/x"'])
def test_a_plain_name_passes_at_once_only_where_the_full_check_allows_it(value):
    """Ids and names in the page's folder skip the unescaping and the word split, never to another verdict."""
    if urls._FRAGMENT.fullmatch(value.encode()):
        assert urls.allowed_url(value[1:-1]) and value != '".."'
    assert urls._value_allowed(value.encode()) == (urls.allowed_url(value[1:-1].replace("&#47;", "/"))
                                                   and all(urls.allowed_url(w) for w in value[1:-1].split()))
