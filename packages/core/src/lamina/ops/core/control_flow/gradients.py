"""Controlling gradients: stop_gradient and custom_gradient."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from lamina.ops.base import Op
from lamina.ops.core.control_flow._flat import check_callable, spec
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.symbolic import SymbolicTensor, any_symbolic

__all__ = ["custom_gradient", "stop_gradient"]


def _check_value(variable: Any) -> None:
    if variable is None or isinstance(variable, (str, bytes)):
        raise TypeError(
            "`stop_gradient`: argument `variable` must be a tensor, variable or number. "
            f"Received: variable={variable!r} (of type {type(variable).__name__})"
        )


class StopGradient(Op):
    def compute_output_spec(self, variable: Any) -> SymbolicTensor:
        return spec(variable)

    def call(self, variable: Any) -> Any:
        _check_value(variable)
        return backend().control_flow.stop_gradient(to_tensor(variable))


def stop_gradient(variable: Any) -> Any:
    """Return `variable` as a tensor through which no gradient flows back.

    Example:
        >>> x = np.ones(3, "float32")
        >>> y = lamina.ops.stop_gradient(x)  # same value; d(y)/d(x) is zero
    """
    return StopGradient()(variable)


def _split_output(result: Any) -> tuple[Any, Any]:
    if not isinstance(result, (tuple, list)) or len(result) != 2 or not callable(result[1]):
        raise ValueError(
            "`custom_gradient`: the decorated function must return `(outputs, grad_fn)` "
            f"with a callable `grad_fn`. Received: {result!r}"
        )
    return result[0], result[1]


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate `f` so that its gradient is computed by the function it returns.

    `f(*args)` must return ``(outputs, grad_fn)``; ``grad_fn(upstream)`` receives the
    gradient of the loss with respect to `outputs` and returns the gradient with respect
    to each positional argument of `f` (a tensor, or a tuple with one per argument).
    On the NumPy backend (no gradients) the wrapped function just returns `outputs`.

    Example:
        >>> @lamina.ops.custom_gradient
        ... def clip_grad(x):
        ...     return x, lambda upstream: lamina.ops.clip(upstream, -1.0, 1.0)
    """
    check_callable("custom_gradient", "f", f)

    def checked(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return _split_output(f(*args, **kwargs))

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if any_symbolic(*args, *kwargs.values()):
            return checked(*args, **kwargs)[0]
        return backend().control_flow.custom_gradient(checked)(*args, **kwargs)

    return wrapped
