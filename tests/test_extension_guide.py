"""The README's extension guide, followed step by step in a copy of the project: it must build and pass check."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from sitekit import PROJECT, project_copy


def guide_steps() -> list[tuple[str, str]]:
    """(language, text) of every code block of the README's *Extending* section, in order."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Extending", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```(\w+)\n(.*?)^```", section, re.MULTILINE | re.DOTALL)


def run(root: Path, command: str) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    assert words[0] == "python", command
    return subprocess.run([sys.executable, *words[1:]], cwd=root, capture_output=True, text=True, timeout=600)


def test_following_the_extension_guide_builds_a_lesson_with_a_new_experiment_value_and_figure(tmp_path):
    root = project_copy(tmp_path / "project")
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
        elif language == "markdown":  # step 4: the new state replaces the skeleton's first state
            page = root / "content" / "pages" / f"{made['lesson']}.md"
            source = page.read_text(encoding="utf-8")
            start, end = source.index(":::{state} b0"), source.index(":::{state} b1")
            page.write_text(source[:start] + text + "\n" + source[end:], encoding="utf-8")
    assert made == {"experiment": "attention_span", "figure": "span-probs", "lesson": "attention"}
    html = (root / "_site" / "attention.html").read_text(encoding="utf-8")
    assert '<img src="figures/span-probs.svg" alt="attention_span 实验的各个实测值（条形图）"' in html
    assert 'href="numbers.html#attention_span.entropy"' in html
    # the mark from the guide's draw, named in the prose: its label, linked to the figure, outlined from its box
    assert re.search(r'<a class="mark-ref" href="#attention-b0-fig" data-figure="span-probs" data-mark="top">'
                     r'概率最高的一根</a>', html), html
    marks = html.split('data-figure="span-probs" data-marks="', 1)[1].split('"', 1)[0]
    assert marks.startswith("{&#34;rest&#34;:[") and "&#34;top&#34;:[" in marks and "其余四根" in marks, marks
    teacher = (root / "_site-teacher" / "attention.html").read_text(encoding="utf-8")
    assert teacher.count('data-mark="rest"') == 1 and teacher.count('data-mark="top"') == 2
    assert (root / "_site" / "figures" / "span-probs.svg").is_file()
    manifest = (root / "figures" / "manifest.json").read_text(encoding="utf-8")
    assert '"span-probs"' in manifest and '"top"' in manifest and '"rest"' in manifest
