"""`get_file`: download a file into Lamina's cache once, check its hash, extract it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Any

from lamina.backend.config import lamina_home
from lamina.utils.archives import extract_archive

_CHUNK = 1 << 16


def _hasher(algorithm: str, file_hash: str | None = None) -> Any:
    """sha256 when asked or when `file_hash` has sha256's 64 hex digits; md5 otherwise."""
    if algorithm == "sha256" or (
        algorithm == "auto" and file_hash is not None and len(file_hash) == 64
    ):
        return hashlib.sha256()
    if algorithm in ("md5", "auto"):
        return hashlib.md5()
    raise ValueError(
        "Argument `hash_algorithm` must be 'auto', 'sha256' or 'md5'. "
        f"Received: hash_algorithm={algorithm!r}"
    )


def hash_file(fpath: str, algorithm: str = "sha256", chunk_size: int = _CHUNK) -> str:
    """The hex digest of a file (``"sha256"``, ``"md5"`` or ``"auto"``)."""
    hasher = _hasher(algorithm)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return str(hasher.hexdigest())


def validate_file(fpath: str, file_hash: str, algorithm: str = "auto") -> bool:
    """Whether the file's hash is `file_hash` (the algorithm guessed from its length)."""
    hasher = _hasher(algorithm, file_hash)
    name = "sha256" if hasher.name == "sha256" else "md5"
    return hash_file(fpath, name) == str(file_hash)


def _cache_folder(cache_dir: str | os.PathLike[str] | None) -> str:
    """The cache's base folder; a temporary one when it cannot be written."""
    base = str(lamina_home()) if cache_dir is None else os.path.expanduser(os.fspath(cache_dir))
    with contextlib.suppress(OSError):  # an unwritable place falls back just below
        os.makedirs(base, exist_ok=True)
    if not os.access(base, os.W_OK):
        base = os.path.join(tempfile.gettempdir(), ".lamina")
    return base


def _download(origin: str, target: str) -> None:
    """Copy `origin` (http, https, ftp or file URL) to `target`, atomically."""
    print(f"Downloading data from {origin}")
    partial = target + ".part"
    try:
        with urllib.request.urlopen(origin) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out, _CHUNK)
    except urllib.error.HTTPError as error:
        _remove(partial)
        raise OSError(f"URL fetch failure on {origin}: {error.code} -- {error.msg}") from error
    except urllib.error.URLError as error:
        _remove(partial)
        raise OSError(f"URL fetch failure on {origin}: {error.reason}") from error
    except BaseException:
        _remove(partial)
        raise
    os.replace(partial, target)


def _remove(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)


def get_file(
    fname: str | os.PathLike[str] | None = None,
    origin: str | None = None,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: Any = "auto",
    cache_dir: str | os.PathLike[str] | None = None,
    force_download: bool = False,
) -> str:
    """Download a file from a URL unless it is already in the cache, and return its path.

    Files go to ``cache_dir/cache_subdir`` (default ``~/.lamina/datasets``, or under
    ``LAMINA_HOME``). A cached file whose hash does not match `file_hash` is downloaded
    again; a downloaded one that does not match is deleted and refused. Archives are
    extracted with every member checked (no ``..``, absolute paths or links out of the
    folder).

    Args:
        fname: the file's name in the cache (default: the last part of the URL). No
            folders: use `cache_dir` for that.
        origin: the URL (``https://``, ``http://``, ``ftp://`` or ``file://``).
        untar: legacy; extract a tar archive (as ``extract=True`` with tar).
        md5_hash: legacy; an md5 `file_hash`.
        file_hash: the expected sha256 (or md5) hex digest.
        cache_subdir: the folder under `cache_dir`.
        hash_algorithm: ``"auto"``, ``"sha256"`` or ``"md5"``.
        extract: extract the archive; the extraction folder's path is returned.
        archive_format: ``"auto"``, ``"tar"``, ``"zip"``, a list of those, or None.
        cache_dir: the cache's base folder.
        force_download: download even when the file is cached.

    Returns:
        The path of the downloaded file, or of its extraction folder.

    Example:
        ```python
        path = lamina.utils.get_file(
            origin="https://example.com/flower_photos.tgz", extract=True
        )
        ```
    """
    if origin is None:
        raise ValueError(
            "get_file: argument `origin` must be the URL of the file. Received: origin=None"
        )
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    _hasher(hash_algorithm, file_hash)
    datadir = os.path.join(_cache_folder(cache_dir), cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    given = fname is not None and os.fspath(fname) != ""
    name = os.fspath(fname) if given and fname is not None else ""
    if not name:
        name = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not name:
            raise ValueError(f"get_file: no file name in origin {origin!r}. Give argument `fname`.")
    elif os.sep in name or "/" in name or name in (".", ".."):
        raise ValueError(
            "get_file: argument `fname` must be a file name, not a path (use `cache_dir` "
            f"to choose the folder). Received: fname={name!r}"
        )
    if extract or untar:
        if given and "." in name:
            download_target = os.path.join(datadir, name)
            extraction_dir = os.path.join(datadir, name[: name.find(".")] + "_extracted")
        else:
            extraction_dir = os.path.join(datadir, name)
            download_target = os.path.join(datadir, name + "_archive")
    else:
        download_target = os.path.join(datadir, name)

    download = force_download or not os.path.exists(download_target)
    if (
        not download
        and file_hash is not None
        and not validate_file(download_target, file_hash, hash_algorithm)
    ):
        print(
            f"A local file was found, but its {hash_algorithm} hash does not match "
            f"{file_hash}: downloading it again."
        )
        download = True
    if download:
        _download(origin, download_target)
        if file_hash is not None and not validate_file(download_target, file_hash, hash_algorithm):
            _remove(download_target)
            raise ValueError(
                f"get_file: the file downloaded from {origin!r} is incomplete or corrupted: "
                f"its hash does not match file_hash={file_hash!r} ({hash_algorithm})."
            )
    if not (extract or untar):
        return download_target
    if untar:
        archive_format = "tar"
    if not extract_archive(download_target, extraction_dir, archive_format):
        warnings.warn(
            f"get_file: {download_target!r} is not a {archive_format} archive; nothing "
            "was extracted.",
            UserWarning,
            stacklevel=2,
        )
    return extraction_dir
