"""Pages written in MyST (Jupyter Book): they build as they are, or each construct is a ``path:line`` error.

The pages are tests/fixtures/myst/*.md, written for this project; each test builds a small site from some
of them and checks the HTML it makes.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sitekit import fake_evidence, write_site

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.markdown.directives import DIRECTIVES
from site_builder.markdown.mathrender import render_math
from site_builder.render.keys import page_facts, render_keys, source_key
from site_builder.resolve.resolved import SiteView
from site_builder.vocabulary.problems import ContentError
from site_builder.write.verify import verify_output

FIXTURES = Path(__file__).parent / "fixtures" / "myst"


def fixture_pages(*names: str) -> dict[str, str]:
    return {name: (FIXTURES / f"{name}.md").read_text(encoding="utf-8") for name in names}


def build(tmp_path: Path, pages: dict[str, str]):
    """The prepared site and its public files."""
    prepared = prepare_site(write_site(tmp_path, pages), fake_evidence(tmp_path / "fig"))
    return prepared, render_site(prepared, teacher=False)


def problems(tmp_path: Path, pages: dict[str, str]) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(write_site(tmp_path, pages), fake_evidence(tmp_path / "fig"))
    return [str(p) for p in caught.value.problems]


def main_html(files, page_id: str) -> str:
    html = files[f"{page_id}.html"].decode()
    return html[html.index("<main"):html.index("</main>")]


def prose(html: str) -> str:
    """The page's body text (its Markdown rendered), without the header and evidence section."""
    return html[html.index('<div class="prose">') + len('<div class="prose">'):html.index("</div>\n<section")]


def test_a_page_without_front_matter_takes_its_title_from_its_heading_and_shows_it_once(tmp_path):
    prepared, files = build(tmp_path, fixture_pages("heading-title"))
    page = prepared.pages["heading-title"]
    assert (page.meta.title, page.meta.kind) == ("缓存为什么省时间", "article")
    html = main_html(files, "heading-title")
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", html) == ["缓存为什么省时间"]
    assert prose(html) == ('<p>没有前置信息的页面：标题取自第一个一级标题。</p>\n'
                           '<h2 id="小节">小节 <a class="permalink" href="#小节" aria-label="链接到本节" '
                           'data-pagefind-ignore>#</a></h2>\n<p>正文。</p>\n')


def test_a_notebook_header_is_accepted_and_a_foreign_key_is_a_warning(tmp_path):
    prepared, files = build(tmp_path, fixture_pages("notebook-header"))
    assert prepared.pages["notebook-header"].meta.title == "从笔记本来的页面"
    assert [str(w) for w in prepared.warnings] == [
        "content/pages/notebook-header.md:9: warning: front matter key 'myst' is not used by this site and is ignored"]


def test_front_matter_title_wins_and_the_heading_is_not_shown_twice(tmp_path):
    prepared, files = build(tmp_path, fixture_pages("title-and-heading"))
    html = main_html(files, "title-and-heading")
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", html) == ["前置信息里的标题"]
    assert "正文里的标题" not in html


def test_a_typo_in_front_matter_is_still_an_error(tmp_path):
    page = "---\ntitel: 一\n---\n\n# 标题\n"
    assert problems(tmp_path, {"x": page}) == [
        "content/pages/x.md:2: unknown front matter key 'titel' (did you mean 'title'?)"]


def test_a_page_that_declares_lesson_still_needs_a_state(tmp_path):
    assert problems(tmp_path, {"x": "---\nkind: lesson\n---\n# 标题\n"}) == [
        "content/pages/x.md:1: a lesson needs at least one ':::{state} b0' block"]


