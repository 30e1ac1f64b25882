"""The layer mixin: Lamina layers are trackable by TensorFlow's checkpoints and SavedModel."""

from __future__ import annotations

import re
import weakref
from typing import Any

import tensorflow as tf

from lamina.backend.kit import LayerMixin

_Trackable: Any = tf.__internal__.tracking.Trackable

# The child name `tf.saved_model.save` looks for on the root object when it is given no
# `signatures`: that function becomes the ``serving_default`` signature.
_DEFAULT_SIGNATURE = "_default_save_signature"
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")

# One serving function per model, made on the first save (weak: models are not kept alive).
_SERVING: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


class TensorflowLayerMixin(_Trackable, LayerMixin):
    """Lets `tf.train.Checkpoint(model=...)` and `tf.saved_model.save` find every variable.

    The plain `Trackable` base (not `tf.Module`) is used on purpose: `tf.Module` wraps
    assigned lists and claims ``name``, both of which Lamina's own tracking owns. Children
    are reported from Lamina's tracking: own variables by name, sublayers by layer name.
    For `tf.saved_model.save`, a model whose inputs are known also reports a serving
    function, ``model(x, training=False)``: the SavedModel gets a ``serving_default``
    signature and the loaded object can be called.
    """

    def _backend_init(self) -> None:
        self._maybe_initialize_trackable()

    def _trackable_children(self, save_type: Any = "checkpoint", **kwargs: Any) -> Any:
        children: dict[str, Any] = {}
        for variable in self._trainable_variables + self._non_trainable_variables:
            children[_unique(children, variable.name)] = variable.tf_variable
        for gen in self._seed_generators:
            children[_unique(children, gen.name)] = gen.state.tf_variable
        for layer in self._layers:
            children[_unique(children, layer.name)] = layer
        if save_type == "savedmodel":
            # A loaded SavedModel answers `.variables` like a tf.Module does.
            this: Any = self
            wrap = tf.__internal__.tracking.wrap
            children["variables"] = wrap([v.tf_variable for v in this.variables])
            children["trainable_variables"] = wrap(
                [v.tf_variable for v in this.trainable_variables]
            )
            serve = serving_function(self)
            if serve is not None:
                children[_DEFAULT_SIGNATURE] = serve
                children["__call__"] = serve
        return children


def serving_function(model: Any) -> Any:
    """``model(x, training=False)`` as a `tf.function` over the model's inputs, or None.

    The inputs are those of a functional or `Sequential` model, else the shape a built
    subclassed model recorded (in its input dtype); the batch dim is left free. Layers
    that are not models, and models whose inputs are not known, have none.
    """
    from lamina.models import Model

    if not isinstance(model, Model):
        return None
    if model in _SERVING:
        return _SERVING[model]
    specs = _input_specs(model)
    if specs is None:
        return None
    ref = weakref.ref(model)

    def serve(*tensors: Any) -> Any:
        target: Any = ref()
        return target(tensors[0] if len(tensors) == 1 else list(tensors), training=False)

    fn = tf.function(serve, input_signature=specs, autograph=False)
    _SERVING[model] = fn
    return fn


def _input_specs(model: Any) -> list[Any] | None:
    """One `tf.TensorSpec` per model input (batch dim None), or None when not known."""
    inputs = list(getattr(model, "inputs", None) or [])
    shapes: list[tuple[Any, ...]]
    if inputs:
        shapes = [tuple(t.shape) for t in inputs]
        dtypes = [str(t.dtype) for t in inputs]
        names = [getattr(t, "name", None) or "inputs" for t in inputs]
    else:
        config = model.get_build_config() if model.built else None
        shape: Any = (config or {}).get("input_shape")
        if not _is_shape(shape):
            return None
        shapes, dtypes, names = [tuple(shape)], [str(model.input_dtype)], ["inputs"]
    specs: list[Any] = []
    taken: dict[str, None] = {}
    for dims, dtype, name in zip(shapes, dtypes, names, strict=True):
        if not dims:
            return None
        base = _NOT_NAME.sub("_", name) or "inputs"
        base = base if base[0].isalpha() else f"x_{base}"
        unique = _unique(taken, base)
        taken[unique] = None
        specs.append(tf.TensorSpec((None, *dims[1:]), tf.as_dtype(dtype), name=unique))
    return specs


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in value
    )


def _unique(taken: dict[str, Any], name: str) -> str:
    key, n = name, 1
    while key in taken:
        key, n = f"{name}_{n}", n + 1
    return key
