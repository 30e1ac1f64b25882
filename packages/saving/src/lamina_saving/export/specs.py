"""Input signatures for exported endpoints: inferred from a model, or read from the caller.

An endpoint needs fixed ranks and dtypes for its inputs (TensorFlow traces it once per
signature). Everything here is backend-free: specs become `tf.TensorSpec`s only when the
archive is written, so a bad signature is reported the same way on every backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lamina import tree
from lamina.backend.kit import SymbolicTensor, standardize_dtype
from lamina.layers import InputSpec


@dataclass(frozen=True)
class ExportSpec:
    """One input tensor of an endpoint: its shape (None for free dims), dtype and name."""

    shape: tuple[int | None, ...]
    dtype: str
    name: str | None = None


def _dims(shape: Any, where: str) -> tuple[int | None, ...]:
    try:
        dims = tuple(None if d is None else int(d) for d in shape)
    except (TypeError, ValueError):
        raise ValueError(
            f"Argument `input_signature` has an entry ({where}) whose shape is not a "
            f"sequence of ints or None. Received: shape={shape!r}"
        ) from None
    if any(d is not None and d < 0 for d in dims):
        raise ValueError(
            f"Argument `input_signature` has an entry ({where}) with a negative dim. "
            f"Received: shape={shape!r}"
        )
    return dims


def _dtype_name(dtype: Any) -> str:
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", dtype)
    return standardize_dtype(name)


def to_export_spec(obj: Any, default_dtype: str = "float32") -> ExportSpec:
    """Read one signature leaf.

    Args:
        obj: an `ExportSpec`, a `lamina.InputSpec` with a shape, a `SymbolicTensor`
            (``lamina.Input``), or anything with ``shape`` and ``dtype`` (``tf.TensorSpec``,
            ``jax.ShapeDtypeStruct``, an array).
        default_dtype: the dtype of an `InputSpec` that names none.

    Returns:
        The spec.

    Raises:
        ValueError: an `InputSpec` without a shape, or a malformed shape.
        TypeError: `obj` carries no shape and dtype.
    """
    if isinstance(obj, ExportSpec):
        return ExportSpec(_dims(obj.shape, repr(obj)), _dtype_name(obj.dtype), obj.name)
    if isinstance(obj, InputSpec):
        if obj.shape is None:
            raise ValueError(
                "Argument `input_signature` needs a full shape for every input, but got an "
                f"InputSpec without one. Received: {obj!r}; pass InputSpec(shape=...)."
            )
        return ExportSpec(
            _dims(obj.shape, repr(obj)), _dtype_name(obj.dtype or default_dtype), obj.name
        )
    if isinstance(obj, SymbolicTensor):
        return ExportSpec(_dims(obj.shape, repr(obj)), _dtype_name(obj.dtype), obj.name)
    shape = getattr(obj, "shape", None)
    dtype = getattr(obj, "dtype", None)
    if shape is None or dtype is None or isinstance(obj, (str, bytes)):
        raise TypeError(
            "Argument `input_signature` must hold lamina.InputSpec, lamina.Input tensors, "
            "tf.TensorSpec or other objects with `shape` and `dtype`. "
            f"Received an entry of type {type(obj).__name__}: {obj!r}"
        )
    name = getattr(obj, "name", None)
    return ExportSpec(
        _dims(shape, repr(obj)), _dtype_name(dtype), name if isinstance(name, str) else None
    )


def _is_leaf(obj: Any) -> bool:
    return not isinstance(obj, (list, tuple, dict))


def normalize_signature(input_signature: Any, default_dtype: str = "float32") -> list[Any]:
    """The caller's signature as one structure of `ExportSpec`s per positional argument.

    A single spec or a dict means the one positional argument; a list or tuple lists the
    arguments.

    Raises:
        ValueError: an empty signature, or a bad entry (see `to_export_spec`).
        TypeError: an entry that is not a spec.
    """
    if _is_leaf(input_signature) or isinstance(input_signature, dict):
        input_signature = [input_signature]
    if len(input_signature) == 0:
        raise ValueError(
            "Argument `input_signature` must describe at least one input. "
            f"Received: input_signature={input_signature!r}"
        )
    return [
        tree.map_structure(lambda s: to_export_spec(s, default_dtype), arg)
        for arg in input_signature
    ]


def _model_inputs_struct(model: Any) -> Any:
    """The structure of symbolic inputs of a functional or Sequential model, or None."""
    struct = getattr(model, "_inputs_struct", None)
    if struct is not None:
        return struct
    functional = getattr(model, "_functional", None)
    if functional is not None:
        return getattr(functional, "_inputs_struct", None)
    inputs = getattr(model, "inputs", None)
    if isinstance(inputs, list) and inputs:
        return inputs[0] if len(inputs) == 1 else list(inputs)
    return None


def _free_batch(spec: ExportSpec) -> ExportSpec:
    if not spec.shape:
        return spec
    return ExportSpec((None, *spec.shape[1:]), spec.dtype, spec.name)


def infer_signature(model: Any) -> list[Any]:
    """The input signature of a built model, batch dims left free.

    Functional and Sequential models give their `Input`s; subclassed models the shapes
    they were built with (in their input dtype).

    Raises:
        ValueError: the model is not built, so nothing tells its input shape.
    """
    struct = _model_inputs_struct(model)
    if struct is not None:
        return [tree.map_structure(lambda t: _free_batch(to_export_spec(t)), struct)]
    shapes = getattr(model, "_build_shapes", None)
    if not getattr(model, "built", False) or shapes is None:
        state = (
            "it was built without a recorded input shape"
            if getattr(model, "built", False)
            else "it has not been built"
        )
        raise ValueError(
            f"Cannot infer the input signature of model {getattr(model, 'name', model)!r}: "
            f"{state}. Call the model on data first, or pass "
            "`input_signature=[lamina.InputSpec(shape=..., dtype=...)]`."
        )
    dtype = str(getattr(model, "input_dtype", "float32"))
    spec = tree.map_shape_structure(
        lambda s: _free_batch(ExportSpec(_dims(s, "build shape"), dtype)), shapes
    )
    return [spec]


def signature_for_model(model: Any, input_signature: Any) -> list[Any]:
    """Resolve `input_signature` (None: inferred) for `model`'s ``__call__``.

    A functional model whose inputs are a list also accepts that list flat
    (``[spec_a, spec_b]``) since its call takes them as one argument.
    """
    if input_signature is None:
        return infer_signature(model)
    struct = _model_inputs_struct(model)
    if (
        isinstance(struct, (list, tuple))
        and isinstance(input_signature, (list, tuple))
        and len(struct) == len(input_signature) > 1
        and all(_is_leaf(s) for s in input_signature)
    ):
        input_signature = [list(input_signature)]
    default_dtype = str(getattr(model, "input_dtype", "float32"))
    return normalize_signature(input_signature, default_dtype)


_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


def to_tf_specs(signature: list[Any]) -> list[Any]:
    """`ExportSpec` structures as `tf.TensorSpec` structures, with unique valid names."""
    import tensorflow as tf

    taken: set[str] = set()

    def convert(spec: ExportSpec) -> Any:
        base = _NOT_NAME.sub("_", spec.name or "inputs") or "inputs"
        if not base[0].isalpha():
            base = f"x_{base}"
        name, n = base, 1
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        return tf.TensorSpec(shape=spec.shape, dtype=tf.as_dtype(spec.dtype), name=name)

    return [tree.map_structure(convert, arg) for arg in signature]
