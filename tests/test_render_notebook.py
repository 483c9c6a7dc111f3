"""Each lesson's notebook: linked from its page, the same bytes from every build, valid by nbformat's schema,
and failing when the page published another value than it recomputes. That it runs and matches every value
its page shows is test_download.py's, in a fresh environment from the lesson's download."""

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
def test_a_notebook_fails_when_the_page_published_another_value(site):
    prepared, files = site
    # The first float (compared with a tolerance) not 0 that a lesson's notebook checks: published 0.1 % off.
    notebook, cell, line = next(
        (notebook, cell, line) for page_id in lessons(prepared)
        for notebook in [nbformat.reads(files[f"downloads/{page_id}.ipynb"].decode(), as_version=4)]
        for cell in notebook.cells if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if line.startswith("check(") and ", rtol=" in line and float(line.split(", ")[2]) != 0)
    published = line.split(", ")[2]
    cell.source = cell.source.replace(line, line.replace(published, repr(float(published) * 1.001)))
    with pytest.raises(CellExecutionError, match="与页面发布的 .* 不同"):
        execute(notebook)


@pytest.mark.slow  # Every test executes notebooks in a Jupyter kernel.
def test_notebooks_are_deterministic(site):
    prepared, files = site
    again = render_site(prepared, teacher=False)
    assert all(files[f"downloads/{i}.ipynb"] == again[f"downloads/{i}.ipynb"] for i in lessons(prepared))
    for page_id in lessons(prepared):  # the writer skips nbformat's schema check (site_builder/render/notebook.py)
        nbformat.validate(nbformat.reads(files[f"downloads/{page_id}.ipynb"].decode(), as_version=4))
    assert all(json.loads(files[f"downloads/{i}.ipynb"])["cells"][0]["id"] == "cell-0" for i in lessons(prepared))
