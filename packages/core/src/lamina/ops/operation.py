"""`Operation`: the unit of computation, with an eager and a symbolic path."""

from __future__ import annotations

import re
from typing import Any

from lamina.backend.config import unique_name
from lamina.ops.node import Node
from lamina.ops.symbolic import any_symbolic


def _snake_case(name: str) -> str:
    """``"Conv2DTranspose"`` -> ``"conv2d_transpose"``, as Keras names layers."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class Operation:
    """Something that maps tensors to tensors.

    Calling it on concrete tensors runs `call` (eager, on the active backend). Calling it on
    any `SymbolicTensor` runs `compute_output_spec` (shape and dtype rules, no backend) and
    records a `Node`, which is how functional models are built.

    Subclasses implement `call` and `compute_output_spec`.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise ValueError(
                f"Argument `name` must be a string. Received: name={name!r} "
                f"(of type {type(name).__name__})"
            )
        self._name = name
        self.inbound_nodes: list[Node] = []

    @property
    def name(self) -> str:
        """A unique name, made from the class name on first use."""
        if self._name is None:
            self._name = unique_name(_snake_case(type(self).__name__))
        return self._name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any_symbolic(*args, *kwargs.values()):
            return self.symbolic_call(*args, **kwargs)
        return self.call(*args, **kwargs)

    def symbolic_call(self, *args: Any, **kwargs: Any) -> Any:
        """Compute the output spec and record the call as a `Node`."""
        outputs = self.compute_output_spec(*args, **kwargs)
        Node(self, call_args=args, call_kwargs=kwargs, outputs=outputs)
        return outputs

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The eager computation. Subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} must implement `call`.")

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """Shapes and dtypes of the outputs, as `SymbolicTensor`s. Subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} must implement `compute_output_spec`.")

    def get_config(self) -> dict[str, Any]:
        """The arguments that recreate this operation."""
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Operation:
        """Recreate an operation from `get_config`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"
