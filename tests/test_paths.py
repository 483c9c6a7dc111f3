"""Content cannot reach outside content/, and nothing the build writes lands outside its output folder.

Policy: pictures come only from the figures the build draws (``:figure:`` in a state, ``{fig}`` on
its own line), so Markdown images are refused outright; relative links that climb out of the site
(``../``) or absolute host paths (``/etc/…``) are refused; every id (page, record, figure, source,
value) is matched against a registry, never used as a path; files linked in from outside
``content/`` are refused; the writer refuses output paths with ``..`` or a leading ``/``.
"""

from __future__ import annotations

import json
import os

import pytest
from sitekit import fake_evidence, lesson, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import UnsafeOutputError
from site_builder.write.writer import write_site as write_output

P = "content/pages/x.md"


def _state(body: str = "正文。", figure: str = "") -> str:
    return (":::{state} b0\n:title: 一\n" + (f":figure: {figure}\n" if figure else "")
            + ":provenance: teaching\n\n" + body + "\n:::\n")


def problems(root, pages, **kwargs) -> list[str]:
    write_site(root, pages, **kwargs)
    with pytest.raises(ContentError) as caught:
        prepare_site(root, fake_evidence(root / "fig"))
    return [str(p) for p in caught.value.problems]


OUTSIDE = ("must be a file in this page's folder or below, e.g. 'images/gpu.jpg' (no URL, no absolute path, "
           "no '..')")
INLINE_IMAGE = ("an image must stand alone in its paragraph: put '![alt text](images/file.png \"caption\")' on a "
                "line of its own, with blank lines around it")


@pytest.mark.parametrize("body, expected", [
    ("![x](../../etc/passwd)", f"{P}:8: image '../../etc/passwd' {OUTSIDE}"),
    ("![x](/etc/passwd)", f"{P}:8: image '/etc/passwd' {OUTSIDE}"),
    ("![x](figures/plot.svg)", f"{P}:8: image 'figures/plot.svg' is not a picture file: use .png, .jpg, .jpeg, "
                               ".gif, .webp"),
    ("![x](https://tracker.example/p.gif)", f"{P}:8: image 'https://tracker.example/p.gif' {OUTSIDE}"),
    ("![x][r]\n\n[r]: ../../../etc/shadow", f"{P}:8: image '../../../etc/shadow' {OUTSIDE}"),
    ("[x](../../etc/passwd)", f"{P}:8: link '../../etc/passwd' leaves the site: link to a page with "
                              "{ref}`id`, or give a full https:// URL"),
    ("[x](/etc/passwd)", f"{P}:8: link '/etc/passwd' leaves the site: link to a page with {{ref}}`id`, "
                         "or give a full https:// URL"),
    ("[x](a/../../b.html#c)", f"{P}:8: link 'a/../../b.html#c' leaves the site: link to a page with "
                              "{ref}`id`, or give a full https:// URL"),
    ("{fig}`../../etc/passwd`", f"{P}:8: unknown figure '../../etc/passwd'"),
    ("{ref}`../../etc/passwd`", f"{P}:8: {{ref}} to unknown page '../../etc/passwd'"),
    ("{src}`../sources`", f"{P}:8: unknown source '../sources' (sources are listed in content/sources.yml)"),
    ("{num}`../exp.diff`", f"{P}:8: unknown value '../exp.diff' (did you mean 'exp.diff'?)"),
])
def test_references_out_of_the_site_are_errors_with_lines(tmp_path, body, expected):
    assert expected in problems(tmp_path, {"x": lesson(_state(body))})


def test_state_figure_with_a_path_is_an_unknown_figure(tmp_path):
    found = problems(tmp_path, {"x": lesson(_state(figure="../../etc/passwd"))})
    assert f"{P}:6: unknown figure '../../etc/passwd'" in found


def test_image_in_a_caption_is_refused_too(tmp_path):
    page = lesson(":::{state} b0\n:title: 一\n:figure: sketch\n:caption: ![x](../../etc/passwd)\n"
                  ":provenance: teaching\n\n正文。\n:::\n")
    assert f"{P}:7: {INLINE_IMAGE}" in problems(tmp_path, {"x": page})


def test_links_inside_the_site_and_to_the_web_are_fine(tmp_path):
    body = "[数值](numbers.html) [节](numbers.html#exp.diff) [外](https://example.org/a/../b) [本页](#x-b0)"
    write_site(tmp_path, {"x": lesson(_state(body))})
    html = render_site(prepare_site(tmp_path, fake_evidence(tmp_path / "fig")), teacher=False)["x.html"].decode()
    assert 'href="numbers.html"' in html and 'href="https://example.org/a/../b"' in html


