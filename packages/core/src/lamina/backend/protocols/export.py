"""SavedModel export: an optional namespace for backends whose models `lamina.export` writes.

`lamina.export.ExportArchive` writes TensorFlow SavedModels. How an endpoint becomes a
TensorFlow function depends on the backend, and only the backend knows it:

* natively traced: the backend's layers run inside `tf.function` as they are (their
  variables are `tf.Variable`s, reachable as ``variable.tf_variable``), and other
  TensorFlow trackables may be tracked beside them;
* converted: an endpoint is a pure function of the variables' values, which `convert`
  turns into a TensorFlow-callable function (the archive keeps the values in its own
  `tf.Variable`s and feeds them in).

A backend without this namespace (``export=None``) cannot export; the archive says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class ExportOps(Protocol):
    def traces_natively(self) -> bool:
        """True where `tf.function` traces this backend's layers directly; False where each
        endpoint goes through `convert`."""
        ...

    def convert(
        self,
        pure_fn: Callable[..., Any],
        n_state_args: int,
        signature: list[Any],
        options: dict[str, Any] | None,
    ) -> Callable[..., Any]:
        """`pure_fn(*state_args, *inputs)` as a function of TensorFlow tensors.

        Args:
            pure_fn: a function of `n_state_args` lists of variable values, then the
                endpoint's inputs.
            n_state_args: how many leading arguments carry variable values.
            signature: one structure of specs (objects with ``shape`` and ``dtype``) per
                positional input; a None dim is free.
            options: the backend's own conversion options (``jax2tf_kwargs`` on jax), or
                None.

        The returned function raises ValueError, naming what to change, when TensorFlow
        traces it for inputs it cannot handle (a free dim where a size must be known).
        A natively tracing backend is never asked to convert and may raise TypeError.
        """
        ...
