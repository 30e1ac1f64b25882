"""`Layer`: an `Operation` with state (variables, sublayers) that builds itself on first call.

The base class comes from the active backend's `layer_mixin`, so a layer is a
``torch.nn.Module`` on PyTorch and a TF ``Trackable`` on TensorFlow; the core only calls the
mixin's hooks (`lamina.backend.layer_mixin.LayerMixin`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from lamina import tree
from lamina.backend.config import AUTOCAST_DTYPE, NAME_SCOPE, name_scope
from lamina.backend.layer_mixin import LayerMixin
from lamina.backend.registry import current_if_any
from lamina.backend.scoped import ScopedVar
from lamina.distribution.strategies import distribution, relayout_output
from lamina.dtype_policies import policy as policies
from lamina.layers.input_spec import assert_input_compatibility
from lamina.layers.tracking import Tracker
from lamina.ops import dtypes
from lamina.ops.node import Node
from lamina.ops.operation import Operation
from lamina.ops.symbolic import SymbolicTensor, any_symbolic
from lamina.random.seed_generator import SeedGenerator
from lamina.variables.offers import aligned_empty, arrays_offered, offer
from lamina.variables.scopes import StatelessScope, get_stateless_scope
from lamina.variables.variable import ALLOCATION_CHECK, Variable

# (outermost layer of the current call, its training flag): nested calls inherit both.
_CALL_CONTEXT: ScopedVar[tuple[Any, Any] | None] = ScopedVar(
    "lamina_call_context", default=None
)
_INITIALIZERS_SKIPPED: ScopedVar[bool] = ScopedVar(
    "lamina_initializers_skipped", default=False
)
_STRUCTURE_VERSION = [0]
"""Bumped whenever any layer tracks or untracks something, which is when a cached
`_flatten_layers` may be stale."""
_LOSS_ADDED = [False]
"""Set by the first `add_loss` anywhere: until then no layer holds a loss, and a call
need not walk its layers to clear them."""
_KEPT_AS_GIVEN: dict[tuple[Any, ...], bool] = {}
"""Per (type, dtype, compute dtype, autocast) of a layer's first input that is not a
container: whether `_convert_input` returns it as it is (a tensor already in the compute
dtype, an int tensor). The answer depends on nothing else, and asking costs a dict lookup
instead of a dtype check on every call."""
_LEGACY_SHAPE_KWARGS = ("input_shape", "batch_input_shape", "batch_size", "input_dim")
_JSON_TYPES = (str, int, float, bool, type(None))
_PLAIN_VALUES = frozenset({bool, int, float, str, bytes, type(None)})
"""Attribute values no tracking rule matches and no backend's layer mixin registers (a
torch parameter or module): `Layer.__setattr__` sets them directly."""


def _backend_mixin() -> type:
    backend = current_if_any()
    return backend.layer_mixin if backend is not None else LayerMixin


def _is_metric(value: Any) -> bool:
    # A metric exists only once its module is imported; no import needed to rule one out.
    module = sys.modules.get("lamina.metrics.metric")
    return module is not None and isinstance(value, module.Metric)


def get_mask(x: Any) -> Any:
    """The mask a masking layer attached to tensor `x`, or None."""
    return getattr(x, "_lamina_mask", None)  # plain getattr: torch.compile traces it


@contextlib.contextmanager
def initializers_skipped(
    check_allocation: Callable[[str, tuple[int, ...], str], None] | None = None,
) -> Iterator[None]:
    """Float weights created inside start as zeros instead of running their initializers.

    For loaders that assign every weight right after creating the model (`load_model`):
    drawing random values for a large model costs more than reading its saved ones.
    `check_allocation(path, shape, dtype)`, when given, runs before any variable created
    inside allocates its value and raises to refuse it: sizes in a file's config must not
    allocate more than the file's weights can fill.
    """
    token = _INITIALIZERS_SKIPPED.set(True)
    check_token = None if check_allocation is None else ALLOCATION_CHECK.set(check_allocation)
    try:
        with arrays_offered():  # the zeros (`_zeros`): a variable may keep them uncopied
            yield
    finally:
        if check_token is not None:
            ALLOCATION_CHECK.reset(check_token)
        _INITIALIZERS_SKIPPED.reset(token)


def _zeros(shape: Any, dtype: Any = None) -> np.ndarray[Any, Any]:
    # Untouched pages until written: a variable that keeps them (`offer`) costs no copy.
    array = aligned_empty(tuple(shape), dtypes.to_numpy_dtype(dtype), zeroed=True)
    offer(array)
    return array


def _mask_of(inputs: Any) -> Any:
    """The mask(s) attached to `inputs` (same structure), or None when there are none."""
    if not isinstance(inputs, (list, tuple, dict)):
        return get_mask(inputs)
    masks = tree.map_structure(get_mask, inputs)
    return None if all(m is None for m in tree.flatten(masks)) else masks


def _convert_input(x: Any, compute: str, autocast: bool) -> Any:
    """One input of `Layer.__call__`: NumPy as a tensor, a float cast to `compute` when
    `autocast`."""
    if isinstance(x, SymbolicTensor):
        if autocast and x.dtype in dtypes.FLOATS and x.dtype != compute:
            from lamina.ops.core.conversion import cast

            return cast(x, compute)
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        from lamina.ops.dispatch import to_tensor

        kind = dtypes.dtype_of(x)
        return to_tensor(x, compute if autocast and kind in dtypes.FLOATS else kind)
    if not autocast or x is None or isinstance(x, Variable):
        return x
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return x
    kind = dtypes.dtype_of(x)
    if kind in dtypes.FLOATS and kind != compute:
        from lamina.ops.core.conversion import cast

        mask = get_mask(x)
        x = cast(x, compute)
        if mask is not None:
            set_mask(x, mask)
    return x


def set_mask(x: Any, mask: Any) -> None:
    """Attach `mask` to `x` where the tensor type allows attributes (not JAX arrays)."""
    with contextlib.suppress(AttributeError):
        x._lamina_mask = mask


@functools.cache
def _call_signature(cls: Any) -> tuple[bool, bool, Any]:
    """Whether `cls.call` takes `training` and `mask`, and `training`'s default."""
    params = inspect.signature(cls.call).parameters
    training = params.get("training")
    default = training.default if training is not None else None
    if default is inspect.Parameter.empty:
        default = None
    return training is not None, "mask" in params, default


@functools.cache
def _init_signature(cls: Any) -> tuple[inspect.Signature, str | None, str | None]:
    """`cls.__init__`'s signature and the names of its ``*args`` and ``**kwargs`` (None
    where it has none): worked out once per class, as every construction binds to it."""
    signature = inspect.signature(cls.__init__)
    kinds = {p.kind: name for name, p in signature.parameters.items()}
    return (
        signature,
        kinds.get(inspect.Parameter.VAR_POSITIONAL),
        kinds.get(inspect.Parameter.VAR_KEYWORD),
    )


def _json_like(value: Any) -> bool:
    if isinstance(value, _JSON_TYPES):
        return True
    if isinstance(value, (list, tuple)):
        return all(_json_like(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    return False


class Layer(_backend_mixin(), Operation):  # type: ignore[misc]
    """The base of every layer: state, build-on-first-call, masks, losses, configs.

    Subclasses create weights in `build(input_shape)` with `add_weight` (or in `__init__`
    when the shapes are known), and compute in `call(inputs, training=None, mask=None)`.

    Args:
        activity_regularizer: applied to the outputs; its value joins `losses`.
        trainable: whether the layer's weights are updated by training.
        dtype: a dtype policy or its name (``"mixed_float16"``); default: the global one.
        autocast: whether float inputs and variables are cast to the compute dtype.
        name: a unique name (default: from the class name).

    Example:
        >>> class Scale(lamina.layers.Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        ...     def call(self, x):
        ...         return x * self.w
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Layer:
        obj = object.__new__(cls)
        # Remember simple constructor arguments, so a subclass without its own get_config
        # still round-trips through configs.
        auto: dict[str, Any] | None = None
        kind: Any = cls  # a class is hashable, as the per-class cache needs
        try:
            signature, var_positional, var_keyword = _init_signature(kind)
            bound = signature.bind(None, *args, **kwargs)
            bound.apply_defaults()
            auto = dict(bound.arguments)
            auto.pop("self", None)
            extra: dict[str, Any] = auto.pop(var_keyword, {}) if var_keyword else {}
            if var_positional and auto.pop(var_positional, ()):
                auto = None
            if auto is not None:
                auto.update(extra)
                if not _json_like(auto):
                    auto = None
        except TypeError:
            auto = None
        object.__setattr__(obj, "_auto_config", auto)
        return obj

    def __init__(
        self,
        *,
        activity_regularizer: Any = None,
        trainable: bool = True,
        dtype: Any = None,
        autocast: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        unknown = sorted(set(kwargs) - set(_LEGACY_SHAPE_KWARGS))
        if unknown:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                f"{ {k: kwargs[k] for k in unknown} }"
            )
        self._backend_init()
        Operation.__init__(self, name=name)
        setattr_ = object.__setattr__
        setattr_(self, "_tracker", None)
        setattr_(self, "_trainable_variables", [])
        setattr_(self, "_non_trainable_variables", [])
        setattr_(self, "_losses", [])
        setattr_(self, "_build_shapes", None)
        setattr_(self, "_deferred_restore", None)
        self._tracker = Tracker(
            {
                "layers": lambda v: isinstance(v, Layer),
                "variables": lambda v: isinstance(v, Variable),
                "metrics": _is_metric,
                "seed_generators": lambda v: isinstance(v, SeedGenerator),
            },
            on_change=self._on_tracked_change,
        )
        self.built = False
        self._trainable = bool(trainable)
        self.dtype_policy = policies.get(dtype)
        self.autocast = bool(autocast)
        self.input_spec: Any = None
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        self.activity_regularizer = _get_regularizer(activity_regularizer)
        self._input_shape_arg = _legacy_input_shape(kwargs)
        cls: Any = type(self)
        self._has_training, self._has_mask, self._training_default = _call_signature(cls)

    # --- tracking ------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if type(value) in _PLAIN_VALUES:  # most attributes: nothing to track or register
            object.__setattr__(self, name, value)
            return
        tracker = self.__dict__.get("_tracker")
        if tracker is not None and not name.startswith("__"):
            value = tracker.track(value)
            if isinstance(value, Layer) and self._deferred_restore is not None:
                self._deferred_restore.layer_tracked(self, name, value)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        value = getattr(self, name)
        super().__delattr__(name)
        tracker = self.__dict__.get("_tracker")
        if tracker is not None:
            tracker.untrack(value)

    def _on_tracked_change(self) -> None:
        _STRUCTURE_VERSION[0] += 1
        for variable in self._tracker.collections["variables"]:
            self._own_variable(variable)
        if self._deferred_restore is not None:  # e.g. a layer appended to a tracked list
            for layer in self._tracker.collections["layers"]:
                if layer._deferred_restore is None:
                    self._deferred_restore.layer_tracked(self, None, layer)
        if self.built:
            self._backend_track_variables(self.variables)

    def _own_variable(self, variable: Variable) -> None:
        if any(v is variable for v in self._trainable_variables + self._non_trainable_variables):
            return
        (self._trainable_variables if variable.trainable else self._non_trainable_variables).append(
            variable
        )

    @property
    def _layers(self) -> list[Layer]:
        return list(self._tracker.collections["layers"])

    @property
    def _metrics(self) -> list[Any]:
        return list(self._tracker.collections["metrics"])

    @property
    def _seed_generators(self) -> list[SeedGenerator]:
        return list(self._tracker.collections["seed_generators"])

    def _flatten_layers(self, include_self: bool = True) -> list[Layer]:
        """This layer and every nested layer, depth first, each once.

        Every call of the outermost layer needs it, so it is cached until any layer's
        tracked structure changes.
        """
        cached = self.__dict__.get("_flat_layers")
        if cached is None or cached[0] != _STRUCTURE_VERSION[0]:
            cached = (_STRUCTURE_VERSION[0], self._walk_layers())
            object.__setattr__(self, "_flat_layers", cached)
        return list(cached[1]) if include_self else cached[1][1:]

    def _walk_layers(self) -> list[Layer]:
        out: list[Layer] = []
        seen: set[int] = set()

        def visit(layer: Layer) -> None:
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            for child in layer._layers:
                visit(child)

        visit(self)
        return out

    # --- weights -------------------------------------------------------------------------
    def add_weight(
        self,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        aggregation: str = "none",
        synchronization: str = "auto",
        name: str | None = None,
    ) -> Variable:
        """Create a variable owned by this layer (its path is ``<layer>/<name>``).

        Args:
            shape: the variable's shape (default scalar).
            initializer: an initializer object, name or callable; default: glorot_uniform
                for floats, zeros otherwise.
            dtype: default: the layer's variable dtype.
            trainable: whether optimizers update it.
            autocast: whether mixed-precision calls read it in the compute dtype.
            regularizer: a regularizer whose value on the variable joins `losses`.
            constraint: applied after each optimizer update.
            aggregation: how replicas combine it.
            synchronization: when replicas sync it.
            name: the variable's name.

        Returns:
            The new `lamina.Variable`.
        """
        shape = () if shape is None else shape
        dtype = dtypes.standardize_dtype(dtype) if dtype is not None else self.variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if dtype in dtypes.FLOATS else "zeros"
        init = initializer
        if not callable(initializer):
            from lamina import initializers

            init = initializers.get(initializer)
        if constraint is not None and not callable(constraint):
            from lamina import constraints

            constraint = constraints.get(constraint)
        if _INITIALIZERS_SKIPPED.get() and dtype in dtypes.FLOATS:
            init = _zeros  # the loader assigns the saved value next
        if self._deferred_restore is not None:
            # Weights were loaded before this layer was built: start from the saved value.
            saved = self._deferred_restore.saved_value(self, name or "variable", tuple(shape))
            init = init if saved is None else saved
        with self._name_scope():
            variable = Variable(
                init,
                shape=shape,
                dtype=dtype,
                trainable=trainable,
                autocast=autocast,
                aggregation=aggregation,
                synchronization=synchronization,
                name=name or "variable",
                constraint=constraint,
            )
        variable.regularizer = _get_regularizer(regularizer)
        self._own_variable(variable)
        self._tracker._seen.add(id(variable))
        if self.built:
            self._backend_track_variables(self.variables)
        return variable

    add_variable = add_weight

    @property
    def trainable(self) -> bool:
        """Whether the weights train; setting it applies to every nested layer too."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        value = bool(value)
        object.__setattr__(self, "_trainable", value)
        for variable in self._trainable_variables:
            variable.trainable = value
        for layer in self._layers:
            layer.trainable = value
        self._backend_track_variables(self.variables)

    @property
    def weights(self) -> list[Variable]:
        """Own weights (trainable ones first), then each nested layer's, each once."""
        out: list[Variable] = []
        seen: set[int] = set()
        for v in self._trainable_variables + self._non_trainable_variables:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        for layer in self._layers:
            for v in layer.weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def trainable_weights(self) -> list[Variable]:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Variable]:
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def variables(self) -> list[Variable]:
        """All state: the weights plus random-seed states (metrics keep their own)."""
        return self.weights + self._seed_variables()

    @property
    def trainable_variables(self) -> list[Variable]:
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Variable]:
        return self.non_trainable_weights + self._seed_variables()

    def _seed_variables(self) -> list[Variable]:
        out: list[Variable] = []
        seen: set[int] = set()
        for layer in self._flatten_layers():
            for gen in layer._seed_generators:
                if id(gen.state) not in seen:
                    seen.add(id(gen.state))
                    out.append(gen.state)
        return out

    @property
    def metrics(self) -> list[Any]:
        """Metric objects tracked on this layer and its nested layers."""
        return self._tracked_metrics()

    def _tracked_metrics(self) -> list[Any]:
        # A method as well as the property: a model's `metrics` adds its own to these, and
        # torch.compile cannot trace a call of the property's getter (`fget`).
        out: list[Any] = []
        for layer in self._flatten_layers():
            out.extend(m for m in layer._metrics if all(m is not o for o in out))
        return out

    @property
    def metrics_variables(self) -> list[Variable]:
        return [v for m in self.metrics for v in m.variables]

    def get_weights(self) -> list[np.ndarray[Any, Any]]:
        """The weights as NumPy arrays, in `weights` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights: list[Any]) -> None:
        """Assign NumPy arrays to the weights, in `weights` order.

        Raises:
            ValueError: the number of arrays or a shape differs.
        """
        own = self.weights
        if len(weights) != len(own):
            raise ValueError(
                f"Layer {self.name!r} expects {len(own)} weight arrays in `weights`. "
                f"Received: {len(weights)} arrays"
            )
        for variable, value in zip(own, weights):
            shape = tuple(np.shape(value))
            if shape != variable.shape:
                raise ValueError(
                    f"Layer {self.name!r} weight {variable.path!r} has shape "
                    f"{variable.shape}. Received: an array of shape {shape}"
                )
            variable.assign(value)

    def count_params(self) -> int:
        """The number of scalars in the weights.

        Raises:
            ValueError: the layer is not built yet (its weights do not exist).
        """
        if not self.built:
            raise ValueError(
                f"Layer {self.name!r} is not built yet, so it has no weights to count. "
                "Call it on data or call `build(input_shape)` first."
            )
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    @property
    def own_variables(self) -> list[Variable]:
        """This layer's own variables (not nested layers'), in the order
        `save_own_variables` writes them: what a weights file holds for this layer."""
        return self._trainable_variables + self._non_trainable_variables

    def save_own_variables(self, store: Any) -> None:
        """Write this layer's own variables (not nested ones) as ``"0"``, ``"1"``..."""
        for i, variable in enumerate(self.own_variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store: Any) -> None:
        """Read what `save_own_variables` wrote, checking the count and every shape.

        Raises:
            ValueError: a variable is missing or extra, or a shape differs.
        """
        own = self.own_variables
        if len(store) != len(own):
            raise ValueError(
                f"Layer {self.name!r} expects {len(own)} variables "
                f"({[v.name for v in own]}), but the saved state has {len(store)}."
            )
        for i, variable in enumerate(own):
            value = store[str(i)]
            shape = tuple(np.shape(value))
            if shape != variable.shape:
                raise ValueError(
                    f"Layer {self.name!r}, variable {variable.name!r}: expected shape "
                    f"{variable.shape}, got {shape} in the saved state."
                )
            variable.assign(np.asarray(value))

    # --- dtypes --------------------------------------------------------------------------
    @property
    def dtype(self) -> str:
        """The variable dtype (as in Keras 3)."""
        return self.dtype_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self.dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self.dtype_policy.variable_dtype

    @property
    def input_dtype(self) -> str:
        """The dtype float inputs are cast to."""
        return self.dtype_policy.compute_dtype

    # --- build and call ------------------------------------------------------------------
    def build(self, input_shape: Any = None) -> None:
        """Create the weights for inputs of `input_shape`. The default creates none."""
        self.built = True

    def get_build_config(self) -> dict[str, Any] | None:
        """The input shapes the layer was built with, to rebuild it before loading weights."""
        if self._build_shapes is None:
            return None
        return {"input_shape": self._build_shapes}

    def build_from_config(self, config: dict[str, Any] | None) -> None:
        """Build from `get_build_config`'s output."""
        if config and not self.built:
            shape = (
                tree.map_shape_structure(lambda s: tuple(s), config["input_shape"])
                if config.get("input_shape") is not None
                else None
            )
            self._build(shape)

    def _name_scope(self) -> contextlib.AbstractContextManager[None]:
        """Enter this layer's name scope unless it is already the innermost one."""
        scopes = NAME_SCOPE.get()
        if scopes and scopes[-1] == self.name:
            return contextlib.nullcontext()
        return name_scope(self.name)

    def _build(self, shapes: Any) -> None:
        with self._name_scope():
            self.build(shapes)
        object.__setattr__(self, "built", True)
        object.__setattr__(self, "_build_shapes", shapes)
        self._backend_track_variables(self.variables)

    def _maybe_build(self, args: tuple[Any, ...]) -> None:
        if self.built or not args:
            return
        shapes = tree.map_structure(
            lambda x: tuple(x.shape) if hasattr(x, "shape") else None, args[0]
        )
        self._build(shapes)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = self._convert_inputs(args)
        context = _CALL_CONTEXT.get()
        given_kwargs = dict(kwargs)
        if self._has_training:
            training = kwargs.get("training")
            if training is None:
                training = context[1] if context is not None else None
            if training is None:
                training = self._training_default
            kwargs["training"] = training
        else:
            training = kwargs.pop("training", None)
            if training is None and context is not None:
                training = context[1]
        mask = None
        if self._has_mask or self.supports_masking:
            mask = kwargs.get("mask")
            if mask is None and args:
                mask = _mask_of(args[0])
            if self._has_mask:
                kwargs["mask"] = mask
            else:
                kwargs.pop("mask", None)
        if self.input_spec is not None and args:
            self._check_input_spec(args[0])
        if any_symbolic(*args, *kwargs.values()):
            return self._symbolic_call(args, kwargs, mask, given_kwargs)
        # Inside another layer's call with the same `training`, the context stays as it is.
        token = (
            None
            if context is not None and training is context[1]
            else _CALL_CONTEXT.set((self if context is None else context[0], training))
        )
        # This layer's name scope (as `_name_scope`), set here: a context manager per call
        # costs more than the rest of a small layer's bookkeeping.
        scopes = NAME_SCOPE.get()
        scope = None if scopes and scopes[-1] == self.name else NAME_SCOPE.set((*scopes, self.name))
        try:
            if context is None and _LOSS_ADDED[0]:
                for layer in self._flatten_layers():
                    layer._losses.clear()
            if not self.built:
                self._maybe_build(args)
            outputs = self._call_with_autocast(args, kwargs)
            if distribution() is not None:  # a layout for "<layer path>/output"?
                outputs = relayout_output("/".join(NAME_SCOPE.get()), outputs)
        finally:
            if scope is not None:
                NAME_SCOPE.reset(scope)
            if token is not None:
                _CALL_CONTEXT.reset(token)
        if self.activity_regularizer is not None:
            for output in tree.flatten(outputs):
                self.add_loss(self.activity_regularizer(output))
        if self.supports_masking and args:
            out_mask = self.compute_mask(args[0], mask)
            if out_mask is not None:
                tree.map_structure(set_mask, outputs, out_mask) if tree.is_nested(
                    outputs
                ) else set_mask(outputs, out_mask)
        return outputs

    def _check_input_spec(self, inputs: Any) -> None:
        """`assert_input_compatibility`, skipped for a tensor like the last one accepted."""
        spec = self.input_spec
        signature = (
            None
            if isinstance(inputs, (list, tuple, dict))
            else (type(inputs), getattr(inputs, "shape", None), getattr(inputs, "dtype", None))
        )
        accepted = self.__dict__.get("_accepted_input")
        if (
            signature is not None
            and accepted is not None
            and accepted[0] is spec
            and accepted[1] == signature
        ):
            return
        assert_input_compatibility(spec, inputs, self.name)
        object.__setattr__(self, "_accepted_input", (spec, signature))

    def _call_with_autocast(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        policy = self.dtype_policy
        if self.autocast and policy.compute_dtype != policy.variable_dtype:
            token = AUTOCAST_DTYPE.set(policy.compute_dtype)
            try:
                return self.call(*args, **kwargs)
            finally:
                AUTOCAST_DTYPE.reset(token)
        return self.call(*args, **kwargs)

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """NumPy inputs become tensors; float inputs take the compute dtype (autocast)."""
        if not args:
            return args
        compute = self.dtype_policy.compute_dtype
        autocast = self.autocast
        first = args[0]
        kind = (type(first), getattr(first, "dtype", None), compute, autocast)
        try:
            if _KEPT_AS_GIVEN[kind]:
                return args
        except (KeyError, TypeError):  # not seen yet, or an unhashable dtype
            pass
        if tree.is_nested(first):
            first = tree.map_structure(lambda x: _convert_input(x, compute, autocast), first)
        else:
            converted = _convert_input(first, compute, autocast)
            with contextlib.suppress(TypeError):
                _KEPT_AS_GIVEN[kind] = converted is first
            first = converted
        return (first, *args[1:])

    def _symbolic_call(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], mask: Any, given: dict[str, Any]
    ) -> Any:
        with self._name_scope():
            if not self.built and args:
                self._maybe_build(args)
            outputs = self.compute_output_spec(*args, **kwargs)
        if self.supports_masking and args:
            out_mask = self.compute_mask(args[0], mask)
            for out, m in (
                zip(tree.flatten(outputs), tree.flatten(out_mask))
                if tree.is_nested(outputs)
                else [(outputs, out_mask)]
            ):
                if isinstance(out, SymbolicTensor) and m is not None:
                    set_mask(out, m)
        # Record the kwargs as given: `training` and masks are decided again at each run.
        Node(self, call_args=args, call_kwargs=given, outputs=outputs)
        return outputs

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The computation. Subclasses override it."""
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement `call`.")

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """Output shapes and dtypes: from `compute_output_shape` when a subclass defines it,
        otherwise by tracing `call` on the backend."""
        if type(self).compute_output_shape is not Layer.compute_output_shape and args:
            first = args[0]
            shapes = tree.map_structure(lambda x: x.shape, first)
            out_shape = self.compute_output_shape(shapes)
            dtype = self.compute_dtype
            if not tree.is_nested(first) and first.dtype not in dtypes.FLOATS:
                dtype = self.compute_dtype
            return tree.map_shape_structure(lambda s: SymbolicTensor(s, dtype=dtype), out_shape)
        from lamina.ops.dispatch import backend

        def run(*a: Any, **k: Any) -> Any:
            return self._call_with_autocast(a, k)

        return backend().core.compute_output_spec(run, *args, **kwargs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Output shape(s) for `input_shape`, found by tracing `call` symbolically."""
        inputs = tree.map_shape_structure(
            lambda s: SymbolicTensor(s, dtype=self.compute_dtype), input_shape
        )
        spec = self.compute_output_spec(inputs)
        return tree.map_structure(lambda t: t.shape, spec)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The output mask; masking layers override it. The default passes it on."""
        return previous_mask if self.supports_masking else None

    def stateless_call(
        self,
        trainable_variables: list[Any],
        non_trainable_variables: list[Any],
        *args: Any,
        return_losses: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Run the layer as a pure function of the given variable values.

        Returns:
            ``(outputs, non_trainable_values)``, plus the losses when `return_losses`.
            Nothing is assigned: moving statistics and seeds come back as new values.

        Raises:
            ValueError: the number of values differs from the layer's variables.
        """
        trainable = self.trainable_variables
        non_trainable = self.non_trainable_variables
        for arg, given, own in (
            ("trainable_variables", trainable_variables, trainable),
            ("non_trainable_variables", non_trainable_variables, non_trainable),
        ):
            if len(given) != len(own):
                raise ValueError(
                    f"Argument `{arg}` of {self.name}.stateless_call must have "
                    f"{len(own)} values. Received: {len(given)}"
                )
        mapping = list(zip(trainable, trainable_variables)) + list(
            zip(non_trainable, non_trainable_variables)
        )
        with StatelessScope(state_mapping=mapping, collect_losses=return_losses) as scope:
            outputs = self(*args, **kwargs)
            losses = self.losses if return_losses else None
        new_values = [
            scope.get_current_value(v) if scope.get_current_value(v) is not None else v.value
            for v in non_trainable
        ]
        if return_losses:
            return outputs, new_values, losses
        return outputs, new_values

    # --- losses --------------------------------------------------------------------------
    def add_loss(self, loss: Any) -> None:
        """Add a scalar to `losses` (collected into the training loss)."""
        scope = get_stateless_scope()
        if scope is not None and scope.collect_losses:
            scope.add_loss(loss)
            return
        _LOSS_ADDED[0] = True
        self._losses.append(loss)

    @property
    def losses(self) -> list[Any]:
        """Losses added during the last call, plus the weight regularization penalties."""
        out: list[Any] = []
        for layer in self._flatten_layers():
            out.extend(layer._losses)
            for variable in layer._trainable_variables + layer._non_trainable_variables:
                if variable.regularizer is not None:
                    out.append(variable.regularizer(variable.value))
        return out

    # --- graph ---------------------------------------------------------------------------
    @property
    def input(self) -> Any:
        """The symbolic input of the layer's first call."""
        if not self.inbound_nodes:
            raise AttributeError(f"Layer {self.name!r} has never been called: it has no input.")
        node = self.inbound_nodes[0]
        return node.call_args[0] if node.call_args else node.outputs

    @property
    def output(self) -> Any:
        """The symbolic output of the layer's first call."""
        if not self.inbound_nodes:
            raise AttributeError(f"Layer {self.name!r} has never been called: it has no output.")
        return self.inbound_nodes[0].outputs

    # --- config --------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that recreate this layer (weights not included)."""
        config: dict[str, Any] = dict(self._auto_config or {})
        config.update(
            {
                "name": self.name,
                "trainable": self.trainable,
                "dtype": policies.serialize(self.dtype_policy),
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        """Recreate a layer from `get_config`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _get_regularizer(identifier: Any) -> Callable[[Any], Any] | None:
    if identifier is None:
        return None
    if callable(identifier):
        result_fn: Callable[[Any], Any] = identifier
        return result_fn
    from lamina import regularizers

    result: Callable[[Any], Any] | None = regularizers.get(identifier)
    return result


def _legacy_input_shape(kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """``input_shape=`` / ``input_dim=`` on a Sequential model's first layer, as a batch shape."""
    if "batch_input_shape" in kwargs:
        return tuple(kwargs["batch_input_shape"])
    if "input_shape" in kwargs:
        return (kwargs.get("batch_size"), *tuple(kwargs["input_shape"]))
    if "input_dim" in kwargs:
        return (kwargs.get("batch_size"), int(kwargs["input_dim"]))
    return None
