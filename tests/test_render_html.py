"""HTML output (site_builder/render): states, values, maths, links, glossary, pictures, verify of the
fixture site, and the XSS corpus (as HTML and in Chromium)."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image
from sitekit import (
    SOURCES_YML,
    TIME_LIMIT_S,
    _state,
    assert_well_formed,
    fake_evidence,
    lesson,
    time_limit,
    write_site,
)

import build
from site_builder.check import images as images_module
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.load.evidence import evidence_from
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import site_root
from site_builder.write.verify import verify_output
from site_builder.write.writer import write_site as write_output

PAYLOADS = [
    "<script>window.__xss=1;alert(1)</script>",
    "<img src=x onerror=\"window.__xss=1;alert(1)\">",
    "\"><svg onload=\"window.__xss=1;alert(1)\">",
    "'><script>window.__xss=1</script>",
    "</title><script>window.__xss=1</script>",
    "</textarea></pre><script>window.__xss=1</script>",
    "javascript:window.__xss=1;alert(1)",
    "<a href=\"javascript:window.__xss=1\">x</a>",
    "<iframe srcdoc=\"<script>parent.__xss=1</script>\"></iframe>",
    "{{ 7*7 }}{% raw %}",
]


_INLINE = [p for p in PAYLOADS if "\n" not in p]


_YAML_QUOTED = [json.dumps(p, ensure_ascii=False) for p in _INLINE]  # a JSON string is a YAML double-quoted string


def _markdown_cases(payload: str, quoted: str) -> dict[str, dict]:
    """Where a payload can go in a page: case name → site (pages, sources)."""
    return {
        "front-title": {"x": f"---\ntitle: {quoted}\n---\n{_state()}"},
        "front-summary-label": {"x": f"---\ntitle: 一\nsummary: {quoted}\nlabel: {quoted}\n---\n{_state()}"},
        "state-title": {"x": lesson(_state(title=payload))},
        "state-caption": {"x": lesson(_state(caption=payload))},
        "body": {"x": lesson(_state(body=payload))},
        "teacher-note": {"x": lesson(_state(teacher=payload))},
        "heading": {"x": lesson(f"## {payload}\n\n" + _state())},
        "code": {"x": lesson(_state(body=f"`{payload}`\n\n```html\n{payload}\n```"))},
        "table": {"x": lesson(_state(body=f"| a | b |\n|---|---|\n| {payload} | x |"))},
        "link-text": {"x": lesson(_state(body=f"[{payload}](numbers.html)"))},
        "roles": {"x": lesson(_state(body="".join(f"{{{r}}}`{payload}` " for r in ("ref", "src", "num", "fig"))))},
        "example-role": {"x": lesson(_state(body=f"{{example}}`{payload}`"))},
        "math": {"x": lesson(_state(body=f"${payload}$ 与 $\\text{{{payload}}}$"))},
        "article": {"x": f"---\ntitle: 一\nkind: article\n---\n{payload}\n"},
    }


CITES_MEASURED = "\n实测的差是 {num}`exp.diff`。\n"
"""A sentence citing a measured value of ``fake_evidence``."""

URL_CASES = {
    "md-link": "[点我](javascript:window.__xss=1)", "md-link-case": "[点我](JaVaScRiPt:window.__xss=1)",
    "md-link-entity": "[点我](java&#x73;cript:window.__xss=1)", "md-link-space": "[点我]( javascript:window.__xss=1)",
    "md-link-data": "[点我](data:text/html,<script>parent.__xss=1</script>)", "md-link-vb": "[点我](vbscript:x)",
    "autolink": "<javascript:window.__xss=1>", "image": "![x](javascript:window.__xss=1)",
    "image-data-svg": "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "ref-link": "[点我][r]\n\n[r]: javascript:alert(1)",
    "html-link": "<a href=\"javascript:alert(1)\">x</a>",
    "link-title": "[a](numbers.html \"\\\" onmouseover=alert(1) x=\\\"\")",
}


def _source_cases() -> dict[str, str]:
    cases = {}
    for i, quoted in enumerate(_YAML_QUOTED):
        cases[f"source-fields-{i}"] = (f"- id: M34\n  title: {quoted}\n  authors: {quoted}\n  year: {quoted}\n"
                                       f"  checked: {quoted}\n  where: {quoted}\n")
    for url in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)",
                "data:text/html,<script>x</script>", "https://example.org/\"><script>alert(1)</script>", "vbscript:x",
                "java\tscript:alert(1)"):
        cases[f"source-url-{url[:12]}"] = f"- id: M34\n  title: t\n  url: {json.dumps(url)}\n"
    return cases


def xss_sites() -> dict[str, dict]:
    """Every case: name → keyword arguments of ``sitekit.write_site`` (plus optional evidence payload)."""
    sites: dict[str, dict] = {}
    for n, (payload, quoted) in enumerate(zip(_INLINE, _YAML_QUOTED, strict=True)):
        for case, pages in _markdown_cases(payload, quoted).items():
            # Citing a measured value gives a lesson its source view and download: payloads reach those too.
            sites[f"{case}-{n}"] = {"pages": {page_id: text + CITES_MEASURED for page_id, text in pages.items()}}
    for case, markdown in URL_CASES.items():
        sites[case] = {"pages": {"x": lesson(_state(body=markdown))}}
    for case, sources in _source_cases().items():
        sites[case] = {"pages": {"x": lesson(_state(body="见 {src}`M34`。"))}, "sources": sources}
    for n, payload in enumerate(_INLINE):
        sites[f"evidence-{n}"] = {"pages": {"x": lesson(_state(body="值 {num}`exp.v` 与 {num}`rec.v`。\n\n{fig}`fig`")
                                                        .replace(":provenance: teaching", ":provenance: measured"))},
                                  "evidence": payload}
    return sites


def hostile_evidence(payload: str, figure_dir: Path) -> Evidence:
    """Payloads in every field of model results, records and figures, wired by build.py's own code."""
    results = {"experiments": {"exp": {"title": payload, "command": payload, "source": payload,
                                       "config": {"n": payload}, "data": {},
                                       "values": {"v": {"value": 1.5, "unit": payload, "description": payload}}}}}
    records = {"rec": {"id": "rec", "title": payload, "date": payload, "machine": payload, "conditions": payload,
                       "command": payload, "values": {"v": {"value": 2, "unit": "ms", "description": payload}},
                       "compare": [{"value": "v", "with": "exp.v", "rule": "<=", "bound": 9, "note": payload}]}}
    figure_dir.mkdir(parents=True, exist_ok=True)
    (figure_dir / "fig.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (figure_dir / "sketch.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    drawn = {"fig": {"file": "fig.svg", "alt": payload, "description": payload, "provenance": "measured",
                     "width": 10, "height": 10, "inputs": ["exp"]},
             "sketch": {"file": "sketch.svg", "alt": payload, "description": payload, "provenance": "teaching",
                        "width": 10, "height": 10}}
    return evidence_from(results, records, drawn, figure_dir, build.ROOT, "zh-CN")


class _Html(HTMLParser):
    """What can run in a page: script elements, on* attributes, script-bearing URLs."""

    URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster", "background"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.events: list[str] = []
        self.bad_urls: list[str] = []
        self.frames: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = True
            self.scripts.append(f"src={dict(attrs).get('src')}")
        if tag in ("iframe", "object", "embed", "frame", "base", "form"):
            self.frames.append(tag)
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.frames.append("meta refresh")
        for name, value in attrs:
            if name.startswith("on"):
                self.events.append(f"<{tag} {name}={value!r}>")
            if name in self.URL_ATTRS and value is not None:
                scheme = re.sub(r"[\x00-\x20]", "", value).lower()
                if scheme.startswith(("javascript:", "vbscript:", "data:text", "data:image/svg")):
                    self.bad_urls.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and self.scripts and data.strip():
            self.scripts[-1] += f" inline={data.strip()!r}"


def executable_parts(html: str) -> _Html:
    parser = _Html()
    parser.feed(html)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def own_scripts(evidence, tmp_path_factory) -> set[str]:
    """The scripts the site itself ships, from a harmless build: the only scripts a page may contain."""
    root = write_site(tmp_path_factory.mktemp("benign"), {"x": lesson(_state())})
    prepared = prepare_site(root, evidence)
    scripts: set[str] = set()
    for teacher in (False, True):
        for name, payload in render_site(prepared, teacher=teacher).items():
            if name.endswith(".html"):
                scripts.update(executable_parts(payload.decode()).scripts)
    return scripts


@pytest.fixture(scope="module")
def xss_outputs(evidence, tmp_path_factory) -> dict[str, tuple[Path, Path] | None]:
    """Each XSS case built and written (public, teacher), or ``None`` when the build refused it."""
    base = tmp_path_factory.mktemp("xss")
    outputs: dict[str, tuple[Path, Path] | None] = {}
    for case, spec in xss_sites().items():
        root = base / case
        write_site(root, spec["pages"], sources=spec.get("sources", SOURCES_YML))
        case_evidence = hostile_evidence(spec["evidence"], root / "fig") if "evidence" in spec else evidence
        with time_limit(TIME_LIMIT_S):
            try:
                prepared = prepare_site(root, case_evidence)
            except ContentError as error:
                assert_well_formed(error.problems, root)
                outputs[case] = None
                continue
            for teacher, out in ((False, root / "_site"), (True, root / "_site-teacher")):
                write_output(render_site(prepared, teacher=teacher), out)
        outputs[case] = (root / "_site", root / "_site-teacher")
    return outputs


@pytest.mark.slow  # the xss_outputs fixture builds and writes about 180 sites
def test_xss_corpus_produces_no_executable_html(xss_outputs, own_scripts):
    built = {case: dirs for case, dirs in xss_outputs.items() if dirs}
    assert len(built) >= len(xss_outputs) // 3, "most cases should build (escaped), not all be refused"
    failures = []
    for case, dirs in built.items():
        for site in dirs:
            for path in sorted(site.rglob("*.html")):
                parts = executable_parts(path.read_text(encoding="utf-8"))
                foreign = [s for s in parts.scripts if s not in own_scripts]
                for what in foreign + parts.events + parts.bad_urls + parts.frames:
                    failures.append(f"{case}: {path.relative_to(site.parent)}: {what}")
    assert not failures, "\n".join(failures[:30])


@pytest.mark.slow  # the xss_outputs fixture builds and writes about 180 sites
def test_raw_html_and_script_urls_are_refused_or_neutralised(xss_outputs):
    # raw HTML in the body must be refused (a refused build is the pass); script URLs in links vanish
    assert xss_outputs["body-0"] is None and xss_outputs["html-link"] is None
    assert xss_outputs["state-caption-0"] is None, "raw HTML in :caption: must be refused like in the body"
    assert all(v is None for k, v in xss_outputs.items()
               if k.startswith("source-url-") and not k.startswith("source-url-https")), \
        "sources.yml urls that are not http(s) must be refused"
    # Markdown links and pictures with script URLs are refused too, like every URL outside the allowlist:
    # left as text, the published Markdown would republish them as links
    for case in ("md-link", "md-link-case", "md-link-entity", "md-link-space", "autolink", "ref-link", "image"):
        assert xss_outputs[case] is None, case


def test_javascript_source_url_is_refused_with_its_line(evidence, tmp_path):
    sources = "- id: M34\n  title: 记录\n- id: A\n  title: t\n  url: javascript:alert(1)\n"
    write_site(tmp_path, {"x": lesson(_state(body="见 {src}`M34`。"))}, sources=sources)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, evidence)
    assert [str(p) for p in caught.value.problems] == [
        "content/sources.yml:5: source 'A': url must start with https:// or http://"]


