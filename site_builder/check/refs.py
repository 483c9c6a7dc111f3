"""Cross-references in MyST's spelling: ``{ref}`text <label>```, ``{eq}``, ``{numref}``, ``{doc}``.

A target is found the one way for the check stage and for every output: ``page#anchor``, ``#anchor`` and
``page`` as in ``{ref}``; a bare label (``(label)=``, ``:label:``, ``:name:``, ``$$…$$ (label)``) on this page,
else on the first page that defines it; ``{doc}`` names a page (``x``, ``x.md`` or ``folder/x.md``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)


def split_title(target: str) -> tuple[str, str]:
    """``text <label>`` → (text, label); anything else → ('', target)."""
    titled = _TITLED.match(target)
    return (titled.group(1).strip(), titled.group(2).strip()) if titled and titled.group(1).strip() else ("", target)


def resolve_ref(target: str, page_id: str) -> tuple[str, str]:
    """``r55#b2`` → (``r55``, ``r55-b2``), a state's anchor; ``#notes`` → (this page, ``notes``); ``r55`` →
    (``r55``, ``''``)."""
    page, _hash, anchor = target.partition("#")
    page = page or page_id
    return page, f"{page}-{anchor}" if re.fullmatch(r"b\d+", anchor) else anchor


class EveryAnchor(frozenset):
    """The anchors of a page that failed to load or has problems of its own: not known for sure, so every anchor
    asked of that page is taken to be there (its own problem says why). A bare label is looked for only among the
    ones it was seen to define (none when it did not parse): asked of it, every label would be found."""

    def __contains__(self, anchor: object) -> bool:
        return True


def locate(name: str, target: str, page_id: str, anchors: Mapping[str, Collection[str]]) -> tuple[str, str] | None:
    """The (page, anchor) a reference role's target (its title split off) points at; ``None`` when there is none
    (``anchor`` is ``''`` for a page itself)."""
    if name == "doc":
        page = target.removesuffix(".md").rsplit("/", 1)[-1]
        return (page, "") if page in anchors else None
    if "#" in target:
        page, anchor = resolve_ref(target, page_id)
        return (page, anchor) if anchor in anchors.get(page, ()) else None
    if name == "ref" and target in anchors:
        return target, ""
    if target in anchors.get(page_id, ()):
        return page_id, target
    return next(((page, target) for page, names in anchors.items()
                 if (frozenset.__contains__(names, target) if isinstance(names, EveryAnchor) else target in names)),
                None)


def number_in(title: str) -> str:
    """The number in an anchor's title (``(3)`` → ``3``), for ``{numref}`` text with ``%s``."""
    found = re.search(r"\d+", title)
    return found.group(0) if found else title
