"""The layer mixin: Lamina layers are trackable by TensorFlow's checkpoints and SavedModel."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.layer_mixin import LayerMixin

_Trackable: Any = tf.__internal__.tracking.Trackable


class TensorflowLayerMixin(_Trackable, LayerMixin):
    """Lets `tf.train.Checkpoint(model=...)` and `tf.saved_model.save` find every variable.

    The plain `Trackable` base (not `tf.Module`) is used on purpose: `tf.Module` wraps
    assigned lists and claims ``name``, both of which Lamina's own tracking owns. Children
    are reported from Lamina's tracking: own variables by name, sublayers by layer name.
    """

    def _backend_init(self) -> None:
        self._maybe_initialize_trackable()

    def _trackable_children(self, save_type: Any = "checkpoint", **kwargs: Any) -> Any:
        children: dict[str, Any] = {}
        for variable in self._trainable_variables + self._non_trainable_variables:
            children[_unique(children, variable.name)] = variable._variable
        for gen in self._seed_generators:
            children[_unique(children, gen.name)] = gen.state._variable
        for layer in self._layers:
            children[_unique(children, layer.name)] = layer
        if save_type == "savedmodel":
            # A loaded SavedModel answers `.variables` like a tf.Module does.
            this: Any = self
            wrap = tf.__internal__.tracking.wrap
            children["variables"] = wrap([v._variable for v in this.variables])
            children["trainable_variables"] = wrap(
                [v._variable for v in this.trainable_variables]
            )
        return children


def _unique(taken: dict[str, Any], name: str) -> str:
    key, n = name, 1
    while key in taken:
        key, n = f"{name}_{n}", n + 1
    return key
