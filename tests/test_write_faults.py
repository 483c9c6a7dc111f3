"""Both sites or neither: a write that fails anywhere (a full disk, a read-only file system, a file in
the way, ``ulimit -f``) ends in one line naming the folder and the cause, both previous sites stay
byte for byte as they were, and no staging folder is left behind. Ctrl-C and a closed pipe end the
command line in one line (or none) with the usual status."""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from sitekit import LIMIT_S, PROJECT, fake_evidence, lesson, time_limit, write_site

from site_builder.engine.builder import Engine, Output
from site_builder.serve import exits
from site_builder.vocabulary.i18n import localize
from site_builder.write import writer
from site_builder.write.writer import WriteFailed

RUNS = 50
SEED = 20261201
PATCHED = ("write", "replace", "rename", "link", "mkdir")
"""``os`` functions the fault injection makes fail (and the writer's directory exchange)."""


def _course(root: Path, version: str) -> Path:
    pages = {f"p{n}": lesson(f":::{{state}} b0\n:title: 开始\n:provenance: teaching\n\n第 {n} 页，版本 {version}。\n\n"
                             f"::::{{teacher}}\n教师笔记 {version}\n::::\n:::\n") for n in range(4)}
    return write_site(root, pages)


def _build(root: Path) -> None:
    Engine(root, (Output(False, root / "_site"), Output(True, root / "_site-teacher"))).build(
        fake_evidence(root / "figs"))


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _sites(root: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    return _tree(root / "_site"), _tree(root / "_site-teacher")


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    _course(tmp_path, "旧")
    _build(tmp_path)
    _course(tmp_path, "新")  # the next build changes every page of both sites
    return tmp_path


def _failing_os(monkeypatch, code: int, name: str = "write") -> None:
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, name, fail)


@pytest.mark.parametrize(("code", "cause"), [
    (errno.ENOSPC, "磁盘已满"),
    (errno.EROFS, "文件系统是只读的"),
    (errno.EACCES, "没有权限"),
    (errno.EFBIG, "有文件超过了大小上限（ulimit -f）"),
])
def test_a_failing_write_is_one_line_and_both_previous_sites_stay(built, monkeypatch, code, cause):
    before = _sites(built)
    _failing_os(monkeypatch, code)
    with pytest.raises(WriteFailed) as failed:
        _build(built)
    monkeypatch.undo()
    assert localize(failed.value.args[0], "zh-CN") == \
        f"{built / '_site'}/: 无法写入网站：{cause}；之前的网站保持原样"
    assert _sites(built) == before
    assert _leftovers(built) == []


