"""A course published with ``language: en`` says everything of its own in English.

The real course is rendered from a copy of ``content/`` whose every Chinese character was replaced
by a private-use character (one per character, so words stay distinct and the glossary, marks and
checks behave as before), with the figures' and values' texts replaced the same way. What is left
of Chinese in the built files can only come from the build itself: its interface, llms.txt, the
numbers, glossary and gallery pages, the notebooks' notes, the strings scripts show. With
``language: en`` there must be none; with ``zh-CN`` the same detector finds the Chinese interface.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Evidence
from site_builder.render import search

# The module's sites: the real course rendered in two languages, both flavours.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
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
def evidence() -> dict[str, Evidence]:
    """Language → the evidence as build.py makes it for a course in it: texts it makes (record comparisons)
    and the figures' corner labels in that language."""
    import build

    made = {}
    for language in ("en", "zh-CN"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build, "LANGUAGE", lambda language=language: language)
            made[language] = hidden_evidence(build.measure_and_draw()[0])
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


def test_an_english_course_has_no_chinese_in_any_built_file_or_search_document(sites):
    en = sites["en"]
    assert chinese(en["public"]) == {}
    assert chinese(en["teacher"]) == {}
    assert chinese(en["search"]) == {}


def test_the_same_course_in_chinese_shows_the_chinese_interface(sites):
    zh = sites["zh-CN"]
    found = chinese(zh["teacher"])
    assert {"跳到正文", "数值与出处", "术语表"} <= found["r55.html"] | found["numbers.html"], found["r55.html"]
    assert "是" in found["numbers.html"]  # a boolean value: 是 in Chinese, yes in English
    assert found["llms.txt"] and found["r55.md"] and found["downloads/r55.ipynb"]
    assert "指图" in found["r55.html"]  # the pointing status, through data-ui
    assert chinese(zh["search"])["numbers.html"] >= {"数值", "值与", "与出", "出处"}


def test_english_words_where_the_chinese_course_has_chinese(sites):
    public, teacher = sites["en"]["public"], sites["en"]["teacher"]
    llms = public["llms.txt"].decode()
    assert "> The full Markdown of every page (its numbers filled in by this build).\n\n## Pages\n" in llms
    numbers = public["numbers.html"].decode()
    assert "Numbers and where they come from</h1>" in numbers and "<span class=\"value\">yes</span>" in numbers
    assert re.search(r"\(figure [a-z0-9-]+: ", public["r55.md"].decode())
    ui = re.search(r"data-ui='([^']*)'", teacher["r55.html"].decode()).group(1)
    assert '"pointing": " · pointing %(n)s/%(total)s: "' in ui and '"title_sep": ": "' in ui
    assert "Glossary" in public["glossary.html"].decode() and 'aria-label="Table"' in public["kv-bytes.html"].decode()