def test_markdown_javascript_link_is_refused_with_its_line(evidence, tmp_path):
    write_site(tmp_path, {"x": lesson(_state(body="[点我](javascript:alert(1)) 与 [好](https://example.org/)"))})
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, evidence)
    assert [str(p) for p in caught.value.problems] == [
        "content/pages/x.md:9: link 'javascript:alert(1)' uses a scheme the site does not allow: give a full "
        "https:// URL, or link to a page with {ref}`id`"]


_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?')


# The browser pass loads the pages a payload can reach; the first three payloads (script element,
# event handler, attribute break-out) stand for the rest, which the HTML test covers, to keep it fast.
def _pages_reached(case: str) -> tuple[str, ...]:
    if case.startswith("source-"):
        return ("sources.html",)
    if case.startswith("evidence-"):
        return ("x.html", "numbers.html")
    return ("x.html", "x.source.html")


def _browser_cases(outputs: dict[str, tuple[Path, Path] | None]) -> dict[str, tuple[Path, Path]]:
    def payload_index(case: str) -> int:
        tail = case.rsplit("-", 1)[-1]
        return int(tail) if tail.isdigit() and not case.startswith("source-fields") else 0
    return {case: dirs for case, dirs in sorted(outputs.items()) if dirs and payload_index(case) < 3}


