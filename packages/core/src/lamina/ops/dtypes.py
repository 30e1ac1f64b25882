"""Dtype names and the one promotion lattice every backend shares.

Dtypes are plain strings (``"float32"``). Promotion follows a lattice in the style of JAX's
(and Keras 3's): Python scalars are *weak* and adopt the dtype of the tensor they meet, so
``float16_tensor + 1.0`` stays float16 and ``int8_tensor + 1`` stays int8.

The lattice, as edges ``a -> b`` meaning "b can hold a"::

    bool -> weak_int -> uint8, int8
    uint8 -> uint16, int16;  uint16 -> uint32, int32;  uint32 -> uint64, int64
    int8 -> int16 -> int32 -> int64
    uint64, int64 -> weak_float
    weak_float -> bfloat16, float16, weak_complex
    bfloat16, float16 -> float32 -> float64 -> complex128
    float32 -> complex64;  weak_complex -> complex64 -> complex128

`result_type` is the least upper bound in that lattice; a remaining weak type resolves to
int32, `floatx()` or complex64.
"""

from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np

from lamina.backend.config import SETTINGS

BOOL = ("bool",)
UNSIGNED_INTS = ("uint8", "uint16", "uint32", "uint64")
SIGNED_INTS = ("int8", "int16", "int32", "int64")
INTS = UNSIGNED_INTS + SIGNED_INTS
FLOATS = ("bfloat16", "float16", "float32", "float64")
COMPLEXES = ("complex64", "complex128")
ALLOWED_DTYPES = BOOL + INTS + FLOATS + COMPLEXES + ("string",)

_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "weak_int", "weak_float", "weak_complex"

_EDGES: dict[str, tuple[str, ...]] = {
    "bool": (_WEAK_INT,),
    _WEAK_INT: ("uint8", "int8"),
    "uint8": ("uint16", "int16"),
    "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"),
    "uint64": (_WEAK_FLOAT,),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": (_WEAK_FLOAT,),
    _WEAK_FLOAT: ("bfloat16", "float16", _WEAK_COMPLEX),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    _WEAK_COMPLEX: ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}


def _upper_closure() -> dict[str, frozenset[str]]:
    closure: dict[str, frozenset[str]] = {}

    def visit(node: str) -> frozenset[str]:
        if node not in closure:
            above = {node}
            for parent in _EDGES[node]:
                above |= visit(parent)
            closure[node] = frozenset(above)
        return closure[node]

    for node in _EDGES:
        visit(node)
    return closure


_UPPER = _upper_closure()

_PYTHON_TYPES: dict[type, str] = {
    bool: "bool",
    int: "int32",
    float: "float32",
    complex: "complex64",
    str: "string",
}


def standardize_dtype(dtype: Any) -> str:
    """Return the canonical string name of `dtype`.

    Accepts strings (``"float32"``, ``"torch.float32"``), Python types (``float`` becomes
    `floatx()`), NumPy dtypes and any backend dtype object with a ``name``.

    Raises:
        ValueError: `dtype` names no dtype Lamina supports.
    """
    if dtype is None or dtype is float:
        return SETTINGS.floatx
    try:
        return _STANDARD[type(dtype)][dtype]
    except KeyError:
        pass
    except TypeError:  # unhashable dtype-like object: resolve without the cache
        return _standardize_uncached(dtype)
    name = _standardize_uncached(dtype)
    known = _STANDARD.setdefault(type(dtype), {})
    if len(known) < _STANDARD_LIMIT:
        known[dtype] = name
    return name


def _standardize_uncached(dtype: Any) -> str:
    if isinstance(dtype, str):
        name = dtype
    elif isinstance(dtype, type) and dtype in _PYTHON_TYPES:
        name = _PYTHON_TYPES[dtype]
    elif isinstance(dtype, np.dtype):
        name = dtype.name
    elif isinstance(dtype, type) and issubclass(dtype, np.generic):
        name = np.dtype(dtype).name
    else:
        # Backend dtype objects: tf.DType has `.name`; others print as "<module>.<name>"
        # (torch.float32, array_api_strict.float32).
        attr = getattr(dtype, "name", None)
        name = attr if isinstance(attr, str) else str(dtype)
    name = _ALIASES.get(name, name)
    if name not in ALLOWED_DTYPES and "." in name:
        name = name.rpartition(".")[2]
    name = _ALIASES.get(name, name)
    if name not in ALLOWED_DTYPES:
        raise ValueError(
            f"Argument `dtype` must be one of {ALLOWED_DTYPES}. Received: dtype={dtype!r}"
        )
    return name


