"""bench/compare.py's project copies: each checkout's code runs with its own records, and a failing check says
where it ran."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import compare  # noqa: E402  (bench/ is not a package)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _earlier_checkout(root: Path) -> Path:
    """A stand-in for ``git worktree add /tmp/prev REV``: code folders and a record of its own."""
    root.mkdir()
    (root / "build.py").write_text("", encoding="utf-8")
    for name in ("site_builder", "figures", "lessonmodel", "content/records"):
        (root / name).mkdir(parents=True)
    (root / "content" / "records" / "earlier.json").write_text('{"date": "earlier"}\n', encoding="utf-8")
    return root


def test_the_previous_copy_checks_its_figures_against_the_records_its_manifest_was_accepted_with(tmp_path):
    earlier = _earlier_checkout(tmp_path / "prev")
    where = compare.prepare(2, tmp_path / "bench", earlier)
    assert _files(where["previous"] / "content" / "records") == _files(earlier / "content" / "records")
    assert _files(where["project"] / "content" / "records") == _files(ROOT / "content" / "records")


def test_a_failing_timed_command_shows_every_problem_and_the_folder_it_ran_in(tmp_path, capsys):
    script = "import sys; print('first problem', file=sys.stderr); print('last problem', file=sys.stderr); sys.exit(1)"
    compare.timed([sys.executable, "-c", script], tmp_path, may_fail=True)
    out = capsys.readouterr().out
    assert str(tmp_path) in out and "first problem" in out and "last problem" in out and "exited 1" in out
