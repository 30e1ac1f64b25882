"""Writes that either finish or leave the previous file as it was.

Everything is written to a temporary file beside the target and renamed into place; an
exception mid-write removes the temporary file and keeps the old one. A process killed
mid-write cannot clean up, so temporary names carry the writer's host and process id:
the next save into the same folder removes those whose writer is gone
(`remove_stale_temporaries`). Saving through a symbolic link writes the file it points
to; a replaced file keeps its permission bits, a new one gets the umask's.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import stat
import tempfile
import time
import zlib
from collections.abc import Iterator

from lamina_saving.probe import remember_written, stamp_written

PREFIX = ".lamina-"
SUFFIX = ".tmp"
_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"
_OURS = re.compile(r"\.lamina-([0-9a-f]{8})-(\d+)-[0-9a-f]+\.tmp")
# Names `tempfile.mkstemp` gave before temporaries carried their writer.
_LEGACY = re.compile(r"\.lamina-[a-z0-9_]{8}\.tmp")
_ORPHAN_AGE_S = 24 * 3600  # when the writer cannot be checked (another host, legacy name)


def _alive(pid: int) -> bool:
    """Whether process `pid` exists here (True when that cannot be told)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _stale(name: str, folder: str) -> bool:
    ours = _OURS.fullmatch(name)
    if ours is not None and ours.group(1) == _HOST:
        pid = int(ours.group(2))
        return pid != os.getpid() and not _alive(pid)
    if ours is None and _LEGACY.fullmatch(name) is None:
        return False
    try:
        age = time.time() - os.lstat(os.path.join(folder, name)).st_mtime
    except OSError:
        return False
    return age > _ORPHAN_AGE_S


def remove_stale_temporaries(folder: str) -> list[str]:
    """Remove the temporary files a killed save left in `folder`; returns their names.

    Only this package's temporaries are touched, and only once their writer is gone: the
    process that named them no longer exists on this host, or (written on another host,
    or named before temporaries carried their writer) they are a day old.
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if name.startswith(PREFIX) and name.endswith(SUFFIX) and _stale(name, folder):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder, name))
                removed.append(name)
    return removed


def _create_temporary(folder: str, mode: int | None) -> str:
    """A new empty file in `folder` named for this writer; `mode` or the umask's."""
    while True:
        tmp = os.path.join(folder, f"{PREFIX}{_HOST}-{os.getpid()}-{secrets.token_hex(6)}{SUFFIX}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        try:
            if mode is not None:
                os.chmod(tmp, mode)
        except OSError:
            os.remove(tmp)
            raise
        return tmp


def _sync(path: str, directory: bool = False) -> None:
    """Flush `path` to disk, so a power cut after the rename finds the new bytes."""
    if directory and os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on folders
        if not directory:
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def _scratch_path() -> Iterator[str]:
    folder = tempfile.mkdtemp(prefix=PREFIX)
    path = os.path.join(folder, "scratch")
    open(path, "wb").close()  # an empty file, as `atomic_path` gives its writers
    try:
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def atomic_path(target: str, overwrite: bool = True, scratch: bool = False) -> Iterator[str]:
    """A temporary path to write; renamed to `target` when the block ends without error.

    A symbolic link at `target` stays: the file it points to is the one replaced. With
    `scratch` the path is a private temporary file, deleted afterwards, and `target` is
    not touched (a process of a job that is not the one writing; see `lamina_saving.job`).

    Raises:
        FileExistsError: `target` exists and `overwrite` is False.
    """
    if not overwrite and os.path.exists(target):
        raise FileExistsError(f"{target} exists and overwrite=False.")
    if scratch:
        with _scratch_path() as private:
            yield private
        return
    real = os.path.realpath(target)
    folder = os.path.dirname(real)
    os.makedirs(folder, exist_ok=True)
    remove_stale_temporaries(folder)
    try:
        mode: int | None = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = None
    tmp = _create_temporary(folder, mode)
    try:
        yield tmp
        stamp = stamp_written(tmp)
        _sync(tmp)
        os.replace(tmp, real)
        _sync(folder, directory=True)
        remember_written(real, stamp)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
