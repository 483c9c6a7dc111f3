"""The real course end to end: content, marks, gallery, allowed URLs, no leak, the English build."""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re
import shutil
from pathlib import Path

import pytest
from sitekit import (
    _found,
    assert_no_unsafe_url,
    write_site,
)

import build
import figures
from site_builder.check.site import resolve_mark, state_figure
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.parse.page import StateSource
from site_builder.parse.positions import position_words, word_holds
from site_builder.render import search, search_index
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.numbers import display
from site_builder.vocabulary.problems import ContentError
from site_builder.write import writer
from site_builder.write.writer import write_site as write_output

ROOT = Path(__file__).resolve().parent.parent


def test_the_real_course_passes_the_check(prepared):
    assert prepared.pages  # the fixture's prepare_site raises ContentError with every problem


# ---------------------------------------------------------------------------
# The real course in content/: every state CONTENT.md asks for, and no sentence copied from the seeds.


SEEDS = ROOT.parent / "shared" / "seeds"


# (page, states) as CONTENT.md lists them; kv-bytes has one state per topic of its brief.
EXPECTED_STATES = {
    "rc-v1": ("b0", "b1", "b2", "b3", "b4"),
    "r55": ("b0", "b1", "b2", "b3"),
    "kv-bytes": ("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"),
}


RUN = 12


_CJK_RUN = re.compile(rf"[\u4e00-\u9fff，、；：（）“”]{{{RUN},}}")


@pytest.fixture(scope="module")
def prepared(real_course):
    """The real course measured, drawn and checked (conftest's, once per session); the tests only read it."""
    return real_course


@pytest.mark.parametrize("page_id", sorted(EXPECTED_STATES))
def test_every_state_has_figure_provenance_and_teacher_notes(prepared, page_id):
    page = prepared.pages[page_id]
    states = {b.id: b for b in page.blocks if isinstance(b, StateSource)}
    assert set(EXPECTED_STATES[page_id]) <= set(states)
    for state in states.values():
        assert state.figure in prepared.evidence.figures, f"{page_id} {state.id} has no figure"
        assert state.provenance in ("teaching", "computed", "measured", "record")
        teacher_text = " ".join(t.content for t in state.teacher if t.type == "inline")
        assert "不朗读" in teacher_text and "问" in teacher_text, f"{page_id} {state.id} lacks both teacher notes"


def test_knowledge_pages_have_their_sections(prepared):
    assert ("s01" in {a for a, _, _ in prepared.pages["resource-ledger"].anchors})
    assert ("s04" in {a for a, _, _ in prepared.pages["cache-and-effective-context"].anchors})
    assert ("r55-notes" in {a for a, _, _ in prepared.pages["index"].anchors})


def _runs(text: str) -> set[str]:
    return {m[i:i + RUN] for m in _CJK_RUN.findall(text) for i in range(len(m) - RUN + 1)}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed pages (../shared/seeds) are not beside this checkout")
def test_no_sentence_of_the_seeds_is_copied():
    seed_runs = set().union(*(_runs(p.read_text(encoding="utf-8")) for p in SEEDS.glob("*.txt")))
    copied = [f"{path.relative_to(ROOT)}:{number}: {run}"
              for path in sorted((ROOT / "content").rglob("*")) if path.suffix in (".md", ".yml", ".json")
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              for run in sorted(_runs(line) & seed_runs)]
    assert copied == []


# Close paraphrase: a content sentence whose characters line up, in order, with a seed sentence's
# (difflib's ratio 2·matches / total length). Sentences with fewer than PARAPHRASE_MIN_CJK Chinese
# characters are skipped: there a few shared technical words decide the ratio. The threshold is set
# from measurements, not guessed: the course's pages that have no seed counterpart (kv-bytes,
# resource-ledger, cache-and-effective-context: 119 sentences, written independently on the same
# topic) reach at most 0.41 against every seed sentence (95th percentile 0.34), while the synonym
# swaps the review found scored 0.81, 0.81 and 0.63 (../shared/hooks/before-stop warns at 0.6).
# 0.5 sits above all independent writing and well below the mildest paraphrase found.
PARAPHRASE_RATIO = 0.5


PARAPHRASE_MIN_CJK = 15


_SENTENCE_END = re.compile(r"[。！？；\n]")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text)
            if len(re.findall(r"[\u4e00-\u9fff]", s)) >= PARAPHRASE_MIN_CJK]


