"""Read an HDF5 file's metadata in a child process before trusting it in-process.

HDF5 is C code: a damaged or forged file can make it loop forever or crash while parsing
object headers, and nothing in Python can interrupt that. So before a file is opened
here, a child process (importing only h5py) walks its structure under a time limit. A
child that hangs or dies turns into a `LaminaFileError`; ordinary Python errors in the
child are left to the in-process reader, which reports them itself.

Starting a Python with h5py costs about 0.1 s, more than loading a small model, so one
child serves every probe of the process, a request per line on its stdin; a child that
hung or died is replaced at the next probe.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import threading
from typing import IO, Any

from lamina_saving import zip_member
from lamina_saving.errors import LaminaFileError

TIMEOUT_S = float(os.environ.get("LAMINA_SAVING_PROBE_TIMEOUT", "60"))

_WALK = r"""
import contextlib, importlib.util, json, sys, zipfile
import h5py

# The byte-range view of lamina_saving/zip_member.py, loaded alone (standard library only).
spec = importlib.util.spec_from_file_location("lamina_zip_member", sys.argv[1])
zip_member = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zip_member)

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


def probe(path, member, start, size):
    with contextlib.ExitStack() as files:  # this process lives on: close what it opens
        try:
            if start >= 0:
                source = files.enter_context(zip_member.FileWindow(path, start, size))
            elif member:
                archive = files.enter_context(zipfile.ZipFile(path))
                source = files.enter_context(archive.open(member))
            else:
                source = path
            with h5py.File(source, "r") as f:
                dict(f.attrs)
                walk(f)
        except Exception:
            pass  # the in-process reader raises the proper error for these

for line in sys.stdin:  # one request per line; the answer is a line once the walk is done
    probe(*json.loads(line))
    print("done", flush=True)
"""


class _Walker:
    """The child process that walks files, started on first use and after a failure."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Drop the child without touching it: after a fork it belongs to the parent."""
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def walk(self, request: list[Any], timeout: float) -> str | None:
        """Have the child walk `request`; None when it answered, else what went wrong."""
        with self._lock:
            process = self._send(request)
            assert process.stdout is not None
            answer: list[str] = []
            reader = threading.Thread(target=_read_line, args=(process.stdout, answer))
            reader.start()
            reader.join(timeout)
            if answer == ["done\n"]:
                return None
            self._process = None
            hung = reader.is_alive()
            if process.poll() is None:  # hung, or answered something else: stop it
                process.kill()
            code = process.wait()
            reader.join()
            _close_pipes(process)
            return f"did not finish in {timeout:g} s" if hung else f"crashed (exit code {code})"

    def stop(self) -> None:
        """End the child: it exits when its input closes."""
        with self._lock:
            if self._process is not None:
                self._process.communicate()
                self._process = None

    def _send(self, request: list[Any]) -> subprocess.Popen[str]:
        line = json.dumps(request) + "\n"
        for _ in range(2):  # a child gone since the last probe is replaced once
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-c", _WALK, zip_member.__file__],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            assert self._process.stdin is not None
            try:
                self._process.stdin.write(line)
                self._process.stdin.flush()
                return self._process
            except OSError:
                self._process.wait()
                _close_pipes(self._process)
                self._process = None
        raise OSError("Could not start the HDF5 probe process.")


def _read_line(stream: IO[str], out: list[str]) -> None:
    out.append(stream.readline())


def _close_pipes(process: subprocess.Popen[str]) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):  # a broken pipe: nothing left to flush
                stream.close()


_WALKER = _Walker()
atexit.register(_WALKER.stop)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WALKER.forget)


def probe(
    path: str,
    member: str = "",
    display: str | None = None,
    byte_range: tuple[int, int] | None = None,
) -> None:
    """Walk the HDF5 metadata of `path` in the child process: of the whole file, of zip
    `member` in it, or of the bytes ``(start, size)`` (a stored member, read in place).

    Raises:
        LaminaFileError: the walk hung past the time limit or crashed the process.
    """
    start, size = byte_range if byte_range is not None else (-1, 0)
    problem = _WALKER.walk([os.path.abspath(path), member, start, size], TIMEOUT_S)
    if problem is not None:
        raise LaminaFileError(
            display or path,
            f"reading its HDF5 metadata {problem}; the file is damaged or forged.",
        )
