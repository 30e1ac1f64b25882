"""`plot_model` and `model_to_dot`: a model's graph drawn with pydot and Graphviz.

Both are optional: pydot (pure Python) builds the graph, Graphviz's ``dot`` program renders
it to an image. Writing ``.dot`` source needs pydot only. Each missing piece is a clear
`ImportError` naming it and the command that installs it.
"""

from __future__ import annotations

import html
import itertools
import os
import shutil
from typing import Any

from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer
from lamina.ops.operation import Operation

_PYDOT_MISSING = (
    "`{fn}` requires pydot to build the graph (`pip install pydot`) and Graphviz to "
    "render it (`apt-get install graphviz`, `brew install graphviz` or "
    "`conda install graphviz`; see https://graphviz.org/download/)."
)
_GRAPHVIZ_MISSING = (
    "`plot_model` needs Graphviz's `dot` program to render {fmt!r} images, and it was not "
    "found on PATH. Install Graphviz (`apt-get install graphviz`, `brew install graphviz` "
    "or `conda install graphviz`; see https://graphviz.org/download/), or write the graph "
    "source with `to_file='model.dot'`, which needs only pydot."
)
# Formats pydot writes without running Graphviz: the graph's own source.
_SOURCE_FORMATS = ("dot", "gv", "raw")


def _pydot(fn: str) -> Any:
    try:
        import pydot
    except ImportError as error:
        raise ImportError(_PYDOT_MISSING.format(fn=fn)) from error
    return pydot


def _graphviz_available() -> bool:
    return shutil.which("dot") is not None


def _check_kwargs(fn: str, kwargs: dict[str, Any]) -> None:
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError(f"`{fn}`: argument `layer_range` is not supported (as in Keras 3).")
    if kwargs:
        raise ValueError(f"`{fn}`: unrecognized keyword arguments: {sorted(kwargs)}")


def _shape_text(tensors: list[Any]) -> str:
    shapes = [tuple(t.shape) for t in tensors]
    if not shapes:
        return "?"
    return str(shapes[0]) if len(shapes) == 1 else ", ".join(str(s) for s in shapes)


def _first_call(op: Operation, nodes: set[int] | None) -> Any:
    """The op's first call in this graph (any call when the graph is not known)."""
    for node in op.inbound_nodes:
        if nodes is None or id(node) in nodes or isinstance(op, InputLayer):
            return node
    return None


def _label(
    op: Operation,
    nodes: set[int] | None,
    show_shapes: bool,
    show_dtype: bool,
    show_layer_names: bool,
    show_layer_activations: bool,
    show_trainable: bool,
) -> str:
    """An HTML-like Graphviz label: class (and name), then one row per detail asked for."""
    title = f'<font point-size="14"><b>{html.escape(type(op).__name__)}</b></font>'
    if show_layer_names:
        title += f" ({html.escape(op.name)})"
    rows = [title]
    # Only some layers have an activation (Dense, Conv...): shown when they do.
    activation = getattr(op, "activation", None) if show_layer_activations else None
    if activation is not None:
        name = getattr(activation, "__name__", type(activation).__name__)
        rows.append(f"Activation: {html.escape(name)}")
    call = _first_call(op, nodes)
    if show_dtype:
        if isinstance(op, Layer):
            dtype = op.dtype_policy.name
        else:
            dtype = ", ".join(str(t.dtype) for t in call.output_tensors) if call else "?"
        rows.append(f"dtype: {html.escape(dtype)}")
    if show_trainable and isinstance(op, Layer) and op.weights:
        rows.append("Trainable" if op.trainable else "Non-trainable")
    if show_shapes and call is not None:
        inputs = call.input_tensors or call.output_tensors
        rows.append(
            f"Input shape: {html.escape(_shape_text(inputs))}<br/>"
            f"Output shape: {html.escape(_shape_text(call.output_tensors))}"
        )
    cells = "".join(f"<tr><td>{row}</td></tr>" for row in rows)
    return f'<<table border="0" cellborder="1" cellspacing="0" cellpadding="6">{cells}</table>>'


def _graph_ops(model: Any) -> tuple[list[Operation], list[tuple[Operation, Operation]], Any]:
    """The ops to draw, the edges between them, and the graph's node ids (None: unknown).

    A Sequential model is its layers in order; a functional model is its inputs' layers
    then its operations, linked through the recorded nodes; any other model is one box.
    """
    from lamina.models.functional import Functional
    from lamina.models.sequential import Sequential

    if isinstance(model, Functional):
        node_ids = {id(node) for node in model.nodes}
        sources = [t.history.operation for t in model.inputs if t.history is not None]
        ops: list[Operation] = []
        for op in [*sources, *model.operations]:
            if all(op is not seen for seen in ops):
                ops.append(op)
        edges: list[tuple[Operation, Operation]] = []
        for node in model.nodes:
            for tensor in node.input_tensors:
                if tensor.history is not None:
                    edge = (tensor.history.operation, node.operation)
                    if edge not in edges:
                        edges.append(edge)
        return ops, edges, node_ids
    if isinstance(model, Sequential):
        layers = list(model.layers)
        return list(layers), list(itertools.pairwise(layers)), None
    return [model], [], None