def close_paraphrases(pages: dict[str, str], seed_text: str, threshold: float = PARAPHRASE_RATIO) -> list[str]:
    """``path:line: ratio sentence ~ seed sentence`` for every sentence too close to a seed sentence."""
    from difflib import SequenceMatcher

    seeds = _sentences(seed_text)
    found = []
    for path, text in pages.items():
        for number, line in enumerate(text.splitlines(), 1):
            for sentence in _sentences(line):
                for seed in seeds:
                    matcher = SequenceMatcher(None, sentence, seed, autojunk=False)
                    # quick_ratio bounds ratio from above: most pairs are rejected without the full match.
                    if matcher.quick_ratio() >= threshold and matcher.ratio() >= threshold:
                        found.append(f"{path}:{number}: {matcher.ratio():.2f} {sentence[:30]}… ~ {seed[:30]}…")
                        break
    return found


def test_close_paraphrase_is_reported_with_path_and_line():
    seed = "训练结束以后，推理阶段只留下参数，不会给每条请求另外准备梯度和 Adam 的历史状态。"
    swapped = "训练结束后，推理只保留参数，不会为每条请求重新准备梯度和 Adam 的更新历史。"
    own = "请求到来时，模型手里只有参数；优化器的状态在训练停下时就可以丢掉，推理用不到它们。"
    found = close_paraphrases({"content/pages/x.md": f"开场。\n{own}\n{swapped}\n"}, seed)
    assert len(found) == 1 and found[0].startswith("content/pages/x.md:3: ")


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed pages (../shared/seeds) are not beside this checkout")
def test_no_sentence_is_a_close_paraphrase_of_a_seed_sentence():
    seed_text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt")))
    pages = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in sorted((ROOT / "content").rglob("*.md"))}
    assert close_paraphrases(pages, seed_text) == []


def test_timing_prose_claims_hold_in_the_record():
    """kv-bytes b8 quotes quartile ranges: at prompt 1024 the cache wins per decode step (the quartile ranges
    do not overlap, so the ratio's lower end is above 1); at prompt 32, one generated token, the page cites
    whether the ranges overlap instead of claiming it. A new record must keep the first true."""

    values = json.loads((ROOT / "content" / "records" / "decode_timing.json").read_text(encoding="utf-8"))["values"]

    def quartiles(key: str) -> tuple[float, float]:
        return values[f"{key}_q1"]["value"], values[f"{key}_q3"]["value"]

    assert quartiles("cached_decode_ms_p1024")[1] < quartiles("recompute_decode_ms_p1024")[0]
    assert values["decode_speedup_p1024_low"]["value"] > 1
    text = (ROOT / "content" / "pages" / "kv-bytes.md").read_text(encoding="utf-8")
    assert "decode_timing.quartiles_overlap_p32_n1" in text and "decode_timing.cached_decode_ms_p1024_q1" in text


def test_glossary_definitions_show_their_formulas_as_maths(real_public):
    """头维度's definition writes $d_h$: the glossary page draws it, the hover card reads d_h, no dollar shows."""
    files = real_public
    glossary = files["glossary.html"].decode()
    entry = glossary[glossary.index('id="term-head-dim"'):].split("</section>", 1)[0]
    assert "<math" in entry and "$" not in entry
    assert "stix-two-math.woff2" in glossary  # the math font is loaded where formulas are
    cards = re.findall(r'<a class="term" href="glossary.html#term-head-dim" data-definition="([^"]*)"',
                       "".join(data.decode() for name, data in files.items() if name.endswith(".html")
                               and isinstance(data, bytes)))
    assert cards and all("d_h" in card and "$" not in card for card in cards)


# ---------------------------------------------------------------------------
# The real course: every pointing step names a real region of its figure, and every position
# word written next to a mark is true of where matplotlib drew it.
#
# The seed notes pointed at things the figures do not show (a parameter block "on the left", an
# A/B request "bottom right", a distribution "far right", a Q box in r55 b1, T values on a byte
# axis, a head-connection diagram in a bar chart). The last test puts those sentences back against
# the real figures and expects the build to refuse them.


LESSONS = ("rc-v1", "r55", "kv-bytes")


def _mark_uses(prepared):
    for page in prepared.pages.values():
        for use in page.roles:
            if use.name == "mark":
                figure_id, name = resolve_mark(use.target, state_figure(page, use.state))
                yield page, use, prepared.evidence.figures[figure_id], name


