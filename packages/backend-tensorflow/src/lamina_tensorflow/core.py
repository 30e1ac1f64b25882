"""Conversion, dtypes, devices and tracing for tf.Tensor."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import tensorflow as tf

from lamina.backend.kit import DType, Tensor, numpy_views_allowed, to_numpy_dtype


def convert_to_tensor(x: Any, dtype: DType | None = None, sparse: bool | None = None) -> Tensor:
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return x if dtype is None or x.dtype.name == dtype else tf.cast(x, dtype)
    if dtype is not None and isinstance(x, np.ndarray) and x.dtype.name != dtype:
        # tf.convert_to_tensor refuses to change a NumPy array's dtype; cast first.
        return tf.cast(tf.convert_to_tensor(x), dtype)
    if dtype is not None and not isinstance(x, np.ndarray):
        # TF will not turn Python ints into bools (or floats into ints); NumPy will.
        return tf.convert_to_tensor(np.asarray(x, dtype=to_numpy_dtype(dtype)))
    return tf.convert_to_tensor(x)


def convert_to_numpy(x: Tensor) -> np.ndarray[Any, Any]:
    # `.numpy()` rather than np.array(x): the latter warns about `copy=` for bfloat16.
    if numpy_views_allowed() and x.dtype != tf.bfloat16 and tf.executing_eagerly():
        plain = isinstance(x, tf.Variable) and not isinstance(x, tf.distribute.DistributedValues)
        value = x.read_value() if plain else x
        if isinstance(value, tf.Tensor) and "GPU" not in value.device:
            return np.asarray(value)  # a read-only view of the tensor's buffer
    return np.asarray(x.numpy())


def is_tensor(x: Any) -> bool:
    return tf.is_tensor(x) and not isinstance(x, tf.Variable)


def cast(x: Tensor, dtype: DType) -> Tensor:
    return tf.cast(x, dtype)


def shape(x: Tensor) -> tuple[Any, ...]:
    static = x.shape.as_list() if x.shape.rank is not None else None
    if static is not None and None not in static:
        return tuple(static)
    dynamic = tf.shape(x)
    return tuple(d if d is not None else dynamic[i] for i, d in enumerate(static or []))


def device_scope(device_name: str) -> AbstractContextManager[None]:
    kind, _, index = device_name.partition(":")
    kind = "gpu" if kind == "cuda" else kind
    # tf.device quietly falls back to the CPU when the device is missing; refuse instead.
    if int(index or 0) >= len(tf.config.list_logical_devices(kind.upper())):
        raise ValueError(
            f"No {kind} device {index or 0} is visible to TensorFlow. "
            f"Received: device_name={device_name!r}"
        )
    return tf.device(f"/{kind.upper()}:{index or 0}")


def compute_output_spec(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    # Trace a tf.function on TensorSpecs whose None dims stay None: TF's own shape inference.
    from lamina.backend.kit import trace_with_arrays

    try:
        outputs = _trace_function(fn, args, kwargs)
    except Exception:
        # Ops needing concrete values (or creating tf.Variables) cannot run in a graph trace.
        return trace_with_arrays(fn, args, kwargs, lambda shape, dtype: tf.zeros(shape, dtype))
    return _to_specs(outputs)


def _trace_function(fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    from lamina.backend.kit import symbolic_inputs

    symbols, pure = symbolic_inputs(fn, args, kwargs)
    signature = [tf.TensorSpec(s.shape, s.dtype) for s in symbols]
    traced = tf.function(pure, input_signature=signature, autograph=False, reduce_retracing=False)
    return traced.get_concrete_function().structured_outputs


def _to_specs(outputs: Any) -> Any:
    from lamina import tree
    from lamina.backend.kit import SymbolicTensor

    def to_spec(x: Any) -> Any:
        if not tf.is_tensor(x):
            return x
        dims = x.shape.as_list() if x.shape.rank is not None else None
        if dims is None:
            raise ValueError(f"`compute_output_spec`: an output has an unknown rank: {x!r}")
        return SymbolicTensor(tuple(dims), x.dtype.name)

    return tree.map_structure(to_spec, outputs)