@pytest.mark.slow  # Chromium loads ~100 pages of the XSS corpus
def test_xss_corpus_runs_no_script_in_chromium(xss_outputs, tmp_path, browser):
    """Load the built pages with the Content-Security-Policy removed, so the HTML itself must be safe."""
    pages: list[Path] = []
    for case, (public, teacher) in _browser_cases(xss_outputs).items():
        for site, names in ((public, _pages_reached(case)), (teacher, ("x.html",) if "teacher" in case else ())):
            for name in names:
                if (site / name).is_file():
                    copy = tmp_path / case / site.name / name
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    copy.write_text(_CSP.sub("", (site / name).read_text(encoding="utf-8")), encoding="utf-8")
                    pages.append(copy)
    fired: list[str] = []
    page = browser.new_page()
    try:
        # nothing else may load: a payload that fetches would show up here, and the copies have no static/
        page.route("**/*", lambda route: route.continue_() if route.request.url.endswith(".html")
                   else route.abort())
        current = {"url": ""}
        page.on("dialog", lambda dialog: (fired.append(f"dialog {dialog.message!r} on {current['url']}"),
                                          dialog.dismiss()))
        for path in pages:
            current["url"] = path.as_uri()
            page.goto(path.as_uri(), wait_until="load")
            if page.evaluate("() => [window, ...Array.from(window.frames)].some(w => { try { return !!w.__xss }"
                             " catch (e) { return false } })"):
                fired.append(f"window.__xss set on {path}")
    finally:
        page.close()
    assert len(pages) > 50, "the browser pass should load most of the corpus (script URLs are refused, not built)"
    assert not fired, "\n".join(fired[:20])