def test_every_state_with_a_figure_has_a_pointing_list_that_names_marks(prepared):
    # A lesson not translated yet is a warning by design (the extension guide adds one in a copy); nothing else is.
    assert [w for w in prepared.warnings if "not translated into" not in w.message] == []
    for page_id in LESSONS:
        page = prepared.pages[page_id]
        states = [b for b in page.blocks if isinstance(b, StateSource) and b.figure]
        lists = {state: marks for _, marks, state in page.pointing}
        assert {s.id for s in states} <= set(lists), f"{page_id}: a state without a 指图 list"
        for state in states:
            assert lists[state.id] >= 2, f"{page_id} {state.id}: its 指图 list names {lists[state.id]} marks"
            figure = prepared.evidence.figures[state.figure]
            assert len(figure.marks) >= 3, f"figure {figure.id} declares too few marks to point at"


def test_every_referenced_mark_exists_and_every_position_word_agrees_with_its_box(prepared):
    checked_words = 0
    uses = list(_mark_uses(prepared))
    assert uses
    for page, use, figure, name in uses:
        mark = figure.mark(name)
        assert mark is not None, f"{page.meta.path}:{use.line}: {figure.id} has no mark {name}"
        for word in position_words(use.clause, "zh-CN"):
            relative = figure.mark(resolve_mark(use.after_mark, figure.id)[1]) if use.after_mark else None
            assert word_holds(word, mark, figure.marks, relative), f"{page.meta.path}:{use.line}: {word.text} {name}"
            checked_words += 1
    assert checked_words  # the notes do use position words; the check is not vacuous


def test_every_mark_box_lies_inside_its_figure(prepared):
    for figure in prepared.evidence.figures.values():
        for mark in figure.marks:
            left, top, right, bottom = mark.box
            assert 0 <= left < right <= 1 and 0 <= top < bottom <= 1, (figure.id, mark)
            assert (right - left) * (bottom - top) < 0.9, f"{figure.id}:{mark.name} covers the whole figure"


# The seed's sentences, as {mark} notes on the real figures: each must be refused.
SEED_MISMATCHES = [
    ("rc-v1-b0", "先指左侧的{mark}`params`。", "'左侧' does not describe mark 'params'"),
    ("rc-v1-b0", "最后指右下角的{mark}`request`。", "'右下角' does not describe mark 'request'"),
    ("rc-v1-b1", "停在最右侧的{mark}`distribution`。", "'最右侧' does not describe mark 'distribution'"),
    ("rc-v1-b3", "指上方的{mark}`output`。", "'上方' does not describe mark 'output'"),
    ("r55-b1", "先指{mark}`q`。", "figure r55-b1 has no mark 'q'"),
    ("kv-bytes-measured", "先指{mark}`t-values`。", "figure kv-bytes-measured has no mark 't-values'"),
    ("kv-bytes-gqa", "先指{mark}`mha-heads`。", "figure kv-bytes-gqa has no mark 'mha-heads'"),
]


@pytest.mark.parametrize("figure_id, sentence, message", SEED_MISMATCHES, ids=[m[0] for m in SEED_MISMATCHES])
def test_the_seed_mismatches_are_refused_against_the_real_figures(prepared, tmp_path, figure_id, sentence, message):
    evidence = prepared.evidence
    provenance = evidence.figures[figure_id].provenance
    page = (f"---\ntitle: 一课\n---\n:::{{state}} b0\n:title: 一\n:figure: {figure_id}\n:provenance: {provenance}\n\n"
            f"正文。\n\n::::{{teacher}}\n**指图与推进（不朗读）**\n\n1. {sentence}\n::::\n:::\n")
    root = write_site(tmp_path, {"x": page})
    with pytest.raises(ContentError) as caught:
        prepare_site(root, evidence)
    found = [str(p) for p in caught.value.problems]
    assert len(found) == 1 and found[0].startswith(f"content/pages/x.md:14: {message}"), found


# The six places the seed notes misdescribed their figures, and what the course now says there.
FIXED = [
    ("rc-v1", "b0", "顶部的{mark}`params`", "左侧"),
    ("rc-v1", "b0", "底部的{mark}`request`", "右下角"),
    ("rc-v1", "b1", "底部的{mark}`distribution`", "最右侧"),
    ("rc-v1", "b4", "{mark}`output`：箭头朝右", "向上的箭头"),
    ("r55", "b1", "图里没有画 Q", "这一列新算出的 Q"),
    ("kv-bytes", "b1", "两根轴都是字节数", "横轴上的几个 T"),
    ("kv-bytes", "b7", "{mark}`mha-bars`", "连着自己的一组"),
    ("kv-bytes", "b7", "灰色虚线条", "query 头与 KV 头的对应关系"),
]