def test_the_second_site_failing_leaves_the_first_unswapped(built, monkeypatch):
    before = _sites(built)
    real_mkdir = Path.mkdir

    def mkdir(self, *args, **kwargs):  # the teacher site's staging folder cannot be made
        if self.name.startswith("_site-teacher.tmp-"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_mkdir(self, *args, **kwargs)
    monkeypatch.setattr(Path, "mkdir", mkdir)
    with pytest.raises(WriteFailed, match="_site-teacher/"):
        _build(built)
    monkeypatch.undo()
    assert _sites(built) == before
    assert _leftovers(built) == []


def test_a_file_where_the_site_goes_is_named(built):
    teacher = _tree(built / "_site-teacher")
    (built / "_site").rename(built / "elsewhere")
    (built / "_site").write_bytes(b"not a folder")
    with pytest.raises(WriteFailed) as failed:
        _build(built)
    assert localize(failed.value.args[0], "zh-CN") == \
        f"{built / '_site'}/: 无法写入网站：有文件挡在文件夹的位置上：把它移走；之前的网站保持原样"
    assert (built / "_site").read_bytes() == b"not a folder"
    assert _tree(built / "_site-teacher") == teacher
    assert _leftovers(built) == []


@pytest.mark.slow  # about 13 s: 50 builds of a small course
def test_writes_failing_at_random_points_leave_both_sites_old_or_new_together(tmp_path, monkeypatch):
    """50 builds, each with one failing call at a seeded random point among the writer's file-system calls."""
    versions = {}
    for version in ("旧", "新"):  # the two known-good pairs of sites
        _course(tmp_path / version, version)
        _build(tmp_path / version)
        versions[version] = _sites(tmp_path / version)
    root = tmp_path / "course"
    _course(root, "旧")
    _build(root)
    calls = _count_calls(root, monkeypatch)
    assert calls > 20  # the writer's calls are where the faults go
    chance = random.Random(SEED)
    seen = set()
    # The memory the runs allocate, not the test process's peak (which holds whatever earlier tests left).
    tracemalloc.start()
    for run in range(RUNS):
        want = "新" if run % 2 == 0 else "旧"
        _course(root, want)
        at = chance.randrange(1, calls + 1)
        try:
            with time_limit(LIMIT_S), _fault_at(monkeypatch, at, chance.choice((errno.ENOSPC, errno.EROFS, errno.EIO))):
                _build(root)
        except WriteFailed:
            pass
        now = _sites(root)
        state = [name for name, sites in versions.items() if sites == now]
        assert len(state) == 1, f"run {run}: fault at call {at} left the two sites mismatched"
        seen.add(state[0] == want)
        assert _leftovers(root) == [], f"run {run}: fault at call {at}"
        if state[0] != want:  # failed: the next run wants the same version again
            _course(root, state[0])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert seen == {True, False}  # some runs failed, some got through
    assert peak < 500 * 2**20, f"the runs allocated up to {peak / 2**20:.0f} MiB"


def _count_calls(root: Path, monkeypatch) -> int:
    count = [0]
    with _patched(monkeypatch, lambda: count.__setitem__(0, count[0] + 1)):
        _course(root, "新")
        _build(root)
        _course(root, "旧")
    _build(root)
    return count[0]


class _fault_at:  # noqa: N801 (used as a context manager)
    def __init__(self, monkeypatch, at: int, code: int) -> None:
        self.monkeypatch, self.at, self.code, self.n = monkeypatch, at, code, 0

    def tick(self) -> None:
        self.n += 1
        if self.n == self.at:
            raise OSError(self.code, os.strerror(self.code))

    def __enter__(self):
        _patched(self.monkeypatch, self.tick).__enter__()

    def __exit__(self, *exc):
        self.monkeypatch.undo()
        return False


class _patched:  # noqa: N801
    """Every patched call first runs ``before`` (which may raise), then the real one."""

    def __init__(self, monkeypatch, before) -> None:
        self.monkeypatch, self.before = monkeypatch, before

    def __enter__(self):
        for name in PATCHED:
            self.monkeypatch.setattr(os, name, self._wrap(getattr(os, name)))
        self.monkeypatch.setattr(writer, "_exchange", self._wrap(writer._exchange))
        return self

    def _wrap(self, real):
        def call(*args, **kwargs):
            self.before()
            return real(*args, **kwargs)
        return call

    def __exit__(self, *exc):
        self.monkeypatch.undo()
        return False


def test_run_command_says_a_failed_write_in_one_line(capsys):
    def main() -> int:
        raise writer._failed(Path("/x/_site"), OSError(errno.ENOSPC, "No space left on device"))
    assert exits.run_command(main, lambda: "zh-CN") == 1
    assert capsys.readouterr().err == "/x/_site/: 无法写入网站：磁盘已满；之前的网站保持原样\n"


def test_an_unreadable_cache_file_says_to_delete_the_cache(tmp_path, capsys):
    cache = tmp_path / ".cache"

    def main() -> int:
        raise PermissionError(errno.EACCES, "Permission denied", str(cache / "build" / "x.json"))
    assert exits.run_command(main, lambda: "zh-CN", cache) == 1
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "x.json: 没有权限" in said and "删除" in said


INTERRUPTED = "已中断：在完成之前停止；每个网站都是最后一次完整的版本，绝不会只写了一半\n"
WAITING = f"""
import sys, time
sys.path.insert(0, {str(PROJECT)!r})
from site_builder.serve.exits import run_command
def main():
    print("ready", flush=True)
    time.sleep(60)
sys.exit(run_command(main, lambda: "zh-CN"))
"""


def test_ctrl_c_is_one_line_and_status_130():
    started = subprocess.Popen([sys.executable, "-c", WAITING], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert started.stdout.readline() == "ready\n"
    started.send_signal(signal.SIGINT)
    _out, err = started.communicate(timeout=30)
    assert (started.returncode, err) == (130, INTERRUPTED)


def test_ctrl_c_during_a_clean_build_is_one_line_and_status_130():
    """``build.py check`` rebuilds from scratch (the experiments alone take longer than the wait)."""
    started = subprocess.Popen([sys.executable, "build.py", "check"], cwd=PROJECT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    started.send_signal(signal.SIGINT)
    _out, err = started.communicate(timeout=60)
    assert (started.returncode, err) == (130, INTERRUPTED)


def test_a_closed_pipe_ends_quietly():
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write fails
    try:
        done = subprocess.run([sys.executable, "build.py", "list", "sources"], cwd=PROJECT, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (exits.PIPE_CLOSED, "")


def test_the_dev_server_says_a_failed_write_in_one_line_and_keeps_serving(tmp_path, monkeypatch):
    from site_builder.serve.server import DevServer, EvidenceSource

    _course(tmp_path, "旧")
    evidence = fake_evidence(tmp_path / "figs")
    said: list[str] = []
    server = DevServer(Engine(tmp_path, (Output(True, tmp_path / "out"),), serving=True),
                       EvidenceSource(lambda: evidence), watch=[tmp_path / "content"], port=0, log=said.append)
    try:
        server.rebuild([])
        assert server.failure is None
        _course(tmp_path, "新")
        _failing_os(monkeypatch, errno.ENOSPC)
        server.rebuild([tmp_path / "content" / "pages" / "p0.md"])
        monkeypatch.undo()
        assert server.failure["traceback"] == ""
        assert [p["text"] for p in server.failure["problems"]] == \
            [f"{tmp_path / 'out'}/: 无法更新预览：磁盘已满；解决后再保存一次"]
    finally:
        server.stop()


def test_a_real_full_disk_leaves_both_sites(tmp_path):
    """The same on a small tmpfs that really fills up (where this machine lets the tests mount one)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1200k", "tmpfs", str(disk)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    outputs = (Output(False, disk / "_site"), Output(True, disk / "_site-teacher"))
    try:
        _course(tmp_path, "旧")
        Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))  # about 800 KiB: one pair fits
        before = _sites(disk)
        _course(tmp_path, "新")
        with pytest.raises(WriteFailed) as failed:
            Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))
        said = localize(failed.value.args[0], "zh-CN")
        full = "无法写入网站：磁盘已满；之前的网站保持原样"
        assert said in {f"{disk / name}/: {full}" for name in ("_site", "_site-teacher")}
        assert _sites(disk) == before
        assert _leftovers(disk) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_read_only_file_system_is_named_before_anything_is_written(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    outputs = (Output(False, disk / "_site"), Output(True, disk / "_site-teacher"))
    try:
        _course(tmp_path, "旧")
        Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))
        before = _sites(disk)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        _course(tmp_path, "新")
        with pytest.raises(WriteFailed) as failed:
            Engine(tmp_path, outputs).build(fake_evidence(tmp_path / "figs"))
        assert localize(failed.value.args[0], "zh-CN") == \
            f"{disk / '_site'}/: 无法写入网站：文件系统是只读的；之前的网站保持原样"
        assert _sites(disk) == before
    finally:
        subprocess.run(["umount", str(disk)], check=False)
