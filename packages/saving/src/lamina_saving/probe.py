"""Read an HDF5 file's metadata in a child process before trusting it in-process.

HDF5 is C code: a damaged or forged file can make it loop forever or crash while parsing
object headers, and nothing in Python can interrupt that. So before a file is opened
here, a child process (importing only h5py) walks its structure under a time limit,
through the reader's own HDF5 calls (`h5_direct`), touching everything the in-process
reader will: every link, group and attribute, and the metadata of every dataset (type,
shape, layout, filters, storage), with the reader's own bounds on nesting, object count
and the total bytes the datasets declare. Whatever would crash or hang the reader
crashes or hangs the child first. A child that hangs, dies or meets any error (an
attribute it cannot read, a bound passed) turns into a `LaminaFileError`, so the reader
only ever opens files that were walked completely.

Starting a Python with h5py costs about 0.1 s, more than loading a small model, so one
child serves every probe of the process, a request per line on its stdin; a child that
hung or died is replaced at the next probe.

A file this process wrote itself (`remember_written`, called once a save's rename is done)
is not walked again while it is unchanged: the save stamps it with a modification time of
its own choosing, to the nanosecond, and any later write moves that time to the clock's,
so the stamp, with the file's device, inode, size and change time, tells that nobody
touched it since. That spares reloading a just-saved model the child's round trip. (Only
someone who writes the file and puts the stamp back within the same tick of the file
system's clock as the save goes unnoticed, which the race between any probe and the open
after it allows as well.)
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import subprocess
import sys
import threading
from typing import IO, Any

from lamina_saving import h5_direct, zip_member
from lamina_saving.errors import LaminaFileError
from lamina_saving.h5_store import MAX_DEPTH, MAX_OBJECTS

TIMEOUT_S = float(os.environ.get("LAMINA_SAVING_PROBE_TIMEOUT", "60"))

_WALK = r"""
import contextlib, ctypes, importlib.util, json, os, signal, sys, zipfile

# A walk stuck in HDF5's C code never reads its closed stdin: on Linux, have the kernel
# end this process when the one that started it dies (PR_SET_PDEATHSIG).
if sys.platform.startswith("linux"):
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)

import h5py
from h5py import h5a, h5d, h5g


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# lamina_saving's byte-range view (zip_member.py, standard library only) and the reader's
# own HDF5 calls (h5_direct.py, h5py only), each loaded alone.
zip_member = load("lamina_zip_member", sys.argv[1])
h5_direct = load("lamina_h5_direct", sys.argv[2])
MAX_DEPTH, MAX_OBJECTS = int(sys.argv[3]), int(sys.argv[4])


class Refused(Exception):
    pass


def touch(obj):
    # Every attribute, names then values (read as the reader reads them, through
    # h5_direct): whatever the reader asks for is among them. Returns how many there
    # were: they count towards MAX_OBJECTS like links do.
    count = h5a.get_num_attrs(obj)
    if count > MAX_OBJECTS:
        raise Refused(f"an object holds more than {MAX_OBJECTS} attributes")
    names = []
    h5a.iterate(obj, names.append)
    for name in names:
        h5_direct.read_attr(obj, name)
    return count


def declared_bytes(dset, where, size):
    # The metadata the reader checks before reading a dataset's values.
    dtype, shape = dset.dtype, dset.shape
    plist = dset.get_create_plist()
    layout = plist.get_layout()
    if layout == h5d.CHUNKED:
        plist.get_chunk()
    for index in range(plist.get_nfilters()):
        plist.get_filter(index)
    plist.get_external_count()
    dset.get_storage_size(), dset.get_offset()
    nbytes = dtype.itemsize
    for dim in shape or ():
        nbytes *= dim
    if nbytes > size:
        raise Refused(f"{where} declares shape {shape} ({nbytes} bytes) but the file has "
                      f"only {size} bytes")
    return nbytes


def walk(root, size):
    # Iterative, bounded like the reader: a group reached twice, nesting deeper than
    # MAX_DEPTH or more than MAX_OBJECTS links and attributes is refused here first.
    seen, stack, objects, declared = {root}, [(root, "", 0)], touch(root), 0
    while stack:
        group, base, depth = stack.pop()
        len(group)
        for key in h5_direct.names(group):
            objects += 1
            if objects > MAX_OBJECTS:
                raise Refused(f"it holds more than {MAX_OBJECTS} groups, datasets and attributes")
            if h5_direct.link_kind(group, key) != "HardLink":
                continue  # refused by the reader by its link alone, never followed
            h5_direct.has(group, key)
            item = h5_direct.open_object(group, key)
            objects += touch(item)
            if isinstance(item, h5g.GroupID):
                if item in seen:
                    raise Refused(f"a group is reached by a second path ({key!r})")
                seen.add(item)
                if depth + 1 >= MAX_DEPTH:
                    raise Refused(f"groups nest deeper than {MAX_DEPTH}")
                stack.append((item, f"{base}/{key}", depth + 1))
            elif isinstance(item, h5d.DatasetID):
                declared += declared_bytes(item, f"{base}/{key}", size)
    if declared > size:
        raise Refused(f"its datasets declare {declared} bytes in total, more than its {size}")


