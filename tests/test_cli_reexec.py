"""One way to run the tools: ``python build.py …`` from a Python without the project's packages runs under
``.venv`` (site_builder/serve/venv.py), or says in one line how to make ``.venv`` when there is none."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
# The interpreter the project's .venv was made from, without its site-packages (-S): a system Python.
BARE = [sys._base_executable, "-S"]


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")} | env
    return subprocess.run(command, cwd=cwd, env=clean, capture_output=True, text=True, timeout=300)


def test_a_bare_python_has_none_of_the_packages():
    """What the other tests rely on: the bare interpreter cannot import what a build needs."""
    said = _run([*BARE, "-c", "import jinja2"], ROOT)
    assert said.returncode == 1 and "ModuleNotFoundError" in said.stderr


@pytest.mark.skipif(not VENV_PYTHON.is_file(), reason="needs the project's .venv")
def test_build_py_from_a_bare_python_answers_as_from_the_venv(tmp_path):
    """From another folder too: the re-executed command finds build.py by its own path."""
    bare = _run([*BARE, str(ROOT / "build.py"), "list", "figures"], tmp_path)
    venv = _run([str(VENV_PYTHON), str(ROOT / "build.py"), "list", "figures"], tmp_path)
    assert (bare.returncode, bare.stdout, bare.stderr) == (0, venv.stdout, venv.stderr)
    assert bare.stdout.count("\n") > 1


def _root_without_venv(tmp_path: Path, language: str) -> Path:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "site.yml").write_text(f"title: T\nlanguage: {language}\n", encoding="utf-8")
    return tmp_path


CALL = ("import sys; from pathlib import Path; sys.path.insert(0, {root!r}); "
        "from site_builder.serve.venv import run_under_venv; run_under_venv(Path({tmp!r}), Path('build.py'), [])")


@pytest.mark.parametrize("language, words", [("zh-CN", "没有"), ("en", "has no")])
def test_without_a_venv_a_bare_python_says_in_one_line_how_to_make_it(tmp_path, language, words):
    root = _root_without_venv(tmp_path, language)
    said = _run([*BARE, "-c", CALL.format(root=str(ROOT), tmp=str(root))], tmp_path)
    assert said.returncode == 1 and said.stdout == ""
    line = said.stderr.removesuffix("\n")
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"{sys._base_executable} {words} jinja2, markdown_it, numpy")
    assert "make setup" in line and "pip install -r requirements.txt" in line


def test_without_a_venv_a_python_with_the_packages_carries_on(tmp_path):
    root = _root_without_venv(tmp_path, "en")
    said = _run([sys.executable, "-c", CALL.format(root=str(ROOT), tmp=str(root)) + "; print('went on')"], tmp_path)
    assert (said.returncode, said.stdout, said.stderr) == (0, "went on\n", "")
