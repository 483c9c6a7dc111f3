"""The bottom layer (site_builder/vocabulary): atomic writing and the one URL allowlist with its scanner."""

from __future__ import annotations

import os

import pytest

from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.urls import allowed_attribute, allowed_url, url_problems

# ---------------------------------------------------------------------------
# The one atomic write (site_builder/vocabulary/atomic.py): old or new, never half, nothing left behind.


def test_writes_text_and_bytes_and_makes_the_folder(tmp_path):
    write_atomic(tmp_path / "a" / "b.txt", "缓存\n")
    write_atomic(tmp_path / "a" / "c.bin", b"\x00\x01")
    assert (tmp_path / "a" / "b.txt").read_text(encoding="utf-8") == "缓存\n"
    assert (tmp_path / "a" / "c.bin").read_bytes() == b"\x00\x01"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_scratch(tmp_path, monkeypatch):
    target = tmp_path / "manifest.json"
    target.write_text("old")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


@pytest.mark.parametrize(("url", "allowed"), [
    ("https://example.org/a?b#c", True), ("HTTP://example.org", True), ("mailto:a@b.org", True),
    ("numbers.html#exp.diff", True), ("#b0", True), ("figures/x.svg", True), ("?q=1", True), ("", True),
    ("javascript:alert(1)", False), (" JaVaScRiPt:x", False), ("java\tscript:x", False), ("\x01javascript:x", False),
    ("data:text/html,x", False), ("data:image/png;base64,AAAA", False), ("//evil.example", False),
    ("\\\\evil.example", False), ("/etc/passwd", False), ("../x.html", False), ("a/../../x", False),
    ("ftp://x", False), ("blob:https://x", False),
])
def test_the_allowlist(url, allowed):
    assert allowed_url(url) is allowed


def test_the_guard_finds_urls_in_every_attribute_form():
    page = ("<a href='javascript:x'>a</a><img src=javascript:y><svg><a xlink:href=\"&#106;avascript:z\"/></svg>"
            "<math><mrow href=\"vbscript:w\"/></math><form action=\"//evil\"></form><iframe srcdoc=\"x\"></iframe>"
            "<script src=\"static/site.js\">if (a<b) { x = '<a href=\"javascript:no\">' }</script>"
            "<p>&lt;a href=\"javascript:text\"&gt;</p><img srcset=\"a.png 1x, //evil 2x\" alt=\"&quot;\">")
    assert url_problems(page.encode()) == [
        '<a href="javascript:x">', '<img src="javascript:y">', '<a xlink:href="javascript:z">',
        '<mrow href="vbscript:w">', '<form action="//evil">', '<iframe srcdoc="x">',
        '<img srcset="a.png 1x, //evil 2x">']


@pytest.mark.parametrize("page", [
    # A quote that does not pair up: a scanner of patterns lost track of where values end (both got through).
    '<a title="x alttext="y" href="javascript:alert(1)">', '<a title=a=" href="javascript:alert(1)">',
    "<a data-x='x/ alttext=\"' href=\"javascript:alert(1)\" y='z'>",
    # A comment or a script ends where a browser says, not at the next quote or at '</script>' alone.
    '<!-- <a title=" --> <a href="javascript:c"> " -->', '<script>x="</script foo><a href=javascript:s>"</script>',
    # Links that no link attribute holds: an SVG animation, a page sending the reader on, markup set aside.
    '<svg><set attributeName="href" to="javascript:x"/></svg>', '<meta http-equiv="Refresh" content="0;url=//evil">',
    '<template><a href="javascript:t">x</a></template>',
    '<a href="java&#x09;script:x">', '<a HREF="  /etc/passwd">', '<base href="//evil/">',
    # Markup a browser reads one way when scripts run and another when they do not (found in review).
    '<noscript><p title="</noscript><a href=//evil/x>">x</p></noscript>',
    # Dots written as %2e climb as '..' does; lists of URLs are judged URL by URL (found in review).
    '<a href="%2e%2e/%2e%2e/etc">', '<a href=".%2E/x">', '<a href="a.html" ping="b.html /evil/ping">',
    '<link rel="preload" as="image" href="a.png" imagesrcset="/evil/x.png 1x" imagesizes="1px">',
])
def test_what_a_browser_would_follow_is_refused_however_it_is_written(page):
    assert url_problems(page.encode()), page


