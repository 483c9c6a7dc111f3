"""The command line (build.py): `new lesson` against FIFOs and dangling links, and the extension guide
followed word for word in a copy of the project."""

from __future__ import annotations

import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po
from sitekit import (
    LIMIT_S,
    PROJECT,
    project_copy,
    time_limit,
)

# ---------------------------------------------------------------------------
# The extension guide, followed step by step in a copy of the project: the copy builds, and its fast test tier
# and ``build.py check`` stay green (no test pins the course's own figures or experiments).


GUIDES = (("docs/programmer-tutorial.md", "## Worked example"),)
"""Where the guide is, (file, heading of its section): the first that exists (the README no longer holds it)."""


FAST_TIER = ("-m", "pytest", "-m", "not slow", "--ignore=tests/browser", "-q", "-p", "no:cacheprovider", "-n", "0")
"""``make test-fast``'s tests in one process: the run around this test keeps both cores busy already, and two more
workers would each start and prepare the course again (about 10 CPU-s more)."""


NOT_COPIED = (".git", ".venv", "_site", "_site-teacher", ".cache", "__pycache__", ".*_cache")


def guide_steps() -> list[tuple[str, str]]:
    """(language, text) of every code block of the guide's section, in order."""
    path, heading = next((PROJECT / p, h) for p, h in GUIDES if heading_in(PROJECT / p, h))
    section = path.read_text(encoding="utf-8").split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```(\w+)\n(.*?)^```", section, re.MULTILINE | re.DOTALL)


def heading_in(path: Path, heading: str) -> bool:
    return path.is_file() and f"\n{heading}" in path.read_text(encoding="utf-8")


def run(root: Path, command: str) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    assert words[0] == "python", command
    return subprocess.run([sys.executable, *words[1:]], cwd=root, capture_output=True, text=True, timeout=600)


def follow_the_guide(root: Path) -> dict[str, str]:
    """Run every command and put every code block in place, as the guide says; returns kind → id made."""
    made: dict[str, str] = {}
    for language, text in guide_steps():
        if language == "sh":
            for command in text.splitlines():
                result = run(root, command)
                assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
                if (new := re.match(r"python build.py new (\w+) ([\w-]+)", command)):
                    made[new.group(1)] = new.group(2)
        elif language == "python" and text.startswith("def draw("):  # step 3: the figure's draw, with marks
            module = root / "figures" / f"{made['figure'].replace('-', '_')}.py"
            source = module.read_text(encoding="utf-8")
            start, end = source.index("def draw("), source.index("\n\n\nFIGURES")
            module.write_text(source[:start] + text.rstrip("\n") + source[end:], encoding="utf-8")
        elif language == "python":  # step 2: the value goes after the skeleton's last Value line
            module = root / "lessonmodel" / f"{made['experiment']}.py"
            source = module.read_text(encoding="utf-8")
            anchor = re.search(r'^ *Value\("n_tokens".*\n', source, re.MULTILINE)
            module.write_text(source[:anchor.end()] + text + source[anchor.end():], encoding="utf-8")
        elif language == "po":  # step 3: the figure's English text, into the catalog update.py refreshed
            translate_figures(root / "figures" / "locales" / "en" / "LC_MESSAGES" / "figures.po", text)
        elif language == "markdown":  # step 4: the lesson's own text replaces the skeleton's placeholders
            (root / "content" / "pages" / f"{made['lesson']}.md").write_text(text, encoding="utf-8")
    return made


def translate_figures(po: Path, entries: str) -> None:
    """Fill in the catalog's translations of the guide's ``po`` block, as a teacher does by hand."""
    catalog = read_po(po.open("rb"))
    for message in read_po(io.BytesIO(entries.encode("utf-8"))):
        if message.id:
            catalog[message.id].string = message.string
    with po.open("wb") as f:
        write_po(f, catalog, sort_output=True, no_location=True, width=120, omit_header=True)


@pytest.mark.slow  # the guide's builds and check in a project copy, then the fast tier there: the guide keeps CI green
def test_following_the_extension_guide_builds_and_keeps_the_fast_tests_and_check_green(tmp_path):
    root = project_copy(tmp_path / "project")  # the code, the content and the content-hashed caches
    shutil.copytree(PROJECT, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*NOT_COPIED))  # tests too
    made = follow_the_guide(root)
    assert made == {"experiment": "attention_span", "figure": "span-probs", "lesson": "attention"}
    html = (root / "_site" / "attention.html").read_text(encoding="utf-8")
    assert '<img src="figures/span-probs.svg" alt="attention_span 实验的各个实测值，每个一行"' in html
    assert 'href="numbers.html#attention_span.entropy"' in html
    # the mark from the guide's draw, named in the prose: its label, linked to the figure, outlined from its box
    assert re.search(r'<a class="mark-ref" href="#attention-b0-fig" data-figure="span-probs" data-mark="top">'
                     r'概率最高的一根</a>', html), html
    marks = html.split('data-figure="span-probs" data-marks="', 1)[1].split('"', 1)[0]
    assert marks.startswith("{&#34;rest&#34;:[") and "&#34;top&#34;:[" in marks and "其余四根" in marks, marks
    teacher = (root / "_site-teacher" / "attention.html").read_text(encoding="utf-8")
    assert teacher.count('data-mark="rest"') == 1 and teacher.count('data-mark="top"') == 2
    manifest = (root / "figures" / "manifest.json").read_text(encoding="utf-8")
    assert '"span-probs"' in manifest and '"top"' in manifest and '"rest"' in manifest
    # what CI runs stays green: `build.py check`, the guide's last command (follow_the_guide found it green), and
    # the fast tier (this test is slow, so it does not run itself); the fast tier leaves every file check read or
    # wrote as it was (it keeps no cache), so check's verdict still holds after it and is not asked twice
    commands = [line for language, text in guide_steps() if language == "sh" for line in text.splitlines()]
    assert commands[-1] == "python build.py check", commands
    checked = project_files(root)
    tests = subprocess.run([sys.executable, *FAST_TIER], cwd=root, capture_output=True, text=True, timeout=3600)
    assert tests.returncode == 0, tests.stdout[-20000:] + tests.stderr[-5000:]
    assert project_files(root) == checked


def project_files(root: Path) -> dict[str, str]:
    """Relative path → sha256 of every file of the project and its sites, caches and test tools' folders aside."""
    aside = {".cache", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"}
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file() and not aside & set(path.relative_to(root).parts)}


FIXTURE = Path(__file__).parent / "fixtures" / "basic" / "content"


def test_new_lesson_neither_blocks_on_a_fifo_nor_writes_through_a_dangling_link(tmp_path):
    from site_builder.serve.scaffold import new_lesson

    shutil.copytree(FIXTURE, tmp_path / "content")
    (tmp_path / "content" / "pages" / "r9.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(ValueError, match=r"^content/pages/r9.md already exists: choose another id$"):
        new_lesson(tmp_path, "r9")
    assert not (tmp_path / "elsewhere.md").exists()
    (tmp_path / "content" / "site.yml").unlink()
    os.mkfifo(tmp_path / "content" / "site.yml")
    with time_limit(LIMIT_S), pytest.raises(ValueError) as refused:
        new_lesson(tmp_path, "r10")
    assert str(refused.value) == "content/site.yml is not a regular file: save the text in an ordinary file"
