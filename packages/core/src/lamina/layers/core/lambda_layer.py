"""`Lambda`: wrap a function of tensors as a layer.

A Lambda's config describes its function by name, or by bytecode when the function is a
lambda or a nested function. Either way, loading it in safe mode (the default) would let
the file choose code to run, so safe mode accepts only functions the caller registered
(``custom_objects``, a `CustomObjectScope`, `register_serializable`) and refuses bytecode
and every function merely named by the file, built-in ones included. Callers who trust
the file opt out with ``from_config(..., safe_mode=False)`` or
``load_model(..., safe_mode=False)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from lamina import tree
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor
from lamina.saving import limits
from lamina.saving.serialization import (
    CustomObjectScope,
    caller_objects_only,
    deserialize_lamina_object,
    in_safe_mode,
    serialize_lamina_object,
)

_REFUSED = (
    "Lambda.from_config: argument `{arg}` of this config is Python bytecode (a lambda or "
    "nested function), and loading bytecode is refused in safe mode because it can run "
    "arbitrary code. If you trust the source, pass `safe_mode=False` (or use "
    "`lamina.config.enable_unsafe_deserialization()`). Received: {arg}=<bytecode>"
)


def _is_bytecode(config: Any) -> bool:
    return isinstance(config, dict) and config.get("class_name") == "__lambda__"


class Lambda(Layer):
    """Call `function(inputs, **arguments)` as a layer.

    Prefer a `Layer` subclass for anything with state: a Lambda has no weights, and its
    config stores the function by name (or as bytecode, which safe loading refuses).

    Args:
        function: the function; it may also take `mask` and `training` keyword arguments.
        output_shape: the output shape without the batch axis, or a function of the
            input shape(s); None infers it by tracing `function`.
        mask: the output mask: a tensor, or a function ``mask(inputs, previous_mask)``.
        arguments: extra keyword arguments for `function`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> squared = lamina.layers.Lambda(lambda x: x ** 2)(np.array([1.0, 2.0]))
    """

    def __init__(
        self,
        function: Callable[..., Any],
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(
                f"Lambda: argument `function` must be callable. Received: function={function!r}"
            )
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError(
                "Lambda: argument `arguments` must be a dict of keyword arguments or None. "
                f"Received: arguments={arguments!r}"
            )
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None
        if output_shape is not None and not callable(output_shape):
            output_shape = tree.map_shape_structure(lambda s: tuple(s), output_shape)
        self._output_shape = output_shape
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        self._fn_takes_mask = "mask" in params
        self._fn_takes_training = "training" in params

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_takes_mask:
            kwargs["mask"] = mask
        if self._fn_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, previous_mask)
        return self.mask

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        if self._output_shape is None or not args:
            from lamina.ops.dispatch import backend

            def run(*a: Any, **k: Any) -> Any:
                return self._call_with_autocast(a, k)

            return backend().core.compute_output_spec(run, *args, **kwargs)
        shape = self.compute_output_shape(tree.map_structure(lambda x: x.shape, args[0]))
        return tree.map_shape_structure(
            lambda s: SymbolicTensor(s, dtype=self.compute_dtype), shape
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        # Shapes given directly omit the batch axis: take it from the (first) input.
        batch = tree.flatten(input_shape)[0]
        return tree.map_shape_structure(lambda s: (batch, *s), self._output_shape)

    def get_config(self) -> dict[str, Any]:
        config = {
            k: v
            for k, v in super().get_config().items()
            if k in ("name", "trainable", "dtype")
        }
        config["function"] = serialize_lamina_object(self.function)
        output_shape = self._output_shape
        if callable(output_shape):
            output_shape = serialize_lamina_object(output_shape)
        elif output_shape is not None:
            output_shape = tree.map_shape_structure(lambda s: list(s), output_shape)
        config["output_shape"] = output_shape
        config["mask"] = (
            serialize_lamina_object(self.mask) if self.mask is not None else None
        )
        config["arguments"] = serialize_lamina_object(self.arguments)
        return config

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        custom_objects: dict[str, Any] | None = None,
        safe_mode: bool | None = None,
    ) -> Lambda:
        """Rebuild a Lambda. In safe mode (the default) its function, output shape and
        mask functions and any object in `arguments` must be ones the caller registered
        (`custom_objects`, a `CustomObjectScope`, `register_serializable`): a function a
        config names is refused like bytecode, built-in or not. ``safe_mode=False`` also
        accepts built-in functions and bytecode.

        Raises:
            ValueError: the config holds bytecode, or names a function the caller did not
                register, and safe mode is on; or the config breaks a config limit.
        """
        if not isinstance(config, dict):
            raise TypeError(
                f"Lambda.from_config: argument `config` must be a dict. Received: {config!r}"
            )
        with limits.checked(config, "this Lambda config"), CustomObjectScope(custom_objects):
            safe = in_safe_mode() if safe_mode is None else bool(safe_mode)
            return cls(**_revive_config(dict(config), safe))


def _revive_config(config: dict[str, Any], safe: bool) -> dict[str, Any]:
    """`config` with its function, shape, mask and arguments turned back into objects."""
    name = config.get("name")
    for arg in ("function", "output_shape", "mask"):
        if _is_bytecode(config.get(arg)) and safe:
            raise ValueError(_REFUSED.format(arg=arg))
    if "function" not in config:
        raise ValueError(
            f"Lambda.from_config: the config of {name!r} has no 'function'. "
            f"Received keys: {sorted(config)}"
        )

    def revive(arg: str) -> Any:
        if not safe:
            return deserialize_lamina_object(config[arg], safe_mode=False)
        with caller_objects_only(f"argument `{arg}` of Lambda {name!r}"):
            return deserialize_lamina_object(config[arg], safe_mode=True)

    config["function"] = revive("function")
    output_shape = config.get("output_shape")
    if isinstance(output_shape, dict):
        config["output_shape"] = revive("output_shape")
    elif output_shape is not None:
        config["output_shape"] = _shape_from_config(output_shape, name)
    if config.get("mask") is not None:
        config["mask"] = revive("mask")
    if config.get("arguments") is not None:
        config["arguments"] = revive("arguments")
    return config


def _shape_from_config(shape: Any, name: Any) -> Any:
    """An output shape given as (nested) lists of dims, as tuples."""
    if not isinstance(shape, (list, tuple)):
        raise ValueError(
            f"Lambda.from_config: `output_shape` of {name!r} must be a shape (a list of "
            f"dimensions), a list of shapes, or a function config. Received: {shape!r}"
        )
    return tree.map_shape_structure(lambda s: tuple(s), shape)
