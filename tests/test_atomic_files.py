"""Files the tools write outside the sites (the figure manifest, baselines, caches) are whole or absent:
a process killed with SIGKILL at any moment of ``write_atomic`` leaves the previous file or the new one."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest
from sitekit import PROJECT

from site_builder.vocabulary.atomic import write_atomic

KILLS = 20
WRITER = f"""
import json, sys
sys.path.insert(0, {str(PROJECT)!r})
from pathlib import Path
from site_builder.vocabulary.atomic import write_atomic
target = Path(sys.argv[1])
for n in range(10**9):
    write_atomic(target, json.dumps({{"version": n, "figures": ["x" * 200] * 5000}}))
"""


@pytest.mark.slow  # about 12 s: 20 writers started and killed
def test_a_kill_at_any_moment_leaves_a_whole_file(tmp_path):
    target = tmp_path / "manifest.json"
    write_atomic(target, json.dumps({"version": -1, "figures": []}))
    chance = random.Random(20261201)
    for _kill in range(KILLS):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(target)])
        time.sleep(0.3 + chance.random() * 0.4)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        document = json.loads(target.read_text(encoding="utf-8"))  # never empty, never cut short
        assert document["version"] >= -1
