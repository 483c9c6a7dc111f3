"""Each lesson's notebook, executed with nbclient: it recomputes every measured value its page shows."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from site_builder.engine.pipeline import render_site

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(real_course, real_public):
    return real_course, real_public


def measured_on_page(prepared, page_id: str) -> set[str]:
    values = prepared.evidence.values
    return {u.target for u in prepared.pages[page_id].roles
            if u.name == "num" and not u.teacher and values[u.target].provenance in ("measured", "computed")
            and values[u.target].value_class != "timing"}


def execute(notebook) -> None:
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()


def lessons(prepared) -> list[str]:
    return [i for i, p in prepared.pages.items() if p.meta.kind == "lesson"]


@pytest.mark.slow  # Every test executes notebooks in a Jupyter kernel.
def test_every_lesson_has_a_notebook_linked_from_its_page(site):
    prepared, files = site
    for page_id in lessons(prepared):
        assert f"downloads/{page_id}.ipynb" in files
        assert f'<a href="downloads/{page_id}.ipynb" download>' in files[f"{page_id}.html"].decode()


@pytest.mark.slow  # Every test executes notebooks in a Jupyter kernel.
@pytest.mark.parametrize("page_id", ["rc-v1", "r55", "kv-bytes"])
def test_notebook_recomputes_and_matches_every_measured_value_of_its_page(site, page_id):
    prepared, files = site
    notebook = nbformat.reads(files[f"downloads/{page_id}.ipynb"].decode(), as_version=4)
    nbformat.validate(notebook)
    execute(notebook)
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for out in cell.get("outputs", ()))
    expected = measured_on_page(prepared, page_id)
    assert expected, f"{page_id} cites measured values"
    checked = {line.split(" ", 2)[1].rstrip(":") for line in printed.splitlines() if line.startswith("✓ ")}
    assert checked == expected
    assert f"本页 {len(expected)} 个实测与公式计算的数值全部重新计算，且与页面一致" in printed  # the course language
    prose = "".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert prepared.pages[page_id].meta.title in prose and ":::" not in prose


@pytest.mark.slow  # Every test executes notebooks in a Jupyter kernel.
def test_a_notebook_fails_when_the_page_published_another_value(site):
    _, files = site
    notebook = nbformat.reads(files["downloads/r55.ipynb"].decode(), as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "check('stale_prefix.max_abs_diff'" in c.source)
    line = next(x for x in cell.source.splitlines() if x.startswith("check('stale_prefix.max_abs_diff'"))
    published = line.split(", ")[2]
    cell.source = cell.source.replace(line, line.replace(published, repr(float(published) * 1.001)))
    with pytest.raises(CellExecutionError, match="与页面发布的 .* 不同"):
        execute(notebook)


@pytest.mark.slow  # Every test executes notebooks in a Jupyter kernel.
def test_notebooks_are_deterministic(site):
    prepared, files = site
    again = render_site(prepared, teacher=False)
    assert all(files[f"downloads/{i}.ipynb"] == again[f"downloads/{i}.ipynb"] for i in lessons(prepared))
    assert json.loads(files["downloads/r55.ipynb"])["cells"][0]["id"] == "cell-0"
