"""Limits with messages where work would otherwise grow without bound: glossary wordings (aliases
counted each time they are used), pages per site; and forbidden wordings matched at word boundaries,
so that 头维 is flagged in 每个头维是 but not across 抬头维持."""

from __future__ import annotations

from sitekit import LIMIT_S, lesson, time_limit, write_site

from site_builder.load.content import SourceFile
from site_builder.load.frontmatter import MAX_STATES, split_page
from site_builder.load.glossary import MAX_WORDINGS, forbidden_uses, load_glossary
from site_builder.load.loader import MAX_PAGES, load_content

GLOSSARY = "- id: head-dim\n  term: 头维度\n  forbidden: [头维]\n  definition: 一个头的向量长度。\n"


def test_forbidden_wordings_are_matched_at_word_boundaries():
    terms, problems = load_glossary(GLOSSARY, "content/glossary.yml")
    assert problems == []
    texts = ("他抬头维持着姿势。", "每个头维是 64。", "头维很小", "看一下头维。", "头维度是 64。", "（头维）",
             "head 头维")
    flagged = {text: [w for w, _term in forbidden_uses(terms)(text)] for text in texts}
    assert flagged == {"他抬头维持着姿势。": [], "每个头维是 64。": ["头维"], "头维很小": ["头维"],
                       "看一下头维。": ["头维"], "头维度是 64。": [], "（头维）": ["头维"], "head 头维": ["头维"]}


def test_an_alias_heavy_glossary_is_one_line():
    words = ", ".join(f"词{n}" for n in range(1000))
    entries = "".join(f"- id: t{n}\n  term: 术语{n}\n  forbidden: *many\n  definition: 定义。\n" for n in range(1, 200))
    text = f"- id: t0\n  term: 术语0\n  forbidden: &many [{words}]\n  definition: 定义。\n" + entries
    with time_limit(LIMIT_S):
        terms, problems = load_glossary(text, "content/glossary.yml")
    crossing = MAX_WORDINGS // 1001  # the entry (0-based) whose wordings go over the limit: 1000 + its term
    assert [p.localized("zh-CN") for p in problems] == [
        f"content/glossary.yml:{1 + 4 * crossing}: 术语表的写法超过 {MAX_WORDINGS} 个（首选、允许和禁止的写法都算，"
        "别名每用一次算一次）：只保留正文需要的条目"]
    assert len(terms) == crossing


def test_many_terms_with_many_wordings_load():
    entries = "".join(f"- id: t{n}\n  term: 术语{n}\n  allowed: [别名{n}a, 别名{n}b]\n  definition: 定义。\n"
                      for n in range(3000))
    with time_limit(LIMIT_S):  # a hang guard; how fast it loads is no test's business (timings are noisy here)
        terms, problems = load_glossary(entries, "content/glossary.yml")
    assert problems == [] and len(terms) == 3000


def test_too_many_pages_is_one_line(tmp_path):
    page = lesson("正文\n")
    ids = [f"p{n}" for n in range(MAX_PAGES + 1)]
    write_site(tmp_path, {"p0": page}, site_yml="title: 课\nlanguage: zh-CN\nbase_url: https://example.org/\n"
                                                 f"pages: [{', '.join(ids)}]\n")
    _content, problems = load_content(tmp_path)
    assert [p.localized("zh-CN") for p in problems] == \
        [f"content/site.yml:4: 'pages' 列了 {MAX_PAGES + 1} 个页面，超过了 {MAX_PAGES} 个的上限：请把课程拆开"]


def test_too_many_states_on_a_page_is_one_line_before_parsing_them():
    state = ":::{state} b{n}\n:title: 一\n:provenance: teaching\n\n正文。\n:::\n\n"
    body = "".join(state.replace("{n}", str(n)) for n in range(100_000))
    with time_limit(LIMIT_S):
        _split, problems = split_page(SourceFile("content/pages/x.md", lesson(body)))
    assert [p.localized("zh-CN") for p in problems] == \
        [f"content/pages/x.md:{4 + 7 * MAX_STATES}: 一页的状态超过 {MAX_STATES} 个：请把这一课拆开"]
