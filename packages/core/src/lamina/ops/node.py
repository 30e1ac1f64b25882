"""`Node`: one call of an operation on symbolic inputs, linking inputs to outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lamina import tree
from lamina.ops.symbolic import History, SymbolicTensor

if TYPE_CHECKING:
    from lamina.ops.operation import Operation


class Node:
    """Records that `operation` was called with `call_args`/`call_kwargs` and made `outputs`.

    Creating a node stamps each output tensor's `history`, and appends the node to the
    operation's `inbound_nodes`, so a `Function` can walk back from outputs to inputs.
    """

    def __init__(
        self,
        operation: Operation,
        call_args: tuple[Any, ...] = (),
        call_kwargs: dict[str, Any] | None = None,
        outputs: Any = None,
    ) -> None:
        self.operation = operation
        self.call_args = call_args
        self.call_kwargs = call_kwargs or {}
        self.outputs = outputs
        self.input_tensors: list[SymbolicTensor] = [
            t for t in tree.flatten((call_args, self.call_kwargs)) if isinstance(t, SymbolicTensor)
        ]
        self.output_tensors: list[SymbolicTensor] = [
            t for t in tree.flatten(outputs) if isinstance(t, SymbolicTensor)
        ]
        for index, tensor in enumerate(self.output_tensors):
            if tensor.record_history:
                tensor.history = History(operation, self, index)
        operation.inbound_nodes.append(self)

    @property
    def parent_nodes(self) -> list[Node]:
        """The nodes that produced this node's symbolic inputs (inputs have none)."""
        parents: list[Node] = []
        seen: set[int] = set()
        for t in self.input_tensors:
            if t.history is not None and id(t.history.node) not in seen:
                seen.add(id(t.history.node))
                parents.append(t.history.node)
        return parents

    @property
    def is_input(self) -> bool:
        """Whether this node has no symbolic inputs (an `Input`'s node)."""
        return not self.input_tensors

    def __repr__(self) -> str:
        return f"<Node operation={self.operation.name!r}>"
