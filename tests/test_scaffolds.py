"""`build.py new experiment|figure`: skeletons written and registered in one place, or nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from figures.scaffold import new_figure
from figures.scaffold import registered as figure_modules
from lessonmodel.scaffold import new_experiment
from lessonmodel.scaffold import registered as experiment_names

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def packages(tmp_path):
    shutil.copy(ROOT / "lessonmodel" / "runner.py", tmp_path / "runner.py")
    shutil.copy(ROOT / "figures" / "registry.py", tmp_path / "registry.py")
    return tmp_path


def test_new_experiment_is_written_and_registered_last(packages):
    module = new_experiment("attention_span", packages)
    runner = (packages / "runner.py").read_text(encoding="utf-8")
    assert experiment_names(runner)[-1] == "attention_span"
    assert "from lessonmodel import attention_span, experiments, lesson_data, memory, worked\n" in runner
    assert "def attention_span(cfg: ModelConfig) -> Result:" in module.read_text(encoding="utf-8")
    compile(module.read_text(encoding="utf-8"), str(module), "exec")


def test_new_figure_is_written_and_registered_last(packages):
    module = new_figure("span-probs", ("attention_span",), packages, known=("r55-b0",))
    assert module.name == "span_probs.py"
    assert figure_modules((packages / "registry.py").read_text(encoding="utf-8"))[-1] == "span_probs"
    text = module.read_text(encoding="utf-8")
    assert '"measured", ("attention_span",), draw' in text
    compile(text, str(module), "exec")
    sketch = new_figure("span-sketch", (), packages).read_text(encoding="utf-8")
    assert '"teaching", (), draw' in sketch


@pytest.mark.parametrize("inputs", [("attention_span",), ()], ids=["measured", "teaching"])
def test_new_figure_speaks_the_course_language(packages, inputs):
    """An English course gets a skeleton with English labels, alt text and description."""
    import re

    chinese = re.compile(r"[\u4e00-\u9fff]")
    english = new_figure("span-en", inputs, packages, catalog="en").read_text(encoding="utf-8")
    compile(english, "span_en.py", "exec")
    assert not chinese.search(english.split('"""', 2)[2])  # past the module docstring: what the figure says
    assert chinese.search(new_figure("span-zh", inputs, packages).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: new_experiment("Attention", d), "'Attention' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment("class", d), "'class' is not a valid experiment id: use lowercase letters, "
     "digits and '_', starting with a letter (e.g. 'attention_span'); pages cite its values as '<id>.<key>'"),
    (lambda d: new_experiment("equivalence", d), "experiment 'equivalence' already exists: choose another id"),
    (lambda d: new_figure("../x", (), d), "'../x' is not a valid figure id: use lowercase letters, digits and "
     "'-', starting with a letter (e.g. 'attention-span')"),
    (lambda d: new_figure("r55-b0", (), d, known=("r55-b0",)),
     "figure 'r55-b0' already exists: choose another id"),
    (lambda d: new_figure("misc", (), d), "figures/misc.py already exists: choose another id"),
])
def test_bad_or_taken_ids_write_nothing(packages, make, message):
    before = {p.name: p.read_bytes() for p in packages.iterdir()}
    with pytest.raises(ValueError) as error:
        make(packages)
    assert str(error.value) == message
    assert {p.name: p.read_bytes() for p in packages.iterdir()} == before