# Every op standardizes its inputs' dtypes; the lookup is the hot path, so cache it.
# (float and None depend on floatx and are handled before the cache.) One table per type
# of dtype object, so dtype objects of different libraries that hash alike are never
# compared with each other (array_api_strict warns when compared with NumPy's).
_STANDARD: dict[type, dict[Any, str]] = {}
_STANDARD_LIMIT = 256


_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "int": "int32",
    "long": "int64",
    "bool_": "bool",
    "str": "string",
    "cfloat": "complex64",
    "cdouble": "complex128",
}


def is_float_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a floating-point dtype."""
    return standardize_dtype(dtype) in FLOATS


def is_int_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a signed or unsigned integer dtype."""
    return standardize_dtype(dtype) in INTS


def is_complex_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a complex dtype."""
    return standardize_dtype(dtype) in COMPLEXES


def _weak_name(value: Any) -> str | None:
    """The weak lattice node of a Python scalar, or None if `value` is not one."""
    kind = type(value)
    exact = _WEAK_BY_TYPE.get(kind)  # the hot path: exact scalars and known tensor types
    if exact is not None or kind in _NOT_WEAK:
        return exact
    for base, name in _WEAK_BY_TYPE.items():  # subclasses, e.g. np.float64 is a float
        if isinstance(value, base):
            return name
    _NOT_WEAK.add(kind)
    return None


_WEAK_BY_TYPE: dict[type, str] = {
    bool: "bool",  # before int: bool is an int subclass
    int: _WEAK_INT,
    float: _WEAK_FLOAT,
    complex: _WEAK_COMPLEX,
}
_NOT_WEAK: set[type] = set()
"""Types seen not to be Python scalars (tensor and array types), remembered per type."""


@functools.cache
def _join(names: tuple[str, ...], floatx: str) -> str:
    common = frozenset.intersection(*(_UPPER[n] for n in names))
    # The least upper bound is the unique element of `common` below all the others.
    least = [c for c in common if all(other in _UPPER[c] for other in common)]
    if len(least) != 1:
        raise ValueError(f"Cannot promote dtypes {names}: the lattice has no unique join.")
    result = least[0]
    return {_WEAK_INT: "int32", _WEAK_FLOAT: floatx, _WEAK_COMPLEX: "complex64"}.get(result, result)


def result_type(*dtypes: Any) -> str:
    """The dtype an op on inputs of `dtypes` produces, by the shared lattice.

    Each argument is a dtype, or a Python scalar (treated as a weak type). With no
    arguments the result is `floatx()`.

    Example:
        >>> result_type("int8", "float16")
        'float16'
        >>> result_type("int32", 1.0)
        'float32'
    """
    if not dtypes:
        return SETTINGS.floatx
    names = []
    for d in dtypes:
        weak = None if isinstance(d, type) else _weak_name(d)
        name = weak or standardize_dtype(d)
        if name == "string":
            if all(standardize_dtype(x) == "string" for x in dtypes if not _weak_name(x)):
                return "string"
            raise ValueError(f"Cannot promote a string dtype with others: {dtypes!r}")
        names.append(name)
    return _join(tuple(names), SETTINGS.floatx)


def dtype_of(x: Any) -> str:
    """The standardized dtype of a tensor, array, variable or Python scalar."""
    weak = _weak_name(x)
    if weak is not None:
        return {"bool": "bool", _WEAK_INT: "int32", _WEAK_FLOAT: SETTINGS.floatx}.get(
            weak, "complex64"
        )
    dtype = getattr(x, "dtype", None)
    if dtype is not None:
        return standardize_dtype(dtype)
    # Nested Python lists: Python floats become floatx and ints int32, as scalars do.
    name = np.asarray(x).dtype.name
    return {"float64": SETTINGS.floatx, "int64": "int32"}.get(name, standardize_dtype(name))


def promotion_key(x: Any) -> Any:
    """What `result_type` should see for `x`: the scalar itself if weak, else its dtype."""
    return x if _weak_name(x) is not None else dtype_of(x)


def to_numpy_dtype(dtype: Any) -> np.dtype[Any]:
    """The NumPy dtype for a standardized name (bfloat16 through ml-dtypes)."""
    name = standardize_dtype(dtype)
    if name == "bfloat16":
        bf16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bf16
    if name == "string":
        return np.dtype(object)
    return np.dtype(name)
