"""The template environment (render/html.py ``make_environment``): a dict's item read first gives what Jinja's
own lookup gives."""

from __future__ import annotations

import pytest
from jinja2 import Environment, StrictUndefined, UndefinedError

from site_builder.render.html import make_environment

CASES = ["{{ page.title }}", "{{ page['title'] }}", "{{ page.items is defined }}", "{{ page.missing is defined }}",
         "{{ page.get('title') }}", "{{ page.nested.count }}", "{{ 'x' if page.missing is defined else 'y' }}",
         "{% for k, v in page.nested.items() %}{{ k }}={{ v }};{% endfor %}", "{{ page.values is defined }}"]


@pytest.mark.parametrize("source", CASES)
def test_dict_lookups_read_as_jinja_reads_them(source: str) -> None:
    page = {"title": "T", "nested": {"count": 3, "items": "not the method"}}
    ours = make_environment().from_string(source).render(page=page)
    jinja = Environment(undefined=StrictUndefined, autoescape=True).from_string(source).render(page=page)
    assert ours == jinja


def test_a_missing_key_is_still_an_error() -> None:
    with pytest.raises(UndefinedError):
        make_environment().from_string("{{ page.missing }}").render(page={"title": "T"})
