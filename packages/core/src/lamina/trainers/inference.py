"""Inference at the speed of the backend's own compiled forward.

An eager ``model(x)`` runs op by op, each op paying Lamina's dispatch and the backend's;
on JAX and TensorFlow a compiled forward runs the whole graph in one call. So a functional
or `Sequential` model called eagerly at the top level on concrete tensors, in inference
(``training`` None or False, no mask), runs a cached compiled function of its variables'
values and the inputs: ``jax.jit`` or a `tf.function`, traced once per input signature
(the backend trainer's `_compile_forward`). `predict_on_batch` runs the same function, and
`predict` given one in-memory batch goes straight to `predict_on_batch`, without a data
adapter or callbacks. On a backend that runs eagerly (PyTorch, NumPy) `predict_on_batch`
calls the model directly, in the backend's `_inference_scope` (``torch.no_grad()``), with
no predict function or step loop around it.

Every call of a signature, the first included, runs the compiled function: an eager
first call would round differently (XLA and Grappler fuse ops), and two calls on the same
inputs must give the same bits, as must `predict` of one batch and of several.

The function is safe only when inference changes nothing: while it is traced, the call
runs in a `StatelessScope`, and if any variable would be assigned (a stateful RNN, a
layer updating statistics in inference, a random op drawing from the global seed), a loss
is added or an output carries a mask, that trace is discarded and the model takes the
plain path from then on; so does a call that cannot be traced at all. Python side effects
of a layer's `call` (appending to a list, say) run once, when traced, as under any
compiled function. The cache is rebuilt whenever any layer tracks or drops a
variable or sublayer (`_STRUCTURE_VERSION`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from lamina import tree
from lamina.backend.config import SETTINGS, STATELESS_SCOPE, SYMBOLIC_SCOPE
from lamina.distribution.strategies import distribution
from lamina.layers import layer as layer_module
from lamina.ops.core.conversion import convert_to_numpy

_PLAIN = object()
"""What the cached path returns when the call must take the plain path."""


class _ForwardCache:
    """One model's compiled forward for one layer structure."""

    __slots__ = ("functions", "safe", "variables", "version")

    def __init__(self, version: int, variables: list[Any]) -> None:
        self.version = version
        self.variables = variables
        self.functions: dict[Any, Any] = {}  # keyed by the `training` argument
        self.safe = True


