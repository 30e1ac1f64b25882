"""`TFSMLayer`: an endpoint of a TensorFlow SavedModel used as a layer (TensorFlow backend).

The SavedModel's variables become the layer's own Lamina variables: the model is loaded
once to list the variables it creates, Lamina variables are made with their values, and the
model is loaded again with TensorFlow's variable creator returning those variables'
``tf.Variable``s. Its functions then read and differentiate Lamina's variables, so `fit`
trains them and weight files hold them.

A config names a path that loading would open and run, so `from_config` refuses it in
safe mode (the default when loading a file).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from lamina.layers.interop.requirements import require_backend
from lamina.layers.layer import Layer
from lamina.saving.serialization import in_safe_mode


def _variable_name(native: Any) -> str:
    name = str(native.name).split(":")[0]
    return name.replace("/", "_") or "variable"


class TFSMLayer(Layer):
    """Call an endpoint of a TensorFlow SavedModel as a layer; its variables train.

    Args:
        filepath: the SavedModel folder (as written by `tf.saved_model.save`,
            ``model.export`` or ``lamina.export.ExportArchive``).
        call_endpoint: the endpoint used for inference: an attribute of the loaded object
            (a ``tf.function``) or a key of its ``signatures``.
        call_training_endpoint: the endpoint used when ``training=True`` (default: the
            inference one).
        trainable: whether the SavedModel's trainable variables are trained.
        name: the layer's name.
        dtype: the layer's dtype policy.

    Raises:
        ValueError: the backend is not TensorFlow, or an endpoint does not exist.

    Example:
        >>> import tensorflow as tf
        >>> class Doubler(tf.Module):
        ...     @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        ...     def serve(self, x):
        ...         return 2.0 * x
        >>> tf.saved_model.save(Doubler(), "doubler")
        >>> layer = lamina.layers.TFSMLayer("doubler", call_endpoint="serve")
        >>> layer(np.ones((2, 3), "float32")).numpy().tolist()
        [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
    """

    def __init__(
        self,
        filepath: Any,
        call_endpoint: str = "serve",
        call_training_endpoint: str | None = None,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        require_backend("TFSMLayer", ("tensorflow",), "runs a TensorFlow SavedModel")
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self.filepath = os.fspath(filepath)
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        self._reloaded: Any = None
        self._adopt_variables()
        self.built = True

    def _adopt_variables(self) -> None:
        import tensorflow as tf

        created: list[Any] = []

        def record(next_creator: Any, **kwargs: Any) -> Any:
            variable = next_creator(**kwargs)
            created.append(variable)
            return variable

        with tf.variable_creator_scope(record):
            tf.saved_model.load(self.filepath)
        self._saved_variables = [
            self.add_weight(
                shape=tuple(native.shape),
                initializer=_constant(native.numpy()),
                dtype=native.dtype.name,
                trainable=bool(native.trainable),
                autocast=False,
                name=_variable_name(native),
            )
            for native in created
        ]
        self._bind()

    def _bind(self) -> None:
        """Load the SavedModel so that its functions use the variables' current
        ``tf.Variable``s, keeping the values they hold."""
        import tensorflow as tf

        values = [v.numpy() for v in self._saved_variables]
        natives = iter([v.value for v in self._saved_variables])

        def adopt(next_creator: Any, **kwargs: Any) -> Any:
            native = next(natives, None)
            if native is None:
                raise ValueError(
                    f"TFSMLayer: the SavedModel at {self.filepath!r} created more variables "
                    "on its second load than on its first; it cannot be wrapped."
                )
            return native

        with tf.variable_creator_scope(adopt):
            self._reloaded = tf.saved_model.load(self.filepath)
        for variable, value in zip(self._saved_variables, values):
            variable.assign(value)  # loading restored the file's values
        self._call_fn = self._endpoint(self.call_endpoint, "call_endpoint")
        self._training_fn = (
            self._endpoint(self.call_training_endpoint, "call_training_endpoint")
            if self.call_training_endpoint
            else None
        )

    def _endpoint(self, endpoint: str, arg: str) -> Any:
        found = getattr(self._reloaded, endpoint, None)
        if found is not None and callable(found):
            return found
        signatures = self._reloaded.signatures
        if endpoint in signatures:
            fn = signatures[endpoint]
            names = list(fn.structured_input_signature[1])

            def call_signature(inputs: Any, **kwargs: Any) -> Any:
                # Signatures take keyword arguments only, one per named input.
                if isinstance(inputs, dict):
                    return fn(**inputs, **kwargs)
                return fn(**{names[0]: inputs}, **kwargs)

            return call_signature
        raise ValueError(
            f"Argument `{arg}` of TFSMLayer names neither an attribute of the SavedModel at "
            f"{self.filepath!r} nor one of its signatures. Received: {arg}={endpoint!r}; "
            f"signatures: {sorted(signatures)}"
        )

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        # TensorFlow fixes a tf.Variable's `trainable`, so changing it gives the variables
        # new tf.Variables: load the SavedModel again on those.
        Layer.trainable.fset(self, value)  # type: ignore[attr-defined]
        if self.__dict__.get("_reloaded") is not None:
            self._bind()

    def call(self, inputs: Any, training: bool | None = False, **kwargs: Any) -> Any:
        if training and self._training_fn is not None:
            return self._training_fn(inputs, **kwargs)
        return self._call_fn(inputs, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "filepath": self.filepath,
                "call_endpoint": self.call_endpoint,
                "call_training_endpoint": self.call_training_endpoint,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> TFSMLayer:
        """Rebuild the layer, loading the SavedModel its config names (not in safe mode).

        Raises:
            ValueError: in safe mode: a file's config would make loading open and run the
                SavedModel at a path of its choosing.
        """
        if in_safe_mode():
            raise ValueError(
                "Refusing to build a TFSMLayer from a config in safe mode: it would load "
                f"and run the TensorFlow SavedModel at {config.get('filepath')!r}, a path "
                "named by the file. If you trust the file, pass `safe_mode=False` to the "
                "loading call or call `lamina.config.enable_unsafe_deserialization()`."
            )
        return cls(**config)


def _constant(value: np.ndarray[Any, Any]) -> Any:
    def initial(shape: Any, dtype: Any = None) -> Any:
        return value

    return initial
