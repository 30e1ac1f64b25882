"""Preprocessing layers inside a `tf.data` pipeline, whatever the active backend.

Keras 3 users write ``dataset.map(string_lookup)`` on JAX or PyTorch too: the layer then
sees tensors of the TensorFlow graph being traced, which the active backend cannot
compute on, and strings, which only host code handles here (vocabularies, FarmHash,
regular expressions). Such a call becomes one host node of the graph
(`tf.numpy_function`): at each element the layer runs eagerly on NumPy values with the
active backend, and its result goes back to TensorFlow with the dtype and shape that the
layer's `compute_output_spec` gives. TensorFlow itself is reached only through
`lamina.utils._tf_data`, and only once a TensorFlow tensor has been received.

A random layer's host node is stateful: TensorFlow then neither parallelizes nor merges its
calls, so each element or batch draws from the layer's `SeedGenerator` in the dataset's
order, and a seeded layer gives the same pipeline output on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import ops, tree
from lamina.layers.preprocessing._adapt_data import holds_text, to_numpy
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


def _is_graph_tensor(x: Any) -> bool:
    if not (getattr(type(x), "__module__", "") or "").startswith("tensorflow"):
        return False
    from lamina.utils._tf_data import is_graph_tensor

    return is_graph_tensor(x)


def holds_graph_tensor(inputs: Any) -> bool:
    """Whether any leaf of `inputs` is a tensor of a TensorFlow graph being traced."""
    return any(_is_graph_tensor(leaf) for leaf in tree.flatten(inputs))


def needs_host_graph_call(inputs: Any, host_only: bool = False) -> bool:
    """Whether `inputs` hold a traced TensorFlow tensor that the layer cannot compute on
    with the active backend: strings always, any tensor when the backend is not TF's or
    when the layer computes on the host only (`host_only`)."""
    from lamina.ops.dispatch import backend

    for leaf in tree.flatten(inputs):
        if _is_graph_tensor(leaf) and (
            host_only or holds_text(leaf) or not backend().core.is_tensor(leaf)
        ):
            return True
    return False


def spec_of(x: Any) -> SymbolicTensor:
    """A symbolic tensor with the shape and dtype of a TensorFlow tensor."""
    if x.shape.rank is None:
        raise ValueError(
            "A preprocessing layer in a tf.data pipeline needs inputs of known rank. "
            f"Received: a tensor of shape {x.shape} (set it with `tensor.set_shape`)."
        )
    return SymbolicTensor(tuple(x.shape.as_list()), dtype=dtypes.standardize_dtype(x.dtype))


def host_graph_call(
    compute: Callable[[Any], Any], inputs: Any, output_spec: Any, stateful: bool = False
) -> Any:
    """`compute(inputs)` as a host node of the TensorFlow graph being traced.

    Args:
        compute: the eager computation, called with `inputs`' structure of NumPy values
            (strings as Python `str`).
        inputs: a structure of TensorFlow graph tensors.
        output_spec: a structure of `SymbolicTensor`s describing `compute`'s result.
        stateful: whether `compute` changes state (draws random numbers): its calls then
            run one at a time, in order, and are never merged.

    Returns:
        `output_spec`'s structure of TensorFlow graph tensors.
    """
    from lamina.utils._tf_data import host_function

    leaves = tree.flatten(inputs)
    specs = tree.flatten(output_spec)

    def run(*arrays: Any) -> list[np.ndarray[Any, Any]]:
        values = tree.pack_sequence_as(inputs, [to_numpy(a) for a in arrays])
        produced = tree.flatten(compute(values))
        return [_as_numpy(value, spec.dtype) for value, spec in zip(produced, specs)]

    signature = [(spec.shape, spec.dtype) for spec in specs]
    outputs = host_function(run, leaves, signature, stateful=stateful)
    return tree.pack_sequence_as(output_spec, outputs)


def _as_numpy(value: Any, dtype: str) -> np.ndarray[Any, Any]:
    if dtype == "string":
        array = to_numpy(value)
        out = np.empty(array.shape, dtype=object)
        out.reshape(-1)[:] = [str(v).encode("utf-8") for v in array.reshape(-1)]
        return out
    return np.asarray(ops.convert_to_numpy(value)).astype(dtype)


class TFGraphCallMixin:
    """Put first among a preprocessing layer's bases: a call on traced TensorFlow
    tensors that the backend cannot compute on runs as a host node (see the module)."""

    # True for a layer whose call computes with NumPy whatever its inputs (hashing).
    _host_only: bool = False
    # True for a layer whose call draws random numbers (the random augmentations).
    _host_stateful: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and needs_host_graph_call(args[0], self._host_only):
            return _host_layer_call(self, args, kwargs)
        return super().__call__(*args, **kwargs)  # type: ignore[misc]


def _host_layer_call(layer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The layer's call on traced tensors, as a host node (no annotated closure names:
    AutoGraph, which converts what `Dataset.map` calls, refuses them)."""
    spec = layer.compute_output_spec(tree.map_structure(spec_of, args[0]), *args[1:], **kwargs)

    def compute(values: Any) -> Any:
        return super(TFGraphCallMixin, layer).__call__(values, *args[1:], **kwargs)

    return host_graph_call(compute, args[0], spec, layer._host_stateful)
