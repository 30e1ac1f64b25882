"""A memo of eager checks: an op called again on inputs of the same kind skips them.

An eager op checks its inputs' shapes and dtypes and works out the dtype it computes in on
every call, which costs more than the backend kernel on small tensors. The outcome depends
only on each input's type, dtype and shape, on `floatx` (which decides what Python scalars
become) and on the op's constructor arguments (`Op.memo_params`), so it is computed once
per such signature and reused. A check that raises leaves nothing behind, so bad input is
reported every time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from lamina.backend.config import SETTINGS

T = TypeVar("T")

_SCALARS = frozenset({bool, int, float, complex})
_LIMIT = 4096
_MEMO: dict[Any, Any] = {}
_UNMEMOIZED = 0
"""How many `unmemoized` blocks are open, in any thread: skipping the memo only costs time."""


@contextlib.contextmanager
def unmemoized() -> Iterator[None]:
    """Inside, ops check their inputs on every call and leave the memo alone.

    For code a compiler traces through Python (torch.compile): it would guard on the
    memo's contents, and compile the traced code again each time the memo grows.
    """
    global _UNMEMOIZED
    _UNMEMOIZED += 1
    try:
        yield
    finally:
        _UNMEMOIZED -= 1


def _signature(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Type, dtype and shape of each input (the type alone for a Python scalar or None);
    None when an input has no dtype (nested lists, strings)."""
    out: list[Any] = [SETTINGS.floatx]
    for x in args:
        kind = type(x)
        if kind in _SCALARS or x is None:  # an optional input left out
            out.append(kind)
            continue
        dtype = getattr(x, "dtype", None)
        shape = getattr(x, "shape", None)
        if dtype is None or shape is None:
            return None
        out.append((kind, dtype, shape))
    return tuple(out)


def memo(op: Any, args: tuple[Any, ...], check: Callable[[], T]) -> T:
    """`check()`'s result for `op` on `args`, computed once per input signature.

    Constructor arguments (axes, modes) can change what the check concludes, so they are
    part of the key (`op.memo_params()`); an op whose arguments are not given there is
    checked on every call.
    """
    if _UNMEMOIZED:
        return check()
    params = op.memo_params()
    if params is None:
        return check()
    signature = _signature(args)
    if signature is None:
        return check()
    key = (type(op), params, signature)
    try:
        found: T = _MEMO[key]
        return found
    except KeyError:
        pass
    except TypeError:  # an unhashable shape or dtype object
        return check()
    result = check()
    if len(_MEMO) >= _LIMIT:
        _MEMO.clear()
    _MEMO[key] = result
    return result
