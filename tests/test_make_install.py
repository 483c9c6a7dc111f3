"""`make` installs the environment with uv when uv can be had, with the same pinned requirements files pip
would read; without uv (and without a way to install it) it falls back to pip."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

FAKE_UV = """#!/bin/sh
# Stands in for uv: records how it was called and makes what a venv needs to look made.
echo "$@" >> "{log}"
if [ "$1" = venv ]; then mkdir -p .venv/bin; fi
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("Makefile", "requirements.txt", "requirements-test.txt"):
        shutil.copy(ROOT / name, project / name)
    return project


def test_uv_on_path_installs_the_pinned_requirements(tmp_path):
    project, bin_dir, log = _project(tmp_path), tmp_path / "bin", tmp_path / "uv.log"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV.format(log=log), encoding="utf-8")
    (bin_dir / "uv").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run(["make", ".venv/.installed"], cwd=project, env=env, check=True, capture_output=True)
    calls = log.read_text(encoding="utf-8").splitlines()
    assert calls == ["venv --quiet --seed --allow-existing --python python3 .venv",
                     "pip install --quiet --compile-bytecode --python .venv/bin/python -r requirements.txt",
                     "pip install --quiet --compile-bytecode --python .venv/bin/python -r requirements-test.txt"]
    assert (project / ".venv" / ".installed").is_file()


def test_without_uv_the_recipe_is_pip_s():
    said = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), ".venv/.installed-site", "FIND_UV=true"],
                          capture_output=True, text=True, check=True).stdout
    assert "-m venv .venv" in said and "-m pip install --quiet -r requirements.txt" in said


def test_every_library_whose_version_keys_a_build_is_one_make_installs():
    # code_digest asked the version of "pagefind" after requirements.txt had moved to "pagefind-bin": on a fresh
    # machine every build stopped with PackageNotFoundError, while an older .venv still held the old package.
    from site_builder.load.evidence import _pinned
    from site_builder.render.keys import LIBRARIES

    pinned = {line.split("==")[0] for line in _pinned(ROOT / "requirements.txt", LIBRARIES).splitlines()}
    assert set(LIBRARIES) <= pinned, set(LIBRARIES) - pinned
