"""The bottom layer (site_builder/vocabulary): atomic writing and the one URL allowlist with its scanner."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.vocabulary.atomic import write_atomic
from site_builder.vocabulary.urls import UnsafeOutputError, allowed_url, check_html, url_problems

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


def test_the_scanner_finds_urls_in_every_attribute_form():
    page = ("<a href='javascript:x'>a</a><img src=javascript:y><svg><a xlink:href=\"&#106;avascript:z\"/></svg>"
            "<math><mrow href=\"vbscript:w\"/></math><form action=\"//evil\"></form><iframe srcdoc=\"x\"></iframe>"
            "<script src=\"static/site.js\">if (a<b) { x = '<a href=\"javascript:no\">' }</script>"
            "<p>&lt;a href=\"javascript:text\"&gt;</p><image xlink:href=\"data:image/png;base64,AAAA\"/>")
    assert url_problems(page, images=True) == [
        "<a href='javascript:x'>", "<img src=javascript:y>", '<a xlink:href="&#106;avascript:z">',
        '<mrow href="vbscript:w">', '<form action="//evil">', '<iframe srcdoc="x">']


ATTRIBUTE_NAMES = ["href", "HREF", "src", "xlink:href", "action", "formaction", "srcset", "data", "title", "class",
                   "alttext", "data-x", "poster", "SrC", "srcdoc"]


VALUES = ["javascript:alert(1)", " JaVaScRiPt:x", "java&#x73;cript:x", "&#106;avascript:x", "data:text/html,x",
          "//evil", "\\\\evil", "/etc/passwd", "../x", "a.png 1x, javascript:x 2x", "https://example.org/",
          "numbers.html#x", "#b0", "static/site.css", "mailto:a@b.org", "x = \\frac{a}{b}", "注意：内容", "", "a=b"]


@st.composite
def markup(draw) -> str:
    """Tags with URL and other attributes in every quoting, between text, script and escaped look-alikes."""
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        name, value = draw(st.sampled_from(ATTRIBUTE_NAMES)), draw(st.sampled_from(VALUES))
        quoted = draw(st.sampled_from([f'"{value}"', f"'{value}'", value.replace(" ", "") or "x"]))
        space = draw(st.sampled_from(["", " ", "\n"]))
        parts.append(draw(st.sampled_from([
            f"<a {name}{space}={space}{quoted}>x</a>", f"<mrow title=\"t\" {name}={quoted}/>",
            f"<p>{name}={quoted}</p>", f"<script>var s = '<a {name}={quoted}>'</script>",
            f"<img alt='{value}' {name}={quoted}>", f"text = {value}"])))
    return "".join(parts)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(page=markup())
def test_the_fast_check_never_passes_what_the_full_scan_refuses(page):
    problems = url_problems(page)
    if problems:
        with pytest.raises(UnsafeOutputError):
            check_html("x.html", page.encode())
    else:
        check_html("x.html", page.encode())
