"""The writing stage: the only place that writes the site, and it does so atomically.

The new site is written next to the old one and swapped in with one
``renameat2(RENAME_EXCHANGE)`` call, so at every instant the output directory
is either the previous complete site or the new complete one — even if the
build is killed. Where the exchange is unavailable, two renames leave a gap of
microseconds in which the directory is missing, never half-written.

Both sites change together: inside ``together()`` each ``write_site`` only stages
its folder, and the swaps happen at the end, all of them or (on any error) none.
A write that fails (a full disk, a read-only or full-quota file system, a file
where the folder should be) is one ``WriteFailed`` naming the folder and the
cause; the staging folders are removed and the previous sites stay as they were.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import errno
import hashlib
import itertools
import os
import shutil
import threading
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from site_builder.vocabulary.i18n import _
from site_builder.vocabulary.oserrors import reason

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_DOOMED = itertools.count()


class WriteFailed(Exception):
    """A site could not be written; ``args[0]`` is the one-line message (a ``Text``) for the terminal."""


@dataclass(frozen=True)
class _Staged:
    staging: Path
    out_dir: Path
    delete_later: bool


_PENDING: contextvars.ContextVar[list[_Staged] | None] = contextvars.ContextVar("pending_sites", default=None)


@contextlib.contextmanager
def together() -> Iterator[None]:
    """Every ``write_site`` inside the block stages its site; at the end all are swapped in, or — when the
    block raises or a swap fails — none is, and every staging folder is removed."""
    staged: list[_Staged] = []
    token = _PENDING.set(staged)
    try:
        yield
    except BaseException:
        for site in staged:
            shutil.rmtree(site.staging, ignore_errors=True)
        raise
    finally:
        _PENDING.reset(token)
    _swap_all(staged)


def _failed(folder: Path, error: OSError) -> WriteFailed:
    return WriteFailed(_("{folder}: cannot write the site: {reason}; the previous sites are kept as they were",
                         folder=_shown(folder), reason=reason(error)))


def _shown(folder: Path) -> str:
    with contextlib.suppress(ValueError):
        return f"{folder.relative_to(Path.cwd())}/"
    return f"{folder}/"


def write_site(files: dict[str, bytes | Path], out_dir: Path,
               finish: Callable[[Path], None] | None = None, reuse: Collection[str] = (),
               delete_later: bool = False, store: Path | None = None) -> None:
    """Replace ``out_dir`` by exactly ``files`` (relative path → bytes or file to copy).

    ``finish`` runs on the complete staging folder before the swap (e.g. to add
    a search index); if it raises, the previous site stays in place.

    ``reuse`` names files the caller knows are byte-identical in the current
    ``out_dir`` (the dev server after a one-page edit): they are hard-linked
    from there instead of written, so a save costs a link per page, not a copy.
    The linked files are never written to again, so sharing their inodes with
    the outgoing site is safe. Where linking fails, the file is written.

    ``delete_later`` deletes the outgoing site in a background thread, so the
    dev server can announce the new one without waiting for thousands of unlinks.

    ``store`` is a content-addressed folder (file name = sha256 of the bytes) for files given as
    paths outside ``out_dir`` (static assets, figures, experiment code) and for the in-memory files
    both sites publish alike (scripts and style sheet without comments, notebooks): each is copied into the
    store once and hard-linked from there into every site that publishes it, so the public and
    teacher sites share one copy and an unchanged asset is never written again.
    """
    out_dir = out_dir.resolve()
    _remove_leftovers(out_dir)
    _check_target(out_dir)
    staging = out_dir.with_name(f"{out_dir.name}.tmp-{os.getpid()}")
    try:
        staging.mkdir(parents=True)
    except OSError as error:
        raise _failed(out_dir, error) from None
    try:
        _fill(staging, files, out_dir, reuse, store)
        if finish is not None:
            finish(staging)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OSError):
            raise _failed(out_dir, error) from None
        raise
    staged = _Staged(staging, out_dir, delete_later)
    pending = _PENDING.get()
    if pending is None:
        _swap_all([staged])
    else:
        pending.append(staged)


def _check_target(out_dir: Path) -> None:
    """Refuse before writing anything when the swap could not complete: a file where the folder goes, or
    a folder of the previous site this user may not change (its old files could not be removed)."""
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise _failed(out_dir, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)))
    for folder, _folders, _files in os.walk(out_dir):
        if not os.access(folder, os.W_OK | os.X_OK):
            code = errno.EROFS if os.statvfs(folder).f_flag & os.ST_RDONLY else errno.EACCES
            raise _failed(out_dir, OSError(code, os.strerror(code)))


def _fill(staging: Path, files: dict[str, bytes | Path], out_dir: Path, reuse: Collection[str],
          store: Path | None) -> None:
    made: set[Path] = {staging}
    for relative, payload in sorted(files.items()):
        target = staging / _inside(relative)
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        # Plain strings for the links: with thousands of pages, pathlib's overhead shows.
        if relative in reuse and _linked(os.path.join(out_dir, relative), os.path.join(staging, relative)):
            continue
        if isinstance(payload, Path):
            if (store is None or payload.is_relative_to(out_dir)
                    or not _linked(_stored(payload.read_bytes(), store), str(target))):
                shutil.copyfile(payload, target)
        # A file made in memory that both sites publish alike (a script or style sheet without its
        # comments, a lesson's notebook) is shared like a copied one.
        elif not (store is not None and _shared(relative) and _linked(_stored(payload, store), str(target))):
            _write_file(str(target), payload)


def _write_file(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def update_in_place(files: dict[str, bytes | Path], changed: Collection[str], out_dir: Path) -> None:
    """Bring ``out_dir`` (which holds the previous build) to ``files`` by writing only the ``changed``
    paths, each atomically (written aside, then renamed over the old one); changed paths not in
    ``files`` are deleted. For the dev server's private folder after a save: a browser may get one
    page of the old build and the next of the new one, which a published site must never serve
    (``write_site`` swaps whole sites), but a save then costs its own files, not a link per page."""
    try:
        _update(files, changed, out_dir)
    except OSError as error:  # the files before this one are new already: the next save writes the rest
        raise WriteFailed(_("{folder}: cannot update the preview: {reason}; save again once that is fixed",
                            folder=_shown(out_dir), reason=reason(error))) from None


def _update(files: dict[str, bytes | Path], changed: Collection[str], out_dir: Path) -> None:
    for relative in sorted(changed):
        target = os.path.join(out_dir, _inside(relative))
        payload = files.get(relative)
        if payload is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        scratch = f"{target}.tmp-{os.getpid()}"
        if isinstance(payload, Path):
            shutil.copyfile(payload, scratch)
        else:
            _write_file(scratch, payload)
        os.replace(scratch, target)


def _shared(relative: str) -> bool:
    """In-memory files both sites publish with the same bytes: they go through the store too."""
    return relative.startswith("static/") or relative.endswith(".ipynb")


def _stored(data: bytes, store: Path) -> str:
    """The store's copy of ``data``: made on first use, and made again when the copy there no longer has
    the digest it is named by (a site file edited in place edits the store's copy it is linked to)."""
    digest = hashlib.sha256(data).hexdigest()
    blob = os.path.join(store, digest)
    if not _holds(blob, digest):
        os.makedirs(store, exist_ok=True)
        scratch = f"{blob}.{os.getpid()}-{threading.get_ident()}"
        _write_file(scratch, data)
        os.chmod(scratch, 0o444)
        os.replace(scratch, blob)
    return blob


def _holds(blob: str, digest: str) -> bool:
    try:
        with open(blob, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest() == digest
    except OSError:
        return False


def prune_store(store: Path) -> None:
    """Delete the blobs no site links any more (only the store holds them), so the store does not
    grow with every edit. A build racing this one and losing a blob writes its file instead."""
    try:
        entries = list(os.scandir(store))
    except FileNotFoundError:
        return
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):
            if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_nlink == 1:
                os.unlink(entry.path)


def _linked(existing: str, target: str) -> bool:
    try:
        os.link(existing, target)
    except OSError:  # gone, or a file system without hard links: write it instead
        return False
    return True


def _delete(previous: Path, out_dir: Path, later: bool) -> None:
    """Delete the outgoing site; what cannot be deleted now is a leftover the next build removes."""
    if not later:
        shutil.rmtree(previous, ignore_errors=True)
        return
    # A name of its own first, so the next build's staging folder is free at once.
    doomed = out_dir.with_name(f"{out_dir.name}.old-{os.getpid()}-{next(_DOOMED)}")
    try:
        os.rename(previous, doomed)
    except OSError:
        doomed = previous
    threading.Thread(target=shutil.rmtree, args=(doomed, True), name="delete-old-site", daemon=True).start()


def _remove_leftovers(out_dir: Path) -> None:
    """Staging folders of builds that were killed before they swapped (or before deleting the old site)."""
    for doomed in out_dir.parent.glob(f"{out_dir.name}.old-*"):
        pid = doomed.name.rsplit(".old-", 1)[-1].split("-")[0]
        if not pid.isdigit() or (int(pid) != os.getpid() and not _alive(int(pid))):
            shutil.rmtree(doomed, ignore_errors=True)
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
    except PermissionError:  # another user's process: alive
        pass
    return True


def _swap_all(staged: list[_Staged]) -> None:
    """Swap every staged site in, then delete the outgoing ones; when a swap fails, undo those made."""
    swapped: list[tuple[_Staged, Path | None]] = []
    for site in staged:
        try:
            swapped.append((site, _swap_in(site.staging, site.out_dir)))
        except OSError as error:
            for done, previous in reversed(swapped):
                with contextlib.suppress(OSError):
                    _swap_out(done, previous)
            for each in staged:
                shutil.rmtree(each.staging, ignore_errors=True)
            raise _failed(site.out_dir, error) from None
    for site, previous in swapped:
        if previous is not None:
            _delete(previous, site.out_dir, site.delete_later)


def _swap_in(staging: Path, out_dir: Path) -> Path | None:
    """Put ``staging`` at ``out_dir``; returns where the previous site now is (``None``: there was none)."""
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return None
    if _exchange(staging, out_dir):
        return staging  # staging now holds the previous site
    previous = out_dir.with_name(f"{out_dir.name}.tmp-{os.getpid()}-old")
    os.rename(out_dir, previous)
    try:
        os.rename(staging, out_dir)
    except OSError:
        os.rename(previous, out_dir)
        raise
    return previous


def _swap_out(site: _Staged, previous: Path | None) -> None:
    """Undo ``_swap_in``: the previous site back at ``out_dir``, the new one back at its staging name."""
    if previous is None:
        os.rename(site.out_dir, site.staging)
    elif previous == site.staging:
        _exchange(site.staging, site.out_dir)
    else:
        os.rename(site.out_dir, site.staging)
        os.rename(previous, site.out_dir)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories with Linux's renameat2; False where unsupported, ``OSError`` when
    the file system refuses."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # no such call, or a file system without it
        return False
    raise OSError(code, os.strerror(code))


def _inside(relative: str) -> str:
    """Every output path stays inside the site: a figure file or page id with ``..`` or ``/`` is a bug."""
    if not relative or relative.startswith("/") or ".." in relative.replace("\\", "/").split("/"):
        raise ValueError(f"output path {relative!r} would leave the site folder")
    return relative
