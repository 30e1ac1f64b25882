"""`JaxLayer` and `FlaxLayer`: pure JAX functions and Flax linen modules as layers (JAX).

The functions' parameters and state become Lamina variables (trainable and non-trainable,
one per leaf of their pytrees), so a jitted `fit` differentiates and updates them like any
layer's weights, and weight files save them. Randomness comes from a `SeedGenerator`
whose state is threaded through the jitted step.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from lamina import tree
from lamina.layers.interop.requirements import require_backend
from lamina.layers.layer import Layer
from lamina.random.seed_generator import SeedGenerator
from lamina.saving.serialization import deserialize_lamina_object, serialize_lamina_object

_CALL_ARGUMENTS = ("params", "state", "rng", "inputs", "training")
_INIT_ARGUMENTS = ("rng", "inputs", "training")


def _arguments(fn: Callable[..., Any], arg: str, allowed: tuple[str, ...]) -> list[str]:
    """`fn`'s parameter names, in order, checked against the names a layer can pass."""
    names = list(inspect.signature(fn).parameters)
    unknown = [n for n in names if n not in allowed]
    if unknown or "inputs" not in names:
        raise ValueError(
            f"Argument `{arg}` must take parameters named among {list(allowed)}, "
            f"`inputs` included. Received a function with parameters {names}."
        )
    return names


def _leaf_name(path: Any) -> str:
    parts = []
    for key in path:
        for attr in ("key", "idx", "name"):  # DictKey, SequenceKey, GetAttrKey
            if hasattr(key, attr):
                parts.append(str(getattr(key, attr)))
                break
    return ".".join(parts).replace("/", "_") or "value"


