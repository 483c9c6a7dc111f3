"""The architecture as a test: the folders of site_builder are the pipeline's stages, in order, and no
stage imports a later one; the three packages meet only in build.py, through the bottom layer."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("vocabulary", "markdown", "load", "parse", "check", "resolve", "render", "write", "engine", "serve")
"""site_builder's folders in pipeline order; ``vocabulary`` is the bottom layer every package may import."""
MAX_LINES = 400
LIBRARY = ("site_builder", "figures", "lessonmodel")


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "locales" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of the project modules a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(ROOT).with_suffix("").parts
    package = here[:-1]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return {n for n in names if n.split(".")[0] in LIBRARY}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "site_builder" and parts[1] in STAGES else None


def test_no_module_is_over_the_limit_and_build_py_is_the_command_line_only():
    long = {str(p.relative_to(ROOT)): n for package in LIBRARY for p in _modules(package)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
    assert len((ROOT / "build.py").read_text(encoding="utf-8").splitlines()) <= 300


def test_site_builder_is_its_stage_folders():
    folders = {p.name for p in (ROOT / "site_builder").iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(STAGES)
    loose = {p.name for p in (ROOT / "site_builder").glob("*.py")}
    assert loose == {"__init__.py"}


def test_no_stage_imports_a_later_stage():
    order = {name: i for i, name in enumerate(STAGES)}
    backwards = []
    for path in _modules("site_builder"):
        own = _stage(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for name in _imports(path):
            other = _stage(name)
            if own and other and order[other] > order[own]:
                backwards.append(f"{path.relative_to(ROOT)} imports {name}")
    assert backwards == []


def test_the_packages_meet_only_in_build_py_and_the_bottom_layer():
    crossings = []
    for package in LIBRARY:
        for path in _modules(package):
            for name in _imports(path):
                top = name.split(".")[0]
                if top == package or (top == "site_builder" and _stage(name) == "vocabulary"):
                    continue
                if name == "site_builder.vocabulary":
                    continue
                crossings.append(f"{path.relative_to(ROOT)} imports {name}")
    assert crossings == []


def test_the_bottom_layer_imports_nothing_of_the_project_above_it():
    above = [f"{p.relative_to(ROOT)} imports {name}" for p in _modules("site_builder/vocabulary")
             for name in _imports(p)
             if _stage(name) not in (None, "vocabulary") or name.split(".")[0] != "site_builder"]
    assert above == []
