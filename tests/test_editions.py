"""A course in several languages: the translations' layout, one build of every edition, parity checked.

The course is tests/editionkit.py's: Chinese at the root, English in content/en/, page r2 not
translated. Expected lines are found in the texts the tests wrote, never typed in.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from editionkit import INDEX_EN, R1_EN, R1_ZH, SITE_YML, course_evidence, line_of, write_course
from sitekit import SITE_YML as ONE_LANGUAGE_SITE_YML

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import SiteConfig
from site_builder.vocabulary.i18n import localize
from site_builder.vocabulary.numbers import display
from site_builder.vocabulary.problems import ContentError

EN, ZH = "content/en/pages/r1.md", "content/pages/r1.md"


def _prepared(root: Path):
    return prepare_site(root, course_evidence(root / "fig"))


def _problems(root: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        _prepared(root)
    return [str(p) for p in caught.value.problems]


def _text(files: dict, name: str) -> str:
    payload = files[name]
    return (payload if isinstance(payload, bytes) else Path(payload).read_bytes()).decode("utf-8")


# ------------------------------------------------------------------------------------------ the build --
def test_each_translation_is_a_whole_site_under_its_prefix_in_both_sites(tmp_path):
    prepared = _prepared(write_course(tmp_path))
    config = prepared.content.config
    (edition,) = prepared.editions
    tag = edition.content.config.language
    assert config.translations == (tag,) and edition.content.config.prefix == f"{tag}/"
    for teacher in (False, True):
        files = render_site(prepared, teacher=teacher)
        for page_id in config.pages:
            for name in (f"{page_id}.html", f"{page_id}.md"):
                assert name in files and f"{tag}/{name}" in files, (teacher, name)
        for name in ("numbers.html", "sources.html", "figures.html", "glossary.html", "llms.txt",
                     "figures/marked.svg"):
            assert f"{tag}/{name}" in files, (teacher, name)
        page = _text(files, f"{tag}/r1.html")
        for name in ("static/site.css", "static/editions.js"):  # every edition's, once, at the root
            assert name in files and f"{tag}/{name}" not in files and f'"../{name}"' in page, (teacher, name)
        assert f'<html lang="{tag}"' in page
        assert edition.pages["r1"].meta.title in page
        shown = localize(display(prepared.evidence.values["exp.diff"]), tag)
        assert shown in page  # the same measurement, written the English way
        assert 'href="../r1.html" hreflang="zh-CN" lang="zh-CN" data-edition' in page
        assert f'href="{tag}/r1.html" hreflang="{tag}" lang="{tag}" data-edition' in _text(files, "r1.html")
        assert f"{config.base_url}{tag}/r1.md" in _text(files, f"{tag}/llms.txt")
        assert f"({config.base_url}{tag}/llms.txt)" in _text(files, "llms.txt")  # each names the others'
        assert f"({config.base_url}llms.txt)" in _text(files, f"{tag}/llms.txt")
    # The English figure and its English mark labels, from the English drawing.
    english = prepared.evidence.edition(tag).figures["marked"]
    files = render_site(prepared, teacher=True)
    assert Path(files[f"{tag}/figures/marked.svg"]) == Path(prepared.evidence.edition(tag).figure_dir) / "marked.svg"
    assert english.mark("left").label in _text(files, f"{tag}/r1.html")


def test_each_edition_s_not_found_page_offers_the_others_first_page_from_the_site_s_path(tmp_path):
    prepared = _prepared(write_course(tmp_path))
    tag, path = prepared.editions[0].content.config.language, "/c/"  # base_url https://example.org/c/
    for teacher in (False, True):
        files = render_site(prepared, teacher=teacher)
        assert f'<a href="{path}{tag}/index.html" hreflang="{tag}" lang="{tag}">' in _text(files, "404.html")
        assert f'<a href="{path}index.html" hreflang="zh-CN" lang="zh-CN">' in _text(files, f"{tag}/404.html")
        # not the other edition's 404 page, and no state of a page carried across (editions.js)
        assert f"{tag}/404.html" not in _text(files, "404.html") and "data-edition" not in _text(files, "404.html")


def test_hreflang_alternates_are_absolute_on_the_public_site_and_the_sitemap_lists_every_edition(tmp_path):
    prepared = _prepared(write_course(tmp_path))
    base, tag = prepared.content.config.base_url, prepared.editions[0].content.config.language
    files = render_site(prepared, teacher=False)
    for name in ("r1.html", f"{tag}/r1.html"):
        page = _text(files, name)
        assert f'<link rel="alternate" hreflang="zh-CN" href="{base}r1.html">' in page, name
        assert f'<link rel="alternate" hreflang="{tag}" href="{base}{tag}/r1.html">' in page, name
        assert f'<link rel="alternate" hreflang="x-default" href="{base}r1.html">' in page, name  # the source
    sitemap = _text(files, "sitemap.xml")
    for page_id in prepared.content.config.pages:
        assert f"<loc>{base}{page_id}.html</loc>" in sitemap and f"<loc>{base}{tag}/{page_id}.html</loc>" in sitemap
    teacher = render_site(prepared, teacher=True)
    assert "sitemap.xml" not in teacher
    assert '<link rel="alternate" hreflang="zh-CN" href="../r1.html">' in _text(teacher, f"{tag}/r1.html")


def test_a_page_not_translated_yet_is_a_warning_and_the_source_page_with_a_notice(tmp_path):
    prepared = _prepared(write_course(tmp_path))
    (edition,) = prepared.editions
    tag = edition.content.config.language
    untranslated = [page_id for page_id in prepared.pages if page_id not in {Path(f.path).stem
                                                                             for f in edition.content.pages}]
    assert untranslated
    for page_id in untranslated:
        warning = next(str(w) for w in prepared.warnings if w.path == f"content/pages/{page_id}.md")
        assert warning.startswith(f"content/pages/{page_id}.md:1: warning:") and f"content/{tag}/pages/{page_id}.md" \
            in warning
        page = _text(render_site(prepared, teacher=False), f"{tag}/{page_id}.html")
        assert 'class="edition-notice"' in page and f'href="../{page_id}.html" hreflang="zh-CN"' in page
        assert re.search(rf'<article class="(lesson|article)" id="{page_id}" data-page="{page_id}" lang="zh-CN">', page)
        assert prepared.pages[page_id].meta.title in page
        term = prepared.content.glossary[0].term  # cited by the page, not in the translation's glossary
        assert f"{term}" in page and f"<code>{term}</code>" not in page  # read as its word, not as code


def test_a_course_in_one_language_publishes_nothing_of_editions(tmp_path):
    write_course(tmp_path, site_yml=ONE_LANGUAGE_SITE_YML.format(pages="index, r1, r2"))
    prepared = _prepared(tmp_path)
    assert prepared.editions == () and prepared.content.config.translations == ()
    files = render_site(prepared, teacher=False)
    assert not [name for name in files if name.startswith("en/") or "editions" in name or name == "sitemap.xml"]
    assert "hreflang" not in _text(files, "r1.html") and "edition-switch" not in _text(files, "r1.html")


def test_the_editions_config_says_where_each_edition_is():
    config = SiteConfig("t", "zh-CN", "https://example.org/c/", ("a",), translations=("en",))
    assert config.languages == ("zh-CN", "en") and config.prefix == ""
    assert SiteConfig("t", "zh-CN", "https://example.org/c/", ("a",)).languages == ()


# ------------------------------------------------------------------------------------------- parity --
def test_a_removed_state_names_both_files(tmp_path):
    without = R1_EN[:R1_EN.index(":::{state} b1")]
    problems = _problems(write_course(tmp_path, {"r1": without}))
    found = [p for p in problems if "'b1'" in p and p.startswith(f"{EN}:")]
    assert len(found) == 1, problems
    assert re.match(rf"^{EN}:(\d+): state 'b1' of {ZH}:{line_of(R1_ZH, ':::{state} b1')} is missing here", found[0])
    assert int(found[0].split(":")[1]) >= line_of(without, ":::{state} b0")


def test_a_value_cited_in_one_language_only_names_both_files(tmp_path):
    extra = R1_EN.replace("are not computed again.", "are not computed again ({num}`exp.bytes`).")
    problems = _problems(write_course(tmp_path, {"r1": extra}))
    assert f"{EN}:{line_of(extra, '{num}`exp.bytes`')}: state 'b0' cites value 'exp.bytes' here but not in " \
           f"{ZH}:{line_of(R1_ZH, ':::{state} b0')}" in problems, problems
    missing = R1_EN.replace("; the cache takes {num}`exp.bytes`", "")
    problems = _problems(write_course(tmp_path, {"r1": missing}))
    assert f"{EN}:{line_of(missing, ':::{state} b1')}: state 'b1' does not cite value 'exp.bytes' here, as " \
           f"{ZH}:{line_of(R1_ZH, '{num}`exp.bytes`')} does" in problems, problems


def test_a_teacher_note_pointing_at_another_mark_names_both_files(tmp_path):
    other = R1_EN.replace("then at {mark}`right`", "then at {mark}`middle`")
    problems = _problems(write_course(tmp_path, {"r1": other}))
    assert f"{EN}:{line_of(other, '{mark}`middle`')}: the teacher note of state 'b0' points at mark 'marked:middle' " \
           f"here but not in {ZH}:{line_of(R1_ZH, ':::{state} b0')}" in problems, problems
    assert f"{EN}:{line_of(other, ':::{state} b0')}: the teacher note of state 'b0' does not point at mark " \
           f"'marked:right' here, as {ZH}:{line_of(R1_ZH, '{mark}`right`')} does" in problems, problems


def test_a_state_showing_another_figure_or_citing_another_source_names_both_files(tmp_path):
    other = R1_EN.replace(":figure: marked", ":figure: plot").replace("{mark}`left`", "{mark}`marked:left`") \
        .replace("{mark}`right`", "{mark}`marked:right`").replace("see {src}`M34`", "see {src}`Vaswani2017`")
    problems = _problems(write_course(tmp_path, {"r1": other}))
    assert f"{EN}:{line_of(other, ':figure: plot')}: state 'b0' shows figure 'plot' here but 'marked' in " \
           f"{ZH}:{line_of(R1_ZH, ':figure: marked')}" in problems, problems
    assert f"{EN}:{line_of(other, '{src}`Vaswani2017`')}: the page cites source 'Vaswani2017' here but not in " \
           f"{ZH}:1" in problems, problems
    assert f"{EN}:1: the page does not cite source 'M34' here, as {ZH}:{line_of(R1_ZH, '{src}`M34`')} does" \
        in problems, problems


def test_parity_messages_are_said_in_the_course_language(tmp_path):
    without = R1_EN[:R1_EN.index(":::{state} b1")]
    with pytest.raises(ContentError) as caught:
        _prepared(write_course(tmp_path, {"r1": without}))
    said = [p.localized("zh-CN") for p in caught.value.problems if p.path == EN]
    assert said and all(re.search(r"[\u4e00-\u9fff]", line) for line in said), said


# ------------------------------------------------------------------------------------- the layout --
@pytest.mark.parametrize(("site_yml", "expected"), [
    (SITE_YML.replace("[en]", "[fr]"), "no folder content/fr/ for the translation 'fr'"),
    (SITE_YML.replace("[en]", "[zh-CN]"), "the translation 'zh-CN' is the course's own language"),
    (SITE_YML.replace("[en]", "[../x]"), "'../x' is not a language tag"),
    (SITE_YML.replace("[en]", "en"), "site.yml 'translations' must be a list of language tags"),
])
def test_translations_must_name_other_languages_with_folders(tmp_path, site_yml, expected):
    problems = _problems(write_course(tmp_path, site_yml=site_yml))
    line = line_of(site_yml, "translations")
    assert any(p.startswith(f"content/site.yml:{line}: ") and expected in p for p in problems), problems


@pytest.mark.parametrize(("name", "text", "key"), [
    ("site.yml", "title: Test course\nbase_url: https://elsewhere.example/\n", "base_url"),
    ("sources.yml", "- id: M34\n  title: Internal record\n  url: https://elsewhere.example/\n", "url"),
])
def test_a_translation_gives_only_reader_visible_text(tmp_path, name, text, key):
    problems = _problems(write_course(tmp_path, en_files={name: text}))
    assert any(p.startswith(f"content/en/{name}:{line_of(text, key + ':')}: ") and f"'{key}'" in p
               for p in problems), problems


def test_a_translated_page_the_source_does_not_have_is_an_error(tmp_path):
    problems = _problems(write_course(tmp_path, {"r1": R1_EN, "r9": R1_EN}))
    assert any(p.startswith("content/en/pages/r9.md:1: page 'r9' is not a page of content/site.yml") for p in problems)


def test_a_translation_has_its_own_title_glossary_and_source_texts(tmp_path):
    glossary = "- id: kv-cache\n  term: KV cache\n  forbidden: [K/V cache]\n  definition: What each layer keeps.\n"
    page = R1_EN.replace("why a cache can be reused", "why a K/V cache can be reused")
    problems = _problems(write_course(tmp_path, {"r1": page}, en_files={"glossary.yml": glossary}))
    assert any(p.startswith(f"{EN}:{line_of(page, 'K/V cache')}: ") for p in problems), problems
    prepared = _prepared(write_course(tmp_path, {"r1": R1_EN}, en_files={"glossary.yml": glossary}))
    content = prepared.editions[0].content
    assert content.config.title == "Test course" and [t.term for t in content.glossary] == ["KV cache"]
    english, chinese = (next(s for s in c.sources if s.id == "M34") for c in (content, prepared.content))
    assert english.title == "Internal record" and chinese.title != english.title
    sources = _text(render_site(prepared, teacher=False), "en/sources.html")
    assert english.title in sources and english.checked in sources



def test_a_translation_s_own_texts_are_checked_where_they_are_written(tmp_path):
    """A definition the glossary page could not show (maths that does not render) and a forbidden wording in a
    source's title are problems of the translation's own files, also before any page of it is translated."""
    glossary = "- id: kv-cache\n  term: KV cache\n  forbidden: [kv store]\n  definition: Kept per layer, $\\foo$.\n"
    sources = "- id: M34\n  title: Internal kv store record\n  checked: The adoption record of the course\n"
    for pages in ({"r1": R1_EN}, {}):
        found = [p for p in _problems(write_course(tmp_path / str(len(pages)), pages,
                                                   en_files={"glossary.yml": glossary, "sources.yml": sources}))
                 if "glossary.yml" in p or "sources.yml" in p]
        assert [p.split(": ", 1)[0] for p in found] == ["content/en/glossary.yml:4", "content/en/sources.yml:1"], found


# ------------------------------------------------------------------------------------------- engine --
def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_edit_of_a_translation_rebuilds_it_and_writes_what_a_clean_build_writes(tmp_path):
    from site_builder.engine.builder import Engine, Output

    root = write_course(tmp_path / "course")
    evidence = course_evidence(tmp_path / "fig")

    def build(out: Path, store: Path | None):
        outputs = (Output(False, out / "public"), Output(True, out / "teacher"))
        return Engine(root, outputs, store=store).build(evidence)

    build(tmp_path / "kept", tmp_path / "store")
    page = root / "content" / "en" / "pages" / "r1.md"
    edited = page.read_text(encoding="utf-8").replace("Opening:", "To begin with:")
    page.write_text(edited, encoding="utf-8")
    report = build(tmp_path / "kept", tmp_path / "store")
    tag = report.prepared.editions[0].content.config.language
    assert f"{tag}/r1.html" in report.changed_files and "r1.html" not in report.changed_files
    assert "To begin with:" in (tmp_path / "kept" / "public" / tag / "r1.html").read_text(encoding="utf-8")
    assert build(tmp_path / "kept", tmp_path / "store").prepared is None  # nothing changed since
    build(tmp_path / "clean", None)
    for site in ("public", "teacher"):
        assert _tree(tmp_path / "kept" / site) == _tree(tmp_path / "clean" / site), site


@pytest.mark.parametrize("serving", [True, False], ids=["dev server", "new process"])
def test_a_save_renders_only_the_pages_it_changes_in_every_edition(tmp_path, serving):
    """A translation's pages are kept by their keys as the source's are: an edit of a translated page renders that
    language's page alone, one of a page not translated yet renders it in both (the translation shows it); each
    time both folders hold what a clean build writes."""
    from site_builder.engine.builder import Engine, Output

    root = write_course(tmp_path / "course")
    evidence = course_evidence(tmp_path / "fig")
    outputs = (Output(False, tmp_path / "public"), Output(True, tmp_path / "teacher"))
    server = Engine(root, outputs, serving=True)  # or, each build, a new process's engine keeping a store

    def build():
        return (server if serving else Engine(root, outputs, store=tmp_path / "store")).build(evidence)

    tag = build().prepared.editions[0].content.config.prefix
    for path, old, new, rendered in ((ZH, "开场：", "开场白：", ("r1",)), (EN, "Opening:", "To begin:", (f"{tag}r1",)),
                                     ("content/pages/r2.md", "新的查询", "新来的查询", ("r2", f"{tag}r2"))):
        (root / path).write_text((root / path).read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        assert build().rendered == rendered, path
        clean = tuple(Output(output.teacher, tmp_path / "clean" / output.folder.name) for output in outputs)
        Engine(root, clean).build(evidence)
        for output, built in zip(outputs, clean, strict=True):
            assert _tree(output.folder) == _tree(built.folder), (path, output.folder.name)
    # a translation's own problems are found on the save that makes them, by the check a save runs
    (root / EN).write_text((root / EN).read_text(encoding="utf-8") + "\n{num}`exp.nope`\n", encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        build()
    problems = caught.value.problems
    assert {p.path for p in problems} == {EN} and any("exp.nope" in str(p) for p in problems), problems


def test_a_group_title_edited_in_values_yml_reaches_every_page_citing_the_group(tmp_path):
    """A page's evidence footer names the group of each value it cites: an edit of its title is rendered
    into every page of that edition on the next save, as a clean build would."""
    from site_builder.engine.builder import Engine, Output

    root = write_course(tmp_path / "course", en_files={"values.yml": "groups:\n  exp: Alpha title\n"})
    evidence = course_evidence(tmp_path / "fig")
    server = Engine(root, (Output(False, tmp_path / "public"),), serving=True)
    tag = server.build(evidence).prepared.editions[0].content.config.prefix
    (root / "content" / tag / "values.yml").write_text("groups:\n  exp: Beta title\n", encoding="utf-8")
    server.build(evidence)
    Engine(root, (Output(False, tmp_path / "clean"),)).build(evidence)
    assert "Beta title" in (tmp_path / "clean" / tag / "r1.html").read_text(encoding="utf-8")
    assert _tree(tmp_path / "public") == _tree(tmp_path / "clean")


def test_states_in_another_order_name_both_files(tmp_path):
    first, second = R1_EN.index(":::{state} b0"), R1_EN.index(":::{state} b1")
    swapped = R1_EN[:first] + R1_EN[second:] + "\n" + R1_EN[first:second]
    problems = _problems(write_course(tmp_path, {"r1": swapped}))
    moved = [p for p in problems if p.startswith(f"{EN}:") and "same order" in p]
    assert moved and all(re.search(rf"{ZH}:\d+", p) for p in moved), problems
    assert any(f"{ZH}:{line_of(R1_ZH, ':::{state} b0')}" in p or f"{ZH}:{line_of(R1_ZH, ':::{state} b1')}" in p
               for p in moved), moved


def test_a_translation_s_teacher_note_published_is_found_by_the_check(tmp_path):
    from site_builder.write.verify import verify_output
    from site_builder.write.writer import write_site as write_output

    prepared = _prepared(write_course(tmp_path))
    public, teacher = tmp_path / "_site", tmp_path / "_site-teacher"
    write_output(render_site(prepared, teacher=False), public)
    write_output(render_site(prepared, teacher=True), teacher)
    assert verify_output(prepared, public, teacher) == []
    note = next(line for line in R1_EN.splitlines() if line.startswith("Point at"))
    leaked = public / prepared.editions[0].content.config.language / "r1.md"
    leaked.write_text(leaked.read_text(encoding="utf-8") + note + "\n", encoding="utf-8")
    assert any(p.path.endswith("r1.md") and EN in str(p) for p in verify_output(prepared, public, teacher))


def test_a_reference_to_a_page_not_translated_yet_is_checked_against_the_page_it_shows(tmp_path):
    # r2 has no English page, so the English site shows the Chinese one: its b0 is there, its b7 is not. It was
    # taken for a page that failed to load, and any anchor of it was accepted (r2.html#nowhere was published).
    index = INDEX_EN + "\nSee {ref}`r2#b0` and {ref}`r2#b7`.\n"
    problems = _problems(write_course(tmp_path, {"index": index, "r1": R1_EN}))
    assert problems == ["content/en/pages/index.md:8: {ref} to unknown anchor '#r2-b7' on page 'r2' (did you mean "
                        "'r2-b0'?)"], problems
