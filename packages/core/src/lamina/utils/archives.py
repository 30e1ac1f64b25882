"""Extract zip and tar archives without letting a member write outside the target folder.

Every member is checked before anything is written, and again against the files already
on disk as it is extracted: a name with ``..`` that climbs out, an absolute name, a
symbolic or hard link pointing out of the folder, or a device/FIFO member refuses the whole
archive (the holes behind CVE-2025-12638 in Keras' `get_file`, and older tar-slip bugs).
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from typing import Any

ARCHIVE_FORMATS = ("tar", "zip")


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _refuse(archive: str, member: str, why: str) -> ValueError:
    return ValueError(
        f"Refusing to extract {archive!r}: member {member!r} {why}. Archives may only "
        "write inside the extraction folder."
    )


def _check_name(archive: str, root: str, name: str) -> str:
    """The member's destination, if its name stays inside `root` (lexically)."""
    if not name or os.path.isabs(name) or name.startswith(("/", "\\")) or ":" in name[:3]:
        raise _refuse(archive, name, "has an absolute path")
    destination = os.path.normpath(os.path.join(root, name))
    if not _inside(root, destination):
        raise _refuse(archive, name, "climbs out of the folder with '..'")
    return destination


def _check_on_disk(archive: str, root: str, name: str, destination: str) -> None:
    """The destination resolved through the links extracted so far stays inside."""
    if not _inside(root, os.path.realpath(destination)):
        raise _refuse(archive, name, "would be written through a link that leaves the folder")


def _check_link(archive: str, root: str, name: str, destination: str, target: str) -> None:
    if os.path.isabs(target):
        raise _refuse(archive, name, f"links to the absolute path {target!r}")
    resolved = os.path.realpath(os.path.join(os.path.dirname(destination), target))
    if not _inside(root, resolved):
        raise _refuse(archive, name, f"links to {target!r}, outside the folder")


def _tar_members(archive: str, root: str, tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members = tar.getmembers()
    for member in members:
        destination = _check_name(archive, root, member.name)
        if member.ischr() or member.isblk() or member.isfifo():
            raise _refuse(archive, member.name, "is a device or FIFO")
        if member.issym():
            _check_link(archive, root, member.name, destination, member.linkname)
        elif member.islnk():  # hard links name their target from the archive's root
            _check_name(archive, root, member.linkname)
            _check_link(archive, root, member.name, os.path.join(root, "x"), member.linkname)
    return members


def _extract_tar(archive: str, root: str) -> None:
    with tarfile.open(archive) as tar:
        for member in _tar_members(archive, root, tar):
            destination = os.path.normpath(os.path.join(root, member.name))
            _check_on_disk(archive, root, member.name, destination)
            if member.issym():
                _check_link(archive, root, member.name, destination, member.linkname)
            # The "data" filter refuses the same holes again, and drops set-uid bits.
            tar.extract(member, root, filter="data")


def _zip_is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _extract_zip(archive: str, root: str) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            destination = _check_name(archive, root, info.filename)
            if _zip_is_link(info):
                target = zf.read(info).decode("utf-8", errors="replace")
                _check_link(archive, root, info.filename, destination, target)
        for info in infos:
            destination = os.path.normpath(os.path.join(root, info.filename))
            _check_on_disk(archive, root, info.filename, destination)
            zf.extract(info, root)


def extract_archive(file_path: str, path: str = ".", archive_format: Any = "auto") -> bool:
    """Extract a tar or zip archive into `path`, checking every member.

    Args:
        file_path: the archive.
        path: the folder to extract into (created when missing).
        archive_format: ``"auto"`` (tar, then zip), ``"tar"``, ``"zip"``, a list of
            those, or None (extract nothing).

    Returns:
        True if the archive was extracted, False if it is none of the formats.

    Raises:
        ValueError: a member would land outside `path`; nothing extracted stays.
    """
    if archive_format is None:
        return False
    formats = list(ARCHIVE_FORMATS) if archive_format == "auto" else archive_format
    if isinstance(formats, str):
        formats = [formats]
    unknown = [f for f in formats if f not in ARCHIVE_FORMATS]
    if unknown:
        raise ValueError(
            "Argument `archive_format` must be 'auto', 'tar', 'zip', a list of those or "
            f"None. Received: archive_format={archive_format!r}"
        )
    file_path = os.fspath(file_path)
    root = os.path.realpath(os.fspath(path))
    for kind in formats:
        matches = tarfile.is_tarfile(file_path) if kind == "tar" else zipfile.is_zipfile(file_path)
        if not matches:
            continue
        existed = os.path.exists(root)
        os.makedirs(root, exist_ok=True)
        try:
            (_extract_tar if kind == "tar" else _extract_zip)(file_path, root)
        except BaseException:
            if not existed:
                shutil.rmtree(root, ignore_errors=True)
            raise
        return True
    return False