@pytest.mark.parametrize("page_id, state_id, now, before", FIXED, ids=[f"{f[0]}-{f[1]}-{f[3]}" for f in FIXED])
def test_the_six_seed_mismatches_are_gone(page_id, state_id, now, before):
    text = (ROOT / "content" / "pages" / f"{page_id}.md").read_text(encoding="utf-8")
    start = text.index(f":::{{state}} {state_id}\n")
    state = text[start:text.index("\n:::\n", start)]
    assert now in state and before not in state


# ---------------------------------------------------------------------------
# The gallery (teacher site) and `build.py list` on the real course: every figure, every value, their uses.


@pytest.fixture(scope="module")
def gallery(real_public, real_teacher) -> str:
    assert "gallery.html" not in real_public
    return real_teacher["gallery.html"].decode()


def shown_by_a_state(prepared, provenance: str):
    """The first state (its page id and block) showing a figure of ``provenance``, and that figure."""
    return next((page_id, block, prepared.evidence.figures[block.figure])
                for page_id, page in prepared.pages.items() for block in page.blocks
                if isinstance(block, StateSource) and block.figure
                and prepared.evidence.figures[block.figure].provenance == provenance)


def state_link(prepared, page_id: str, state) -> str:
    """How the gallery links a use of a figure or a value: to its state, named by its lesson's label."""
    meta = prepared.pages[page_id].meta
    return f'<a href="{page_id}.html#{page_id}-{state.id}">{meta.label or meta.title} · {state.id}</a>'


def test_gallery_lists_every_figure_with_thumbnail_provenance_inputs_and_uses(gallery, prepared):
    listed = re.findall(r'<li class="gallery-item" id="figure-([^"]+)"', gallery)
    assert sorted(listed) == sorted(figures.FIGURE_IDS) and len(listed) == len(set(figures.FIGURE_IDS))
    page_id, state, figure = shown_by_a_state(prepared, "measured")
    item = gallery.split(f'id="figure-{figure.id}"', 1)[1].split("</li>", 1)[0]
    assert f'<img src="figures/{figure.file}"' in item and 'data-provenance="measured"' in item
    assert figure.inputs and all(f"<code>{source}</code>" in item for source in figure.inputs)
    assert state_link(prepared, page_id, state) in item
    sketch = figures.BY_ID[next(f for f in figures.FIGURE_IDS if figures.BY_ID[f].provenance == "teaching")]
    assert "无（示意）" in gallery.split(f'id="figure-{sketch.id}"', 1)[1].split("</li>", 1)[0]


def test_gallery_lists_every_value_formatted_with_description_and_uses(gallery, prepared):
    values = prepared.evidence.values
    rows = dict(re.findall(r'<tr id="value-([^"]+)"[^>]*>(.*?)</tr>', gallery, re.S))
    assert sorted(rows) == sorted(values)
    for name, value in values.items():
        text = htmllib.unescape(rows[name])
        described = prepared.content.value_text.describe(name) or value.description  # in the reader's language
        assert localize(display(value), "zh-CN") in text and described in text, name  # 是/否 for booleans
    # A value a state's prose cites lists that state among its uses.
    page_id, state, cited = next((page_id, block, use.target) for page_id, page in prepared.pages.items()
                                 for use in page.roles if use.name == "num" and use.state and not use.teacher
                                 for block in page.blocks if isinstance(block, StateSource) and block.id == use.state)
    assert state_link(prepared, page_id, state) in rows[cited]


def run_list(capsys, what: str) -> list[str]:
    assert build.main(["list", what]) == 0
    return capsys.readouterr().out.splitlines()