def model_to_dot(
    model: Any,
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = True,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    subgraph: bool = False,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    splines: str = "ortho",
    **kwargs: Any,
) -> Any:
    """The model's graph as a `pydot.Dot` (or a `pydot.Cluster` when `subgraph`).

    Args:
        model: a built model (Sequential, functional, or subclassed: one box).
        show_shapes: add each layer's input and output shapes.
        show_dtype: add each layer's dtype policy (an op's output dtype).
        show_layer_names: add each layer's name after its class.
        rankdir: Graphviz's direction: ``"TB"`` (vertical) or ``"LR"`` (horizontal).
        expand_nested: draw nested Sequential and functional models as clusters.
        dpi: the resolution of rendered images.
        subgraph: return a `pydot.Cluster` (used to nest models).
        show_layer_activations: add the activation of layers that have one.
        show_trainable: say whether each layer with weights is trainable.
        splines: how Graphviz draws edges (``"ortho"``, ``"curved"``, ``"polyline"``...).

    Returns:
        A `pydot.Dot`, or a `pydot.Cluster` when `subgraph` is True.

    Raises:
        ImportError: pydot is not installed (the message says how to install it).
        ValueError: the model is not built, or an argument is unknown.

    Example:
        >>> model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(2)])
        >>> dot = lamina.utils.model_to_dot(model, show_shapes=True)
        >>> print(dot.to_string())
    """
    _check_kwargs("model_to_dot", kwargs)
    pydot = _pydot("model_to_dot")
    if not model.built:
        raise ValueError(
            f"`model_to_dot`: model {model.name!r} is not built yet, so its graph is "
            "unknown. Call it on data or call `build(input_shape)` first."
        )
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"Argument `rankdir` must be 'TB' or 'LR'. Received: rankdir={rankdir!r}")
    if subgraph:
        dot = pydot.Cluster(graph_name=model.name, style="dashed", label=model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot(graph_type="digraph")
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="plaintext")
    from lamina.models.functional import Functional
    from lamina.models.sequential import Sequential

    ops, edges, node_ids = _graph_ops(model)
    details = (show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable)
    # A nested model drawn as a cluster: edges enter at its first box, leave from its last.
    entry: dict[int, str] = {}
    exit_: dict[int, str] = {}
    for op in ops:
        if expand_nested and op is not model and isinstance(op, (Functional, Sequential)):
            cluster = model_to_dot(
                op,
                show_shapes=show_shapes,
                show_dtype=show_dtype,
                show_layer_names=show_layer_names,
                rankdir=rankdir,
                expand_nested=True,
                subgraph=True,
                show_layer_activations=show_layer_activations,
                show_trainable=show_trainable,
            )
            names = [n.get_name() for n in _all_nodes(cluster)]
            entry[id(op)], exit_[id(op)] = names[0], names[-1]
            dot.add_subgraph(cluster)
            continue
        dot.add_node(pydot.Node(str(id(op)), label=_label(op, node_ids, *details)))
    for source, destination in edges:
        tail = exit_.get(id(source), str(id(source)))
        head = entry.get(id(destination), str(id(destination)))
        dot.add_edge(pydot.Edge(tail, head))
    return dot


def _all_nodes(graph: Any) -> list[Any]:
    """A graph's nodes, those of its clusters included, in the order they were added."""
    out = list(graph.get_nodes())
    for sub in graph.get_subgraphs():
        out += _all_nodes(sub)
    return out


def plot_model(
    model: Any,
    to_file: Any = "model.png",
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = False,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    **kwargs: Any,
) -> Any:
    """Draw the model's graph into `to_file`; the format comes from its extension.

    ``.dot`` (or ``.gv``) writes the Graphviz source and needs only pydot; any other
    format (``.png``, ``.svg``, ``.pdf``...) is rendered by Graphviz's ``dot`` program.

    Args:
        model: a built model.
        to_file: where to write the image (no extension: PNG).
        show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi,
        show_layer_activations, show_trainable: as in `model_to_dot`.
        **kwargs: `splines`, passed to `model_to_dot`.

    Returns:
        An ``IPython.display.Image`` of the file when IPython is installed and the format
        is an image, else None.

    Raises:
        ImportError: pydot, or Graphviz for a rendered format, is missing.

    Example:
        >>> model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(2)])
        >>> lamina.utils.plot_model(model, to_file="model.dot", show_shapes=True)
        >>> # to_file="model.png" renders the same graph with Graphviz
    """
    splines = kwargs.pop("splines", "ortho")
    _check_kwargs("plot_model", kwargs)
    _pydot("plot_model")
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:].lower() or "png"
    if extension not in _SOURCE_FORMATS and not _graphviz_available():
        raise ImportError(_GRAPHVIZ_MISSING.format(fmt=extension))
    dot = model_to_dot(
        model,
        show_shapes=show_shapes,
        show_dtype=show_dtype,
        show_layer_names=show_layer_names,
        rankdir=rankdir,
        expand_nested=expand_nested,
        dpi=dpi,
        show_layer_activations=show_layer_activations,
        show_trainable=show_trainable,
        splines=splines,
    )
    if extension in _SOURCE_FORMATS:
        with open(to_file, "w", encoding="utf-8") as f:
            f.write(dot.to_string())
        return None
    dot.write(to_file, format=extension)
    if extension in ("png", "jpg", "jpeg", "gif"):
        try:
            from IPython import display
        except ImportError:
            return None
        return display.Image(filename=to_file)
    return None