# ---------------------------------------------------------------------------
# Teacher-supplied pictures: alt text required, the page's folder only, resized, hashed, size-limited.


P = "content/pages/x.md"


STATE = ":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文。\n\n%s\n:::\n"  # the picture is on line 10


def site_with(tmp_path, picture_markdown: str, files: dict[str, bytes]):
    root = write_site(tmp_path, {"x": lesson(STATE % picture_markdown + CITES_MEASURED)})  # it has a download
    for name, data in files.items():
        (root / "content" / "pages" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / "pages" / name).write_bytes(data)
    return root


def jpeg(width: int, height: int, **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (180, 40, 40)).save(out, "JPEG", **save)
    return out.getvalue()


def problems(root, tmp_path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


def test_an_image_with_alt_is_a_figure_resized_hashed_and_badged(tmp_path):
    exif = Image.Exif()
    exif[0x010F] = "CameraMaker"
    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000, exif=exif.tobytes())})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    html = files["x.html"].decode()
    figure = re.search(r'<figure class="figure image-figure".*?</figure>', html, re.S).group(0)
    small, large = re.findall(r"images/gpu-[0-9a-f]{12}\.jpg", figure)[1:3]
    assert f'<img src="{small}" srcset="{small} 640w, {large} 1280w"' in figure
    assert 'alt="一块 GPU 板卡的照片" width="640" height="320"' in figure
    assert '<span class="badge" data-provenance="illustration">插图</span> 实验室里的 GPU 板卡' in figure
    for name, width in ((small, 640), (large, 1280)):
        with Image.open(io.BytesIO(files[name])) as out:
            assert out.size == (width, width // 2) and out.format == "JPEG"
            assert not out.getexif()  # camera metadata is not published
    assert not any(name.endswith("gpu.jpg") for name in files)  # only the re-encoded files


def test_a_small_png_keeps_its_width_and_format(tmp_path):
    out = io.BytesIO()
    Image.new("RGBA", (300, 200), (0, 0, 255, 128)).save(out, "PNG")
    root = site_with(tmp_path, "![半透明的蓝色方块](diagram.png)", {"diagram.png": out.getvalue()})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    [name] = [n for n in files if n.startswith("images/diagram-")]
    assert name.endswith(".png") and Image.open(io.BytesIO(files[name])).size == (300, 200)
    assert f'srcset="{name} 300w"' in files["x.html"].decode()


def test_names_change_with_the_picture_and_only_then(tmp_path):
    names = []
    for color in (1, 1, 2):
        out = io.BytesIO()
        Image.new("RGB", (100, 50), (color, 0, 0)).save(out, "PNG")
        root = site_with(tmp_path / str(len(names)), "![色块](c.png)", {"c.png": out.getvalue()})
        files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
        names.append([n for n in files if n.startswith("images/")])
    assert names[0] == names[1] != names[2]


@pytest.mark.parametrize(("markdown", "message"), [
    ("![](images/gpu.jpg)", f"{P}:10: image 'images/gpu.jpg' has no alt text: write what it shows for readers who "
                            "cannot see it, as in '![a photo of a GPU board](images/gpu.jpg)'"),
    ("![图](../secret.png)", f"{P}:10: image '../secret.png' must be a file in this page's folder or below, e.g. "
                            "'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](https://example.org/a.png)", f"{P}:10: image 'https://example.org/a.png' must be a file in this page's "
                                        "folder or below, e.g. 'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](/etc/a.png)", f"{P}:10: image '/etc/a.png' must be a file in this page's folder or below, e.g. "
                         "'images/gpu.jpg' (no URL, no absolute path, no '..')"),
    ("![图](notes.txt)", f"{P}:10: image 'notes.txt' is not a picture file: use .png, .jpg, .jpeg, .gif, .webp, "
                         ".svg"),
    ("![图](images/none.png)", f"{P}:10: image 'images/none.png' not found: put the file at "
                              "content/pages/images/none.png"),
    ("文字 ![图](images/gpu.jpg) 文字", f"{P}:10: an image must stand alone in its paragraph: put "
                                     "'![alt text](images/file.png \"caption\")' on a line of its own, with blank "
                                     "lines around it"),
])
def test_image_mistakes(tmp_path, markdown, message):
    root = site_with(tmp_path, markdown, {"images/gpu.jpg": jpeg(20, 10)})
    assert problems(root, tmp_path) == [message]


def test_oversized_and_unreadable_pictures_are_clear_errors(tmp_path, monkeypatch):
    root = site_with(tmp_path, "![大图](big.png)\n\n![坏图](bad.png)\n\n![很多像素](wide.jpg)",
                     {"big.png": b"\0" * (8 * 2**20 + 1), "bad.png": b"not a picture", "wide.jpg": jpeg(200, 100)})
    monkeypatch.setattr(images_module, "MAX_PIXELS", 10_000)
    found = problems(root, tmp_path)
    assert found[0] == (f"{P}:10: image 'big.png' is 8.0 MiB, over the limit of 8 MiB: save it smaller "
                        "(at most 1280 pixels wide is enough), e.g. as a JPEG")
    assert found[1] == (f"{P}:12: image 'bad.png' is named .png but its bytes are not a PNG, JPEG, WebP or GIF "
                        "picture: save it again as PNG or JPEG, named by what it is")
    assert found[2] == (f"{P}:14: image 'wide.jpg' has 200×100 pixels, over the limit of 10,000 pixels or 12,000 on "
                        "a side: resize it (at most 1280 pixels wide is enough)")


def test_the_published_markdown_and_the_lesson_zip_link_a_picture_that_exists(tmp_path):
    import zipfile

    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000)})
    files = render_site(prepare_site(root, fake_evidence(tmp_path / "fig")), teacher=False)
    linked = re.findall(r'!\[一块 GPU 板卡的照片\]\(([^ )]+) "实验室里的 GPU 板卡"\)', files["x.md"].decode())
    assert len(linked) == 1 and re.fullmatch(r"images/gpu-[0-9a-f]{12}\.jpg", linked[0])
    with Image.open(io.BytesIO(files[linked[0]])) as out:  # the site holds it (the widest re-encoding)
        assert out.size == (1280, 640)
    with zipfile.ZipFile(io.BytesIO(files["downloads/x.zip"])) as bundle:
        markdown = bundle.read("x.md").decode()
        assert markdown == files["x.md"].decode()
        assert bundle.read(linked[0]) == files[linked[0]]  # the zip ships it where its Markdown looks
    assert "images/gpu.jpg" not in files["x.md"].decode()


