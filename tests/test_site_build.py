"""End to end on the fixture site: load → parse → check → render → write, asserting on the HTML."""

from __future__ import annotations

import io
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from sitekit import fake_evidence

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.vocabulary.problems import ContentError
from site_builder.vocabulary.urls import site_root
from site_builder.write.verify import verify_output
from site_builder.write.writer import write_site

FIXTURE = Path(__file__).parent / "fixtures" / "basic"
TEACHER_PHRASE = "先指左边的方框再指右边的箭头然后翻页"


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sites")
    prepared = prepare_site(FIXTURE, fake_evidence(tmp / "figures"))
    public, teacher = tmp / "_site", tmp / "_site-teacher"
    write_site(render_site(prepared, teacher=False), public)
    write_site(render_site(prepared, teacher=True), teacher)
    return prepared, public, teacher


def read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def test_states_are_sections_with_ids_badges_and_figures(sites):
    _, public, _ = sites
    html = read(public, "alpha.html")
    sections = re.findall(r'<section class="state" id="([^"]+)"[^>]*data-provenance="([^"]+)"', html)
    assert sections == [("alpha-b0", "teaching"), ("alpha-b1", "measured")]
    assert '<span class="badge" data-provenance="teaching">教学示意</span>' in html
    assert '<span class="badge" data-provenance="measured">模型实测</span>' in html
    assert 'src="figures/plot.svg" alt="曲线"' in html and (public / "figures" / "plot.svg").is_file()
    assert 'aria-describedby="alpha-b1-fig-desc"' in html and 'id="alpha-b1-fig-desc"' in html


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
    write_site(render_site(prepared, teacher=False), out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    broken = tmp_path / "broken"
    shutil.copytree(FIXTURE, broken)
    (broken / "content/pages/beta.md").write_text("no front matter\n", encoding="utf-8")
    with pytest.raises(ContentError):
        prepare_site(broken, fake_evidence(tmp_path / "fig"))

    def interrupted(staging: Path) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_site({"only.html": b"new"}, out, finish=interrupted)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert not list(tmp_path.glob("_site.tmp-*"))


def test_write_replaces_the_whole_site(tmp_path):
    out = tmp_path / "_site"
    write_site({"a.html": b"1", "sub/b.html": b"2"}, out)
    write_site({"c.html": b"3"}, out)
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