def test_what_only_looks_like_a_link_passes():
    page = ('<p title="href=javascript:x" data-x=\'src="//evil"\'>javascript:x</p><code>&lt;a href="/etc"&gt;</code>'
            '<math alttext="f: X \\to Y"><mi>x</mi></math><input aria-keyshortcuts="/"><a href="numbers.html#x">n</a>'
            '<textarea><a href="javascript:ta"></textarea><svg><path style="fill: #fff" d="M 0 0"/></svg>')
    assert url_problems(page.encode()) == []


def test_a_page_s_encoding_is_read_as_a_browser_reads_it():
    assert url_problems('<a href="javascript:x">x</a>'.encode("utf-16")) == ['<a href="javascript:x">']


def test_a_url_list_is_judged_url_by_url_from_the_page_s_root():
    assert allowed_attribute("img", "srcset", "../a.png 1x, ../b.png 2x", root="../")
    assert not allowed_attribute("img", "srcset", "../a.png 1x, ../../b.png 2x", root="../")
    assert not allowed_attribute("a", "href", "/c/%2e%2e/%2e%2e/etc", root="/c/")


SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def test_a_figure_is_read_as_xml_with_its_namespaces():
    """A browser opening the SVG resolves prefixes: so does the guard."""
    assert url_problems(f'{SVG} xmlns:l="http://www.w3.org/1999/xlink"><a l:href="javascript:x"/></svg>'.encode(),
                        images=True) == ['<a xlink:href="javascript:x">']
    assert url_problems(b"<svg><a href='#x'></svg>", images=True)[0].startswith("not well-formed XML")


@pytest.mark.parametrize("figure", [
    # What expat reads unlike a browser: a DTD's own declarations (a parameter entity it skips), an instruction.
    '<!DOCTYPE svg [<!ENTITY % p "<!ENTITY j \'javascript:x\'>"> %p;]>' + SVG + '><a href="&j;"/></svg>',
    '<!DOCTYPE svg [<!ENTITY j "javascript:x">]>' + SVG + '><a href="&j;"/></svg>',
    '<?xml-stylesheet type="text/css" href="/evil/x.css"?>' + SVG + '/>',
    # A figure opened by itself has no page's Content-Security-Policy: handlers run, styles fetch.
    SVG + ' onload="location.href=1"/>', SVG + '><path fill="url(/evil/p.svg#g)"/></svg>',
    SVG + '><style>@import url(x.css);</style></svg>', SVG + '><path style="fill: u\\72l(//evil)"/></svg>',
    SVG + '><path style="fill: image-set(\'/evil.png\' 1x)"/></svg>',
    SVG + ' xmlns:l="http://www.w3.org/1999/xlink"><a xlink:href="#"><set attributeName="l:href" to="javascript:x"/>'
          '</a></svg>',
])
def test_what_a_figure_opened_by_itself_would_follow_is_refused(figure):
    assert url_problems(figure.encode(), images=True), figure


def test_what_matplotlib_writes_passes():
    figure = (f'<?xml version="1.0" encoding="utf-8" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"'
              f' "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n{SVG}><defs><style type="text/css">'
              '*{stroke-linejoin: round}</style><clipPath id="p1"><rect/></clipPath></defs><path clip-path="url(#p1)" '
              'style="fill: #fff"/><use xlink:href="#m1"/><image xlink:href="data:image/png;base64,iVBORw0KGgo="/>'
              '</svg>')
    assert url_problems(figure.encode(), images=True) == []