def test_list_prints_one_line_per_figure_value_and_source(capsys, prepared):
    lines = run_list(capsys, "figures")
    assert len(lines) == len(figures.FIGURE_IDS)
    _, _, figure = shown_by_a_state(prepared, "measured")
    line = next(x for x in lines if x.startswith(f"{figure.id} "))
    assert re.match(rf"^{re.escape(figure.id)} +模型实测 ← {re.escape(', '.join(figure.inputs))} +\S", line), line
    lines = run_list(capsys, "values")
    assert len(lines) == len(prepared.evidence.values)
    name, value = next((n, v) for n, v in prepared.evidence.values.items() if v.provenance == "measured")
    line = next(x for x in lines if x.startswith(f"{name} "))
    assert display(value) in line and "[模型实测]" in line
    lines = run_list(capsys, "sources")
    assert len(lines) == len(prepared.content.sources)
    assert all(any(x.startswith(f"{source.id} ") for x in lines) for source in prepared.content.sources)


def test_real_course_both_sites_only_hold_allowed_urls(prepared, real_public, real_teacher, tmp_path):
    scanned = 0
    for files, out in ((real_public, tmp_path / "_site"), (real_teacher, tmp_path / "_site-teacher")):
        write_output(dict(files), out)
        every = [p for p in sorted(out.rglob("*")) if p.is_file()]
        # Markup a browser would parse is HTML or SVG here, and the sitemap, whose addresses are all under
        # base_url; any other markup type would escape the scan.
        sitemaps = [p for p in every if p.name == "sitemap.xml"]
        for sitemap in sitemaps:
            addresses = re.findall(r"<loc>(.*?)</loc>", sitemap.read_text(encoding="utf-8"))
            assert addresses and all(a.startswith(prepared.content.config.base_url) for a in addresses), addresses
        assert not [p for p in every if p.suffix in (".htm", ".xhtml", ".xml", ".mml", ".svgz", ".xsl")
                    and p not in sitemaps]
        files = {str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8") for p in every
                 if p.suffix in (".html", ".svg")}
        assert_no_unsafe_url(files)
        scanned += len(files)
    assert scanned >= 2 * (len(prepared.pages) + len(prepared.evidence.figures))


# ---------------------------------------------------------------------------
# A course published with ``language: en`` says everything of its own in English.
#
# The real course is rendered from a copy of ``content/`` whose every Chinese character was replaced
# by a private-use character (one per character, so words stay distinct and the glossary, marks and
# checks behave as before), with the figures' and values' texts replaced the same way. What is left
# of Chinese in the built files can only come from the build itself: its interface, llms.txt, the
# numbers, glossary and gallery pages, the notebooks' notes, the strings scripts show. With
# ``language: en`` there must be none; with ``zh-CN`` the same detector finds the Chinese interface.


HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


_PRIVATE = 0xF0000  # Supplementary Private Use Area-A: no script, no meaning, never Han


def hide(text: str) -> str:
    """``text`` with each Han character replaced by its own private-use character."""
    return HAN.sub(lambda m: "".join(chr(_PRIVATE + ord(c) - 0x3400) for c in m.group()), text)


def hidden_content(target: Path, language: str) -> Path:
    shutil.copytree(ROOT / "content", target / "content")
    for path in (target / "content").rglob("*"):
        if path.suffix in (".md", ".yml", ".json"):
            path.write_text(hide(path.read_text(encoding="utf-8")), encoding="utf-8")
    site_yml = target / "content" / "site.yml"
    text, count = re.subn(r"^language: .*$", f"language: {language}", site_yml.read_text(encoding="utf-8"),
                          flags=re.M)
    assert count == 1
    # a course in one language: its translations (their own tests are test_editions) are left out
    text = re.sub(r"^translations: .*\n", "", text, flags=re.M)
    for tag in re.findall(r"^translations: \[(.*)\]", site_yml.read_text(encoding="utf-8"), flags=re.M)[0].split(","):
        shutil.rmtree(target / "content" / tag.strip())
    site_yml.write_text(text, encoding="utf-8")
    return target


def hidden_evidence(evidence: Evidence) -> Evidence:
    """The figures' and values' own texts hidden; ``label`` (checked against the badge) kept."""
    def strings(item, keep=()):
        return dataclasses.replace(item, **{f.name: hide(getattr(item, f.name)) for f in dataclasses.fields(item)
                                            if isinstance(getattr(item, f.name), str) and f.name not in keep})
    figures = {fid: dataclasses.replace(strings(f, keep=("label",)), marks=tuple(strings(m) for m in f.marks))
               for fid, f in evidence.figures.items()}
    values = {name: strings(v) for name, v in evidence.values.items()}
    return dataclasses.replace(evidence, figures=figures, values=values)