def test_every_directive_reads_the_same_in_both_fence_forms(tmp_path):
    prepared, files = build(tmp_path, fixture_pages("fences"))
    page = prepared.pages["fences"]
    assert page.meta.kind == "lesson"
    states = [b for b in page.blocks if not isinstance(b, tuple)]
    assert [(s.id, s.title, s.provenance) for s in states] == [("b0", "反引号围栏的状态", "teaching"),
                                                               ("b1", "冒号围栏的状态", "teaching")]
    html = main_html(files, "fences")
    assert ('<details class="more" id="fences-b0-more"><summary>进一步解释</summary><div class="prose">'
            '<p>展开的补充说明。</p>\n</div></details>') in html
    assert "只给老师看的备注" not in html and "```" not in html
    assert '<span class="nb">print</span>' in html  # the code block inside {more} stays code
    teacher = render_site(prepared, teacher=True)["fences.html"].decode()
    assert "只给老师看的备注：先指左边。" in teacher


UNKNOWN = {
    "backticks": "```{zebra}\n正文\n```\n",
    "colons": ":::{zebra}\n正文\n:::\n",
    "four backticks": "````{zebra}\n正文\n````\n",
}


@pytest.mark.parametrize("form", UNKNOWN)
def test_an_unknown_directive_in_either_fence_form_is_an_error_at_its_line(tmp_path, form):
    found = problems(tmp_path, {"x": "# 标题\n\n" + UNKNOWN[form]})
    assert found == [f"content/pages/x.md:3: unknown directive '{{zebra}}' (known: {', '.join(DIRECTIVES)})"]


def test_a_tilde_fence_naming_a_directive_is_an_error_not_a_code_box(tmp_path):
    found = problems(tmp_path, {"x": "# 标题\n\n~~~{zebra}\n正文\n~~~\n"})
    assert found == ["content/pages/x.md:3: '~~~{zebra}' opens a code block, not a directive, so its content "
                     "is published as code: write ':::{zebra}'"]


@pytest.mark.parametrize("mark", ["`", ":"])
def test_an_unknown_option_in_either_fence_form_is_an_error_at_its_line(tmp_path, mark):
    outer, inner = mark * 4, mark * 3
    page = (f"# 标题\n\n{outer}{{state}} b0\n:title: 一\n:provenance: teaching\n:figur: sketch\n\n正文\n\n"
            f"{inner}{{more}}\n:title: 补充\n\n说明\n{inner}\n{outer}\n")
    assert problems(tmp_path, {"x": page}) == [
        "content/pages/x.md:6: unknown state option ':figur:' (did you mean 'figure'?)",
        "content/pages/x.md:11: unknown more option ':title:' ('{more}' takes no options)"]


def expected_html(name: str, html: str) -> str:
    """The expected body of fixture page ``name`` (``UPDATE_FIXTURES=1`` writes it; review the diff)."""
    expected = FIXTURES / f"{name}.html"
    if os.environ.get("UPDATE_FIXTURES") or not expected.exists():
        expected.write_text(html, encoding="utf-8")
    return expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["constructs", "other"])
def test_the_myst_constructs_render_in_the_sites_own_markup(tmp_path, name):
    """Admonitions (folded with :class: dropdown), numbered equations in both forms and {eq}, targets, {ref}
    with a title, {numref}, {doc}, Markdown links to pages and labels, footnotes, a definition list, a
    comment (not published) and a code cell (code only, with a note)."""
    _prepared, files = build(tmp_path, fixture_pages("constructs", "other"))
    html = prose(main_html(files, name))
    assert html == expected_html(name, html)


def test_the_labels_of_a_page_are_its_anchors_with_titles(tmp_path):
    prepared, _files = build(tmp_path, fixture_pages("constructs", "other"))
    labels = {a: title for a, _line, title in prepared.pages["constructs"].anchors}
    assert {k: labels[k] for k in ("constructs-top", "sec-energy", "eq-square", "eq-energy")} == {
        "constructs-top": "MyST 常用写法", "sec-energy": "能量守恒", "eq-square": "(1)", "eq-energy": "(2)"}


def test_a_comment_is_never_published(tmp_path):
    _prepared, files = build(tmp_path, fixture_pages("constructs", "other"))
    assert "注释" not in files["constructs.html"].decode()