def test_the_lesson_notebook_shows_the_published_picture_by_its_address(tmp_path):
    """A notebook is read away from the site: its prose links the picture's published file under base_url."""
    import dataclasses
    import json

    root = site_with(tmp_path, '![一块 GPU 板卡的照片](images/gpu.jpg "实验室里的 GPU 板卡")',
                     {"images/gpu.jpg": jpeg(2000, 1000)})
    evidence = dataclasses.replace(fake_evidence(tmp_path / "fig"),
                                   notebook_setup="def measure(name):\n    return {}\n")
    prepared = prepare_site(root, evidence)
    files = render_site(prepared, teacher=False)
    prose = "".join("".join(cell["source"]) for cell in json.loads(files["downloads/x.ipynb"])["cells"]
                    if cell["cell_type"] == "markdown")
    linked = re.findall(r"!\[一块 GPU 板卡的照片\]\(([^ )]+)", prose)
    base = prepared.content.config.base_url
    assert len(linked) == 1 and linked[0].startswith(base) and linked[0].removeprefix(base) in files, linked


# ---------------------------------------------------------------------------
# End to end on the fixture site: load → parse → check → render → write, asserting on the HTML.


FIXTURE = Path(__file__).parent / "fixtures" / "basic"


TEACHER_PHRASE = "先指左边的方框再指右边的箭头然后翻页"


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sites")
    prepared = prepare_site(FIXTURE, fake_evidence(tmp / "figures"))
    public, teacher = tmp / "_site", tmp / "_site-teacher"
    write_output(render_site(prepared, teacher=False), public)
    write_output(render_site(prepared, teacher=True), teacher)
    return prepared, public, teacher


