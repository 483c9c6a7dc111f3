"""The search documents of the generated pages (numbers, glossary, figures) hold what the reader sees,
in the reader's language; the glossary becomes search synonyms; maths reads as text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from sitekit import fake_evidence

from site_builder.engine.pipeline import prepare_site
from site_builder.markdown.mathtext import math_text
from site_builder.render import search

FIXTURE = Path(__file__).parent / "fixtures" / "basic"


def _prepared(tmp_path: Path, values_yml: str = ""):
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    if values_yml:
        (course / "content" / "values.yml").write_text(values_yml, encoding="utf-8")
    return prepare_site(course, fake_evidence(tmp_path / "figures"))


def _text(document: str) -> str:
    """A document's words as the index holds them (pairs), tags and block ends removed."""
    return " ".join(re.sub(r"<[^>]+>", " ", document).replace(search._END, " ").split())


def test_numbers_are_indexed_with_the_descriptions_the_reader_sees(tmp_path):
    prepared = _prepared(tmp_path, "groups:\n  exp: 缓存路径的实验\nvalues:\n  exp.diff: 两条路径的最大绝对差\n")
    document = search.site_documents(prepared)["numbers.html"]
    text = _text(document)
    assert search.search_terms("两条路径的最大绝对差") in text
    assert search.search_terms("缓存路径的实验") in text and 'id="group-exp"' in document
    for name in prepared.evidence.values:  # each value is a target on numbers.html (its details list)
        assert f'id="{name}"' in document, name
    assert "data-pagefind-filter" not in document  # a reference page: only lessons carry the tier filter


def test_glossary_and_figures_pages_are_indexed(tmp_path):
    prepared = _prepared(tmp_path)
    docs = search.site_documents(prepared)
    glossary, figures = _text(docs["glossary.html"]), docs["figures.html"]
    for term in prepared.content.glossary:
        assert f'id="{term.anchor}"' in docs["glossary.html"]
        for wording in (*term.words, *term.forbidden):
            assert search.search_terms(wording) in glossary, wording
    for figure in prepared.evidence.figures.values():
        assert f'id="fig-{figure.id}"' in figures
        assert search.search_terms(figure.alt) in _text(figures)


def test_every_block_ends_with_the_break_mark_and_lessons_are_the_first_tier(tmp_path):
    docs = search.site_documents(_prepared(tmp_path))
    for url, document in docs.items():
        blocks = re.findall(r"<(h1|h2|p)[^>]*>(.*?)</\1>", document)
        assert blocks and all(text.endswith(search._END) for _tag, text in blocks), url
    lessons = {url for url, d in docs.items() if 'data-pagefind-filter="tier:lesson"' in d}
    pages = _prepared(tmp_path / "again").pages
    assert lessons == {f"{p}.html" for p, page in pages.items() if page.meta.kind != "index"}


def test_glossary_wordings_become_synonyms(tmp_path):
    terms = _prepared(tmp_path).content.glossary
    groups = search.synonyms(terms)
    for term in terms:
        if len(term.words) + len(term.forbidden) > 1:
            assert {"words": list(term.words), "also": list(term.forbidden)} in groups
    assert all(len(g["words"]) + len(g["also"]) > 1 for g in groups)


def test_maths_reads_as_text():
    assert math_text(r"2 \times L \times n_{kv} \times d_h \times \ell") == "2 × L × n_kv × d_h × ℓ"
    assert math_text(r"h^{(\ell-1)}_i") == "h_i^(ℓ−1)"
    assert math_text(r"\frac{a}{b} + \sqrt{x^2}") == "a/b + √(x^2)"
    assert "\\" not in math_text(r"\mathrm{softmax}(QK^\top/\sqrt{d})")
    assert math_text(r"\frac{a}{") == r"\frac{a}{"  # refused TeX stays as written (the build reports it)
