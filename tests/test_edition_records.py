"""A translation's texts for a record (values.yml ``records``): shown in its edition, checked with path:line.

The course is tests/editionkit.py's, its lesson r1 also citing a record written in Chinese. Expected texts
and lines are taken from what the test wrote, never typed in twice.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from editionkit import INDEX_EN, R1_EN, R1_ZH, course_evidence, line_of, write_course

from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.load.content import Content
from site_builder.load.evidence import evidence_from
from site_builder.load.loader import load_content

VALUES_EN = "content/en/values.yml"
RECORD = {"id": "rec", "title": "历史记录：显存分配", "date": "不详（原页没有写明日期）",
          "machine": "未记录（只说是本地运行）", "conditions": "取自论文的文字，本次构建不会重跑它。",
          "values": {"share": {"value": 65, "unit": "%", "description": "share of memory"}}}
TEXTS = {"date": "Unknown (the original page gives no date)", "machine": "Not recorded (only: run locally)",
         "conditions": "From the text of the paper; this build does not rerun it."}
VALUES_YML = "records:\n  rec:\n" + "".join(f'    {key}: "{text}"\n' for key, text in TEXTS.items())
CITE = "{num}`exp.bytes`"


def _course(root: Path, values_yml: str = VALUES_YML) -> Path:
    """The edition course, r1 citing ``rec.share`` in both languages, ``values_yml`` as the English values.yml."""
    write_course(root, {"index": INDEX_EN, "r1": R1_EN.replace(CITE, f"{CITE}, {{num}}`rec.share`")},
                 en_files={"values.yml": values_yml})
    (root / "content" / "pages" / "r1.md").write_text(R1_ZH.replace(CITE, f"{CITE}，{{num}}`rec.share`"),
                                                      encoding="utf-8")
    (root / "content" / "records" / "rec.json").write_text(json.dumps(RECORD, ensure_ascii=False), encoding="utf-8")
    return root


def _record_values(content: Content, root: Path) -> dict:
    """The record values as build.py makes them for ``content``'s language: from that edition's records."""
    records = {r.id: r.data for r in content.records}
    return evidence_from({"experiments": {}}, records, {}, root / "fig", root, content.config.language).values


def _text(payload: bytes | str) -> str:
    return (payload if isinstance(payload, bytes) else Path(payload).read_bytes()).decode("utf-8")


def test_a_translation_s_record_texts_are_shown_in_its_edition_only(tmp_path):
    root = _course(tmp_path)
    content, problems = load_content(root)
    assert not problems, problems
    (english,) = content.editions
    course = course_evidence(root / "fig")
    evidence = replace(course, values=course.values | _record_values(content, root),
                       editions={"en": replace(course.editions["en"],
                                               values=course.values | _record_values(english, root))})
    files = render_site(prepare_site(root, evidence), teacher=False)
    for name in ("r1.html", "numbers.html"):
        zh, en = _text(files[name]), _text(files[f"en/{name}"])
        for key, text in TEXTS.items():
            assert text in en and RECORD[key] not in en, (name, key)
            assert RECORD[key] in zh and text not in zh, (name, key)


def test_a_record_without_a_translation_keeps_its_own_text(tmp_path):
    content, problems = load_content(_course(tmp_path, values_yml="groups:\n  rec: Memory split\n"))
    assert not problems, problems
    assert content.editions[0].records == content.records
    assert content.editions[0].records[0].data == RECORD


@pytest.mark.parametrize(("values_yml", "needle", "said"), [
    (VALUES_YML.replace("  rec:", "  reck:"), "reck:", "'reck'"),  # no such record
    (VALUES_YML + "    command: python run.py\n", "command:", "'command'"),  # a field the record does not have
    (VALUES_YML + "    values: 65\n", "values:", "'values'"),  # not a text readers see
    (VALUES_YML.replace(f'"{TEXTS["date"]}"', "[1, 2]"), "date:", "'date'"),  # not text
])
def test_a_record_text_for_nothing_is_a_path_line_error(tmp_path, values_yml, needle, said):
    _content, problems = load_content(_course(tmp_path, values_yml))
    where = f"{VALUES_EN}:{line_of(values_yml, needle)}: "
    assert [str(p) for p in problems if str(p).startswith(where) and said in str(p)], problems

