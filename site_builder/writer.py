"""The writing stage: the only place that writes the site, and it does so atomically.

The new site is written next to the old one and swapped in with one
``renameat2(RENAME_EXCHANGE)`` call, so at every instant the output directory
is either the previous complete site or the new complete one — even if the
build is killed. Where the exchange is unavailable, two renames leave a gap of
microseconds in which the directory is missing, never half-written.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from collections.abc import Callable
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def write_site(files: dict[str, bytes | Path], out_dir: Path,
               finish: Callable[[Path], None] | None = None) -> None:
    """Replace ``out_dir`` by exactly ``files`` (relative path → bytes or file to copy).

    ``finish`` runs on the complete staging folder before the swap (e.g. to add
    a search index); if it raises, the previous site stays in place.
    """
    out_dir = out_dir.resolve()
    _remove_leftovers(out_dir)
    staging = out_dir.with_name(f"{out_dir.name}.tmp-{os.getpid()}")
    staging.mkdir(parents=True)
    for relative, payload in sorted(files.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(payload, Path):
            shutil.copyfile(payload, target)
        else:
            target.write_bytes(payload)
    try:
        if finish is not None:
            finish(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _swap_in(staging, out_dir)


def _remove_leftovers(out_dir: Path) -> None:
    """Staging folders of builds that were killed before they swapped."""
    for leftover in out_dir.parent.glob(f"{out_dir.name}.tmp-*"):
        pid = leftover.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or not _alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _swap_in(staging: Path, out_dir: Path) -> None:
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    if _exchange(staging, out_dir):
        shutil.rmtree(staging)  # staging now holds the previous site
        return
    previous = out_dir.with_name(f"{out_dir.name}.tmp-{os.getpid()}-old")
    os.rename(out_dir, previous)
    os.rename(staging, out_dir)
    shutil.rmtree(previous)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories with Linux's renameat2; False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0
