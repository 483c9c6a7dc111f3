"""A Jupyter notebook per lesson that recomputes every measured and computed value the page shows.

The lesson's prose becomes Markdown cells (roles resolved, directives turned
into headings); after each state a code cell reruns the experiments behind the
values that state cites and compares each with the value the page published; a
last Markdown cell lists the record values it cites, with where each comes from.
How to rerun an experiment is the evidence's business (``Evidence.notebook_setup``
defines ``measure``): this module knows pages and values, not models. The lesson's
download carries the notebook with what it imports (``download_files``).
"""

from __future__ import annotations

from collections.abc import Callable

from site_builder.load.content import Evidence, Value
from site_builder.render.markdown_out import markdown_lines
from site_builder.resolve.markdown_text import markdown_text
from site_builder.resolve.resolved import ResolvedPage
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.numbers import display

REPRODUCED = ("measured", "computed")
"""Provenances of the values an experiment makes: the notebook reruns those (outputs.py ``reproduces``)."""

_CHECK = '''import math

checked = []


def check(name, recomputed, published, shown, rtol=None, atol=None):
    """Compare a recomputed value with the one the page published: exactly, or within rtol/atol for a
    value whose last bits may differ between CPUs (its class on the numbers page)."""
    if rtol is None:
        same = recomputed == published
    else:
        same = abs(recomputed - published) <= atol + rtol * abs(published)
    checked.append((name, same))
    print(SAID["match"].format(mark="✓" if same else "✗", name=name, recomputed=repr(recomputed), shown=shown,
                               published=repr(published)))
    assert same, SAID["differs"].format(name=name, recomputed=repr(recomputed), published=repr(published))
'''


def _said(say: Callable[[str], str]) -> dict[str, str]:
    """What the check cells print, in the course's language (templates the notebook fills in)."""
    keep = {k: "{" + k + "}" for k in ("mark", "name", "recomputed", "shown", "published", "n")}
    return {"match": say(_("{mark} {name}: recomputed {recomputed}, page shows {shown} ({published})", **keep)),
            "differs": say(_("{name}: recomputed {recomputed} differs from the published {published}", **keep)),
            "all": say(_("all {n} measured and computed values of this page recomputed and matched", **keep)),
            "none": say(_("this page shows no measured or computed values")),
            "no_model": say(_("lessonmodel/ is not in this folder or above it: unzip the lesson's download and run "
                              "the notebook in its folder (README.md says how)"))}


def lesson_notebook(page: ResolvedPage, evidence: Evidence, say: Callable[[str], str] = str,
                    site_url: str = "") -> bytes:
    """The notebook of one lesson (its public flavour) as ``.ipynb`` bytes (deterministic: no outputs,
    no timestamps). Its pictures are the published ones, by their address under ``site_url``."""
    import nbformat  # here, not at the top: its schema libraries take most of the renderer's import time

    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}
    measured = _measured_by_state(page, evidence)
    cells = [_markdown_cell(f"# {markdown_text(page.page.meta.title)}\n\n"
                            + say(_intro(sum(len(v) for v in measured.values()), page.page.meta.id))),
             _code_cell(f"SAID = {_said(say)!r}\n\n" + evidence.notebook_setup.rstrip() + "\n\n" + _CHECK.rstrip())]
    for state_id, prose in _prose_cells(page, site_url, say(_("Caption: {caption}", caption="{caption}"))):
        cells.append(_markdown_cell(prose))
        if state_id and measured.get(state_id):
            cells.append(_code_cell(_checks(measured[state_id], say)))
    if measured.get(""):  # values cited in prose outside the states
        cells.append(_code_cell(_checks(measured[""], say)))
    if records := _records(page, evidence, say):
        cells.append(_markdown_cell(records))
    cells.append(_code_cell(
        "assert checked and all(same for _, same in checked)\n"
        "print(SAID[\"all\"].format(n=len(checked)))" if any(measured.values()) else "print(SAID[\"none\"])"))
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"  # stable ids: the same page gives the same file
    # Not validated here: its shape is fixed by this module, and nbformat's schema check cost 3 ms per
    # notebook (most of a 1000-lesson build's notebook time); tests/test_render_notebook.py validates them.
    return (nbformat.v4.nbjson.writes(nbformat.from_dict({**notebook, "cells": cells})) + "\n").encode()


def _markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code_cell(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}


