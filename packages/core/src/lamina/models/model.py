"""`Model`: a `Layer` that trains, saves and describes itself.

``Model(inputs, outputs)`` makes a functional model (`Functional`); subclassing `Model` and
defining `call` makes a subclassed one; `Sequential` stacks layers.
"""

from __future__ import annotations

import json
from typing import Any

from lamina import tree
from lamina.backend.registry import current_if_any
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor
from lamina.trainers.trainer import Trainer


class _NoBackendTrainer:
    """With no backend installed, models build symbolically and the core Trainer is all."""


def _trainer_mixin() -> type:
    backend = current_if_any()
    return backend.trainer_mixin if backend is not None else _NoBackendTrainer


class Model(_trainer_mixin(), Trainer, Layer):  # type: ignore[misc]
    """A layer with training (`compile`/`fit`/`evaluate`/`predict`) and saving.

    Example:
        >>> inputs = lamina.Input((784,))
        >>> outputs = lamina.layers.Dense(10)(inputs)
        >>> model = lamina.Model(inputs, outputs)
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        if cls is Model and _is_functional_call(args, kwargs):
            from lamina.models.functional import Functional

            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _is_functional_call(args, kwargs) and _inputs_are_symbolic(args, kwargs):
            # A subclass built from `inputs, outputs` (``CustomModel(inputs, outputs)``, its
            # own methods such as `train_step` overriding the graph model's).
            from lamina.models.functional import Functional

            if not isinstance(self, Functional):
                _make_functional(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        if args:
            raise ValueError(
                f"{type(self).__name__} takes keyword arguments only (or `inputs, outputs` for "
                f"a functional model). Received positional arguments: {args!r}"
            )
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self)

    @property
    def layers(self) -> list[Layer]:
        """The model's direct sublayers, in the order they were tracked."""
        return self._layers

    @property
    def output_names(self) -> list[str]:
        """Names of the layers producing each output (functional models have them)."""
        return []

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A sublayer by `name` or by `index` in `layers`.

        Raises:
            ValueError: neither or both are given, or nothing matches.
        """
        if (name is None) == (index is None):
            raise ValueError(
                "Provide exactly one of `name` and `index`. "
                f"Received: name={name!r}, index={index!r}"
            )
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"Argument `index` is out of range: model {self.name!r} has "
                    f"{len(layers)} layers. Received: index={index}"
                )
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No layer named {name!r} in model {self.name!r}. "
            f"Available: {[layer.name for layer in layers]}"
        )

    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Any = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Print a table of layers, output shapes and parameter counts."""
        from lamina.models.summary import print_summary

        print_summary(
            self,
            line_length=line_length,
            positions=positions,
            print_fn=print_fn,
            expand_nested=expand_nested,
            show_trainable=show_trainable,
            layer_range=layer_range,
        )

    def to_json(self, **kwargs: Any) -> str:
        """The model's config as a JSON string (`model_from_json` reads it)."""
        from lamina.saving.serialization import serialize_lamina_object

        return json.dumps(serialize_lamina_object(self), **kwargs)

    def save(self, filepath: Any, overwrite: bool = True, zipped: bool | None = None) -> None:
        """Save architecture, weights, compile config and optimizer state (``.lamina``)."""
        from lamina.saving.facade import save_model

        save_model(self, filepath, overwrite=overwrite, zipped=zipped)

    def save_weights(
        self, filepath: Any, overwrite: bool = True, max_shard_size: float | None = None
    ) -> None:
        """Save the weights to a ``.weights.h5`` file (sharded past `max_shard_size` MB)."""
        from lamina.saving.facade import save_weights

        save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> Any:
        """Load weights saved by `save_weights`; an unbuilt model restores on build."""
        from lamina.saving.facade import load_weights

        return load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def export(
        self,
        filepath: Any,
        format: str = "tf_saved_model",
        verbose: bool = True,
        input_signature: Any = None,
        **kwargs: Any,
    ) -> Any:
        """Write the inference call as a TensorFlow SavedModel (tensorflow or jax backend).

        The artifact serves ``model(x, training=False)`` as ``serve`` and
        ``serving_default``; `input_signature` defaults to the model's inputs.
        """
        from lamina.saving.facade import support

        return support().extra("export_model")(
            self, filepath, format=format, verbose=verbose, input_signature=input_signature,
            **kwargs,
        )

    def build(self, input_shape: Any = None) -> None:
        """Create the variables by tracing `call` on inputs of `input_shape`."""
        if input_shape is not None and type(self).call is not Model.call:
            inputs = tree.map_shape_structure(
                lambda s: SymbolicTensor(s, dtype=self.input_dtype), input_shape
            )
            self.compute_output_spec(inputs)
            object.__setattr__(self, "_build_shapes", input_shape)  # for get_build_config
        self.built = True

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Model:
        """Recreate a model from `get_config`'s output (functional configs included)."""
        if cls is Model or ("layers" in config and "input_layers" in config):
            from lamina.models.functional import Functional, functional_from_config

            graph = functional_from_config(config, custom_objects=custom_objects)
            if issubclass(Functional, cls):
                return graph
            # A subclass of Model built from inputs and outputs: the same graph, its class.
            model = cls(inputs=graph._inputs_struct, outputs=graph._outputs_struct,
                        name=graph.name)
            if not graph.trainable:
                model.trainable = False
            return model
        return cls(**config)


def _is_functional_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return len(args) == 2 or ("inputs" in kwargs and "outputs" in kwargs) or (
        len(args) == 1 and "outputs" in kwargs
    )


def _inputs_are_symbolic(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the `inputs` of a functional-looking call are all symbolic tensors."""
    inputs = args[0] if args else kwargs.get("inputs")
    leaves = tree.flatten(inputs)
    return bool(leaves) and all(isinstance(leaf, SymbolicTensor) for leaf in leaves)


def _make_functional(cls: type) -> None:
    """Make `cls`, a `Model` subclass, a subclass of `Functional` (as Keras 3 does).

    Its own methods still come first; `Functional` takes the place of `Model` among its
    bases (or follows them when it derives from `Model` through classes of its own), so the
    class stays what the user named, registered and saves under.

    Raises:
        TypeError: the class's bases leave no consistent method order with `Functional`.
    """
    from lamina.models.functional import Functional

    bases = cls.__bases__
    if Model in bases:
        new_bases = tuple(Functional if base is Model else base for base in bases)
    else:
        new_bases = (*bases, Functional)
    try:
        cls.__bases__ = new_bases
    except TypeError as e:
        raise TypeError(
            f"{cls.__name__} was called with `inputs` and `outputs`, which makes it a "
            f"functional model, but its bases {[b.__name__ for b in bases]} cannot be "
            f"combined with `Functional` ({e}). Derive it from `lamina.Model` directly."
        ) from None


def model_from_json(json_string: str, custom_objects: Any = None) -> Any:
    """A model (not its weights) from `Model.to_json`'s output."""
    from lamina.saving.serialization import deserialize_lamina_object

    try:
        config = json.loads(json_string)
    except (TypeError, ValueError, RecursionError) as e:
        raise ValueError(
            f"Argument `json_string` must be the JSON text of a model config ({e}). "
            f"Received: json_string={json_string!r:.200}"
        ) from None
    return deserialize_lamina_object(config, custom_objects=custom_objects)
