"""Hostile and odd inputs, second round (issue 18): each case of the report, with its expected outcome.

A script URL through math; FIFOs and symlinks in content/ (build and dev server); nesting past
markdown-it's limit; dollar signs in prose; dev-server disconnects, bursts and Host headers; bidi
controls in titles. Nothing may leave a traceback, hang (every build runs under a time limit), or
put a URL outside the allowlist into either site.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest
from devclient import EventStream
from hypothesis import given, settings
from hypothesis import strategies as st
from sitekit import fake_evidence, lesson, time_limit, write_site

import build
from site_builder.engine.builder import Engine, Output
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.markdown import make_markdown
from site_builder.serve.server import DevServer, EvidenceSource
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import UnsafeOutputError, allowed_url, check_html, page_root, url_problems
from site_builder.write.writer import write_site as write_output

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"
P = "content/pages/x.md"
LIMIT_S = 30  # a build of these small sites takes well under a second: thirty means a hang
SECRET = "root:x:0:0:SECRET-LINE"


def state(body: str = "正文。", title: str = "一") -> str:
    return f":::{{state}} b0\n:title: {title}\n:provenance: teaching\n\n{body}\n:::\n"


def problems_of(root: Path) -> list[str]:
    with time_limit(LIMIT_S), pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(root / "fig"))
    return [str(p) for p in caught.value.problems]


def both_sites(root: Path) -> dict[str, str]:
    """Both sites written to disk; every HTML and SVG file of each, by path."""
    with time_limit(LIMIT_S):
        prepared = prepare_site(root, fake_evidence(root / "fig"))
        for teacher, out in ((False, root / "_site"), (True, root / "_site-teacher")):
            write_output(render_site(prepared, teacher=teacher), out)
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8")
            for out in (root / "_site", root / "_site-teacher") for path in sorted(out.rglob("*"))
            if path.suffix in (".html", ".svg")}


def assert_no_unsafe_url(files: dict[str, str]) -> None:
    found = [f"{name}: {p}" for name, text in files.items()
             for p in url_problems(text, images=name.endswith(".svg"),
                                   root=page_root(text) if name.endswith("404.html") else "")]
    assert not found, "\n".join(found[:20])


# --------------------------------------------------------------------------- 1. URLs: one allowlist, every output


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
                                 "data:text/html,x", "vbscript:x"])
def test_script_url_in_math_is_refused_with_its_line(tmp_path, url):
    write_site(tmp_path, {"x": lesson(state(body=f"公式 $\\href{{{url}}}{{x}}$。"))})
    assert problems_of(tmp_path) == [
        f"{P}:8: cannot render math '\\href{{{url}}}{{x}}': link '{url}' is not allowed: \\href takes an https:// "
        "URL or a page of this site"]


def test_https_link_in_math_builds_and_both_sites_are_clean(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="公式 $\\href{https://example.org/}{x}$。"))})
    files = both_sites(tmp_path)
    assert '<mrow href="https://example.org/">' in files["_site/x.html"]
    assert '<mrow href="https://example.org/">' in files["_site-teacher/x.html"]
    assert_no_unsafe_url(files)


@pytest.mark.parametrize(("markdown", "message"), [
    ("[下载](ftp://example.org/x)", "link 'ftp://example.org/x' uses a scheme the site does not allow: give a full "
                                    "https:// URL, or link to a page with {ref}`id`"),
    ("<tel:123>", "link 'tel:123' uses a scheme the site does not allow: give a full https:// URL, or link to a page "
                  "with {ref}`id`"),
])
def test_markdown_links_with_other_schemes_are_refused(tmp_path, markdown, message):
    write_site(tmp_path, {"x": lesson(state(body=markdown))})
    assert problems_of(tmp_path) == [f"{P}:8: {message}"]


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


def test_real_course_both_sites_only_hold_allowed_urls(tmp_path):
    evidence, _ = build.measure_and_draw()
    prepared = prepare_site(ROOT, evidence)
    scanned = 0
    for teacher, out in ((False, tmp_path / "_site"), (True, tmp_path / "_site-teacher")):
        write_output(render_site(prepared, teacher=teacher), out)
        every = [p for p in sorted(out.rglob("*")) if p.is_file()]
        # Markup a browser would parse is HTML or SVG here; any other markup type would escape the scan.
        assert not [p for p in every if p.suffix in (".htm", ".xhtml", ".xml", ".mml", ".svgz", ".xsl")]
        files = {str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8") for p in every
                 if p.suffix in (".html", ".svg")}
        assert_no_unsafe_url(files)
        scanned += len(files)
    assert scanned >= 2 * (len(prepared.pages) + len(evidence.figures))


# --------------------------------------------------------------------------- 2. only regular files inside content/


def secret_outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(f"{SECRET}\nsecond line\n", encoding="utf-8")
    return secret


def site_with_zz(root: Path) -> Path:
    """A site listing page zz, whose file the test then replaces."""
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, zz]\n"
    write_site(root, {"x": lesson(state()), "zz": lesson(state())}, site_yml=site)
    path = root / "content" / "pages" / "zz.md"
    path.unlink()
    return path


@pytest.mark.parametrize(("kind", "message"), [
    ("fifo", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
    ("link-out", "content/pages/zz.md: is a link to a file outside content/: copy the file here instead"),
    ("dangling", "content/pages/zz.md: is a link to nothing: remove it or copy the file here"),
    ("folder", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
    ("link-to-fifo", "content/pages/zz.md: is not a regular file: save the text in an ordinary file"),
])
def test_special_files_are_refused_once_without_blocking(tmp_path, kind, message):
    page = site_with_zz(tmp_path)
    if kind == "fifo":
        os.mkfifo(page)
    elif kind == "link-out":
        page.symlink_to(secret_outside(tmp_path))
    elif kind == "dangling":
        page.symlink_to(tmp_path / "nowhere.md")
    elif kind == "folder":
        page.mkdir()
    else:
        os.mkfifo(tmp_path / "content" / "pages" / "pipe")
        page.symlink_to("pipe")
    assert problems_of(tmp_path) == [message]  # and no "must start with front matter", no "no page 'zz'"


@pytest.mark.parametrize("what", ["site.yml", "records/r.json"])
def test_fifo_config_and_record_are_refused_once(tmp_path, what):
    write_site(tmp_path, {"x": lesson(state())})
    path = tmp_path / "content" / what
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    assert problems_of(tmp_path) == [f"content/{what}: is not a regular file: save the text in an ordinary file"]


@pytest.fixture
def dev_server(tmp_path: Path):
    shutil.copytree(FIXTURE, tmp_path / "content")
    evidence = fake_evidence(tmp_path / "figs")
    said: list[str] = []
    server = DevServer(Engine(tmp_path, (Output(True, tmp_path / "out"),), serving=True),
                       EvidenceSource(lambda: evidence),
                       watch=[tmp_path / "content"], port=0, log=said.append)
    yield tmp_path, server, said
    server.stop()


def list_zz(root: Path) -> Path:
    site = root / "content" / "site.yml"
    site.write_text(site.read_text(encoding="utf-8").replace("pages: [index, alpha, beta]",
                                                             "pages: [index, alpha, beta, zz]"), encoding="utf-8")
    return root / "content" / "pages" / "zz.md"


def test_dev_server_starts_with_a_fifo_page_and_recovers(dev_server):
    root, server, said = dev_server
    os.mkfifo(list_zz(root))
    with time_limit(LIMIT_S):
        server.start()  # used to block for ever reading the FIFO for the overlay's context lines
    assert [p["text"] for p in server.failure["problems"]] == [  # the overlay speaks the course's language
        "content/pages/zz.md: 不是普通文件：请把文字存进普通文件"]
    stream = EventStream(server.port)
    try:
        assert stream.wait_for("hello")["failing"] is True
        (root / "content" / "pages" / "zz.md").unlink()
        (root / "content" / "pages" / "zz.md").write_text(lesson(state()), encoding="utf-8")
        assert stream.wait_for("reload", seconds=LIMIT_S)["build"] == 1  # the first good build
        assert server.failure is None
    finally:
        stream.close()


def test_a_fifo_appearing_while_serving_does_not_stop_rebuilding(dev_server):
    root, server, said = dev_server
    server.start()
    stream = EventStream(server.port)
    try:
        stream.wait_for("hello")
        os.mkfifo(list_zz(root))
        failure = stream.wait_for("build-error", seconds=LIMIT_S)
        assert [p["text"] for p in failure["problems"]] == [
            "content/pages/zz.md: 不是普通文件：请把文字存进普通文件"]
        (root / "content" / "pages" / "zz.md").unlink()
        (root / "content" / "pages" / "zz.md").write_text(lesson(state()), encoding="utf-8")
        assert stream.wait_for("reload", seconds=LIMIT_S)["build"] == 2
    finally:
        stream.close()


def test_dev_server_never_shows_a_refused_links_target(dev_server):
    root, server, said = dev_server
    list_zz(root).symlink_to(secret_outside(root))
    with time_limit(LIMIT_S):
        server.start()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/__dev/errors")
    errors = connection.getresponse().read().decode()
    connection.close()
    assert [p["text"] for p in json.loads(errors)["problems"]] == [
        "content/pages/zz.md: 是指向 content/ 以外文件的链接：请把文件复制到这里"]
    assert SECRET not in errors and not any(SECRET in line for line in said)


def test_overlay_context_is_read_only_from_regular_files_inside_content(tmp_path):
    from site_builder.serve.server import problem_report
    from site_builder.vocabulary.problems import Problem

    secret = secret_outside(tmp_path)
    (tmp_path / "content" / "pages").mkdir(parents=True)
    (tmp_path / "content" / "pages" / "link.md").symlink_to(secret)
    os.mkfifo(tmp_path / "content" / "pages" / "pipe.md")
    (tmp_path / "content" / "pages" / "ok.md").write_text("a\nb\nc\n", encoding="utf-8")
    with time_limit(LIMIT_S):
        for path in ("content/pages/link.md", "content/pages/pipe.md", "content/../outside/passwd"):
            assert problem_report(Problem(path, 1, "m"), tmp_path)["context"] == []
        assert [c["text"] for c in problem_report(Problem("content/pages/ok.md", 2, "m"), tmp_path)["context"]] \
            == ["a", "b", "c", ""]


# --------------------------------------------------------------------------- 3. nesting past the parser's limit


def test_nesting_past_the_limit_is_an_error_at_the_line_it_is_reached(tmp_path):
    deep = "".join("  " * i + f"- 第 {i} 层\n" for i in range(14))  # level 20 is reached at 第 9 层, line 14
    write_site(tmp_path, {"x": lesson("\n" + deep + "\n" + state())})
    assert problems_of(tmp_path) == [
        f"{P}:14: nesting too deep here (lists, quotes and directives more than 20 levels inside each other): "
        "everything from this line to the end of the enclosing block would be lost; flatten the structure"]


def test_deep_quotes_are_an_error_too(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="> " * 25 + "深处"))})
    assert [p.split(": ", 1)[0] for p in problems_of(tmp_path)] == [f"{P}:8"]


def test_nesting_within_the_limit_builds(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="".join("  " * i + f"- 第 {i} 层\n" for i in range(8))))})
    assert "第 7 层" in both_sites(tmp_path)["_site/x.html"]


# --------------------------------------------------------------------------- 4. dollar signs


def body_html(tmp_path: Path, body: str) -> str:
    write_site(tmp_path, {"x": lesson(state(body=body))})
    html = both_sites(tmp_path)["_site/x.html"]
    return html[html.index('<div class="state-body'):html.index("</section>")]


@pytest.mark.parametrize(("text", "shown"), [
    ("价格：$5 或 $ 10，今天。", "价格：$5 或 $ 10，今天。"),
    ("从 $5 涨到 $10。", "从 $5 涨到 $10。"),  # the closing $ would be followed by a digit
    ("花了 \\$5，又花了 \\$6。", "花了 $5，又花了 $6。"),
    ("a $ b$ c", "a $ b$ c"),
])
def test_dollar_signs_in_prose_stay_text(tmp_path, text, shown):
    html = body_html(tmp_path, text)
    assert shown in html and "<math" not in html


def test_inline_math_still_works_next_to_dollar_signs(tmp_path):
    html = body_html(tmp_path, "单价 \\$5，公式 $x_1$，与 $\\$$ 本身。")
    assert "单价 $5" in html and html.count("<math") == 2


@pytest.mark.parametrize("body", ["一段文字\n$$\nx^2\n$$\n之后", "- 列表项\n  $$\n  x^2\n  $$\n",
                                  "> 引文\n$$\nx^2\n$$\n"])
def test_display_math_right_after_a_paragraph_line_is_recognised(tmp_path, body):
    html = body_html(tmp_path, body)
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"') == 1
    assert "$" not in html


def test_display_math_opened_on_a_paragraph_line_is_an_error_and_builds_after_a_blank_line(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="一段文字\n$$x^2\n+ y$$"))})
    assert [p.split(": ", 1)[1].split(":")[0] for p in problems_of(tmp_path)] == ["'$$' in running text"] * 2
    assert body_html(tmp_path, "一段文字\n\n$$x^2\n+ y$$").count('display="block"') == 1


def test_display_dollars_inside_running_text_are_an_error(tmp_path):
    write_site(tmp_path, {"x": lesson(state(body="前文 $$x$$ 后文。"))})
    assert problems_of(tmp_path) == [
        f"{P}:8: '$$' in running text: leave a blank line before display math, or put each '$$' on a line of its "
        "own; for a dollar sign write \\$"]


@pytest.mark.parametrize("text", ["\n".join(["$$x"] * 8000), "\n\n".join(["$$x"] * 4000),
                                  "\\" * 100_000 + "$a" * 20_000, "$a " * 50_000])
def test_many_dollar_signs_do_not_make_parsing_quadratic(text):
    # 8000 lines of "$$x" took minutes when every paragraph line scanned ahead for a closing $$
    with time_limit(LIMIT_S):
        make_markdown().parse(text)


# --------------------------------------------------------------------------- 5. dev server


def raw_request(port: int, data: bytes, read: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(data)
        return client.recv(65536) if read else b""


def test_client_disconnects_leave_no_traceback(dev_server, capfd):
    _, server, said = dev_server
    server.start()
    for _ in range(48):  # slow headers: connect, send half a request, hang up
        raw_request(server.port, b"GET /alpha.html HTTP/1.1\r\nHost: 127.0", read=False)
    for _ in range(20):  # hang up hard (RST) before the answer is written
        client = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.sendall(f"GET /alpha.html HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        client.close()
    reply = raw_request(server.port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.0 200")  # still serving
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err
    assert not any("Traceback" in line for line in said)


def test_a_burst_of_concurrent_requests_is_all_answered(dev_server):
    _, server, _ = dev_server
    server.start()
    assert server._httpd.request_queue_size >= 100  # a browser's burst fits in the listen queue
    statuses: list[int] = []
    go = threading.Barrier(100)

    def fetch() -> None:
        go.wait()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=LIMIT_S)
        connection.request("GET", "/alpha.html")
        statuses.append(connection.getresponse().status)
        connection.close()

    threads = [threading.Thread(target=fetch) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LIMIT_S)
    assert statuses == [200] * 100


@pytest.mark.parametrize(("host", "status"), [
    ("127.0.0.1:{port}", 200), ("localhost:{port}", 200), ("LOCALHOST:{port}", 200), ("[::1]:{port}", 200),
    ("127.0.0.1:80@evil.example", 403), ("evil.example@127.0.0.1:{port}", 403), ("user:pw@localhost:{port}", 403),
    ("127.0.0.1:{other}", 403), ("127.0.0.1", 403), ("localhost.:{port}", 403), ("127.0.0.1.evil.example:{port}", 403),
    ("localhost:{port}:{port}", 403), ("[::1]evil:{port}", 403), ("127.0.0.1:{port} ", 200), ("", 403),
    ("localhost:+{port}", 403), ("0x7f.0.0.1:{port}", 403),
])
def test_host_header_is_parsed_strictly(dev_server, host, status):
    _, server, _ = dev_server
    server.start()
    header = host.format(port=server.port, other=server.port + 1)
    reply = raw_request(server.port, f"GET /alpha.html HTTP/1.1\r\nHost: {header}\r\n\r\n".encode())
    assert reply.split(b"\r\n", 1)[0].split(b" ")[1] == str(status).encode(), header


# --------------------------------------------------------------------------- 6. bidi and invisible controls


RLO = "\u202e"


@pytest.mark.parametrize(("pages", "site", "expected"), [
    ({"x": lesson(state(), front=f"title: 一课{RLO}txt.exe\n")}, None,
     f"{P}:2: front matter 'title' contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): "
     "delete them"),
    ({"x": lesson(state(), front="title: 一课\nlabel: R\u200b55\n")}, None,
     f"{P}:3: front matter 'label' contains invisible control characters (U+200B ZERO WIDTH SPACE): delete them"),
    ({"x": lesson(state(title=f"状态{RLO}一"))}, None,
     f"{P}:5: state b0 title contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): delete them"),
    ({"x": lesson(f"## 小节{RLO}\n\n" + state())}, None,
     f"{P}:4: heading contains invisible control characters (U+202E RIGHT-TO-LEFT OVERRIDE): delete them"),
    ({"x": lesson("## 小节 {#sec\u2066}\n\n" + state())}, None,
     f"{P}:4: heading contains invisible control characters (U+2066 LEFT-TO-RIGHT ISOLATE): delete them"),
    ({"x": lesson(state())}, f"title: 课{RLO}\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x]\n",
     "content/site.yml:1: site.yml 'title' contains invisible control characters (U+202E RIGHT-TO-LEFT "
     "OVERRIDE): delete them"),
])
def test_invisible_controls_in_titles_headings_and_ids_are_errors(tmp_path, pages, site, expected):
    write_site(tmp_path, pages, site_yml=site)
    assert problems_of(tmp_path) == [expected]


def test_new_lesson_neither_blocks_on_a_fifo_nor_writes_through_a_dangling_link(tmp_path):
    from site_builder.serve.scaffold import new_lesson

    shutil.copytree(FIXTURE, tmp_path / "content")
    (tmp_path / "content" / "pages" / "r9.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(ValueError, match=r"^content/pages/r9.md already exists: choose another id$"):
        new_lesson(tmp_path, "r9")
    assert not (tmp_path / "elsewhere.md").exists()
    (tmp_path / "content" / "site.yml").unlink()
    os.mkfifo(tmp_path / "content" / "site.yml")
    with time_limit(LIMIT_S), pytest.raises(ValueError) as refused:
        new_lesson(tmp_path, "r10")
    assert str(refused.value) == "content/site.yml is not a regular file: save the text in an ordinary file"


def test_base_url_must_be_a_web_address(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: javascript:alert(1)//\npages: [x]\n"
    write_site(tmp_path, {"x": lesson(state())}, site_yml=site)
    assert problems_of(tmp_path) == ["content/site.yml:3: site.yml 'base_url' must start with https:// or http://"]


def test_svg_figures_are_held_to_the_same_allowlist():
    good = (b'<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#m1"/>'
            b'<image xlink:href="data:image/png;base64,iVBORw0KGgo="/><path style="fill: #fff" d="M 0 0"/></svg>')
    check_html("figures/ok.svg", good, images=True)
    for bad in (b'<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
                b'<svg><image href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;"/></svg>',
                b'<svg><use xlink:href="https://evil.example/x.svg#a" /><a href = "//evil.example">x</a></svg>'):
        with pytest.raises(UnsafeOutputError):
            check_html("figures/bad.svg", bad, images=True)
