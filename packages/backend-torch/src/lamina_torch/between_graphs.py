"""Functions that torch.compile calls rather than traces, marked only once needed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


class BetweenGraphs:
    """`fn`, called as it is eagerly, and left out of torch.compile's graphs when traced.

    Marking (`torch.compiler.disable`) imports torch._dynamo, 1.5 s that a process which
    never compiles does not need, so it happens on first need: `mark()` before a step is
    compiled, else during the first trace, at the cost of one more graph break there.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        self._marked: Callable[..., Any] | None = None

    def mark(self) -> Callable[..., Any]:
        """`fn` marked for torch.compile to call rather than trace."""
        if self._marked is None:
            self._marked = torch.compiler.disable(self._fn)
        return self._marked

    def __call__(self, *args: Any) -> Any:
        if torch.compiler.is_compiling():
            return self.mark()(*args)
        return self._fn(*args)
