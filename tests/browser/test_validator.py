"""Valid HTML: the W3C Nu Html Checker (npm ``vnu-jar``, run with the machine's Java) reports no
error and no warning on any page of either site.

The checker reads the files from disk, so their origin is ``file:`` and every same-origin resource
"violates" the pages' Content-Security-Policy (``'self'`` cannot match a file URL). Exactly that
message is set aside here; the browser tests load the pages over HTTP and fail on any console
error, which is where a real CSP violation would show.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from chromium import IN_CI
from conftest import ROOT, npm_installed

VNU_VERSION = "26.9.27"
VNU_JAR = ROOT / ".cache" / "npm" / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
FILE_ORIGIN_CSP = "Resource violates Content Security Policy (meta tag)"


@pytest.fixture(scope="session")
def vnu() -> list[str]:
    """The command that runs the checker; installed on first use into .cache/npm (git-ignored)."""
    java = shutil.which("java")
    if java is None:
        (pytest.fail if IN_CI else pytest.skip)("java not found: the Nu checker needs Java 17+ (make system-deps)")
    return [java, "-jar", str(npm_installed(f"vnu-jar@{VNU_VERSION}", VNU_JAR))]


def test_no_validator_errors_or_warnings(site, vnu):
    # --no-langdetect: the checker's guess at a page's language is random on short mixed pages (sources.html,
    # English paper titles under lang="zh-CN", was "Norwegian" in 1 of 5 runs of the same file); every
    # page's lang is checked by axe (tests/browser/test_a11y.py) instead.
    run = subprocess.run([*vnu, "--skip-non-html", "--no-langdetect", "--format", "json", "--exit-zero-always",
                          str(site.public_dir), str(site.teacher_dir)],
                         capture_output=True, text=True, timeout=600)
    messages = json.loads(run.stderr)["messages"]
    checked = {m.get("url") for m in messages}
    problems = [f"{m.get('url', '').rsplit('/', 2)[-2:]}:{m.get('lastLine')}: {m['type']} "
                f"{m.get('subType', '')}: {m['message']}"
                for m in messages if not m["message"].startswith(FILE_ORIGIN_CSP)]
    assert problems == []
    # The set-aside message proves every page was read (each one links its stylesheet).
    pages = {f"file:{p}" for d in (site.public_dir, site.teacher_dir) for p in d.glob("*.html")}
    assert pages <= checked, sorted(pages - checked)[:3]
