"""The glossary check reads every text a reader sees, not only page prose: values.yml (the numbers page),
sources.yml, glossary definitions, records, and each figure's alt text, description, mark labels and the
texts drawn in it (titles, axis labels, ticks, legends)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from sitekit import fake_evidence, lesson, write_site

from figures.marks import mark
from figures.runner import render
from figures.spec import Figure
from site_builder.engine.pipeline import prepare_site
from site_builder.load.evidence import evidence_from
from site_builder.vocabulary.problems import ContentError

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ("- id: head-dim\n  term: 头维度\n  forbidden: [每个头的维度]\n  definition: 一个头的向量长度。\n"
            "- id: prefill\n  term: prefill\n  forbidden: [预填充]\n  definition: 对已知提示做的一次前向。\n"
            "- id: compatible\n  term: 兼容\n  forbidden: [合法]\n  definition: 可以原样沿用。\n")
PAGE = lesson(":::{state} b0\n:title: 一\n:provenance: teaching\n\n正文里没有禁用的说法。\n:::\n")


def _problems(root: Path, evidence) -> list[str]:
    with pytest.raises(ContentError) as caught:
        prepare_site(root, evidence)
    return [str(p) for p in caught.value.problems]


def test_a_forbidden_word_in_a_values_yml_description_fails(tmp_path):
    root = write_site(tmp_path, {"x": PAGE}, glossary=GLOSSARY)
    (root / "content" / "values.yml").write_text("groups:\n  exp: 一组实测\nvalues:\n  exp.diff: 预填充之后的最大差\n",
                                                  encoding="utf-8")
    assert _problems(root, fake_evidence(tmp_path / "fig")) == [
        "content/values.yml:4: '预填充' is a forbidden variant in the glossary: write 'prefill'"]


def test_a_forbidden_word_in_a_record_or_a_source_fails(tmp_path):
    record = {"id": "old", "title": "历史记录：合法缓存的检查", "date": "日期不详",
              "values": {"d": {"value": 1, "unit": ""}}}
    sources = "- id: M34\n  title: 内部记录\n  checked: 查过每个头的维度。\n"
    root = write_site(tmp_path, {"x": PAGE}, glossary=GLOSSARY, records={"old": record}, sources=sources)
    assert sorted(_problems(root, fake_evidence(tmp_path / "fig"))) == [
        "content/records/old.json: '合法' is a forbidden variant in the glossary: write '兼容'",
        "content/sources.yml:1: '每个头的维度' is a forbidden variant in the glossary: write '头维度'"]


def _draw_with_words(fig, _data):
    ax = fig.add_axes((0.15, 0.2, 0.8, 0.7))
    (line,) = ax.plot([0, 1], [0, 1])
    ax.set_xlabel("每个头的维度")
    ax.set_title("一条线")
    return {"line": mark("合法的那条线", line)}


def test_a_forbidden_word_in_a_figure_label_or_its_drawn_text_fails(tmp_path):
    figure = Figure("worded", "一条线", "一条从左下到右上的线。", "teaching", (), _draw_with_words, (4, 3))
    rendered = render({"experiments": {}}, {}, tmp_path / "figs", tmp_path / "cache", registry=[figure])
    assert "每个头的维度" in rendered.figures["worded"]["texts"]
    evidence = evidence_from({"experiments": {}}, {}, rendered.figures, tmp_path / "figs", ROOT, "zh-CN")
    root = write_site(tmp_path, {"x": PAGE}, glossary=GLOSSARY)
    where = f"tests/test_glossary_coverage.py:{inspect.getsourcelines(_draw_with_words)[1]}"
    assert sorted(_problems(root, evidence)) == [
        f"{where}: '合法' is a forbidden variant in the glossary: write '兼容' (figure worded)",
        f"{where}: '每个头的维度' is a forbidden variant in the glossary: write '头维度' (figure worded)"]


def test_the_numbers_page_descriptions_name_heads_as_the_pages_do():
    """One head-indexing convention: heads are counted from 1 in every reader text (第 1 个头), as layers are."""
    texts = (ROOT / "content" / "values.yml").read_text(encoding="utf-8")
    texts += "".join(p.read_text(encoding="utf-8") for p in (ROOT / "content" / "pages").glob("*.md"))
    texts += "".join(p.read_text(encoding="utf-8") for p in (ROOT / "figures").glob("*.py"))
    records = [json.loads(p.read_text(encoding="utf-8")) for p in (ROOT / "content" / "records").glob("*.json")]
    texts += json.dumps(records, ensure_ascii=False)
    assert "第 0 个头" not in texts and "第 0 层" not in texts


def test_the_generated_pages_own_words_keep_to_the_course_glossary():
    """numbers.html, sources.html, glossary.html … are also made of the interface's own words (the zh_CN
    catalog): none of them may be a wording the course's glossary forbids."""
    from site_builder.load.glossary import definition_problems, forbidden_uses, load_glossary

    terms, problems = load_glossary((ROOT / "content" / "glossary.yml").read_text(encoding="utf-8"),
                                    "content/glossary.yml")
    catalog = (ROOT / "site_builder" / "locales" / "zh_CN" / "LC_MESSAGES" / "messages.po").read_text(encoding="utf-8")
    translations = [line for line in catalog.splitlines() if line.startswith("msgstr")]
    assert not problems and not definition_problems(terms, "content/glossary.yml") and translations
    assert [(line, word) for line in translations for word, _term in forbidden_uses(terms)(line)] == []
