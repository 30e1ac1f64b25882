"""The training step on JAX: one jitted pure function over explicit state.

The state (trainable, non-trainable, optimizer and metric values) lives outside the
variables while a loop runs, its buffers donated to each step; it is written back to the
variables at the end of each epoch, of `fit`, and before anything else reads them.
`evaluate` and `predict` run jitted the same way (their metric and non-trainable values
are held until the loop ends).

The global seed state (what ``seed=None`` draws from) travels beside that state through a
`SeedStateScope`, so unseeded random ops in a layer draw new numbers at every step.
"""

from __future__ import annotations

import inspect
from typing import Any

import jax
import numpy as np

import lamina
import lamina.distribution
from lamina.backend.kit import (
    SeedStateScope,
    StatelessScope,
    clear_losses,
    global_seed_generator,
    track_loss,
    unpack_x_y_sample_weight,
)
from lamina_jax import distribution
from lamina_jax.core import NUMERIC_KINDS, convert_to_tensor

State = tuple[list[Any], list[Any], list[Any], list[Any]]
EvalState = tuple[list[Any], list[Any], list[Any]]


def _jit_argument(x: Any) -> Any:
    """One array of a batch as a jitted step takes it: a numeric NumPy array as it is,
    in the dtype JAX would give it (float64 as floatx, as every backend converts it;
    int64 as int32 without x64), anything else as a JAX array."""
    if type(x) is np.ndarray and x.dtype.kind in NUMERIC_KINDS:
        if x.dtype == np.float64:
            return x.astype(lamina.config.floatx())
        canonical = jax.dtypes.canonicalize_dtype(x.dtype)
        return x if canonical == x.dtype else x.astype(canonical)
    return x if x is None or isinstance(x, jax.Array) else convert_to_tensor(x)