def chinese(files: dict) -> dict[str, set[str]]:
    """Built file → the Chinese words in it (figures, drawn by the course, are not the build's words)."""
    found = {}
    for name, data in files.items():
        if name.endswith((".svg", ".png", ".jpg", ".woff2", ".zip", ".ttf")):
            continue
        text = data if isinstance(data, str) else (data if isinstance(data, bytes) else data.read_bytes()).decode(
            "utf-8", errors="replace")
        if (words := set(HAN.findall(text))):
            found[name] = words
    return found


@pytest.fixture(scope="module")
def evidence(tmp_path_factory) -> dict[str, Evidence]:
    """Language → the evidence as build.py makes it for a course in it: texts it makes (record comparisons)
    and the figures' corner labels in that language."""
    import build

    made = {}
    for language in ("en", "zh-CN"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build, "LANGUAGE", lambda language=language: language)
            # figures drawn into a folder of its own: the shared .cache/figures-out holds the course's language
            made[language] = hidden_evidence(build.measure_and_draw(figure_dir=tmp_path_factory.mktemp("fig"))[0])
    return made


@pytest.fixture(scope="module")
def sites(tmp_path_factory, evidence) -> dict[str, dict]:
    built = {}
    for language in ("en", "zh-CN"):
        prepared = prepare_site(hidden_content(tmp_path_factory.mktemp(language), language), evidence[language])
        built[language] = {"public": render_site(prepared, teacher=False),
                           "teacher": render_site(prepared, teacher=True),
                           "search": search.site_documents(prepared)}
    return built


@pytest.mark.slow  # The module's sites: the real course rendered in two languages, both flavours.
def test_an_english_course_has_no_chinese_in_any_built_file_or_search_document(sites):
    en = sites["en"]
    assert chinese(en["public"]) == {}
    assert chinese(en["teacher"]) == {}
    assert chinese(en["search"]) == {}


@pytest.mark.slow  # The module's sites: the real course rendered in two languages, both flavours.
def test_the_same_course_in_chinese_shows_the_chinese_interface(sites):
    zh = sites["zh-CN"]
    found = chinese(zh["teacher"])
    assert {"跳到正文", "数值与出处", "术语表"} <= found["r55.html"] | found["numbers.html"], found["r55.html"]
    assert "是" in found["numbers.html"]  # a boolean value: 是 in Chinese, yes in English
    assert found["llms.txt"] and found["r55.md"] and found["downloads/r55.ipynb"]
    assert "指图" in found["r55.html"]  # the pointing status, through data-ui
    assert chinese(zh["search"])["numbers.html"] >= {"数值", "值与", "与出", "出处"}


@pytest.mark.slow  # The module's sites: the real course rendered in two languages, both flavours.
def test_english_words_where_the_chinese_course_has_chinese(sites):
    public, teacher = sites["en"]["public"], sites["en"]["teacher"]
    llms = public["llms.txt"].decode()
    assert "> The full Markdown of every page (its numbers filled in by this build).\n\n## Pages\n" in llms
    numbers = public["numbers.html"].decode()
    assert "Numbers and where they come from</h1>" in numbers and "<span class=\"value\">yes</span>" in numbers
    assert re.search(r"\(figure [a-z0-9-]+: ", public["r55.md"].decode())
    ui = re.search(r"data-ui='([^']*)'", teacher["r55.html"].decode()).group(1)
    assert '"pointing": " · pointing %(n)s/%(total)s: "' in ui and '"title_sep": ": "' in ui
    assert "Glossary" in public["glossary.html"].decode() and 'aria-label="Table: ' in public["kv-bytes.html"].decode()


def test_the_real_course_has_no_leak(prepared, real_public, tmp_path):
    site = tmp_path / "_site"
    writer.write_site(dict(real_public), site,
                            finish=lambda folder: search_index.index_site(prepared, folder))
    assert any("{teacher}" in page.source for page in prepared.pages.values())
    assert _found(prepared, site) == []


def test_conditions_marked_english_are_english_and_a_records_own_carry_no_language(real_public):
    """lessonmodel's configurations are English; a record's conditions are in its author's language (unknown)."""
    conditions = [re.findall(r"<dd( lang=\"en\")?>([^<]*)</dd>", page.decode()) for name, page in real_public.items()
                  if name.endswith(".html") and isinstance(page, bytes)]
    said = [item for found in conditions for item in found]
    assert said and [text for lang, text in said if lang and HAN.search(text)] == []