REFERENCE_MISTAKES = [
    ("{eq}`eq-missing`", "{eq} to unknown label 'eq-missing'"),
    ("{numref}`fig-nowhere`", "{numref} to unknown label 'fig-nowhere'"),
    ("{doc}`nowhere.md`", "{doc} to unknown page 'nowhere.md'"),
    ("{ref}`正文 <sec-missing>`", "{ref} to unknown page 'sec-missing'"),
    ("{ref}`正文 <sec-here>`", None),
    ("[](#sec-here)", None),
    ("[](nowhere.md)", "link to 'nowhere': no page or label of this site has that name"),
    ("[看这里](#sec-her)", "link to 'sec-her': no page or label of this site has that name "
                          "(did you mean 'sec-here'?)"),
]


@pytest.mark.parametrize("written, message", REFERENCE_MISTAKES, ids=[m[0] for m in REFERENCE_MISTAKES])
def test_a_reference_that_resolves_to_nothing_is_one_error_at_its_line(tmp_path, written, message):
    page = f"# 标题\n\n(sec-here)=\n## 一节\n\n正文 {written}。\n\n另一页 {{ref}}`x`。\n"
    if message is None:
        build(tmp_path, {"x": page})
    else:
        assert problems(tmp_path, {"x": page}) == [f"content/pages/x.md:6: {message}"]


def test_a_figure_is_numbered_captioned_sized_and_referenceable_in_both_forms(tmp_path):
    from PIL import Image

    pages = tmp_path / "content" / "pages" / "images"
    pages.mkdir(parents=True)
    Image.new("RGB", (40, 20), (200, 80, 40)).save(pages / "board.png")
    _prepared, files = build(tmp_path, fixture_pages("pictures"))
    html = prose(main_html(files, "pictures"))
    assert html == expected_html("pictures", html)
    assert html.count('<figure class="figure image-figure') == 2
    assert '<figure class="figure image-figure fig-w-60" id="fig-board"' in html
    assert "图 1 实验室里的板卡。" in html and 'alt="同一块板卡，不带图注"' in html
    assert '<a class="ref" href="#fig-board">图 1</a> 是带编号的图，<a class="ref" href="#fig-board">见图 1</a>' in html


def test_an_image_without_alt_text_is_an_error_at_its_line(tmp_path):
    page = "# 标题\n\n```{image} images/none.png\n```\n"
    assert "content/pages/x.md:3: image 'images/none.png' has no alt text" in problems(tmp_path, {"x": page})[0]


# The bugs met on the way (issue 29, item 6)

def test_a_left_right_group_with_an_exponent_is_one_raised_base():
    mathml = render_math(r"\left(a-b\right)^2", False)
    power = ET.fromstring(mathml).find("{http://www.w3.org/1998/Math/MathML}msup")
    assert [child.tag.split("}")[1] for child in power] == ["mrow", "mn"]  # base and exponent: valid MathML


def test_a_labelled_display_formula_right_after_a_line_of_text_needs_no_blank_line(tmp_path):
    _prepared, files = build(tmp_path, {"x": "# 标题\n\n正文一行\n$$x^2$$ (eq-x)\n\n见 {eq}`eq-x`。\n"})
    html = prose(main_html(files, "x"))
    assert '<div class="equation" id="eq-x">' in html and '<a class="ref" href="#eq-x">(1)</a>' in html


def test_tags_shown_in_a_code_block_are_no_links(tmp_path):
    page = "# 标题\n\n```md\n<img src=\"images/none.png\" alt=\"a\">\n<a href='nowhere.html'>x</a>\n```\n"
    prepared, public_files = build(tmp_path, {"index": "# 首页\n", "x": page})
    sites = {}
    for name, files in (("_site", public_files), ("_site-teacher", render_site(prepared, teacher=True))):
        sites[name] = tmp_path / name
        for path, data in files.items():
            (sites[name] / path).parent.mkdir(parents=True, exist_ok=True)
            (sites[name] / path).write_bytes(data if isinstance(data, bytes) else Path(data).read_bytes())
    found = verify_output(prepared, sites["_site"], sites["_site-teacher"])
    assert [str(p) for p in found if p.path.endswith("/x.html")] == []