class Inference:
    """`__call__`, `predict_on_batch` and one-batch `predict` through a compiled forward.

    A mixin of `Trainer` (``self`` is the model, hence ``self: Any``). A backend that
    compiles sets `_compiles_forward` and defines `_compile_forward` and `_concrete_input`.
    """

    _compiles_forward: bool = False
    _forward_cache: _ForwardCache | None = None

    def _compile_forward(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` compiled (jax.jit, tf.function); only called when `_compiles_forward`."""
        raise NotImplementedError(
            f"{type(self).__name__} sets `_compiles_forward` but defines no `_compile_forward`."
        )

    def _concrete_input(self, x: Any) -> bool:
        """Whether `x` is a concrete tensor of the backend, outside any trace."""
        return False

    def _inference_scope(self) -> AbstractContextManager[Any]:
        """What an eager backend's inference runs in (``torch.no_grad()``): `predict_step`'s
        scope, for `predict_on_batch` calling the model directly."""
        return contextlib.nullcontext()

    def _inference_compiles(self: Any) -> bool:
        """Whether inference may run compiled now (not under ``run_eagerly=True``)."""
        return self._compiles_forward and not self.run_eagerly

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._compiles_forward and len(args) == 1 and kwargs.keys() <= {"training"}:
            training = kwargs.get("training")
            if (training is None or training is False) and self._inference_compiles():
                out = self._call_compiled(args[0], training)
                if out is not _PLAIN:
                    return out
        return super().__call__(*args, **kwargs)  # type: ignore[misc]

    def _plain_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        """``model(...)`` without the compiled forward (building, say: nothing to reuse)."""
        return super().__call__(*args, **kwargs)  # type: ignore[misc]

    def _call_compiled(self: Any, x: Any, training: Any, arrays: bool = False) -> Any:
        """The cached compiled forward of `x` (backend tensors, or also NumPy arrays with
        `arrays`), or `_PLAIN` where it cannot be used."""
        version = layer_module._STRUCTURE_VERSION[0]
        cache = self._forward_cache
        if cache is not None and cache.version == version and not cache.safe:
            return _PLAIN
        if (
            not self.built
            or layer_module._CALL_CONTEXT.get() is not None
            or STATELESS_SCOPE.get() is not None
            or SYMBOLIC_SCOPE.get() is not None
            or distribution() is not None
        ):
            return _PLAIN
        leaves = tree.flatten(x) if tree.is_nested(x) else [x]
        for leaf in leaves:
            if not (arrays and isinstance(leaf, np.ndarray)) and (
                not self._concrete_input(leaf) or layer_module.get_mask(leaf) is not None
            ):
                return _PLAIN
        if cache is None or cache.version != version:
            if not _is_graph_model(self):
                return _PLAIN
            cache = _ForwardCache(version, list(self.variables))
            object.__setattr__(self, "_forward_cache", cache)
        function = cache.functions.get(training)
        if function is None:
            function = self._compile_forward(_pure_forward(self, cache, training))
            cache.functions[training] = function
        try:
            out = function([v.value for v in cache.variables], x)
        except Exception:  # it cannot be traced (Python reads a value): the plain path
            cache.safe = False
        return out if cache.safe else _PLAIN

    def predict_on_batch(self: Any, x: Any) -> Any:
        """The outputs for one batch, as NumPy arrays."""
        self._check_batch((x,))
        if self._compiles_forward and self._inference_compiles() and _lamina_predict_step(self):
            self._sync_state()
            # NumPy goes to the compiled function as it is: it converts on the way in.
            out = self._call_compiled(_map(_as_input, x), False, arrays=True)
            if out is not _PLAIN:
                return _map(convert_to_numpy, out)
        elif (
            not self._compiles_forward
            and self.built
            and _lamina_predict_step(self)
            and distribution() is None
        ):  # an eager backend: `predict_step`'s call, with no step loop around it
            with self._inference_scope():
                out = self(self._to_tensors([x])[0], training=False)
            return _map(convert_to_numpy, out)
        batches = self._to_tensors([(x,)])
        self._prepare(batches[0], training=False, with_targets=False)
        out = self.make_predict_function()(batches)[0]
        self._sync_state()
        return tree.map_structure(convert_to_numpy, out)

    def _predict_one_batch(
        self: Any, x: Any, batch_size: int | None, verbose: Any, steps: Any, callbacks: Any
    ) -> Any:
        """`predict`'s result when `x` is one in-memory batch and nothing watches (no
        callbacks, ``verbose=0``): `predict_on_batch`'s. Otherwise None."""
        if callbacks is not None or steps is not None or verbose != 0:
            return None
        if isinstance(x, np.ndarray):  # the common case, without flattening
            rows = x.shape[0] if x.ndim else 0
            return self.predict_on_batch(x) if 0 < rows <= (batch_size or 32) else None
        leaves = tree.flatten(x)
        if not leaves or not all(_is_array(leaf, self) for leaf in leaves):
            return None
        sizes = {leaf.shape[0] if len(leaf.shape) else None for leaf in leaves}
        if len(sizes) != 1:
            return None
        (size,) = sizes
        if size is None or not 0 < size <= (batch_size or 32):
            return None
        return self.predict_on_batch(x)


def _as_input(x: Any) -> Any:
    """NumPy's default float64 as Lamina's float type, as `_to_tensors` converts it."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return x.astype(SETTINGS.floatx)
    return x


def _map(fn: Callable[[Any], Any], x: Any) -> Any:
    """`tree.map_structure(fn, x)`, without its cost for a single tensor."""
    return tree.map_structure(fn, x) if tree.is_nested(x) else fn(x)


def _is_array(x: Any, model: Any) -> bool:
    return isinstance(x, np.ndarray) or model._concrete_input(x)


def _is_graph_model(model: Any) -> bool:
    """Functional and `Sequential` models: their call is their graph, with no Python of a
    subclass's `call` that could read state the trace would freeze."""
    from lamina.models.functional import Functional
    from lamina.models.sequential import Sequential

    if isinstance(model, Sequential):
        return type(model).call is Sequential.call
    return isinstance(model, Functional) and type(model).call is Functional.call


def _lamina_predict_step(model: Any) -> bool:
    """Whether `predict_on_batch` would run Lamina's own `predict_step` (a user's override
    may do anything)."""
    from lamina.models import Model

    return getattr(model.predict_step, "__func__", None) is Model.predict_step


def _pure_forward(model: Any, cache: _ForwardCache, training: Any) -> Callable[..., Any]:
    """``forward(values, x)``: the model's inference call as a function of the values of
    `cache.variables`. Tracing it marks `cache` unsafe if the call would change state."""
    from lamina.layers.layer import get_mask
    from lamina.ops.dispatch import to_tensor
    from lamina.random.seed_generator import SeedStateScope, seed_dtype
    from lamina.variables.scopes import StatelessScope

    variables = cache.variables

    def forward(values: list[Any], x: Any) -> Any:
        mapping = list(zip(variables, values))
        start = to_tensor(np.zeros(2), seed_dtype())  # a draw with seed=None replaces it
        with (
            StatelessScope(state_mapping=mapping, collect_losses=True) as scope,
            SeedStateScope(start) as seeds,
        ):
            given = [scope.get_current_value(v) for v in variables]
            out = model(x, training=training)
            changed = any(scope.get_current_value(v) is not g for v, g in zip(variables, given))
            seeds_drawn = seeds.value is not start
            losses = bool(scope.losses) or bool(model.losses)
        masks = any(get_mask(o) is not None for o in tree.flatten(out))
        if changed or seeds_drawn or losses or masks:
            cache.safe = False
        return out

    return forward
