"""`clone_model`: the same architecture with new weights (or a layer replaced per call).

Cloning goes through configs, so it decides as loading does: in safe mode a `Lambda`'s
bytecode is refused. The named functions the model's own Lambdas hold are the caller's
objects already, so the clone may use them (and only they resolve to them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer
from lamina.models.model import Model


def _clone_layer(layer: Layer) -> Layer:
    return type(layer).from_config(layer.get_config())


def clone_model(
    model: Model,
    input_tensors: Any = None,
    clone_function: Callable[[Layer], Layer] | None = None,
    call_function: Callable[..., Any] | None = None,
    recursive: bool = False,
    **kwargs: Any,
) -> Model:
    """A new model with `model`'s architecture and freshly initialized weights.

    Args:
        model: a functional, Sequential or subclassed model (subclassed: via its config).
        input_tensors: new `Input` tensors for a functional or Sequential clone.
        clone_function: maps each layer to its replacement (default: a copy from config).
        call_function: ``(layer, *args, **kwargs) -> outputs`` to change how each layer of a
            functional model is called.
        recursive: clone nested models layer by layer too.

    Raises:
        ValueError: `model` is not a model, or (in safe mode) a `Lambda` in it holds a
            lambda or nested function, whose config is bytecode.
    """
    if not isinstance(model, Model):
        raise ValueError(
            f"Argument `model` must be a lamina Model. Received: {model!r} "
            f"(of type {type(model).__name__})"
        )
    from lamina.saving.serialization import held_functions

    with held_functions(_lambda_functions(model)):
        return _clone(model, input_tensors, clone_function, call_function, recursive)


def _lambda_functions(model: Model) -> dict[str, Any]:
    """The named functions the model's `Lambda` layers hold, by the name configs give them
    (a name two different functions share is left out: it would be ambiguous)."""
    from lamina.layers.core.lambda_layer import Lambda
    from lamina.saving.serialization import get_registered_name

    found: dict[str, Any] = {}
    ambiguous: set[str] = set()
    for layer in model._flatten_layers():
        if not isinstance(layer, Lambda):
            continue
        held = [layer.function, layer.mask, layer._output_shape, *layer.arguments.values()]
        for fn in held:
            if not callable(fn) or not hasattr(fn, "__name__"):
                continue
            name = get_registered_name(fn)
            if found.setdefault(name, fn) is not fn:
                ambiguous.add(name)
    return {name: fn for name, fn in found.items() if name not in ambiguous}


def _clone(
    model: Model,
    input_tensors: Any,
    clone_function: Callable[[Layer], Layer] | None,
    call_function: Callable[..., Any] | None,
    recursive: bool,
) -> Model:
    from lamina.models.functional import Functional
    from lamina.models.sequential import Sequential

    clone = clone_function or _clone_layer

    def clone_inner(layer: Layer) -> Layer:
        if recursive and isinstance(layer, (Sequential, Functional)):
            return _clone(layer, None, clone_function, None, True)
        return clone(layer)

    if isinstance(model, Sequential):
        layers = [clone_inner(layer) for layer in model.layers]
        if input_tensors is not None:
            return Sequential([input_tensors, *layers], name=model.name)
        if model._functional is not None:
            from lamina.layers.input_layer import Input

            first = model._sequence[0]
            assert isinstance(first, InputLayer)
            return Sequential(
                [Input(batch_shape=first.batch_shape, dtype=first.dtype), *layers],
                name=model.name,
            )
        return Sequential(layers, name=model.name)
    if isinstance(model, Functional):
        return _clone_functional(model, input_tensors, clone_inner, call_function)
    return type(model).from_config(model.get_config())


def _clone_functional(
    model: Any,
    input_tensors: Any,
    clone: Callable[[Layer], Layer],
    call_function: Callable[..., Any] | None,
) -> Model:
    from lamina import tree
    from lamina.layers.input_layer import Input
    from lamina.models.functional import Functional
    from lamina.ops.symbolic import SymbolicTensor

    if input_tensors is None:
        new_inputs = [Input(batch_shape=t.shape, dtype=t.dtype) for t in model.inputs]
    else:
        new_inputs = tree.flatten(input_tensors)
        if len(new_inputs) != len(model.inputs):
            raise ValueError(
                f"Argument `input_tensors` must have {len(model.inputs)} tensors. "
                f"Received: {len(new_inputs)}"
            )
    values = {id(old): new for old, new in zip(model.inputs, new_inputs)}
    clones: dict[int, Layer] = {}
    for node in model.nodes:
        if node.is_input:
            continue
        op = node.operation
        if isinstance(op, Layer):
            if id(op) not in clones:
                clones[id(op)] = clone(op)
            new_op: Any = clones[id(op)]
        else:
            new_op = op

        def resolve(x: Any) -> Any:
            return values[id(x)] if isinstance(x, SymbolicTensor) else x

        args = tree.map_structure(resolve, node.call_args)
        kwargs = tree.map_structure(resolve, node.call_kwargs)
        if call_function is not None and isinstance(op, Layer):
            out = call_function(new_op, *args, **kwargs)
        else:
            out = new_op(*args, **kwargs)
        for old, new in zip(node.output_tensors, tree.flatten(out)):
            values[id(old)] = new
    inputs = tree.pack_sequence_as(model._inputs_struct, new_inputs)
    outputs = tree.pack_sequence_as(
        model._outputs_struct, [values[id(t)] for t in model.outputs]
    )
    return Functional(inputs, outputs, name=model.name)