def probe(path, member, start, size):
    with contextlib.ExitStack() as files:  # this process lives on: close what it opens
        try:
            if start >= 0:
                source = files.enter_context(zip_member.FileWindow(path, start, size))
            elif member:
                archive = files.enter_context(zipfile.ZipFile(path))
                size = archive.getinfo(member).file_size
                source = files.enter_context(archive.open(member))
            else:
                size = os.path.getsize(path)
                source = path
            with h5py.File(source, "r") as f:
                walk(h5_direct.root(f), size)
        except Exception as e:  # every failure is the answer: the reader would meet it too
            return f"{type(e).__name__}: {e}"[:500]
    return None


for line in sys.stdin:  # one request per line; the answer is a line once the walk is done
    print(json.dumps({"problem": probe(*json.loads(line))}), flush=True)
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
        """Have the child walk `request`; None when the walk was complete, else what went
        wrong (an error the child met, or the child hung or died)."""
        with self._lock:
            process = self._send(request)
            assert process.stdout is not None
            answer: list[str] = []
            reader = threading.Thread(target=_read_line, args=(process.stdout, answer))
            reader.start()
            reader.join(timeout)
            answered, problem = _answer(answer)
            if answered:
                return problem
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
                    [
                        sys.executable,
                        "-I",
                        "-c",
                        _WALK,
                        zip_member.__file__,
                        h5_direct.__file__,
                        str(MAX_DEPTH),
                        str(MAX_OBJECTS),
                    ],
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


def _answer(lines: list[str]) -> tuple[bool, str | None]:
    """Whether the child answered, and the problem it reported (None: walked it all)."""
    try:
        reply = json.loads(lines[0]) if lines else None
    except ValueError:
        return False, None
    if not isinstance(reply, dict) or "problem" not in reply:
        return False, None
    problem = reply["problem"]
    return True, None if problem is None else f"failed ({problem})"


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


_Signature = tuple[int, int, int, int, int]
_WRITTEN: dict[str, _Signature] = {}


def _signature(st: os.stat_result) -> _Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def stamp_written(path: str) -> int | None:
    """Give the file at `path`, just written by this process, a modification time no
    write by anyone else will produce: now, to the nanosecond, plus a random part under a
    microsecond. Returns it, or None where the file system does not keep it exactly."""
    stamp = os.stat(path).st_mtime_ns + 1 + secrets.randbelow(999)
    try:
        os.utime(path, ns=(stamp, stamp))
    except OSError:
        return None
    return stamp if os.stat(path).st_mtime_ns == stamp else None


def remember_written(path: str, stamp: int | None) -> None:
    """Record that the file now at `path` is the one this process wrote and stamped
    (`stamp_written`): `probe` trusts it while its signature holds."""
    real = os.path.realpath(path)
    with contextlib.suppress(OSError):
        st = os.stat(real)
        if stamp is not None and st.st_mtime_ns == stamp:
            _WRITTEN[real] = _signature(st)
            return
    _WRITTEN.pop(real, None)


def forget_written() -> None:
    """Walk every file again, also those this process wrote."""
    _WRITTEN.clear()


def _written_here(path: str) -> bool:
    real = os.path.realpath(path)
    known = _WRITTEN.get(real)
    if known is None:
        return False
    try:
        return _signature(os.stat(real)) == known
    except OSError:
        return False


def probe(
    path: str,
    member: str = "",
    display: str | None = None,
    byte_range: tuple[int, int] | None = None,
) -> None:
    """Walk the HDF5 metadata of `path` in the child process: of the whole file, of zip
    `member` in it, or of the bytes ``(start, size)`` (a stored member, read in place).

    Raises:
        LaminaFileError: the walk met an error, hung past the time limit or crashed the
            process.
    """
    if _written_here(path):
        return  # this process wrote these bytes, and nobody has touched them since
    start, size = byte_range if byte_range is not None else (-1, 0)
    problem = _WALKER.walk([os.path.abspath(path), member, start, size], TIMEOUT_S)
    if problem is not None:
        raise LaminaFileError(
            display or path,
            f"reading its HDF5 metadata {problem}; the file is damaged or forged.",
        )
