"""`Model.summary()`: a table of layers, output shapes and parameter counts."""

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
        line_length: total width of the table (default 88, 100 with `show_trainable`).
        positions: column edges as fractions of `line_length` (or absolute widths).
        print_fn: called once per line instead of `print`.
        expand_nested: list the layers inside nested models, indented.
        show_trainable: add a column saying whether each layer is trainable.
        layer_range: ``[first_name, last_name]`` to show only part of the model.
    """
    emit = print_fn or print
    width = line_length or (100 if show_trainable else 88)
    headers = ["Layer (type)", "Output Shape", "Param #"]
    if show_trainable:
        headers.append("Trainable")
    fractions = positions or ([0.45, 0.75, 0.9, 1.0] if show_trainable else [0.45, 0.8, 1.0])
    edges = [int(p * width) if p <= 1 else int(p) for p in fractions]
    widths = [b - a for a, b in zip([0, *edges[:-1]], edges)]

    def row(cells: list[str]) -> str:
        return "".join(str(c)[: w - 1].ljust(w) for c, w in zip(cells, widths)).rstrip()

    layers = [layer for layer in model.layers]
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
        if show_trainable:
            cells.append("Y" if layer.trainable else "N")
        emit(row(cells))
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
