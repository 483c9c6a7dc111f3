"""The output is atomic even under SIGKILL: after a build is killed at any moment, each output
folder holds either the complete previous site or the complete new one, never a mixture or nothing.

The fixture site is built once (the "old" trees), one page is changed and built elsewhere (the
"new" trees); then 20 builds are started and killed at seeded random moments spread over a build's
measured duration, and each output folder is compared by tree hash with the two known-good trees.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_determinism import tree_hashes

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "basic"
KILLS = 20
SEED = 20241129
OUTPUTS = ("_site", "_site-teacher")
# Extra articles make the write stage a real part of the build (the fixture alone writes in a blink).
EXTRA_PAGES = 25

BUILD = """
import sys
from pathlib import Path
sys.path[:0] = [{root!r}, {tests!r}]
from sitekit import fake_evidence
from site_builder.engine.pipeline import prepare_site, render_site
from site_builder.write.writer import write_site
site = Path(sys.argv[1])
prepared = prepare_site(site, fake_evidence(site / "figures-in"))
for name, teacher in (("_site", False), ("_site-teacher", True)):
    write_site(render_site(prepared, teacher=teacher), site / name)
"""


def _make_site(root: Path) -> Path:
    shutil.copytree(FIXTURE / "content", root / "content")
    pages = root / "content" / "pages"
    ids = []
    for n in range(EXTRA_PAGES):
        ids.append(f"extra-{n:02d}")
        body = "\n\n".join(f"第 {{example}}`{n}` 篇补充文章的第 {{example}}`{k}` 段：缓存复用旧的键和值。"
                           for k in range(30))
        (pages / f"{ids[-1]}.md").write_text(f"---\ntitle: 补充 {n}\nkind: article\n---\n{body}\n", encoding="utf-8")
    site_yml = root / "content" / "site.yml"
    site_yml.write_text(site_yml.read_text(encoding="utf-8").replace("beta]", "beta, " + ", ".join(ids) + "]"),
                        encoding="utf-8")
    return root


def _start(site: Path) -> subprocess.Popen:
    script = BUILD.format(root=str(ROOT), tests=str(ROOT / "tests"))
    return subprocess.Popen([sys.executable, "-c", script, str(site)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def _build(site: Path) -> float:
    started = time.perf_counter()
    process = _start(site)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()[-2000:]
    return time.perf_counter() - started


def _edit(site: Path) -> None:
    page = site / "content" / "pages" / "beta.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n新加的一段，让新旧两个站点不同。\n", encoding="utf-8")


@pytest.mark.slow  # 20 build processes killed at random moments: the only proof writing is atomic
def test_killed_builds_leave_the_old_or_the_new_site(tmp_path):
    old_site = _make_site(tmp_path / "old")
    new_site = _make_site(tmp_path / "new")
    _edit(new_site)
    durations = [_build(old_site), _build(new_site), _build(new_site)]
    old = {name: tree_hashes(old_site / name) for name in OUTPUTS}
    new = {name: tree_hashes(new_site / name) for name in OUTPUTS}
    assert all(old[name] != new[name] for name in OUTPUTS), "the edit must change both sites"
    duration = sorted(durations)[1]

    site = _make_site(tmp_path / "victim")
    _edit(site)
    rng = random.Random(SEED)
    seen: dict[str, int] = {"old": 0, "new": 0}
    for attempt in range(KILLS):
        for name in OUTPUTS:  # every attempt starts from the complete old site
            shutil.rmtree(site / name, ignore_errors=True)
            shutil.copytree(old_site / name, site / name)
        delay = rng.uniform(0.0, duration * 1.1)
        process = _start(site)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        for name in OUTPUTS:
            assert (site / name).is_dir(), f"kill {attempt} at {delay:.3f} s left no {name}/"
            now = tree_hashes(site / name)
            state = "old" if now == old[name] else "new" if now == new[name] else None
            assert state, (f"kill {attempt} at {delay:.3f} s of {duration:.3f} s: {name}/ is neither the old nor "
                           f"the new site ({len(now)} files; old {len(old[name])}, new {len(new[name])})")
            seen[state] += 1

    # Killed builds leave staging folders behind; the next build clears them and swaps in the new site.
    _build(site)
    for name in OUTPUTS:
        assert tree_hashes(site / name) == new[name]
    assert not list(site.glob("_site*.tmp-*")), "leftover staging folders after a complete build"
    print(f"build {duration:.2f} s; after {KILLS} kills: {seen}")
    assert seen["old"] > 0, f"no kill landed before the swap ({seen}); the test is not exercising the writer"
