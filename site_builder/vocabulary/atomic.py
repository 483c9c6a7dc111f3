"""Writing a file so that it is either the old one or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to a temporary file beside ``path``, then rename it over ``path``.

    A process killed mid-write (SIGKILL, Ctrl-C, a full disk) leaves the old file and a temporary
    one that the next write's rename never sees; a reader never meets a truncated file. The bytes
    reach the disk before the rename, so a power cut cannot leave an empty file under the name either.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise
