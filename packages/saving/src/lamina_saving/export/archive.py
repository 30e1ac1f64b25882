"""`ExportArchive`: a TensorFlow SavedModel of chosen endpoints, for serving.

The backend's `export` namespace (`lamina.backend.kit.ExportOps`) says how. Where it traces
natively (tensorflow) the endpoints are `tf.function`s over the model's own tf.Variables
(the layers are trackables). Otherwise (jax, through jax2tf) each endpoint is a pure
function of the variable values that the backend converts, and the archive keeps the values
in its own tf.Variables. Either way plain TensorFlow loads the result with
`tf.saved_model.load` and needs no Lamina.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from lamina.backend.kit import ExportOps, Variable
from lamina.layers import Layer
from lamina_saving.export.specs import ExportSpec, normalize_signature, to_tf_specs

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"variables", "trainable_variables", "non_trainable_variables", "lamina_resources"}


def current_backend() -> str:
    """The name of the Lamina backend in use."""
    from lamina.backend import backend

    return str(backend())


def export_ops(what: str) -> ExportOps:
    """The backend's `export` namespace, or a ValueError saying `what` needs one.

    The message names the built-in backends that export; a third-party backend opts in by
    giving its `ModuleBackend` an ``export=`` namespace.
    """
    from lamina.backend import current

    ops = current().export
    if ops is None:
        raise ValueError(
            f"{what} needs the tensorflow or jax backend; the current backend is "
            f"{current_backend()!r}"
        )
    return ops


def import_tensorflow(ops: ExportOps) -> Any:
    """TensorFlow, or an ImportError that says how to install it."""
    try:
        import tensorflow as tf
    except ImportError as error:
        raise ImportError(
            "Exporting a TensorFlow SavedModel needs TensorFlow, which is not installed"
            + (
                ""
                if ops.traces_natively()
                else f" (the {current_backend()} backend converts to it)"
            )
            + ". Install it with: pip install tensorflow  (or tensorflow-cpu)."
        ) from error
    return tf


class ExportArchive:
    """Collects resources and endpoints, then writes a SavedModel with `write_out`.

    Example:
        >>> model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(2)])
        >>> archive = lamina.export.ExportArchive()
        >>> archive.track(model)
        >>> archive.add_endpoint(
        ...     "serve", lambda x: model(x, training=False),
        ...     input_signature=[lamina.InputSpec(shape=(None, 4), dtype="float32")])
        >>> archive.write_out("artifact")
        # writes the SavedModel folder artifact/ with the endpoint "serve"

    Raises:
        ValueError: the backend has no `export` namespace (built in: tensorflow, jax).
        ImportError: TensorFlow is not installed.
    """

    def __init__(self) -> None:
        self._ops = export_ops("ExportArchive (a TensorFlow SavedModel)")
        self._native = self._ops.traces_natively()
        self._tf = import_tensorflow(self._ops)
        self._root = self._tf.__internal__.tracking.AutoTrackable()
        self._resources: list[Any] = []
        self._endpoints: dict[str, Any] = {}
        self._specs: dict[str, list[Any]] = {}
        self._collections: dict[str, list[Any]] = {}
        # Lamina variable id -> (the Lamina variable, its tf.Variable in the artifact).
        self._variables: dict[int, tuple[Variable, Any]] = {}

    # --- resources -----------------------------------------------------------------------
    @property
    def variables(self) -> list[Any]:
        """The tf.Variables the artifact holds, in tracking order."""
        return [tf_var for _, tf_var in self._variables.values()]

    def _tf_variable(self, variable: Variable) -> Any:
        """The tf.Variable standing for `variable` in the artifact (made on first use)."""
        entry = self._variables.get(id(variable))
        if entry is not None:
            return entry[1]
        tf = self._tf
        tf_var = getattr(variable, "tf_variable", None)  # TensorFlow's own variables
        if tf_var is None:
            # TF variable names must start with a letter, digit or dot.
            name = re.sub(r"[^A-Za-z0-9_.\-/]", "_", str(variable.path)).lstrip("_-/")
            name = name or "variable"
            with tf.init_scope():
                tf_var = tf.Variable(variable.numpy(), trainable=variable.trainable, name=name)
        self._variables[id(variable)] = (variable, tf_var)
        return tf_var

    def track(self, resource: Any) -> Any:
        """Keep `resource`'s state in the artifact.

        Args:
            resource: a built Lamina `Layer` (a model included), or on the tensorflow
                backend any TensorFlow trackable (a `tf.Module`, a lookup table).

        Returns:
            `resource`, so ``archive.track(layer)`` can be used inline.

        Raises:
            ValueError: the layer is not built (its variables do not exist yet).
            TypeError: `resource` is neither.
        """
        if isinstance(resource, Layer):
            if not resource.built:
                raise ValueError(
                    f"Argument `resource` must be a built layer; layer {resource.name!r} is "
                    "not built. Call it on data or `build(input_shape)` first."
                )
            for variable in resource.variables:
                self._tf_variable(variable)
        elif not (self._native and isinstance(resource, self._tf.__internal__.tracking.Trackable)):
            raise TypeError(
                "Argument `resource` must be a Lamina Layer"
                + (" or a TensorFlow trackable" if self._native else "")
                + f". Received: {resource!r} (of type {type(resource).__name__})"
            )
        if all(r is not resource for r in self._resources):
            self._resources.append(resource)
        return resource

    def add_variable_collection(self, name: str, variables: list[Any]) -> None:
        """Expose `variables` on the loaded artifact as ``loaded.<name>``.

        Raises:
            ValueError: `name` is not an identifier or already used.
            TypeError: an entry is not a Lamina Variable (or a tf.Variable on tensorflow).
        """
        self._check_name(name)
        collection = []
        for v in variables:
            if isinstance(v, Variable):
                collection.append(self._tf_variable(v))
            elif self._native and isinstance(v, self._tf.Variable):
                collection.append(v)
            else:
                raise TypeError(
                    f"Argument `variables` must hold lamina.Variable objects. "
                    f"Received an entry of type {type(v).__name__}: {v!r}"
                )
        self._collections[name] = collection

    # --- endpoints -----------------------------------------------------------------------
    def _check_name(self, name: str) -> None:
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or name in _RESERVED:
            raise ValueError(
                "Argument `name` must be a Python identifier other than "
                f"{sorted(_RESERVED)}. Received: name={name!r}"
            )
        if name in self._endpoints or name in self._collections:
            raise ValueError(
                f"Argument `name` is already used in this archive. Received: name={name!r}"
            )

    def add_endpoint(
        self,
        name: str,
        fn: Callable[..., Any],
        input_signature: Any = None,
        jax2tf_kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Add `fn` as the artifact's method `name`, traced once for `input_signature`.

        On jax, `fn` may read only variables of tracked layers (their values become the
        endpoint's captured tf.Variables); assignments it makes are dropped.

        Args:
            name: the method name on the loaded artifact (``"serve"`` is the default
                signature).
            fn: the function; it takes one argument per `input_signature` entry.
            input_signature: one spec structure per positional argument (`lamina.InputSpec`
                with a shape, ``lamina.Input`` tensors, ``tf.TensorSpec``, ...).
            jax2tf_kwargs: extra `jax2tf.convert` arguments (jax backend only).

        Returns:
            The `tf.function` of the endpoint.

        Raises:
            ValueError: a bad `name` or `input_signature`, or jax2tf_kwargs off jax.
        """
        self._check_name(name)
        if not callable(fn):
            raise TypeError(f"Argument `fn` must be callable. Received: fn={fn!r}")
        if input_signature is None:
            raise ValueError(
                f"Argument `input_signature` is required for endpoint {name!r}: the endpoint "
                "is traced once for fixed input shapes and dtypes. Received: None"
            )
        signature = normalize_signature(input_signature)
        if self._native:
            self._check_no_conversion_options(jax2tf_kwargs)
            traced = self._tf.function(fn, input_signature=to_tf_specs(signature), autograph=False)
        else:
            traced = self._converted_endpoint(fn, signature, jax2tf_kwargs)
        return self._register(name, traced, signature)

    def track_and_add_endpoint(
        self,
        name: str,
        resource: Layer,
        input_signature: Any = None,
        jax2tf_kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Track `resource` and serve its inference call (``training=False``) as `name`.

        On jax the call runs through `resource.stateless_call`, a pure function of the
        layer's variable values.
        """
        self._check_name(name)
        if not isinstance(resource, Layer):
            raise TypeError(
                "Argument `resource` must be a Lamina Layer or Model. "
                f"Received: {resource!r} (of type {type(resource).__name__})"
            )
        self.track(resource)
        if input_signature is None:
            from lamina_saving.export.specs import infer_signature

            signature = infer_signature(resource)
        else:
            signature = normalize_signature(input_signature, resource.input_dtype)
        if self._native:
            self._check_no_conversion_options(jax2tf_kwargs)

            def call(*args: Any) -> Any:
                return resource(*args, training=False)

            traced = self._tf.function(
                call, input_signature=to_tf_specs(signature), autograph=False
            )
        else:
            traced = self._converted_layer_endpoint(resource, signature, jax2tf_kwargs)
        return self._register(name, traced, signature)

    def _check_no_conversion_options(self, jax2tf_kwargs: Any) -> None:
        if jax2tf_kwargs:
            raise ValueError(
                "Argument `jax2tf_kwargs` applies only where the backend converts endpoints "
                f"(jax); the {current_backend()!r} backend traces them natively. "
                f"Received: jax2tf_kwargs={jax2tf_kwargs!r}"
            )

    def _register(self, name: str, traced: Any, signature: list[Any]) -> Any:
        # Trace now, so a function that cannot run on these inputs fails here, by name.
        if self._native:
            traced.get_concrete_function()
        else:
            try:
                traced.get_concrete_function()
            except ValueError as error:  # the backend's conversion refused these inputs
                raise ValueError(
                    f"Endpoint {name!r}: {error} Received signature: {signature!r}"
                ) from error
        self._endpoints[name] = traced
        self._specs[name] = signature
        return traced

    def _converted_endpoint(
        self, fn: Callable[..., Any], signature: list[Any], jax2tf_kwargs: Any
    ) -> Any:
        from lamina.backend.kit import StatelessScope

        entries = list(self._variables.values())
        lamina_vars = [v for v, _ in entries]
        tf_vars = [t for _, t in entries]

        def pure(values: list[Any], *args: Any) -> Any:
            with StatelessScope(state_mapping=list(zip(lamina_vars, values))):
                return fn(*args)

        converted = self._ops.convert(pure, 1, signature, jax2tf_kwargs)
        tf = self._tf

        def serve(*args: Any) -> Any:
            return converted([tf.convert_to_tensor(v) for v in tf_vars], *args)

        return tf.function(serve, input_signature=to_tf_specs(signature), autograph=False)

    def _converted_layer_endpoint(
        self, layer: Layer, signature: list[Any], jax2tf_kwargs: Any
    ) -> Any:
        trainable = [self._tf_variable(v) for v in layer.trainable_variables]
        non_trainable = [self._tf_variable(v) for v in layer.non_trainable_variables]

        def pure(trainable_values: list[Any], non_trainable_values: list[Any], *args: Any) -> Any:
            outputs, _ = layer.stateless_call(
                trainable_values, non_trainable_values, *args, training=False
            )
            return outputs

        converted = self._ops.convert(pure, 2, signature, jax2tf_kwargs)
        tf = self._tf

        def serve(*args: Any) -> Any:
            return converted(
                [tf.convert_to_tensor(v) for v in trainable],
                [tf.convert_to_tensor(v) for v in non_trainable],
                *args,
            )

        return tf.function(serve, input_signature=to_tf_specs(signature), autograph=False)

    # --- writing -------------------------------------------------------------------------
    def write_out(self, filepath: Any, options: Any = None, verbose: bool = True) -> None:
        """Write the SavedModel directory at `filepath`.

        The ``serving_default`` signature is the ``serve`` endpoint when there is one,
        otherwise the first endpoint added.

        Args:
            filepath: the directory to write (str or path-like).
            options: a `tf.saved_model.SaveOptions`.
            verbose: print the endpoints and their input and output specs.

        Raises:
            ValueError: no endpoint was added.
        """
        if not self._endpoints:
            raise ValueError(
                "The archive has no endpoint to write. Add one with `add_endpoint` or "
                "`track_and_add_endpoint` before `write_out`."
            )
        if not isinstance(filepath, (str, os.PathLike)):
            raise TypeError(
                f"Argument `filepath` must be a str or path-like. Received: {filepath!r}"
            )
        tf = self._tf
        root = self._root
        root.lamina_resources = list(self._resources)
        all_vars = self.variables
        root.variables = list(all_vars)
        root.trainable_variables = [v for v in all_vars if v.trainable]
        root.non_trainable_variables = [v for v in all_vars if not v.trainable]
        for name, collection in self._collections.items():
            setattr(root, name, list(collection))
        for name, fn in self._endpoints.items():
            setattr(root, name, fn)
        default = "serve" if "serve" in self._endpoints else next(iter(self._endpoints))
        signatures = {"serving_default": self._endpoints[default].get_concrete_function()}
        tf.saved_model.save(root, os.fspath(filepath), signatures=signatures, options=options)
        if verbose:
            print(self._describe(os.fspath(filepath), default))

    def _describe(self, path: str, default: str) -> str:
        def fmt(spec: Any) -> str:
            if isinstance(spec, ExportSpec):
                return f"TensorSpec(shape={spec.shape}, dtype={spec.dtype}, name={spec.name!r})"
            if isinstance(spec, dict):
                return "{" + ", ".join(f"{k!r}: {fmt(v)}" for k, v in spec.items()) + "}"
            if isinstance(spec, (list, tuple)):
                return "[" + ", ".join(fmt(v) for v in spec) + "]"
            return repr(spec)

        lines = [f"Saved artifact at {path!r}. Endpoints:"]
        for name, fn in self._endpoints.items():
            concrete = fn.get_concrete_function()
            mark = "  (serving_default)" if name == default else ""
            lines.append(f"* {name}{mark}")
            lines.append(f"    inputs: {fmt(self._specs[name])}")
            lines.append(f"    outputs: {concrete.structured_outputs!r}")
        lines.append(f"Variables: {len(self._variables)}")
        return "\n".join(lines)
