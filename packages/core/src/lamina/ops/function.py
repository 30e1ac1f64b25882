"""`Function`: a graph of operations between symbolic inputs and outputs, re-runnable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina import tree
from lamina.ops.node import Node
from lamina.ops.operation import Operation
from lamina.ops.symbolic import SymbolicTensor


class GraphError(ValueError):
    """The graph between the inputs and outputs of a `Function` is not usable."""


class Function(Operation):
    """Maps the graph from `inputs` to `outputs` and runs it again on new values.

    `inputs` and `outputs` may be any nested structure of `SymbolicTensor`s. Calling the
    function with concrete tensors computes the outputs eagerly; calling it with symbolic
    tensors records a new graph (so functions nest).

    Example:
        >>> x = lamina.Input((3,))
        >>> f = Function(x, lamina.ops.relu(x) * 2.0)
        >>> f(np.array([[-1.0, 0.5, 2.0]]))  # [[0., 1., 4.]]
    """

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self._inputs_struct = tree.map_structure(lambda t: t, inputs)
        self._outputs_struct = tree.map_structure(lambda t: t, outputs)
        self.inputs: list[SymbolicTensor] = _symbolic_leaves(inputs, "inputs")
        self.outputs: list[SymbolicTensor] = _symbolic_leaves(outputs, "outputs")
        self.nodes, self.nodes_by_depth, self.operations = map_graph(self.inputs, self.outputs)

    def call(self, inputs: Any) -> Any:
        return self._run(inputs, lambda op, args, kwargs: op(*args, **kwargs))

    def compute_output_spec(self, inputs: Any) -> Any:
        return self._run(inputs, lambda op, args, kwargs: op.compute_output_spec(*args, **kwargs))

    def _run(self, inputs: Any, fn: Any) -> Any:
        flat = tree.flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(
                f"Function {self.name!r} expects {len(self.inputs)} input tensor(s) "
                f"structured like {self._inputs_struct}. Received {len(flat)}: {inputs!r}"
            )
        values: dict[int, Any] = {id(t): v for t, v in zip(self.inputs, flat)}
        for node in self.nodes:
            if node.is_input:
                continue
            args, kwargs = tree.map_structure(
                lambda x: values[id(x)] if isinstance(x, SymbolicTensor) else x,
                (node.call_args, node.call_kwargs),
            )
            produced = tree.flatten(fn(node.operation, args, kwargs))
            for tensor, value in zip(node.output_tensors, produced):
                values[id(tensor)] = value
        return tree.pack_sequence_as(self._outputs_struct, [values[id(t)] for t in self.outputs])


def _symbolic_leaves(structure: Any, arg: str) -> list[SymbolicTensor]:
    leaves = tree.flatten(structure)
    for leaf in leaves:
        if not isinstance(leaf, SymbolicTensor):
            raise ValueError(
                f"Argument `{arg}` of a Function must contain only symbolic tensors "
                f"(from `lamina.Input` or ops on them). Received: {leaf!r}"
            )
    return leaves


def map_graph(
    inputs: list[SymbolicTensor], outputs: list[SymbolicTensor]
) -> tuple[list[Node], dict[int, list[Node]], list[Operation]]:
    """Order the nodes between `inputs` and `outputs`.

    Returns the nodes in an order where each comes after the ones it depends on, the
    nodes grouped by depth (0 = feeding the outputs), and the operations in that order.

    Raises:
        GraphError: an output depends on a tensor that is not an input (disconnected),
            or the graph has a cycle.
    """
    input_ids = {id(t) for t in inputs}
    if len(input_ids) != len(inputs):
        raise GraphError("The same tensor appears twice in `inputs`.")

    def producer(tensor: SymbolicTensor, consumer: str) -> Node | None:
        """The node that makes `tensor` (None for an input of the graph)."""
        if id(tensor) in input_ids:
            return None
        history = tensor.history
        if history is None or history.node.is_input:
            raise GraphError(
                f"Graph disconnected: cannot obtain a value for {tensor!r}, needed by "
                f"{consumer}. It is not among the inputs {inputs!r}; pass the tensor it "
                "comes from as an input."
            )
        return history.node

    # Depth-first from each output with an explicit stack (no recursion, so a graph of
    # any length maps); a node is appended once all the nodes it depends on are.
    order: list[Node] = []
    done: set[int] = set()
    visiting: set[int] = set()
    for out in outputs:
        root = producer(out, "the outputs")
        if root is None or id(root) in done:
            continue
        visiting.add(id(root))
        stack: list[tuple[Node, Iterator[SymbolicTensor]]] = [(root, iter(root.input_tensors))]
        while stack:
            node, pending = stack[-1]
            for tensor in pending:
                parent = producer(tensor, f"operation {node.operation.name!r}")
                if parent is None or id(parent) in done:
                    continue
                if id(parent) in visiting:
                    raise GraphError(
                        f"The graph has a cycle through operation {parent.operation.name!r}."
                    )
                visiting.add(id(parent))
                stack.append((parent, iter(parent.input_tensors)))
                break
            else:
                stack.pop()
                visiting.discard(id(node))
                done.add(id(node))
                order.append(node)

    depth: dict[int, int] = {}
    for node in reversed(order):
        d = depth.setdefault(id(node), 0)
        for parent in node.parent_nodes:
            depth[id(parent)] = max(depth.get(id(parent), 0), d + 1)
    by_depth: dict[int, list[Node]] = {}
    for node in order:
        by_depth.setdefault(depth[id(node)], []).append(node)
    operations: list[Operation] = []
    seen_operations: set[int] = set()
    for node in order:
        if id(node.operation) not in seen_operations:
            seen_operations.add(id(node.operation))
            operations.append(node.operation)
    return order, by_depth, operations