def read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def test_states_are_sections_with_ids_badges_and_figures(sites):
    _, public, _ = sites
    html = read(public, "alpha.html")
    sections = re.findall(r'<section class="state" id="([^"]+)"[^>]*data-provenance="([^"]+)"', html)
    assert sections == [("alpha-b0", "teaching"), ("alpha-b1", "measured")]
    # a figure's badge is drawn in its corner; its caption says it only to screen readers
    assert '<figcaption><span class="visually-hidden" data-provenance="teaching">教学示意</span>' in html
    assert '<figcaption><span class="visually-hidden" data-provenance="measured">模型实测</span>' in html
    assert 'class="state-meta"' not in html  # each state shows a figure of its own provenance
    assert 'src="figures/plot.svg" alt="曲线"' in html and (public / "figures" / "plot.svg").is_file()
    assert 'aria-describedby="alpha-b1-fig-desc"' in html and 'id="alpha-b1-fig-desc"' in html


def test_every_figure_links_its_picture_alone_on_every_page_that_shows_it(sites):
    """On a phone a figure's labels are small; its SVG opened alone zooms without blurring."""
    _, public, _ = sites
    pages = {name: read(public, name) for name in ("alpha.html", "figures.html")}
    for name, html in pages.items():
        figures = re.findall(r'<figure class="figure".*?</figure>', html, re.S)
        assert figures, name
        for figure in figures:
            src, alt = re.search(r'<img src="([^"]+)" alt="([^"]*)"', figure).groups()
            dark = re.findall(r'<source srcset="([^"]+)"', figure)
            # Named after its figure for a screen reader's list of links: each says which picture it opens.
            # With a dark variant, a link to each (site.css shows the one of the page's scheme).
            links = re.findall(r'<a class="figure-full" href="([^"]+)"( data-scheme="\w+")?>查看大图'
                               r'<span class="visually-hidden">：([^<]*)</span></a>', figure)
            expected = [(src, ' data-scheme="light"', alt), (dark[0], ' data-scheme="dark"', alt)] if dark \
                else [(src, "", alt)]
            assert links == expected, (name, figure)
            assert all((public / linked).is_file() for linked, _, _ in links)


