"""The training step on JAX: one jitted pure function over explicit state.

The state (trainable, non-trainable, optimizer and metric values) lives outside the
variables while a loop runs, its buffers donated to each step; it is written back to the
variables at the end of each epoch, of `fit`, and before anything else reads them.
`evaluate` and `predict` run jitted the same way (their metric and non-trainable values
are held until the loop ends).
"""

from __future__ import annotations

from typing import Any

import jax

from lamina.trainers.trainer import batch_size_of
from lamina.variables.scopes import StatelessScope

State = tuple[list[Any], list[Any], list[Any], list[Any]]
EvalState = tuple[list[Any], list[Any], list[Any]]


class JaxTrainer:
    """Overrides `train_step` as a pure ``(state, data) -> (logs, state)`` function."""

    _jax_state: State | None = None
    _jax_eval_state: EvalState | None = None

    def _default_jit_compile(self) -> bool:
        return True

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
        from lamina.trainers.data_adapters import unpack_x_y_sample_weight

        model: Any = self
        trainable_vars, non_trainable_vars, _, metric_vars = self._state_variables()
        trainable, non_trainable, optimizer_values, metric_values = state
        x, y, sample_weight = unpack_x_y_sample_weight(data)

        def loss_fn(tv: list[Any], ntv: list[Any]) -> tuple[Any, tuple[Any, Any, list[Any]]]:
            mapping = list(zip(trainable_vars, tv)) + list(zip(non_trainable_vars, ntv))
            with StatelessScope(state_mapping=mapping) as scope:
                y_pred = model(x, training=True)
                loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            new_ntv = [scope.get_current_value(v) for v in non_trainable_vars]
            return model.optimizer.scale_loss(loss), (loss, y_pred, new_ntv)

        grads, (loss, y_pred, non_trainable) = jax.grad(loss_fn, has_aux=True)(
            trainable, non_trainable
        )
        for layer in model._flatten_layers():
            layer._losses.clear()  # they hold tracers of this trace
        if trainable:
            trainable, optimizer_values = model.optimizer.stateless_apply(
                optimizer_values, grads, trainable
            )
        with StatelessScope(state_mapping=list(zip(metric_vars, metric_values))) as scope:
            model._loss_tracker.update_state(loss, sample_weight=batch_size_of(x))
            logs = model.compute_metrics(x, y, y_pred, sample_weight)
        metric_values = [scope.get_current_value(v) for v in metric_vars]
        return logs, (list(trainable), non_trainable, list(optimizer_values), metric_values)

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function

        def multi_step(state: State, batches: list[Any]) -> tuple[dict[str, Any], State]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs, state = self.train_step(state, batch)
            return logs, state

        step = multi_step
        if model.jit_compile and not model.run_eagerly:
            step = jax.jit(multi_step, donate_argnums=0)

        def run(batches: list[Any]) -> dict[str, Any]:
            state = self._jax_state or self._collect_state()
            logs, state = step(state, batches)
            object.__setattr__(self, "_jax_state", state)
            return logs

        object.__setattr__(model, "train_function", run)
        return run

    def _collect_state(self) -> State:
        groups = self._state_variables()
        return tuple([v.value for v in group] for group in groups)  # type: ignore[return-value]

    def _sync_state(self) -> None:
        state = self._jax_state
        if state is not None:
            for group, values in zip(self._state_variables(), state):
                for variable, value in zip(group, values):
                    variable.assign(value)
            object.__setattr__(self, "_jax_state", None)
        written = self._jax_eval_state
        if written is not None:
            _, non_trainable, metric_values = written
            groups = self._eval_variables()
            for group, values in zip(groups[1:], (non_trainable, metric_values)):
                for variable, value in zip(group, values):
                    variable.assign(value)
            object.__setattr__(self, "_jax_eval_state", None)

    # --- evaluation and prediction, jitted over explicit state ------------------------------
    def _eval_variables(self) -> tuple[list[Any], list[Any], list[Any]]:
        model: Any = self
        return model.trainable_variables, model.non_trainable_variables, model.metrics_variables

    def _jit_steps(self) -> bool:
        model: Any = self
        return bool(model.jit_compile and not model.run_eagerly)

    def _stateless_loop(self, step: Any) -> Any:
        """``step`` over a list of batches as a jitted pure function of the model's values.

        The jitted function returns the last result (or every result) with the new
        non-trainable and metric values; the weights go in but never come back out, so
        nothing is copied per call. State stays outside the variables until `_sync_state`.
        """
        model: Any = self

        def pure(state: EvalState, batches: list[Any], collect: bool) -> Any:
            groups = self._eval_variables()
            mapping = [
                (v, x) for group, values in zip(groups, state) for v, x in zip(group, values)
            ]
            with StatelessScope(state_mapping=mapping) as scope:
                results = [step(batch) for batch in batches]
            for layer in model._flatten_layers():
                layer._losses.clear()  # they hold tracers of this trace
            out = results if collect else results[-1]
            return out, [[scope.get_current_value(v) for v in group] for group in groups[1:]]

        return jax.jit(pure, static_argnums=2)

    def _run_stateless(self, jitted: Any, batches: list[Any], collect: bool) -> Any:
        state = self._jax_eval_state
        if state is None:
            trainable, non_trainable, metrics = self._eval_variables()
            state = (
                [v.value for v in trainable],
                [v.value for v in non_trainable],
                [v.value for v in metrics],
            )
        out, (non_trainable, metric_values) = jitted(state, batches, collect)
        object.__setattr__(self, "_jax_eval_state", (state[0], non_trainable, metric_values))
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
        jitted = self._stateless_loop(getattr(model, f"{kind}_step"))

        def run(batches: list[Any]) -> Any:
            return self._run_stateless(jitted, batches, collect=collect)

        object.__setattr__(model, f"{kind}_function", run)
        return run
