"""`build.py new experiment|figure`: a skeleton written, found by discovery, no Python source edited; or nothing
written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from itertools import count
from pathlib import Path

import pytest

import figures
import lessonmodel
from figures.scaffold import new_figure
from lessonmodel.scaffold import new_experiment

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = next(name for n in count() if (name := f"probe_{n}") not in lessonmodel.EXPERIMENTS
                  and not (ROOT / "lessonmodel" / f"{name}.py").exists())
FIGURE = next(name for n in count() if (name := f"probe-{n}") not in figures.FIGURE_IDS
              and not (ROOT / "figures" / f"probe_{n}.py").exists())
"""An experiment id and a figure id the project does not use yet (the course may have grown, as the guide shows)."""
FOUND = f"""
import json, figures, lessonmodel
from lessonmodel.runner import source_hash
print(json.dumps({{"experiments": list(lessonmodel.EXPERIMENTS), "figures": list(figures.FIGURE_IDS),
                  "inputs": figures.BY_ID["{FIGURE}"].inputs, "source_hash": source_hash()}}))
"""


@pytest.fixture
def packages(tmp_path):
    """A copy of the figures and lessonmodel packages (site_builder is imported from the project)."""
    for package in ("figures", "lessonmodel"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _sources(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}


def test_new_experiment_and_figure_are_found_by_discovery_and_no_source_is_edited(packages):
    before = _sources(packages)
    experiment = new_experiment(EXPERIMENT, packages / "lessonmodel")
    figure = new_figure(FIGURE, (EXPERIMENT,), packages / "figures", known=figures.FIGURE_IDS)
    assert (experiment.name, figure.name) == (f"{EXPERIMENT}.py", f"{FIGURE.replace('-', '_')}.py")
    after = _sources(packages)
    assert {name: text for name, text in after.items() if name in before} == before  # only new files
    assert sorted(set(after) - set(before)) == [f"figures/{figure.name}", f"lessonmodel/{experiment.name}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the copies come first: the working directory
    out = subprocess.run([sys.executable, "-c", FOUND], cwd=packages, env=env, capture_output=True, text=True,
                         check=True).stdout
    found = json.loads(out)
    assert sorted(found["experiments"]) == sorted([*lessonmodel.EXPERIMENTS, EXPERIMENT])
    assert sorted(found["figures"]) == sorted([*figures.FIGURE_IDS, FIGURE])
    assert found["inputs"] == [EXPERIMENT]
    # the hash that decides when results are recomputed covers the new module
    assert found["source_hash"] != lessonmodel.source_hash()


def test_the_skeletons_are_what_the_guide_says(packages):
    module = new_experiment(EXPERIMENT, packages / "lessonmodel").read_text(encoding="utf-8")
    assert f"@experiment\ndef {EXPERIMENT}(cfg: ModelConfig) -> Result:" in module
    measured = new_figure(FIGURE, (EXPERIMENT,), packages / "figures").read_text(encoding="utf-8")
    assert f'"measured", ("{EXPERIMENT}",), draw' in measured
    sketch = new_figure(f"{FIGURE}-sketch", (), packages / "figures").read_text(encoding="utf-8")
    assert '"teaching", (), draw' in sketch


@pytest.mark.parametrize("inputs", [(EXPERIMENT,), ()], ids=["measured", "teaching"])
def test_new_figure_speaks_the_course_language(packages, inputs):
    """An English course gets a skeleton with English labels, alt text and description."""
    chinese = re.compile(r"[\u4e00-\u9fff]")
    english = new_figure(f"{FIGURE}-en", inputs, packages / "figures", catalog="en").read_text(encoding="utf-8")
    compile(english, "english.py", "exec")
    assert not chinese.search(english.split('"""', 2)[2])  # past the module docstring: what the figure says
    assert chinese.search(new_figure(f"{FIGURE}-zh", inputs, packages / "figures").read_text(encoding="utf-8"))


TAKEN_EXPERIMENT = next(iter(lessonmodel.EXPERIMENTS))
TAKEN_FIGURE = figures.FIGURE_IDS[0]
FIGURE_MODULE = figures.registry.MODULES[0].__name__.rsplit(".", 1)[1]


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: new_experiment("Attention", d), "'Attention' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment("class", d), "'class' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment(TAKEN_EXPERIMENT, d),
     f"experiment '{TAKEN_EXPERIMENT}' already exists: choose another id"),
    (lambda d: new_experiment("runner", d), "experiment 'runner' already exists: choose another id"),
    (lambda d: new_figure("../x", (), d), "'../x' is not a valid figure id: use lowercase letters, digits and "
     "'-', starting with a letter (e.g. 'attention-span')"),
    (lambda d: new_figure(TAKEN_FIGURE, (), d, known=figures.FIGURE_IDS),
     f"figure '{TAKEN_FIGURE}' already exists: choose another id"),
    (lambda d: new_figure(FIGURE_MODULE, (), d), f"figures/{FIGURE_MODULE}.py already exists: choose another id"),
])
def test_bad_or_taken_ids_write_nothing(packages, make, message):
    package = packages / ("lessonmodel" if "experiment" in message else "figures")
    before = _sources(packages)
    with pytest.raises(ValueError) as error:
        make(package)
    assert str(error.value) == message
    assert _sources(packages) == before
