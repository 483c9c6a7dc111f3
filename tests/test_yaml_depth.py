"""Nesting at the limit: a text is walked event by event only when it could nest deeper than MAX_DEPTH,
and what it says does not depend on that shortcut."""

import pytest

from site_builder.load.yamlnodes import MAX_DEPTH, load_located


def _said(text: str) -> list[tuple[int, str]]:
    located, problems = load_located(text, "content/site.yml")
    return [(p.line, p.message) for p in problems]


@pytest.mark.parametrize("nest", [
    lambda n: "- " * n + "x\n",  # block lists on one line
    lambda n: "[" * n + "x" + "]" * n + "\n",  # flow lists
    lambda n: "".join(" " * i + "a:\n" for i in range(n - 1)) + " " * (n - 1) + "a: 1\n",  # block mappings
])
def test_the_deepest_accepted_nesting_is_max_depth(nest):
    assert _said(nest(MAX_DEPTH)) == []
    assert [message for _line, message in _said(nest(MAX_DEPTH + 1))] == [
        f"nested more than {MAX_DEPTH} levels deep: flatten the structure"]


def test_a_long_bracketed_list_of_ids_with_hyphens_is_read_whole():
    ids = [f"page-{n}" for n in range(1000)]
    located, problems = load_located(f"pages: [{', '.join(ids)}]\n", "content/site.yml")
    assert problems == [] and located.value == {"pages": ids}