class JaxTrainer:
    """Overrides `train_step` as a pure ``(state, data) -> (logs, state)`` function."""

    _jax_state: tuple[State, Any] | None = None  # (state, global seed state)
    _jax_eval_state: tuple[EvalState, Any] | None = None

    _compiles_forward = True  # model(x), predict_on_batch: one jitted call (`Inference`)

    def _default_jit_compile(self) -> bool:
        return True

    def _compile_forward(self, fn: Any) -> Any:
        return jax.jit(fn)

    def _inference_compiles(self) -> bool:
        # jit_compile=False asks for op-by-op runs (debugging), in inference too.
        model: Any = self
        return not model.run_eagerly and (not model.compiled or bool(model.jit_compile))

    def _concrete_input(self, x: Any) -> bool:
        return isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)

    def _to_tensors(self, batches: list[Any]) -> list[Any]:
        if self._jit_steps() and lamina.distribution.distribution() is None:
            # `jax.jit` moves NumPy arguments to the device itself, in C++: cheaper than a
            # `device_put` per array first (on a GPU, most of a small model's step).
            return [lamina.tree.map_structure(_jit_argument, batch) for batch in batches]
        # Under a `lamina.distribution` strategy each batch is split along its batch axis.
        return distribution.distribute_batches(super()._to_tensors(batches))  # type: ignore[misc]

    def _state_variables(self) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        model: Any = self
        return (
            model.trainable_variables,
            model.non_trainable_variables,
            list(model.optimizer.variables),
            model.metrics_variables,
        )

    def train_step(self, state: State, data: Any) -> tuple[dict[str, Any], State]:
        """One batch as a pure function: returns the logs and the new state."""
        model: Any = self
        trainable_vars, non_trainable_vars, optimizer_vars, metric_vars = self._state_variables()
        trainable, non_trainable, optimizer_values, metric_values = state
        x, y, sample_weight = unpack_x_y_sample_weight(data)

        def loss_fn(tv: list[Any], ntv: list[Any]) -> tuple[Any, tuple[Any, ...]]:
            # Every variable the step may read is given its value here: one left out would
            # be read as a constant of the trace (stale, and deleted once donated).
            mapping = [
                *zip(trainable_vars, tv),
                *zip(non_trainable_vars, ntv),
                *zip(optimizer_vars, optimizer_values),
                *zip(metric_vars, metric_values),
            ]
            with StatelessScope(state_mapping=mapping) as scope:
                y_pred = model(x, training=True)
                loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
                scaled = model.optimizer.scale_loss(loss)  # reads the loss scale in `mapping`
            new_ntv = [scope.get_current_value(v) for v in non_trainable_vars]
            new_metrics = [scope.get_current_value(v) for v in metric_vars]
            return scaled, (loss, y_pred, new_ntv, new_metrics)

        grads, (loss, y_pred, non_trainable, metric_values) = jax.grad(loss_fn, has_aux=True)(
            trainable, non_trainable
        )
        clear_losses(model)  # they hold tracers of this trace
        if trainable:
            trainable, optimizer_values = model.optimizer.stateless_apply(
                optimizer_values, grads, trainable
            )
        with StatelessScope(state_mapping=list(zip(metric_vars, metric_values))) as scope:
            track_loss(model, loss, x)
            logs = model.compute_metrics(x, y, y_pred, sample_weight)
        metric_values = [scope.get_current_value(v) for v in metric_vars]
        return logs, (list(trainable), non_trainable, list(optimizer_values), metric_values)

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function

        def multi_step(
            state: State, seed: Any, batches: list[Any]
        ) -> tuple[dict[str, Any], State, Any]:
            logs: dict[str, Any] = {}
            with SeedStateScope(seed) as seeds:
                for batch in batches:
                    logs, state = self.train_step(state, batch)
            return logs, state, seeds.value

        step = multi_step
        if model.jit_compile and not model.run_eagerly:
            # The seed (8 bytes) is not donated: an eager draw between steps still reads it.
            step = distribution.train_jit(multi_step)  # jax.jit, layouts kept

        def run(batches: list[Any]) -> dict[str, Any]:
            state, seed = self._jax_state or (self._collect_state(), _seed_state().value)
            logs, state, seed = step(state, seed, batches)
            object.__setattr__(self, "_jax_state", (state, seed))
            return logs

        object.__setattr__(model, "train_function", run)
        return run

    def _collect_state(self) -> State:
        groups = self._state_variables()
        return tuple([v.value for v in group] for group in groups)  # type: ignore[return-value]

    def _sync_state(self) -> None:
        held = self._jax_state
        if held is not None:
            state, seed = held
            for group, values in zip(self._state_variables(), state):
                for variable, value in zip(group, values):
                    variable.assign(value)
            _seed_state().assign(seed)
            object.__setattr__(self, "_jax_state", None)
        written = self._jax_eval_state
        if written is not None:
            (_, non_trainable, metric_values), seed = written
            groups = self._eval_variables()
            for group, values in zip(groups[1:], (non_trainable, metric_values)):
                for variable, value in zip(group, values):
                    variable.assign(value)
            _seed_state().assign(seed)
            object.__setattr__(self, "_jax_eval_state", None)

    # --- evaluation and prediction, jitted over explicit state ------------------------------
    def _eval_variables(self) -> tuple[list[Any], list[Any], list[Any]]:
        model: Any = self
        return model.trainable_variables, model.non_trainable_variables, model.metrics_variables

    def _jit_steps(self) -> bool:
        model: Any = self
        return bool(model.jit_compile and not model.run_eagerly)

    def _stateless_loop(self, step: Any, kind: str) -> Any:
        """``step`` over a list of batches as a jitted pure function of the model's values.

        The jitted function returns the last result (or every result) with the new
        non-trainable and metric values; the weights go in but never come back out, so
        nothing is copied per call. State stays outside the variables until `_sync_state`.

        A user's step written as Keras 3 writes them on JAX takes the state explicitly:
        ``test_step(state, data) -> (logs, (trainable, non_trainable, metrics))`` and
        ``predict_step(state, data) -> (outputs, non_trainable)``.
        """
        model: Any = self
        explicit = _takes_state(step)

        def with_state(state: EvalState, batches: list[Any]) -> tuple[list[Any], EvalState]:
            trainable, non_trainable, metrics = state
            results = []
            for batch in batches:
                if kind == "test":
                    out, (trainable, non_trainable, metrics) = step(state, batch)
                else:
                    out, non_trainable = step((trainable, non_trainable), batch)
                state = (trainable, non_trainable, metrics)
                results.append(out)
            return results, state

        def pure(state: EvalState, seed: Any, batches: list[Any], collect: bool) -> Any:
            groups = self._eval_variables()
            if explicit:
                with SeedStateScope(seed) as seeds:
                    results, state = with_state(state, batches)
                new = [list(state[1]), list(state[2])]
            else:
                mapping = [
                    (v, x) for group, values in zip(groups, state) for v, x in zip(group, values)
                ]
                with StatelessScope(state_mapping=mapping) as scope, SeedStateScope(seed) as seeds:
                    results = [step(batch) for batch in batches]
                new = [[scope.get_current_value(v) for v in group] for group in groups[1:]]
            clear_losses(model)  # they hold tracers of this trace
            out = results if collect else results[-1]
            return out, new, seeds.value

        return distribution.eval_jit(pure)  # jax.jit(pure, static_argnums=3)

    def _run_stateless(self, jitted: Any, batches: list[Any], collect: bool) -> Any:
        held = self._jax_eval_state
        if held is None:
            trainable, non_trainable, metrics = self._eval_variables()
            state: EvalState = (
                [v.value for v in trainable],
                [v.value for v in non_trainable],
                [v.value for v in metrics],
            )
            seed = _seed_state().value
        else:
            state, seed = held
        out, (non_trainable, metric_values), seed = jitted(state, seed, batches, collect)
        object.__setattr__(
            self, "_jax_eval_state", ((state[0], non_trainable, metric_values), seed)
        )
        return out

    def make_test_function(self, force: bool = False) -> Any:
        self._sync_state()
        if not self._jit_steps():
            return super().make_test_function(force)  # type: ignore[misc]
        return self._stateless_function("test", force, collect=False)

    def make_predict_function(self, force: bool = False) -> Any:
        self._sync_state()
        if not self._jit_steps():
            return super().make_predict_function(force)  # type: ignore[misc]
        return self._stateless_function("predict", force, collect=True)

    def _stateless_function(self, kind: str, force: bool, collect: bool) -> Any:
        """The model's ``<kind>_function``: its ``<kind>_step`` jitted over explicit state."""
        model: Any = self
        existing = getattr(model, f"{kind}_function")
        if existing is not None and not force:
            return existing
        jitted = self._stateless_loop(getattr(model, f"{kind}_step"), kind)

        def run(batches: list[Any]) -> Any:
            out = self._run_stateless(jitted, batches, collect=collect)
            return distribution.local_outputs(out) if kind == "predict" else out

        object.__setattr__(model, f"{kind}_function", run)
        return run


def _takes_state(step: Any) -> bool:
    """Whether a (bound) step takes ``(state, data)`` rather than ``(data)``."""
    try:
        parameters = inspect.signature(step).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) == 2


def _seed_state() -> Any:
    """The variable holding the global seed state (what ``seed=None`` draws from)."""
    return global_seed_generator().state