def test_values_are_formatted_and_linked_to_the_numbers_page(sites):
    _, public, _ = sites
    html = read(public, "alpha.html")
    assert ('<a class="num" href="numbers.html#exp.diff" data-provenance="measured" '
            'title="模型实测 · exp.diff">1.1×10⁻¹⁵</a>') in html
    numbers = read(public, "numbers.html")
    assert 'id="exp.diff"' in numbers and "python -m lessonmodel run exp" in numbers
    assert '<a href="alpha.html#alpha-b1">A1 · b1</a>' in numbers
    # each value says how it may be compared (its value class)
    assert ('<dd data-value-class="rounding">舍入：不同 CPU 的最后几位可能不同，'
            '相对差 1×10⁻⁹、绝对差 1×10⁻¹² 以内视为相同</dd>') in numbers
    assert '<dd data-value-class="exact">精确：任何机器上都须逐位相同</dd>' in numbers
    assert '<dd data-value-class="timing">计时：随机器与负载而变，只作记录，从不比较</dd>' in numbers


def test_math_is_rendered_to_mathml_at_build_time(sites):
    _, public, _ = sites
    html = read(public, "alpha.html")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"' in html
    assert "$x_t^2$" not in html and 'href="static/math/math.css"' in html
    assert "math.css" not in read(public, "beta.html")


def test_cjk_line_breaks_are_removed(sites):
    _, public, _ = sites
    assert "这一课讲缓存为什么可以复用" in read(public, "alpha.html")


def test_teacher_notes_only_in_the_teacher_site(sites):
    _, public, teacher = sites
    for name in ("alpha.html", "alpha.md", "alpha.source.html", "llms.txt"):
        assert TEACHER_PHRASE not in read(public, name)
    assert "data-teacher" not in read(public, "alpha.html")
    assert TEACHER_PHRASE in read(teacher, "alpha.html")
    assert TEACHER_PHRASE in read(teacher, "alpha.md")


def test_raw_markdown_llms_txt_and_bundle(sites):
    _, public, _ = sites
    markdown = read(public, "alpha.md")
    assert markdown.startswith("# 第一课：缓存\n")
    assert "今天测得的最大差是 1.1×10⁻¹⁵，早先的记录是 2.22×10⁻¹⁵。" in markdown
    assert "{num}" not in markdown and "\\[M34\\]" in markdown  # a role's text reads as text, never a link
    assert "- [第一课：缓存](https://example.org/course/alpha.md): 缓存为什么可以复用" in read(public, "llms.txt")
    bundle = zipfile.ZipFile(io.BytesIO((public / "downloads" / "alpha.zip").read_bytes()))
    assert bundle.namelist() == ["alpha.md"]
    assert bundle.read("alpha.md").decode() == markdown


def test_sources_page_has_anchors_and_backlinks(sites):
    _, public, _ = sites
    html = read(public, "sources.html")
    assert 'id="M34"' in html and 'id="Vaswani2017"' in html
    assert '<a href="alpha.html">A1</a>' in html
    assert '<a href="alpha.html#alpha-b0">A1 · b0</a>' in html