class JaxLayer(Layer):
    """A layer computed by a pure JAX function of parameters, state, a key and inputs.

    `call_fn` takes parameters named from ``params``, ``state``, ``rng``, ``inputs``
    and ``training`` (``params`` and ``inputs`` required, in any order); with ``state`` it
    returns ``(outputs, new_state)``. `init_fn` takes names from ``rng``, ``inputs`` and
    ``training`` and returns ``params`` (or ``(params, state)`` when `call_fn` takes
    ``state``); it runs at build time on ones shaped like the inputs (unknown
    dimensions 1).

    Args:
        call_fn: the forward function.
        init_fn: builds the initial parameters (and state); needed unless `params` (or
            `state`) is given.
        params: initial parameters (any JAX pytree of arrays); they are trained.
        state: initial non-trainable state (a pytree), updated by `call_fn`.
        seed: the seed of the keys passed as ``rng``.
        **kwargs: `Layer` arguments.

    Raises:
        ValueError: the backend is not JAX, the functions' parameters have unknown names,
            or `init_fn`, `params` and `state` are all None.

    Example:
        >>> def init(rng, inputs):
        ...     return {"w": jax.random.normal(rng, (inputs.shape[-1], 2)), "b": jnp.zeros(2)}
        >>> def apply(params, inputs):
        ...     return inputs @ params["w"] + params["b"]
        >>> layer = lamina.layers.JaxLayer(apply, init)
    """

    def __init__(
        self,
        call_fn: Callable[..., Any],
        init_fn: Callable[..., Any] | None = None,
        params: Any = None,
        state: Any = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        require_backend(type(self).__name__, ("jax",), "runs JAX functions")
        if init_fn is None and params is None and state is None:
            raise ValueError(
                f"{type(self).__name__}: arguments `init_fn`, `params` and `state` cannot all "
                "be None; give `init_fn` to build the parameters, or the parameters."
            )
        super().__init__(**kwargs)
        self.call_fn = call_fn
        self.init_fn = init_fn
        self.seed = seed
        self._call_arguments = _arguments(call_fn, "call_fn", _CALL_ARGUMENTS)
        self._init_arguments = (
            _arguments(init_fn, "init_fn", _INIT_ARGUMENTS) if init_fn is not None else []
        )
        self.seed_generator = SeedGenerator(seed)
        self._params_tree: Any = None
        self._state_tree: Any = None
        self.params_variables: list[Any] = []
        self.state_variables: list[Any] = []
        if params is not None or state is not None:
            self._track(params, state)
            self.built = True

    def _track(self, params: Any, state: Any) -> None:
        """One variable per leaf: parameters trainable, state not."""
        import jax

        def variables(values: Any, trainable: bool, prefix: str) -> tuple[list[Any], Any]:
            leaves, treedef = jax.tree_util.tree_flatten_with_path(values)
            out = [
                self.add_weight(
                    shape=tuple(leaf.shape),
                    initializer=_constant(leaf),
                    dtype=str(jax.numpy.asarray(leaf).dtype),
                    trainable=trainable,
                    autocast=False,
                    name=f"{prefix}.{_leaf_name(path)}",
                )
                for path, leaf in leaves
            ]
            return out, treedef

        self.params_variables, self._params_tree = variables(params, True, "params")
        self.state_variables, self._state_tree = variables(state, False, "state")

    def build(self, input_shape: Any = None) -> None:
        """Run `init_fn` on ones shaped like the inputs and track what it returns."""
        import jax
        import jax.numpy as jnp

        if self.init_fn is None:
            self.built = True
            return
        dtype = self.compute_dtype
        inputs = tree.map_shape_structure(
            lambda s: jnp.ones(tuple(1 if d is None else d for d in s), dtype), input_shape
        )
        with jax.ensure_compile_time_eval():
            values = {"rng": self.seed_generator.next(), "inputs": inputs, "training": False}
            result = self.init_fn(*(values[name] for name in self._init_arguments))
        if "state" in self._call_arguments:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise ValueError(
                    f"{type(self).__name__}: `call_fn` takes `state`, so `init_fn` must return "
                    f"`(params, state)`. Received: {type(result).__name__}"
                )
            params, state = result
        else:
            params, state = result, None
        self._track(params, state)
        self.built = True

    def _values(self, variables: list[Any], treedef: Any) -> Any:
        import jax

        return jax.tree_util.tree_unflatten(treedef, [v.value for v in variables])

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        values = {
            "params": self._values(self.params_variables, self._params_tree),
            "state": self._values(self.state_variables, self._state_tree),
            "inputs": inputs,
            "training": bool(training),
        }
        if "rng" in self._call_arguments:
            values["rng"] = self.seed_generator.next()
        outputs = self.call_fn(*(values[name] for name in self._call_arguments))
        if "state" not in self._call_arguments:
            return outputs
        outputs, new_state = outputs
        import jax

        for variable, value in zip(self.state_variables, jax.tree_util.tree_leaves(new_state)):
            variable.assign(value)
        return outputs

    def get_config(self) -> dict[str, Any]:
        """The functions by registered name (register them to reload the layer); the
        parameters and state are weights, saved with the weights."""
        config = super().get_config()
        config.update(
            {
                "call_fn": serialize_lamina_object(self.call_fn),
                "init_fn": serialize_lamina_object(self.init_fn),
                "seed": self.seed,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> JaxLayer:
        config = dict(config)
        for key in ("call_fn", "init_fn"):
            config[key] = deserialize_lamina_object(config.get(key))
        return cls(**config)


def _constant(value: Any) -> Callable[..., Any]:
    def initial(shape: Any, dtype: Any = None) -> Any:
        return value

    return initial


class FlaxLayer(JaxLayer):
    """A Flax linen module as a layer: its ``"params"`` collection trains, its other
    collections (``"batch_stats"``...) are non-trainable state, updated in training.

    The module's `__call__` (or `method`) receives ``training=`` when it has that
    parameter, and keys for the ``"params"`` and ``"dropout"`` streams.

    Args:
        module: a ``flax.linen.Module`` instance.
        method: the method to call instead of `__call__` (a name or the function).
        variables: the module's variables (as ``module.init`` returns them); by default
            ``module.init`` runs at build time on ones shaped like the inputs.
        **kwargs: `JaxLayer` arguments (``seed``) and `Layer` arguments.

    Example:
        >>> import flax
        >>> class MLP(flax.linen.Module):
        ...     @flax.linen.compact
        ...     def __call__(self, x):
        ...         return flax.linen.Dense(10)(flax.linen.relu(flax.linen.Dense(32)(x)))
        >>> layer = lamina.layers.FlaxLayer(MLP())
        >>> tuple(layer(np.ones((2, 5), "float32")).shape)
        (2, 10)
    """

    def __init__(
        self, module: Any, method: Any = None, variables: Any = None, **kwargs: Any
    ) -> None:
        require_backend("FlaxLayer", ("jax",), "runs a Flax module")
        target = getattr(module, method) if isinstance(method, str) else method
        self._module_takes_training = (
            "training"
            in inspect.signature(target if target is not None else module.__call__).parameters
        )
        params, state = None, None
        if variables is not None:
            params = variables.get("params", {})
            state = {k: v for k, v in variables.items() if k != "params"}
        for key in ("call_fn", "init_fn", "params", "state"):
            kwargs.pop(key, None)  # rebuilt from the module
        super().__init__(
            call_fn=self._apply, init_fn=self._init, params=params, state=state, **kwargs
        )
        self.module = module
        self.method = method

    def _rngs(self, rng: Any) -> dict[str, Any]:
        import jax

        params_key, dropout_key = jax.random.split(rng)
        return {"params": params_key, "dropout": dropout_key}

    def _init(self, rng: Any, inputs: Any) -> tuple[Any, Any]:
        extra = {"training": False} if self._module_takes_training else {}
        variables = dict(self.module.init(self._rngs(rng), inputs, method=self.method, **extra))
        params = variables.pop("params", {})
        return params, variables

    def _apply(self, params: Any, state: Any, rng: Any, inputs: Any, training: bool) -> Any:
        variables = {"params": params, **state}
        extra = {"training": training} if self._module_takes_training else {}
        rngs = self._rngs(rng)
        if training and state:
            outputs, updates = self.module.apply(
                variables, inputs, rngs=rngs, method=self.method, mutable=list(state), **extra
            )
            return outputs, {**state, **updates}
        return self.module.apply(variables, inputs, rngs=rngs, method=self.method, **extra), state

    def get_config(self) -> dict[str, Any]:
        """The module as its registered class and dataclass fields; the method by name."""
        config = Layer.get_config(self)
        fields = {
            f.name: getattr(self.module, f.name)
            for f in dataclasses.fields(self.module)
            if f.name not in ("parent", "name")
        }
        method = (
            self.method
            if isinstance(self.method, str) or self.method is None
            else (self.method.__name__)
        )
        config.update(
            {
                "module": {
                    "class": serialize_lamina_object(type(self.module)),
                    "config": serialize_lamina_object(fields),
                },
                "method": method,
                "seed": self.seed,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> FlaxLayer:
        """Rebuild the module from its registered class (register it, or pass it in
        `custom_objects`)."""
        config = dict(config)
        spec = config["module"]
        module_class = deserialize_lamina_object(spec["class"])
        config["module"] = module_class(**deserialize_lamina_object(spec["config"]))
        return cls(**config)
