"""The GitHub workflow: valid (actionlint, pinned in requirements-test.txt) and shaped as promised."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


# The venv's bin folder first: actionlint comes from the pinned pip package there.
ACTIONLINT = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")


def _actionlint(path: Path) -> subprocess.CompletedProcess:
    if ACTIONLINT is None:
        pytest.fail("actionlint is not installed: pip install -r requirements-test.txt")
    return subprocess.run([ACTIONLINT, "-no-color", str(path)], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


def test_actionlint_accepts_the_workflow() -> None:
    result = _actionlint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_would_catch_a_broken_workflow(tmp_path: Path) -> None:
    broken = WORKFLOW.read_text("utf-8").replace("runs-on: ${{ matrix.os }}", "runs-on: ${{ matrix.oss }}")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    path = tmp_path / ".github" / "workflows" / "pages.yml"
    path.write_text(broken, "utf-8")
    result = _actionlint(path)
    assert result.returncode != 0 and "oss" in result.stdout


def test_pull_requests_run_the_tests_and_check_on_three_machines(workflow: dict) -> None:
    assert "pull_request" in workflow["on"] and workflow["on"]["push"] == {"branches": ["main"]}
    check = workflow["jobs"]["check"]
    assert {entry["os"] for entry in check["strategy"]["matrix"]["include"]} == {
        "ubuntu-24.04", "ubuntu-24.04-arm", "macos-15"}
    assert check["strategy"]["fail-fast"] is False
    runs = [step.get("run", "") for step in check["steps"]]
    assert "python -m pytest" in runs and "python build.py check --report figure-report" in runs


def test_the_check_job_cannot_publish(workflow: dict) -> None:
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["check"]["permissions"] == {"contents": "read"}
    assert "pages" not in workflow["jobs"]["build-pages"]["permissions"]


def test_concurrency_per_ref_and_caches(workflow: dict) -> None:
    assert "github.ref" in workflow["concurrency"]["group"]
    steps = workflow["jobs"]["check"]["steps"]
    python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert python["with"]["cache"] == "pip"
    assert any(s.get("uses", "").startswith("actions/cache") and "apt" in s["with"]["path"] for s in steps)


def test_the_report_is_uploaded_when_the_check_fails(workflow: dict) -> None:
    upload = next(s for s in workflow["jobs"]["check"]["steps"]
                  if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "failure()" and upload["with"]["path"] == "figure-report/"


def test_only_main_deploys(workflow: dict) -> None:
    main_only = "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    for name in ("build-pages", "deploy"):
        assert workflow["jobs"][name]["if"] == main_only
    assert workflow["jobs"]["build-pages"]["needs"] == "check"
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
