"""Read an HDF5 file's metadata once in a child process before trusting it in-process.

HDF5 is C code: a damaged or forged file can make it loop forever or crash while parsing
object headers, and nothing in Python can interrupt that. So before a file is opened
here, a short-lived child process (importing only h5py) walks its structure under a time
limit. A child that hangs or dies turns into a `LaminaFileError`; ordinary Python errors
in the child are left to the in-process reader, which reports them itself.
"""

from __future__ import annotations

import os
import subprocess
import sys

from lamina_saving.errors import LaminaFileError

TIMEOUT_S = float(os.environ.get("LAMINA_SAVING_PROBE_TIMEOUT", "60"))

_WALK = r"""
import sys, zipfile
import h5py

def walk(group):
    for key in group.keys():
        link = group.get(key, getlink=True)
        if not isinstance(link, h5py.HardLink):
            continue
        item = group[key]
        dict(item.attrs)
        if isinstance(item, h5py.Group):
            walk(item)
        else:
            item.dtype, item.shape, item.compression, item.external

try:
    path, member = sys.argv[1], sys.argv[2]
    source = zipfile.ZipFile(path).open(member) if member else path
    with h5py.File(source, "r") as f:
        dict(f.attrs)
        walk(f)
except Exception:
    pass  # the in-process reader raises the proper error for these
"""


def probe(path: str, member: str = "", display: str | None = None) -> None:
    """Walk the HDF5 metadata of `path` (or of zip `member` in it) in a child process.

    Raises:
        LaminaFileError: the walk hung past the time limit or crashed the process.
    """
    shown = display or path
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _WALK, path, member],
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        raise LaminaFileError(
            shown, f"reading its HDF5 metadata did not finish in {TIMEOUT_S:g} s; the file "
            "is damaged or forged."
        ) from e
    if done.returncode != 0:
        raise LaminaFileError(
            shown, f"reading its HDF5 metadata crashed (exit code {done.returncode}); the "
            "file is damaged or forged."
        )