def _intro(count: int, page_id: str) -> str:
    return _("This notebook reruns the experiments this page cites and checks each of the {n} measured and "
             "computed values it shows, as the numbers page says it is compared: exactly, or within the stated "
             "tolerance where the last bits may differ between CPUs; record values are listed at the end with "
             "where they come from. Run it in the folder of the lesson's download, {zip} (README.md there says "
             "how), or inside the course repository.", n=count, zip=f"{page_id}.zip")


def _measured_by_state(page: ResolvedPage, evidence: Evidence) -> dict[str, list[Value]]:
    """Measured and computed values the page cites (not timings: they differ on every run), grouped by the
    state that first cites them ('' outside states)."""
    grouped: dict[str, list[Value]] = {}
    seen: set[str] = set()
    for use in page.uses:
        value = evidence.values.get(use.target) if use.name == "num" else None
        if value is not None and value.provenance in REPRODUCED and value.value_class != "timing" \
                and value.name not in seen:
            seen.add(value.name)
            grouped.setdefault(use.state, []).append(value)
    return grouped


def _checks(values: list[Value], say: Callable[[str], str]) -> str:
    lines = []
    for producer in dict.fromkeys(v.producer for v in values):
        lines.append(f"{producer} = measure({producer!r})")
        for value in (v for v in values if v.producer == producer):
            key = value.name.split(".", 1)[1]
            within = f", rtol={value.rtol!r}, atol={value.atol!r}" if value.value_class == "rounding" else ""
            lines.append(f"check({value.name!r}, {producer}[{key!r}], {value.value!r}, "
                         f"{say(display(value))!r}{within})")
    return "\n".join(lines)


def _records(page: ResolvedPage, evidence: Evidence, say: Callable[[str], str]) -> str:
    """The record values the page cites, each with its record, date, conditions and command: not recomputed
    (they were measured once, elsewhere), so the notebook says where they come from."""
    cited = dict.fromkeys(use.target for use in page.uses if use.name == "num" and use.target in evidence.values
                          and evidence.values[use.target].provenance == "record")
    if not cited:
        return ""
    lines = [say(_("## Record values (not recomputed)")), ""]
    for value in (evidence.values[name] for name in cited):
        lines.append(say(_("- `{name}` = {shown}: record {record} of {date}; {conditions}; made by `{command}`",
                           name=value.name, shown=say(display(value)), record=value.producer,
                           date=value.date or "?", conditions=value.conditions or "?",
                           command=value.command or "?")))
    return "\n".join(lines)


def download_readme(page_id: str, title: str, say: Callable[[str], str]) -> str:
    """The README.md of a lesson's download: what is in it and how to run its notebook."""
    return say(_("# {title}\n\nThis folder is the download of the lesson {id}: its text ({id}.md), its notebook "
                 "({id}.ipynb), the model the notebook reruns (lessonmodel/) and the packages it needs, pinned "
                 "(requirements.txt). The notebook recomputes every measured and computed value the lesson shows "
                 "and compares it with the published one.\n\nIn this folder, with Python 3.11 or later:\n\n"
                 "```sh\npython3 -m venv .venv\n.venv/bin/pip install -r requirements.txt jupyter\n"
                 ".venv/bin/jupyter notebook {id}.ipynb\n```\n", title=title, id=page_id)) + "\n"


def _prose_cells(page: ResolvedPage, site_url: str, caption: str) -> list[tuple[str, str]]:
    """(state id or '', Markdown) runs: a state's text becomes a cell under a heading with its title;
    directive syntax (openers, options, closers) is dropped, the content kept."""
    cells: list[tuple[str, list[str]]] = [("", [])]
    depth = 0
    for text, directive in markdown_lines(page, site_url):
        if directive is None:
            cells[-1][1].append(text)
            continue
        name, part, value = directive
        if part == "open":
            if name == "state" and depth == 0:
                cells.append((value, []))
            depth += 1
        elif part == "close":
            depth -= 1
            if depth == 0:
                cells.append(("", []))  # prose after a state
        elif name == "state" and part == "title":
            cells[-1][1].append(f"## {value}")
        elif name == "state" and part == "caption":
            cells[-1][1].append("*" + caption.replace("{caption}", value) + "*")
    return [(state, "\n".join(lines).strip()) for state, lines in cells if "\n".join(lines).strip()]
