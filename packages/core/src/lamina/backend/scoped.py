"""Per-thread values that scopes set and restore, as `contextvars.ContextVar` does.

Lamina's scopes (stateless, symbolic, autocast, name, seed, distribution, layer call,
offered arrays) are read on every layer call. A compiler that traces Python bytecode must
follow those reads: `torch.compile` cannot trace ``ContextVar.get`` and breaks its graph
at each one (31 breaks in one step of a two-layer model, and a break inside a loop gives
up on the whole frame), while it traces attribute reads of a `threading.local`.
`ScopedVar` keeps the ContextVar interface (``get``, ``set`` returning a token,
``reset``) on a thread-local.

What changes against a ContextVar: asyncio tasks of one thread share one value. Lamina
runs no coroutines; each thread, the data pipeline's workers included, still starts at
the default.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class ScopedVarToken(Generic[T]):
    """What `ScopedVar.set` returns: the value to put back on `ScopedVar.reset`."""

    __slots__ = ("old", "var")

    def __init__(self, var: ScopedVar[T], old: T) -> None:
        self.var = var
        self.old = old


class ScopedVar(Generic[T]):
    """A value per thread, `default` until set: ``token = v.set(x)`` ... ``v.reset(token)``."""

    def __init__(self, name: str, *, default: T) -> None:
        self.name = name
        # The default is a class attribute of its own thread-local type: each thread reads
        # it until it sets its own, and `get` is one attribute read.
        local_type = type(f"_{name}", (threading.local,), {"value": default})
        self._local = local_type()

    def get(self) -> T:
        return self._local.value  # type: ignore[no-any-return]

    def set(self, value: T) -> ScopedVarToken[T]:
        token = ScopedVarToken(self, self._local.value)
        self._local.value = value
        return token

    def reset(self, token: ScopedVarToken[T]) -> None:
        if token.var is not self:
            raise ValueError(
                f"reset() of ScopedVar {self.name!r} got a token of {token.var.name!r}; "
                "expected one its own set() returned."
            )
        self._local.value = token.old

    def __repr__(self) -> str:
        return f"ScopedVar({self.name!r}, value={self.get()!r})"