def test_the_same_page_in_colon_fences_renders_the_same(tmp_path):
    """constructs-colons.md is constructs.md with every backtick fence of a directive written with colons."""
    _prepared, files = build(tmp_path, fixture_pages("constructs", "constructs-colons", "other"))
    assert prose(main_html(files, "constructs-colons")) == prose(main_html(files, "constructs"))


def test_exercises_show_their_solutions_folded_and_index_and_contents_show_nothing(tmp_path):
    _prepared, files = build(tmp_path, fixture_pages("exercises"))
    html = prose(main_html(files, "exercises"))
    assert html == expected_html("exercises", html)
    assert '<details class="admonition solution"><summary class="admonition-title">解答</summary>' in html
    assert "single:" not in html and "depth" not in html


def test_an_unknown_directive_in_backticks_is_one_error_whatever_it_holds(tmp_path):
    page = "# 标题\n\n```{raw} html\n<div class=\"x\">\n\n```\n"
    assert problems(tmp_path, {"x": page}) == [
        f"content/pages/x.md:3: unknown directive '{{raw}}' (known: {', '.join(DIRECTIVES)})"]


@pytest.mark.parametrize("written, message", [
    ("```{exercise-start}\n```\n\n正文\n", "content/pages/x.md:3: '{exercise-start}' has no '{exercise-end}' after "
                                          "it in the same block: add one where the box ends"),
    ("正文\n\n```{solution-end}\n```\n", "content/pages/x.md:5: '{solution-end}' ends no '{solution-start}' opened "
                                        "before it in the same block"),
])
def test_a_gated_exercise_needs_both_its_start_and_its_end(tmp_path, written, message):
    assert problems(tmp_path, {"x": f"# 标题\n\n{written}"}) == [message]


def test_cite_reads_its_sources_from_a_bibtex_file(tmp_path):
    page = "# 标题\n\n见 {cite}`Lecture.Cache.2020` 和 {cite:p}`Lecture.Cache.2020,Another_Book`。\n"
    root = write_site(tmp_path, {"x": page})
    (root / "content" / "references.bib").write_text((FIXTURES / "references.bib").read_text(encoding="utf-8"),
                                                      encoding="utf-8")
    prepared = prepare_site(root, fake_evidence(tmp_path / "fig"))
    files = render_site(prepared, teacher=False)
    assert prose(main_html(files, "x")) == (
        '<p>见 <a class="src" href="sources.html#Lecture-Cache-2020">[Lecture-Cache-2020]</a> 和 '
        '<a class="src" href="sources.html#Lecture-Cache-2020">[Lecture-Cache-2020]</a> '
        '<a class="src" href="sources.html#Another-Book">[Another-Book]</a>。</p>\n')
    sources = files["sources.html"].decode()
    assert "A Made-Up Note on KV Caches" in sources
    for source in ("Lecture-Cache-2020", "Another-Book"):  # each lists the page that cites it
        entry = sources[sources.index(f'id="{source}"'):]
        assert 'href="x.html"' in entry[:entry.index("</section>")]


def test_a_cited_key_no_source_has_is_an_error_at_its_line(tmp_path):
    assert problems(tmp_path, {"x": "# 标题\n\n见 {cite}`Nobody.2019`。\n"}) == [
        "content/pages/x.md:3: unknown source 'Nobody-2019' (cited keys are read from content/references.bib and "
        "content/sources.yml)"]


def test_a_page_that_links_a_label_is_rendered_again_when_the_labelled_heading_changes(tmp_path):
    """The render key of a page with a bare label covers the page that defines it (any page may)."""
    def key(folder: str, heading: str) -> str:
        pages = {"x": "# 一\n\n见 {ref}`sec-far`。\n", "y": f"# 二\n\n(sec-far)=\n## {heading}\n"}
        prepared = prepare_site(write_site(tmp_path / folder, pages), fake_evidence(tmp_path / "fig"))
        site = SiteView(prepared.content, prepared.pages, prepared.evidence, False)
        return render_keys(site, "", "", source_key, page_facts)[0]["x"]

    assert key("a", "远处的一节") != key("b", "改了名的一节")
