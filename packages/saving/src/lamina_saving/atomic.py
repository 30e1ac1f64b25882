"""Writes that either finish or leave the previous file as it was.

Everything is written to a temporary file beside the target and renamed into place;
a crash or an exception mid-write removes the temporary file and keeps the old one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def atomic_path(target: str, overwrite: bool = True) -> Iterator[str]:
    """A temporary path to write; renamed to `target` when the block ends without error.

    Raises:
        FileExistsError: `target` exists and `overwrite` is False.
    """
    if not overwrite and os.path.exists(target):
        raise FileExistsError(f"{target} exists and overwrite=False.")
    folder = os.path.dirname(os.path.abspath(target))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".lamina-", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