def test_refs_prev_next_and_headings(sites):
    _, public, _ = sites
    index = read(public, "index.html")
    assert '<a class="ref" href="beta.html#beta-b1">第二课 · 继续</a>' in index
    assert '<h2 id="alpha-notes">' in index
    alpha = read(public, "alpha.html")
    assert re.search(r'<a [^>]*rel="next" href="beta.html">.*?第二课.*?</a>', alpha)
    assert '<a class="ref" href="#alpha-b0">旧状态保留</a>' in alpha


def test_every_link_and_anchor_resolves(sites):
    prepared, public, teacher = sites
    assert verify_output(prepared, public, teacher) == []


def test_verify_finds_a_leaked_note_and_a_broken_link(sites, tmp_path):
    prepared, public, teacher = sites
    leaky = tmp_path / "_site"
    shutil.copytree(public, leaky)
    page = leaky / "beta.html"
    page.write_text(
        read(leaky, "beta.html").replace("</main>", f'<p>{TEACHER_PHRASE}</p><a href="nope.html#x">x</a></main>'),
        encoding="utf-8")
    found = [str(p) for p in verify_output(prepared, leaky, teacher)]
    assert any(f.startswith("_site/beta.html:") and "link to missing file 'nope.html#x'" in f for f in found)
    assert any(f.startswith("_site/beta.html: teacher note from content/pages/alpha.md:27 leaks") for f in found)


def test_a_failed_build_leaves_the_previous_site(tmp_path, sites):
    prepared, public, _ = sites
    out = tmp_path / "_site"
    write_output(render_site(prepared, teacher=False), out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    broken = tmp_path / "broken"
    shutil.copytree(FIXTURE, broken)
    (broken / "content/pages/beta.md").write_text("no front matter\n", encoding="utf-8")
    with pytest.raises(ContentError):
        prepare_site(broken, fake_evidence(tmp_path / "fig"))

    def interrupted(staging: Path) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_output({"only.html": b"new"}, out, finish=interrupted)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert not list(tmp_path.glob("_site.tmp-*"))


def test_write_replaces_the_whole_site(tmp_path):
    out = tmp_path / "_site"
    write_output({"a.html": b"1", "sub/b.html": b"2"}, out)
    write_output({"c.html": b"3"}, out)
    assert sorted(p.name for p in out.rglob("*")) == ["c.html"]


def test_verify_follows_the_404_pages_absolute_links(sites, tmp_path):
    """404.html links from base_url's path; the check follows such a link to the file it names in this site."""
    prepared, public, teacher = sites
    root = site_root(prepared.content.config.base_url)
    assert f'href="{root}static/site.css"' in read(public, "404.html")
    broken = tmp_path / "_site"
    shutil.copytree(public, broken)
    (broken / "404.html").write_text(
        read(broken, "404.html").replace(f"{root}static/site.css", f"{root}static/gone.css"), encoding="utf-8")
    found = [str(p) for p in verify_output(prepared, broken, teacher)]
    assert any(f.startswith("_site/404.html:") and "missing file 'static/gone.css'" in f for f in found), found


def test_glossary_terms_link_to_their_definition_with_a_hover_card(sites):
    _, public, _ = sites
    html = read(public, "alpha.html")
    link = re.search(r'<a class="term" href="glossary.html#term-kv-cache" data-definition="([^"]*)"'
                     r'[^>]*>KV 缓存</a>', html)
    # a tag in backticks is text, in the card as on the glossary page
    assert link and link.group(1) == "每层为已处理位置保存的 K 和 V &lt;em&gt;不是标签&lt;/em&gt;。"
    glossary = read(public, "glossary.html")
    assert '<section class="term-entry" id="term-kv-cache"' in glossary
    assert "<dt>不要写作</dt><dd>K/V 缓存</dd>" in glossary and '<a href="alpha.html">A1</a>' in glossary
    assert "KV 缓存 是每层一份" in read(public, "alpha.md")  # plain Markdown keeps the word, not the card
