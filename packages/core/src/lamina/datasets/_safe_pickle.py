"""Read the few pickles the dataset files hold without running `pickle`.

CIFAR's batches are pickled dicts of bytes, lists and one NumPy array, and `imdb.npz` /
`reuters.npz` hold object arrays of lists (stored as pickles inside the ``.npy``). Python's
`pickle` would call any global a file names; this reader interprets the opcodes itself and
accepts only that structure: dicts, lists, tuples, strings, bytes, numbers, and arrays
rebuilt through NumPy's own pickle hooks (`_reconstruct`, `ndarray`, `dtype`), whose
arguments it checks. Any other opcode or global is refused with `UnsafeDatasetFileError`.
"""

from __future__ import annotations

import io
import struct
import zipfile
from typing import Any, Literal

import numpy as np


class UnsafeDatasetFileError(ValueError):
    """A dataset file holds a pickled object other than plain data: it is not loaded."""


_RECONSTRUCT = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
}
_ALLOWED_GLOBALS = _RECONSTRUCT | {("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}
_MARK = object()


class _Global:
    def __init__(self, module: str, name: str) -> None:
        self.key = (module, name)


class _PendingArray:
    """`_reconstruct(ndarray, ...)` made this; BUILD gives it its data."""

    value: Any = None


class _PendingDtype:
    def __init__(self, spec: str) -> None:
        self.dtype = np.dtype(spec)


def _refuse(what: str, source: str) -> UnsafeDatasetFileError:
    return UnsafeDatasetFileError(
        f"Refusing to load {source}: it holds {what}. Dataset files are read as plain data "
        "(dicts, lists, strings, numbers and NumPy arrays) and never unpickle objects."
    )


def _call(func: Any, args: Any, source: str) -> Any:
    if not isinstance(func, _Global) or not isinstance(args, tuple):
        raise _refuse("a call of something that is not an allowed global", source)
    if func.key in _RECONSTRUCT:
        if not (args and isinstance(args[0], _Global) and args[0].key == ("numpy", "ndarray")):
            raise _refuse(f"_reconstruct of {args!r}", source)
        return _PendingArray()
    if func.key == ("numpy", "dtype"):
        spec = args[0] if args else None
        try:
            plain = isinstance(spec, str) and np.dtype(spec).kind in "biufcOSU?"
        except TypeError:
            plain = False
        if not plain:
            raise _refuse(f"a dtype built from {spec!r}", source)
        return _PendingDtype(str(spec))
    if func.key == ("_codecs", "encode"):  # how Python 3 writes bytes at protocol 2
        if len(args) != 2 or not isinstance(args[0], str) or args[1] != "latin1":
            raise _refuse(f"_codecs.encode{args!r}", source)
        return args[0].encode("latin1")
    raise _refuse(f"a call of {'.'.join(func.key)}", source)


def _build(obj: Any, state: Any, source: str) -> Any:
    if isinstance(obj, _PendingDtype):
        return obj  # byte order and flags of a plain dtype: nothing to apply
    if not isinstance(obj, _PendingArray) or not isinstance(state, tuple) or len(state) != 5:
        raise _refuse("a BUILD of something other than a NumPy array", source)
    _, shape, dtype, fortran, data = state
    if not isinstance(dtype, _PendingDtype) or not isinstance(shape, tuple):
        raise _refuse("an array with an unreadable dtype or shape", source)
    order: Literal["C", "F"] = "F" if fortran else "C"
    if dtype.dtype.kind == "O":
        if not isinstance(data, list):
            raise _refuse("an object array whose items are not a list", source)
        array = np.empty(len(data), dtype=object)
        array[:] = [_finish(item) for item in data]
        obj.value = array.reshape(shape, order=order)
    elif isinstance(data, bytes):
        obj.value = np.frombuffer(data, dtype.dtype).reshape(shape, order=order).copy()
    else:
        raise _refuse("an array whose data are not bytes", source)
    return obj


def _finish(value: Any) -> Any:
    """Replace the placeholders by the arrays they became."""
    if isinstance(value, _PendingArray):
        return value.value
    if isinstance(value, _PendingDtype):
        return value.dtype
    if isinstance(value, list):
        return [_finish(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_finish(v) for v in value)
    if isinstance(value, dict):
        return {_finish(k): _finish(v) for k, v in value.items()}
    if isinstance(value, _Global):
        raise UnsafeDatasetFileError(f"A bare global {'.'.join(value.key)} is not data.")
    return value


def restricted_loads(data: bytes, source: str = "a pickle") -> Any:
    """The plain data of a pickle (see the module docstring); Python 2 strings are bytes."""
    stream = io.BytesIO(data)
    read = stream.read
    stack: list[Any] = []
    marks: list[int] = []
    memo: dict[int, Any] = {}

    def pop_mark() -> list[Any]:
        start = marks.pop()
        items = stack[start:]
        del stack[start:]
        return items

    def unpack(fmt: str, size: int) -> Any:
        return struct.unpack(fmt, read(size))[0]

    while True:
        op = read(1)
        if not op:
            raise _refuse("a truncated pickle", source)
        code = op[0]
        if code == 0x80:  # PROTO
            read(1)
        elif code == 0x95:  # FRAME
            read(8)
        elif code == 0x2E:  # STOP
            return _finish(stack.pop())
        elif code == 0x28:  # MARK
            marks.append(len(stack))
        elif code == 0x7D:  # EMPTY_DICT
            stack.append({})
        elif code == 0x5D:  # EMPTY_LIST
            stack.append([])
        elif code == 0x29:  # EMPTY_TUPLE
            stack.append(())
        elif code == 0x4E:  # NONE
            stack.append(None)
        elif code in (0x88, 0x89):  # NEWTRUE, NEWFALSE
            stack.append(code == 0x88)
        elif code == 0x4A:  # BININT
            stack.append(unpack("<i", 4))
        elif code == 0x4B:  # BININT1
            stack.append(read(1)[0])
        elif code == 0x4D:  # BININT2
            stack.append(unpack("<H", 2))
        elif code == 0x8A:  # LONG1
            n = read(1)[0]
            stack.append(int.from_bytes(read(n), "little", signed=True))
        elif code == 0x47:  # BINFLOAT
            stack.append(unpack(">d", 8))
        elif code in (0x58, 0x8C):  # BINUNICODE, SHORT_BINUNICODE
            n = unpack("<I", 4) if code == 0x58 else read(1)[0]
            stack.append(read(n).decode("utf-8"))
        elif code in (0x42, 0x43, 0x54, 0x55):  # BINBYTES, SHORT_BINBYTES, BINSTRING...
            n = unpack("<I", 4) if code in (0x42, 0x54) else read(1)[0]
            stack.append(read(n))  # Python 2 strings read as bytes (encoding="bytes")
        elif code == 0x85:  # TUPLE1
            stack[-1:] = [tuple(stack[-1:])]
        elif code == 0x86:  # TUPLE2
            stack[-2:] = [tuple(stack[-2:])]
        elif code == 0x87:  # TUPLE3
            stack[-3:] = [tuple(stack[-3:])]
        elif code == 0x74:  # TUPLE
            stack.append(tuple(pop_mark()))
        elif code == 0x6C:  # LIST
            stack.append(pop_mark())
        elif code == 0x64:  # DICT
            items = pop_mark()
            stack.append(dict(zip(items[::2], items[1::2])))
        elif code == 0x61:  # APPEND
            value = stack.pop()
            _as(stack[-1], list, source).append(value)
        elif code == 0x65:  # APPENDS
            items = pop_mark()
            _as(stack[-1], list, source).extend(items)
        elif code == 0x73:  # SETITEM
            value, key = stack.pop(), stack.pop()
            _as(stack[-1], dict, source)[_hashable(key, source)] = value
        elif code == 0x75:  # SETITEMS
            items = pop_mark()
            target = _as(stack[-1], dict, source)
            for key, value in zip(items[::2], items[1::2]):
                target[_hashable(key, source)] = value
        elif code == 0x71:  # BINPUT
            memo[read(1)[0]] = stack[-1]
        elif code == 0x72:  # LONG_BINPUT
            memo[unpack("<I", 4)] = stack[-1]
        elif code == 0x94:  # MEMOIZE
            memo[len(memo)] = stack[-1]
        elif code == 0x68:  # BINGET
            stack.append(memo[read(1)[0]])
        elif code == 0x6A:  # LONG_BINGET
            stack.append(memo[unpack("<I", 4)])
        elif code == 0x63:  # GLOBAL "module\nname\n"
            module = stream.readline().decode("ascii").strip()
            name = stream.readline().decode("ascii").strip()
            stack.append(_global(module, name, source))
        elif code == 0x93:  # STACK_GLOBAL
            name, module = stack.pop(), stack.pop()
            stack.append(_global(str(module), str(name), source))
        elif code == 0x52:  # REDUCE
            args, func = stack.pop(), stack.pop()
            stack.append(_call(func, args, source))
        elif code == 0x62:  # BUILD
            state = stack.pop()
            stack[-1] = _build(stack[-1], state, source)
        else:
            raise _refuse(f"the pickle opcode {op!r}", source)


def _global(module: str, name: str, source: str) -> _Global:
    if (module, name) not in _ALLOWED_GLOBALS:
        raise _refuse(f"the global {module}.{name}", source)
    return _Global(module, name)


def _as(value: Any, kind: type, source: str) -> Any:
    if not isinstance(value, kind):
        raise _refuse(f"an item added to a {type(value).__name__}", source)
    return value


def _hashable(key: Any, source: str) -> Any:
    if not isinstance(key, (str, bytes, int, float, bool, type(None), tuple)):
        raise _refuse(f"a dict key of type {type(key).__name__}", source)
    return key


def load_npz(path: str) -> dict[str, np.ndarray[Any, Any]]:
    """The arrays of an ``.npz``: plain ones through ``np.load(allow_pickle=False)``,
    object arrays (lists of ints) through `restricted_loads`."""
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            key = name[:-4] if name.endswith(".npy") else name
            raw = archive.read(name)
            stream = io.BytesIO(raw)
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(stream)
            else:
                header = np.lib.format.read_array_header_2_0(stream)
            dtype = header[2]
            if dtype.hasobject:
                value = restricted_loads(stream.read(), f"{path}:{name}")
                if not isinstance(value, np.ndarray):
                    raise _refuse(f"a pickled {type(value).__name__} in {name}", path)
                arrays[key] = value
            else:
                arrays[key] = np.load(io.BytesIO(raw), allow_pickle=False)
    return arrays
