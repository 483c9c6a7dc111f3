"""``python build.py import``: a backtick directive's closing fence is not read as a code block's opener, so what
follows it is converted; the content of a code cell or a formula is copied as it is. Pages written for the test."""

from __future__ import annotations

from site_builder.serve.importer import convert_page

PAGE = """# 一页

```{note}
注意这里。
```

见 {cite}`Lecture.2017`，:eqref:`eq_a`。

```{code-cell} ipython3
d = {{ 'a': 1 }}
```

```{math}
:label: eq_a
{{ x }}
```

再见 {cite}`Other.2019`。
"""


def test_what_follows_a_backtick_directive_is_converted_and_code_is_copied_as_it_is():
    converted = convert_page(PAGE)
    lines = converted.text.split("\n")
    assert lines[6] == "见 {cite}`Lecture.2017`，{eq}`eq_a`。"
    assert "d = {{ 'a': 1 }}" in lines and "{{ x }}" in lines
    assert [(line, str(note)) for line, note in converted.notes if "cited" in note] == [
        (7, "cited key 'Lecture.2017': put its BibTeX entry in content/references.bib"),
        (18, "cited key 'Other.2019': put its BibTeX entry in content/references.bib")]
    assert not [note for _line, note in converted.notes if "substitution" in note]


def test_a_picture_shown_twice_is_written_from_images_both_times_and_listed_to_copy_once():
    converted = convert_page("# 一页\n\n![鱼](../img/fish.png)\n\n再看一次：\n\n![鱼](../img/fish.png)\n")
    assert converted.text.count("![鱼](images/fish.png)") == 2
    assert [(line, str(note)) for line, note in converted.notes] == [
        (3, "picture '../img/fish.png': copy it to content/pages/images/fish.png (PNG, JPEG, GIF, WebP or SVG)")]


def test_an_index_role_keeps_its_text_even_in_the_title():
    converted = convert_page("# {index}`LLN <single: LLN>` and {index}`CLT`\n\nThe {index}`law <single: law>` holds.\n")
    assert converted.text == "# LLN and CLT\n\nThe law holds.\n"


def test_a_substitution_may_use_another():
    page = ("---\nmyst:\n  substitutions:\n    a: A 的值\n    b: |\n      ```{note}\n      {{ a }}\n      ```\n---\n\n"
            "{{ b }}\n")
    assert convert_page(page).text == "```{note}\nA 的值\n```\n"


def test_a_jinja_expression_is_listed_to_write_by_hand():
    converted = convert_page("# 页\n\n{{ key | replace('a', 'b') }}\n")
    assert [(line, str(note)) for line, note in converted.notes] == [
        (3, "'{{ key | replace('a', 'b') }}' is a Jinja expression, which this site does not evaluate: write its "
            "result")]


def test_a_target_named_like_a_formula_is_renamed_with_its_references():
    page = ("(clt)=\n# 定理\n\n```{math}\n:label: clt\nx\n```\n\n见 {eq}`clt` 和 {ref}`开头 <clt>`。\n")
    converted = convert_page(page)
    assert converted.text.split("\n")[0] == "(clt-section)="
    assert "见 {eq}`clt` 和 {ref}`开头 <clt-section>`。" in converted.text
    assert [line for line, _note in converted.notes] == [1]
