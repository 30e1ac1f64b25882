"""`Model.summary()`: a table of layers, output shapes and parameter counts.

A functional model whose graph branches (several inputs, a layer fed by several tensors,
a layer called more than once) gets a fourth column, "Connected to", as in Keras 3: each
tensor a layer received, written ``layer_name[node_index][tensor_index]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import tree
from lamina.layers.layer import Layer


def _count(variables: list[Any]) -> int:
    return int(sum(int(np.prod(v.shape)) for v in variables))


def _output_shape(layer: Layer) -> str:
    if not layer.inbound_nodes:
        return "?"
    shapes = tree.map_structure(
        lambda t: t.shape if hasattr(t, "shape") else "?", layer.inbound_nodes[-1].outputs
    )
    return str(shapes)


def _format_size(count: int, variables: list[Any]) -> str:
    size = sum(int(np.prod(v.shape)) * np.dtype(_np_dtype(v.dtype)).itemsize for v in variables)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            text = f"{size:.2f} {unit}" if unit != "B" else f"{size} B"
            return f"{count:,} ({text})"
        size /= 1024  # type: ignore[assignment]
    return f"{count:,}"


def _np_dtype(dtype: str) -> str:
    return "float16" if dtype == "bfloat16" else dtype


def graph_nodes(model: Any) -> list[Any] | None:
    """The nodes of a functional model's graph, or None for other models."""
    from lamina.models.functional import Functional

    return list(model.nodes) if isinstance(model, Functional) else None


def is_branching(model: Any) -> bool:
    """Whether a functional model's graph is more than a chain of single-input layers.

    Such a graph needs the "Connected to" column to be readable: a depth with several
    nodes, a node fed by several tensors, several model inputs, or a layer called twice.
    """
    nodes = graph_nodes(model)
    if nodes is None:
        return False
    if len(model.inputs) > 1:
        return True
    if any(len(level) > 1 for level in model.nodes_by_depth.values()):
        return True
    if any(len(node.input_tensors) > 1 for node in nodes):
        return True
    operations = [node.operation for node in nodes]
    return len({id(op) for op in operations}) != len(operations)


def connections(layer: Any, nodes: list[Any]) -> list[str]:
    """``name[node_index][tensor_index]`` for each tensor `layer` received in `nodes`."""
    out: list[str] = []
    wanted = {id(node) for node in nodes}
    for node in layer.inbound_nodes:
        if id(node) not in wanted:
            continue  # a call of this layer that belongs to another model
        for tensor in node.input_tensors:
            history = tensor.history
            if history is None:
                continue
            source = history.operation
            node_index = source.inbound_nodes.index(history.node)
            out.append(f"{source.name}[{node_index}][{history.tensor_index}]")
    return out


def _pack(items: list[str], width: int) -> list[str]:
    """Join `items` with ", " into lines no wider than `width` (one item may overflow)."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += f", {item}"
        else:
            if lines:
                lines[-1] += ","
            lines.append(item)
    return lines or ["-"]


def _table_layers(model: Any, branching: bool) -> list[Layer]:
    layers: list[Layer] = list(model.layers)
    if branching:
        # Connections name the inputs, so their `InputLayer`s get rows of their own.
        sources = [t.history.operation for t in model.inputs if t.history is not None]
        layers = [op for op in sources if all(op is not la for la in layers)] + layers
    return layers


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: list[float] | None = None,
    print_fn: Callable[..., Any] | None = None,
    expand_nested: bool = False,
    show_trainable: bool = False,
    layer_range: Any = None,
) -> None:
    """Print (or pass each line to `print_fn`) the model's table.

    Args:
        model: the model to describe.
        line_length: total width of the table (default 88, or 108 with the "Connected
            to" column; 12 more with `show_trainable`).
        positions: column edges as fractions of `line_length` (or absolute widths).
        print_fn: called once per line instead of `print`.
        expand_nested: list the layers inside nested models, indented.
        show_trainable: add a column saying whether each layer is trainable.
        layer_range: ``[first_name, last_name]`` to show only part of the model.
    """
    emit = print_fn or print
    branching = is_branching(model)
    headers = ["Layer (type)", "Output Shape", "Param #"]
    if branching:
        headers.append("Connected to")
        width = line_length or (120 if show_trainable else 108)
        default = [0.27, 0.5, 0.62, 0.9, 1.0] if show_trainable else [0.3, 0.56, 0.68, 1.0]
    else:
        width = line_length or (100 if show_trainable else 88)
        default = [0.45, 0.75, 0.9, 1.0] if show_trainable else [0.45, 0.8, 1.0]
    if show_trainable:
        headers.append("Trainable")
    fractions = positions or default
    edges = [int(p * width) if p <= 1 else int(p) for p in fractions]
    widths = [b - a for a, b in zip([0, *edges[:-1]], edges)]

    def row(cells: list[str]) -> str:
        return "".join(str(c)[: w - 1].ljust(w) for c, w in zip(cells, widths)).rstrip()

    nodes = graph_nodes(model) or []
    layers = _table_layers(model, branching)
    if layer_range is not None:
        names = [layer.name for layer in layers]
        first, last = layer_range
        if first not in names or last not in names:
            raise ValueError(
                f"Argument `layer_range` must name two layers of the model. Received: "
                f"{layer_range!r}; layers are {names}"
            )
        layers = layers[names.index(first) : names.index(last) + 1]

    emit(f'Model: "{model.name}"')
    emit("━" * width)
    emit(row(headers))
    emit("━" * width)

    def describe(layer: Layer, indent: str) -> None:
        cells = [
            f"{indent}{layer.name} ({type(layer).__name__})",
            _output_shape(layer),
            f"{_count(layer.weights):,}" if layer.built else "0 (unbuilt)",
        ]
        extra: list[str] = []
        if branching:
            links = _pack(connections(layer, nodes), widths[3] - 1) if not indent else ["-"]
            cells.append(links[0])
            extra = links[1:]
        if show_trainable:
            cells.append("Y" if layer.trainable else "N")
        emit(row(cells))
        for line in extra:  # the rest of a long "Connected to" cell, under its column
            emit(row(["", "", "", line]))
        if expand_nested and layer._layers:
            from lamina.models.model import Model

            for child in layer.layers if isinstance(layer, Model) else layer._layers:
                describe(child, indent + "  ")

    for layer in layers:
        describe(layer, "")
    emit("─" * width)
    weights = model.weights
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    emit(f" Total params: {_format_size(_count(weights), weights)}")
    emit(f" Trainable params: {_format_size(_count(trainable), trainable)}")
    emit(f" Non-trainable params: {_format_size(_count(non_trainable), non_trainable)}")
    optimizer = model.optimizer
    if optimizer is not None and optimizer.built:
        opt_vars = list(optimizer.variables)
        emit(f" Optimizer params: {_format_size(_count(opt_vars), opt_vars)}")
