"""A lesson's download runs where it is unzipped: in an empty folder, in a fresh environment holding only its
pinned requirements.txt (and the kernel that runs a notebook), its notebook recomputes every measured and
computed value its page shows, matches them, and lists the page's record values with where they come from.

The fresh environment is made with ``python -m venv`` and pip from the package index (pip reuses the wheels
in its cache); only ipykernel, pinned as requirements-test.txt pins it, is added to run the notebook."""

from __future__ import annotations

import html
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # a fresh environment installed with pip, then one kernel per lesson

ROOT = Path(__file__).resolve().parent.parent
NUM = re.compile(r'<a class="num" href="numbers\.html#[^"]*" data-provenance="([a-z]+)" title="[^"]*· ([^"]+)">'
                 r"(.*?)</a>")


@pytest.fixture(scope="module")
def site(real_course, real_public):
    return real_course, real_public


def _lessons(prepared) -> list[str]:
    return [page_id for page_id, page in prepared.pages.items() if page.meta.kind == "lesson"]


def _pin(requirements: Path, name: str) -> str:
    return next(line.strip() for line in requirements.read_text(encoding="utf-8").splitlines()
                if line.strip().lower().startswith(f"{name}=="))


@pytest.fixture(scope="module")
def fresh(site, tmp_path_factory):
    """A new virtual environment with one download's requirements.txt and ipykernel; its kernel's name."""
    prepared, files = site
    requirements = {_read(files, page_id, "requirements.txt").decode() for page_id in _lessons(prepared)}
    assert len(requirements) == 1, "every lesson pins the same packages"
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", str(venv)], check=True)
    pinned = venv.parent / "requirements.txt"
    pinned.write_text(requirements.pop() + _pin(ROOT / "requirements-test.txt", "ipykernel") + "\n", encoding="utf-8")
    python = venv / "bin" / "python"
    # --no-compile: what is under test is that the pins install and suffice; compiling every installed module
    # ahead (IPython's and its kin's) is a fifth of pip's time, and the kernel compiles what it imports
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                    "-r", str(pinned)], check=True, timeout=900)
    subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "fresh-download"],
                   check=True, capture_output=True)
    os.environ["JUPYTER_PATH"] = str(venv / "share" / "jupyter")  # where nbclient finds the kernel
    yield python
    del os.environ["JUPYTER_PATH"]


def _unzip(files: dict, page_id: str, folder: Path) -> Path:
    with zipfile.ZipFile(io.BytesIO(files[f"downloads/{page_id}.zip"])) as archive:
        archive.extractall(folder)
    return folder


def _page_values(page_html: str) -> dict[str, tuple[str, str]]:
    """name → (provenance, shown text) of every value the page's HTML shows."""
    return {name: (provenance, html.unescape(re.sub(r"<[^>]+>", "", shown)))
            for provenance, name, shown in NUM.findall(page_html)}


def test_every_lesson_s_download_holds_its_notebook_and_what_it_needs(site):
    prepared, files = site
    for page_id in _lessons(prepared):
        with zipfile.ZipFile(io.BytesIO(files[f"downloads/{page_id}.zip"])) as archive:
            names = set(archive.namelist())
        assert {f"{page_id}.ipynb", f"{page_id}.md", "README.md", "requirements.txt", "lessonmodel/__init__.py",
                "lessonmodel/runner.py"} <= names
        assert files[f"downloads/{page_id}.ipynb"] == _read(files, page_id, f"{page_id}.ipynb")


def _read(files: dict, page_id: str, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(files[f"downloads/{page_id}.zip"])) as archive:
        return archive.read(name)


def test_each_notebook_runs_in_an_empty_folder_and_matches_its_page(site, fresh, tmp_path):
    prepared, files = site
    for page_id in _lessons(prepared):
        folder = _unzip(files, page_id, tmp_path / page_id)
        notebook = nbformat.read(folder / f"{page_id}.ipynb", as_version=4)
        NotebookClient(notebook, timeout=600, kernel_name="fresh-download",
                       resources={"metadata": {"path": str(folder)}}).execute()
        printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                          for out in cell.get("outputs", ()))
        shown = _page_values(files[f"{page_id}.html"].decode())
        recomputed = {name: (provenance, text) for name, (provenance, text) in shown.items()
                      if provenance in ("measured", "computed")
                      and prepared.evidence.values[name].value_class != "timing"}
        checked = dict(re.findall(r"^✓ (\S+): .*页面显示 (.*)（[^（]*）$", printed, re.MULTILINE))
        assert checked == {name: text for name, (_, text) in recomputed.items()}, page_id
        assert f"本页 {len(recomputed)} 个实测与公式计算的数值全部重新计算，且与页面一致" in printed
        records = {name for name, (provenance, _) in shown.items() if provenance == "record"}
        prose = "".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert {name for name in re.findall(r"^- `([^`]+)` = ", prose, re.MULTILINE)} == records, page_id
        assert prepared.pages[page_id].meta.title in prose and ":::" not in prose, page_id  # no directive syntax


def test_a_notebook_without_its_folder_says_what_to_do(site, fresh, tmp_path):
    prepared, files = site
    page_id = _lessons(prepared)[0]
    notebook = nbformat.reads(files[f"downloads/{page_id}.ipynb"].decode(), as_version=4)
    setup = next(cell.source for cell in notebook.cells if cell.cell_type == "code")
    said = subprocess.run([str(fresh), "-c", setup], cwd=tmp_path, capture_output=True, text=True)
    assert said.returncode == 1
    assert said.stderr.strip().splitlines()[-1] == (
        "FileNotFoundError: 这个文件夹及其上级都没有 lessonmodel/：请解压本课的下载，在解压出的文件夹里运行笔记本"
        "（README.md 说明了做法）")
