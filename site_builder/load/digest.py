"""What ``content/`` holds, as one digest: the engine's "has anything changed?" key.

Made from the loader's own view of the folder: regular files inside it, found without
following links (a link is hashed by where it points: a link to a file elsewhere on the
machine is never opened), and files over the loader's size limit by their size and change
time (the loader never reads them, so neither does this). What the loader read is hashed as it
read it (``Content.read``, through a link too): a file saved, added, renamed or removed while a
build runs leaves that build the key of what it was made from, so the next build sees the change.
Memory stays at one chunk.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from site_builder.load.files import MAX_FILE_BYTES

_CHUNK = 1 << 20


def content_digest(root: Path, content_dir: str = "content", read: Mapping[str, bytes] | None = None) -> str:
    """A digest of the names, kinds and bytes of everything under ``root/content_dir``; ``read``: path
    (``content/…``) → the bytes the loader read there, which the digest holds as read (a file among them
    is not read again, and one gone or changed since counts as what the build was made from)."""
    summary = hashlib.sha256()
    base, read = str(root / content_dir), read or {}
    for folder, folders, files in os.walk(base):  # links to folders are listed, not entered
        folders.sort()
        for name in sorted(files + [f for f in folders if os.path.islink(os.path.join(folder, f))]):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, base)
            summary.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            known = f"{content_dir}/{relative}".replace(os.sep, "/") in read and not os.path.islink(path)
            summary.update((b"read" if known else _entry(path)) + b"\0")
    for path in sorted(read):  # what the build was made from, whatever the folder holds by now
        summary.update(path.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(read[path]).digest())
    return summary.hexdigest()


def _entry(path: str) -> bytes:
    try:
        status = os.lstat(path)
        if stat.S_ISLNK(status.st_mode):
            return b"link " + os.fsencode(os.readlink(path))
        if not stat.S_ISREG(status.st_mode):
            return b"special"  # a FIFO or device: never opened (the loader refuses it)
        if status.st_size > MAX_FILE_BYTES:
            return f"large {status.st_size} {status.st_mtime_ns} {status.st_ctime_ns}".encode()
        return b"file " + _file_digest(path)
    except OSError as error:  # the loader says what is wrong with it
        return f"unreadable {error.errno}".encode()


def _file_digest(path: str) -> bytes:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest().encode()