@pytest.mark.parametrize("front, expected", [
    ("id: ../../etc/x", f"{P}:3: page id '../../etc/x' must be lowercase letters, digits and '-'"),
    ("id: a/b", f"{P}:3: page id 'a/b' must be lowercase letters, digits and '-'"),
])
def test_page_ids_cannot_be_paths(tmp_path, front, expected):
    found = problems(tmp_path, {"x": f"---\ntitle: 一\n{front}\n---\n{_state()}"})
    assert expected in found


def test_site_config_cannot_list_a_page_outside_pages(tmp_path):
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, ../../etc/passwd]\n"
    found = problems(tmp_path, {"x": lesson(_state())}, site_yml=site)
    assert found == ["content/site.yml:4: no page '../../etc/passwd' in content/pages/"]


def test_record_ids_cannot_be_paths(tmp_path):
    record = {"id": "../../x", "title": "t", "date": "2025-01-01", "values": {}}
    found = problems(tmp_path, {"x": lesson(_state())}, records={"old": record})
    assert found == ["content/records/old.json:2: record id must equal the file name 'old' and use [a-z0-9_]"]


def test_record_file_names_must_be_ids(tmp_path):
    write_site(tmp_path, {"x": lesson(_state())})
    (tmp_path / "content" / "records" / "Bad Name.json").write_text(
        json.dumps({"title": "t", "date": "2025-01-01", "values": {}}), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))
    assert [str(p) for p in caught.value.problems] == [
        "content/records/Bad Name.json:1: record id must equal the file name 'Bad Name' and use [a-z0-9_]"]


@pytest.mark.parametrize("where", ["pages/y.md", "records/leak.json", "sources.yml"])
def test_files_linked_from_outside_content_are_refused(tmp_path, where):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("---\ntitle: 秘密\n---\n" + _state("秘密内容。"), encoding="utf-8")
    site = "title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\npages: [x, y]\n"
    write_site(tmp_path / "site", {"x": lesson(_state())}, site_yml=site)
    link = tmp_path / "site" / "content" / where
    link.unlink(missing_ok=True)
    os.symlink(secret, link)
    with pytest.raises(ContentError) as caught:
        prepare_site(tmp_path / "site", fake_evidence(tmp_path / "fig"))
    # one error per refused file: no "no page 'y'", no "must start with front matter" about its (unread) text
    assert [str(p) for p in caught.value.problems if where in p.path] == [
        f"content/{where}: is a link to a file outside content/: copy the file here instead"]


def test_links_within_the_content_folder_are_allowed(tmp_path):
    write_site(tmp_path, {"x": lesson(_state())})
    pages = tmp_path / "content" / "pages"
    (pages / "draft.txt").write_text(lesson(_state()), encoding="utf-8")
    (pages / "x.md").unlink()
    os.symlink("draft.txt", pages / "x.md")
    prepare_site(tmp_path, fake_evidence(tmp_path / "fig"))


@pytest.mark.parametrize("name", ["../evil.html", "figures/../../evil.svg", "/tmp/evil.html", "a/../../evil"])
def test_writer_refuses_paths_that_leave_the_output_folder(tmp_path, name):
    with pytest.raises(ValueError, match="would leave the site folder"):
        write_output({"index.html": b"ok", name: b"evil"}, tmp_path / "out" / "_site")
    assert not list(tmp_path.rglob("evil*"))
    assert not (tmp_path / "out" / "_site").exists(), "a refused write must not swap anything in"


def test_figure_file_with_a_path_cannot_write_outside_the_site(tmp_path):
    from dataclasses import replace

    write_site(tmp_path, {"x": lesson(_state(figure="sketch"))})
    evidence = fake_evidence(tmp_path / "fig")
    (tmp_path / "evil.svg").write_text("<svg/>", encoding="utf-8")
    figures = {**evidence.figures, "sketch": replace(evidence.figures["sketch"], file="../evil.svg")}
    prepared = prepare_site(tmp_path, replace(evidence, figures=figures))
    # caught twice: the page linking it breaks the URL allowlist, and the writer refuses the file's path
    with pytest.raises(UnsafeOutputError, match=r'<img src="figures/../evil.svg">'):
        render_site(prepared, teacher=False)
    with pytest.raises(ValueError, match="would leave the site folder"):
        write_output({"figures/../evil.svg": tmp_path / "evil.svg"}, tmp_path / "out" / "_site")
    assert not (tmp_path / "out" / "evil.svg").exists()
