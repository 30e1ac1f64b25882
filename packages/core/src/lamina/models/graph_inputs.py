"""Functional models that start at intermediate tensors (``Model(h, Dense(2)(h))``).

Keras 3 lets a model's inputs be any symbolic tensors of a graph, not only `Input`s: the
part of the graph before them is cut off and each such tensor is replaced by a fresh
`Input` of the same shape and dtype. The layers are shared with the original graph (no
copies, no new weights); only the nodes between the new inputs and the outputs are
recorded again, without calling any layer, so nothing is built or computed twice.
"""

from __future__ import annotations

from typing import Any

from lamina import tree
from lamina.layers.input_layer import Input, InputLayer
from lamina.ops.function import map_graph
from lamina.ops.node import Node
from lamina.ops.symbolic import SymbolicTensor


def is_model_input(tensor: Any) -> bool:
    """Whether `tensor` is the output of an `InputLayer` (what `lamina.Input` returns)."""
    history = tensor.history if isinstance(tensor, SymbolicTensor) else None
    return history is not None and isinstance(history.operation, InputLayer)


def start_graph_at(inputs: Any, outputs: Any) -> tuple[Any, Any]:
    """`inputs` and `outputs` re-rooted so that every input comes from an `InputLayer`.

    Returns the structures unchanged when they already do. Otherwise each input that is
    an intermediate tensor becomes a new `Input` (named after its dict key or its own
    name), and the graph from the inputs to the outputs is recorded again on the new
    tensors with the same layers and call arguments.

    Raises:
        ValueError: an input or output is not a symbolic tensor, or an output needs a
            tensor that is not computed from the inputs (the graph is disconnected).
    """
    flat_inputs = tree.flatten(inputs)
    flat_outputs = tree.flatten(outputs)
    for arg, leaves in (("inputs", flat_inputs), ("outputs", flat_outputs)):
        for leaf in leaves:
            if not isinstance(leaf, SymbolicTensor):
                raise ValueError(
                    f"Argument `{arg}` of a functional model must contain only symbolic "
                    f"tensors (from `lamina.Input` or layers called on one). Received: {leaf!r}"
                )
    if all(is_model_input(t) for t in flat_inputs):
        return inputs, outputs
    nodes, _, _ = map_graph(flat_inputs, flat_outputs)
    names = _input_names(inputs, flat_inputs)
    fresh: dict[int, SymbolicTensor] = {}
    for tensor, name in zip(flat_inputs, names):
        if is_model_input(tensor):
            fresh[id(tensor)] = tensor
        else:
            fresh[id(tensor)] = Input(
                batch_shape=tensor.shape, dtype=tensor.dtype, sparse=tensor.sparse, name=name
            )

    def resolve(x: Any) -> Any:
        return fresh.get(id(x), x) if isinstance(x, SymbolicTensor) else x

    for node in nodes:
        if node.is_input:
            continue
        copied = tree.map_structure(
            lambda x: _like(x) if isinstance(x, SymbolicTensor) else x, node.outputs
        )
        new_node = Node(
            node.operation,
            call_args=tree.map_structure(resolve, node.call_args),
            call_kwargs=tree.map_structure(resolve, node.call_kwargs),
            outputs=copied,
        )
        for old, new in zip(node.output_tensors, new_node.output_tensors):
            fresh[id(old)] = new
    new_inputs = tree.pack_sequence_as(inputs, [fresh[id(t)] for t in flat_inputs])
    new_outputs = tree.pack_sequence_as(outputs, [fresh[id(t)] for t in flat_outputs])
    return new_inputs, new_outputs


def _like(tensor: SymbolicTensor) -> SymbolicTensor:
    return SymbolicTensor(
        tensor.shape,
        dtype=tensor.dtype,
        sparse=tensor.sparse,
        ragged=tensor.ragged,
        record_history=tensor.record_history,
        name=tensor.name,
    )


def _input_names(inputs: Any, flat_inputs: list[SymbolicTensor]) -> list[str | None]:
    """A name for each new `Input`: its key when `inputs` is a flat dict (so the model
    takes the same dict), else the tensor's own name; None lets the layer pick one."""
    if isinstance(inputs, dict) and len(inputs) == len(flat_inputs):
        keys = tree.flatten({k: k for k in inputs})
        if all(isinstance(k, str) for k in keys):
            return list(keys)
    return [t.name for t in flat_inputs]
