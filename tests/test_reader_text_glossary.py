"""The glossary's forbidden wordings in a record's reader-visible text (check/site.py ``reader_text_problems``):
reported at the file and line the text is written in, the record's own file or a translation's values.yml.

The course is tests/editionkit.py's, with one record; expected lines are found in the texts the tests wrote.
"""

from __future__ import annotations

import json

import pytest
from editionkit import course_evidence, line_of, write_course

from site_builder.engine.pipeline import prepare_site
from site_builder.vocabulary.problems import ContentError

GLOSSARY_ZH = "- id: kv-cache\n  term: KV 缓存\n  forbidden: [K/V 缓存]\n  definition: 每层的 K 和 V。\n"
GLOSSARY_EN = "- id: kv-cache\n  term: KV cache\n  forbidden: [K/V cache]\n  definition: What each layer keeps.\n"
RECORD = {"id": "old_check", "title": "旧的核对", "date": "2025-01-01", "conditions": "原课页面的说法，未重跑。",
          "values": {"max_abs_diff": {"value": 2.2e-15, "unit": ""}}}


def _problems(tmp_path, conditions_zh: str, conditions_en: str) -> tuple[list[str], str]:
    """The course's problems with the record's conditions in Chinese (its file) and English (values.yml)."""
    values_yml = f"records:\n  old_check:\n    date: Unknown\n    conditions: \"{conditions_en}\"\n"
    root = write_course(tmp_path, en_files={"glossary.yml": GLOSSARY_EN, "values.yml": values_yml})
    (root / "content" / "glossary.yml").write_text(GLOSSARY_ZH, encoding="utf-8")
    (root / "content" / "records" / "old_check.json").write_text(
        json.dumps({**RECORD, "conditions": conditions_zh}, ensure_ascii=False, indent=1), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        prepare_site(root, course_evidence(root / "fig"))
    return [str(p) for p in caught.value.problems], values_yml


def test_a_forbidden_wording_in_a_translated_record_text_names_the_translations_values_yml_line(tmp_path):
    problems, values_yml = _problems(tmp_path, RECORD["conditions"], "Measured with the K/V cache on.")
    assert problems == [f"content/en/values.yml:{line_of(values_yml, 'conditions:')}: 'K/V cache' is a forbidden "
                        "variant in the glossary: write 'KV cache'"]


def test_a_forbidden_wording_in_the_records_own_text_names_the_record(tmp_path):
    problems, _values = _problems(tmp_path, "用 K/V 缓存 测得。", "Measured with the cache on.")
    assert problems == ["content/records/old_check.json: 'K/V 缓存' is a forbidden variant in the glossary: "
                        "write 'KV 缓存'"]
