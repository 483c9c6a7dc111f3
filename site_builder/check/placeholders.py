"""Text a lesson still has from the ``new lesson`` skeleton: a warning while writing, an error in ``check``.

A skeleton builds as it is (a teacher previews it at once), so its placeholder lines cannot be
build errors; ``check``, which decides what is published, refuses them. The skeletons themselves
are the one list of placeholders: every line of prose in them is one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path

from site_builder.load.content import SourceFile
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.problems import Problem

SKELETONS = Path(__file__).parents[1] / "skeletons"
"""``lesson.md`` (Chinese, the first course's language) and ``lesson.<catalog>.md`` for other languages."""
_STRUCTURE = re.compile(r"^(?:---|kind:.*|:{3,}.*|:provenance:.*|\$\$|\*\*[^*]+\*\*)?$")
"""Skeleton lines that are not text to replace: syntax (front matter and directive fences, the kind) and
the teacher notes' bold labels (**模拟问答**), which real lessons keep."""


_AROUND = "placeholders"
"""What ``memo`` keeps a page's placeholders beside: nothing around the page (``check_site`` uses a hash)."""


@functools.cache
def _placeholder_lines() -> tuple[str, ...]:
    """Every prose line of every skeleton, ``{{id}}`` left in (it stands for the page's id)."""
    return tuple(dict.fromkeys(line.strip() for skeleton in sorted(SKELETONS.glob("lesson*.md"))
                               for line in skeleton.read_text(encoding="utf-8").splitlines()
                               if not _STRUCTURE.match(line.strip())))


@functools.cache
def _split_placeholders() -> tuple[frozenset[str], tuple[str, ...]]:
    """The placeholder lines the same on every page, and those naming the page's id (``{{id}}``)."""
    lines = _placeholder_lines()
    return frozenset(line for line in lines if "{{id}}" not in line), tuple(line for line in lines if "{{id}}" in line)


def placeholder_problems(pages: Iterable[SourceFile],
                         memo: Callable[[str, Hashable, Callable[[], list[Problem]]], list[Problem]] | None = None,
                         ) -> list[Problem]:
    """One problem per line of a page that is still a skeleton's placeholder text. ``memo``: as ``check_site``'s
    (a page's placeholders depend on its source alone)."""
    problems = []
    for page in pages:
        check = functools.partial(_page_placeholders, page)
        problems += memo(page.path, _AROUND, check) if memo else check()
    return problems


def _page_placeholders(page: SourceFile) -> list[Problem]:
    fixed, with_id = _split_placeholders()
    lines = page.text.splitlines()
    page_id = page.path.rsplit("/", 1)[-1].removesuffix(".md")
    placeholders = fixed.union(line.replace("{{id}}", page_id) for line in with_id)
    if placeholders.isdisjoint(map(str.strip, lines)):  # one pass in C: the usual case
        return []
    return [Problem(page.path, number, _("still the placeholder text of the 'new lesson' skeleton: "
                                         "replace it with the lesson's own, or delete the line"))
            for number, line in enumerate(lines, 1) if line.strip() in placeholders]
