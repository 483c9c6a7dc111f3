"""Reading one file under ``content/``: only a regular file, only inside its folder.

A build reads every page (a dev server's save, every page whose stamp changed: ``file_stamp``), so the common
case (a plain file in a plain folder) is checked with ``lstat`` and opened by its name, and a link is resolved
and checked only when there is one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from site_builder.load.content import SourceFile
from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.oserrors import reason

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Larger files under ``content/`` are not read: a picture a page shows gets a problem saying how large it is,
a text file is a problem itself."""


_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
"""How a file under ``content/`` is opened: never through a link as its last part, never waiting (a FIFO)."""


def read_content_file(base: Path, path: Path | str, folder_fd: int | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file inside the folder ``base``; ``ValueError`` saying why not.

    Checked before opening and again on the open file: a link is followed only
    within ``base``, and a FIFO or device is never opened for reading (that
    could block forever or have side effects). ``folder_fd``: ``path``'s folder, opened (no link on the way), which
    lists ``path`` as a plain file.
    """
    fd = _open_beneath(base, path, _FLAGS) if folder_fd is None else \
        _open_in(folder_fd, os.fspath(path).rpartition(os.sep)[2], _FLAGS)
    if fd is None:  # a link on the way, or not plainly beneath: resolved and checked as a whole
        fd = _open_resolved(base, Path(path), _FLAGS)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):  # swapped for something else after the check
            raise ValueError(_("is not a regular file: save the text in an ordinary file"))
        if status.st_size > MAX_FILE_BYTES:
            raise ValueError(_("is {size} MiB, over the limit of {limit} MiB for a file under content/: split it or "
                               "move it out", size=f"{status.st_size / 2**20:.1f}",
                               limit=f"{MAX_FILE_BYTES / 2**20:.0f}"))
        # One read when the file has the size it had when opened (a build reads every page); otherwise it
        # changes as it is read: read on to its end, or just past the limit.
        chunks = [os.read(fd, status.st_size + 1)]
        if len(chunks[0]) == status.st_size:
            return chunks[0]
        while (chunk := os.read(fd, 1 << 20)) and sum(map(len, chunks)) <= MAX_FILE_BYTES:
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _open_beneath(base: Path, path: Path | str, flags: int) -> int | None:
    """``path`` opened if it and every folder between it and ``base`` is a plain file or folder, no link
    (so it is inside ``base`` without resolving anything: a build reads every page; only the file itself
    is opened, as a dev server watching the folder sees every open); ``None`` where that is not so."""
    prefix, target = folder_prefix(base), str(path)  # strings, not pathlib: its parsing cost more than the reading
    if not target.startswith(prefix) or not hasattr(os, "O_NOFOLLOW"):
        return None
    *folders, name = target[len(prefix):].split(os.sep)
    if {"", ".", ".."} & {*folders, name}:
        return None
    inner = prefix
    try:
        for part in folders:  # target is prefix + folders + name, each joined by one separator
            inner += part
            if not stat.S_ISDIR(os.lstat(inner).st_mode):
                return None
            inner += os.sep
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None  # a link, FIFO or device is never opened here
        return os.open(target, flags)
    except OSError:
        return None


def _open_in(folder_fd: int, name: str, flags: int) -> int | None:
    """``name``, listed as a plain file in the open folder ``folder_fd``, opened; ``None`` if that fails (it
    changed since: the open file is checked again)."""
    try:
        return os.open(name, flags, dir_fd=folder_fd)
    except OSError:
        return None


def folder_prefix(folder: Path) -> str:
    """``os.path.join(folder, "")``: what the path of everything inside ``folder`` starts with."""
    name = str(folder)
    return name if name.endswith(os.sep) else name + os.sep


def _open_resolved(base: Path, path: Path, flags: int) -> int:
    try:
        target = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):  # a dangling link, or a loop of links
        raise ValueError(_("is a link to nothing: remove it or copy the file here")) from None
    except OSError as error:
        raise ValueError(_("cannot be read ({reason})", reason=reason(error))) from None
    if not target.is_relative_to(base.resolve()):
        # Content must not pull in files from elsewhere on the machine (e.g. a link to /etc/passwd).
        raise ValueError(_("is a link to a file outside {folder}/: copy the file here instead", folder=base.name))
    try:
        if not stat.S_ISREG(target.stat().st_mode):
            raise ValueError(_("is not a regular file: save the text in an ordinary file"))
        return os.open(target, flags)
    except OSError as error:
        raise ValueError(_("cannot be read ({reason})", reason=reason(error))) from None


PagesRead = dict[str, tuple[list[int], SourceFile, bytes]]
"""A dev server's pages as its last load read them: path → the stamp (``file_stamp``) taken before the read, the page
and its bytes; only pages read without a problem whose change time was settled (``SETTLED_NS``)."""
SETTLED_NS = 3 * 10**9
"""How long ago a page must have changed for its stamp to stand for its bytes: longer than the coarsest step a file
system stamps times with (FAT's two seconds), so no write after the read can leave the stamp as it was."""


def file_stamp(path: str, dir_fd: int | None = None) -> list[int] | None:
    """A plain file's device, inode, change time, size and modification time, or ``None`` (not a plain file, gone):
    while they are as recorded, it is the file recorded. A write sets the change time, which no program can set
    back; a file put in its place has another inode. (Pages read by a dev server, and the files a build wrote.)"""
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_ctime_ns, st.st_size, st.st_mtime_ns] if stat.S_ISREG(st.st_mode) else None
