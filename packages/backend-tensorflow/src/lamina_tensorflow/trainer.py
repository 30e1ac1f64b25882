"""The training step on TensorFlow: `GradientTape` inside a `tf.function`, compiled by XLA
with `jit_compile=True`; with ``"auto"`` (the default) `fit` times both and keeps the faster
(`lamina.trainers.auto_compile`)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.kit import (
    auto_train_function,
    batch_size_of,
    track_loss,
    unpack_x_y_sample_weight,
)
from lamina_tensorflow import distribution


class TensorflowTrainer:
    """Overrides `train_step` (GradientTape) and runs steps as `tf.function`s."""

    def train_step(self, data: Any) -> dict[str, Any]:
        """One batch: forward under a tape, loss, gradients, optimizer update, metrics."""
        model: Any = self
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        trainable = model.trainable_weights
        with tf.GradientTape() as tape:
            y_pred = model(x, training=True)
            loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            scaled = model.optimizer.scale_loss(loss)
        track_loss(model, loss, x)
        if trainable:
            grads = tape.gradient(scaled, [v.value for v in trainable])
            # Under DataParallel: every replica's gradients, then one update of each copy.
            distribution.apply_gradients(model.optimizer, grads, trainable, batch_size_of(x))
        return model.compute_metrics(x, y, y_pred, sample_weight)

    _compiles_forward = True  # model(x), predict_on_batch: one tf.function call (`Inference`)

    def _compile_forward(self, fn: Any) -> Any:
        # No autograph: Lamina's ops branch on static shapes in Python (as `_RankKeyedFunction`).
        return tf.function(fn, autograph=False, reduce_retracing=True)

    def _concrete_input(self, x: Any) -> bool:
        return isinstance(x, tf.Tensor) and tf.executing_eagerly()

    def _default_jit_compile(self) -> bool | str:
        # XLA wins on some models and loses on others (compile time, unfused ops): `fit`
        # times the step with and without it.
        return "auto"

    def _compiled(self, fn: Any) -> Any:
        model: Any = self
        if model.run_eagerly:
            return fn
        # Until "auto" has chosen, evaluate and predict run without XLA (and never around
        # a strategy's `run`, which XLA does not compile).
        xla = model.jit_compile is True and distribution.strategy() is None
        return _RankKeyedFunction(fn, xla)

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function

        step = distribution.per_replica(model, model.train_step)

        def run(batches: list[Any]) -> dict[str, Any]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs = step(batch)
            return logs

        # Not under a strategy: the workers of a job would time, and choose, apart.
        auto = model.jit_compile == "auto" and distribution.strategy() is None
        if auto and not model.run_eagerly:
            fn: Any = auto_train_function(
                model,
                plain=("tf.function", _RankKeyedFunction(run, False)),
                compiled=("XLA", lambda: _RankKeyedFunction(run, True)),
                compilations=_RankKeyedFunction.traces,
                sync=_no_sync,
            )
        else:
            fn = distribution.reporting_faults(self._compiled(run))
        object.__setattr__(model, "train_function", fn)
        return fn

    def make_test_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.test_function is not None and not force:
            return model.test_function

        step = distribution.per_replica(model, model.test_step)

        def run(batches: list[Any]) -> dict[str, Any]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs = step(batch)
            return logs

        fn = distribution.reporting_faults(self._compiled(run))
        object.__setattr__(model, "test_function", fn)
        return fn

    def make_predict_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.predict_function is not None and not force:
            return model.predict_function

        def run(batches: list[Any]) -> list[Any]:
            return [model.predict_step(batch) for batch in batches]

        fn = self._compiled(run)
        object.__setattr__(model, "predict_function", fn)
        return fn


class _RankKeyedFunction:
    """One `tf.function` per structure and rank of the batches it is called with.

    `reduce_retracing` relaxes a retraced step's shapes, and when two calls differ in
    rank (say sample weights of shape ``(n,)`` then ``(n, 1)``) it relaxes to an unknown
    rank, which shape-driven code cannot work with. Keying by rank keeps every trace's
    ranks known while batch sizes still relax to None.
    """

    _traces = 0  # every trace of every instance, for `jit_compile="auto"`'s recompile count

    def __init__(self, fn: Any, jit_compile: bool) -> None:
        self._fn = fn
        self._jit_compile = jit_compile
        self._traced: dict[Any, Any] = {}

    @classmethod
    def traces(cls) -> int:
        return cls._traces

    def __call__(self, batches: Any) -> Any:
        leaves = tf.nest.flatten(batches)
        key = (
            str(tf.nest.map_structure(lambda _: 0, batches)),
            tuple(
                (len(getattr(x, "shape", ())), str(getattr(x, "dtype", type(x)))) for x in leaves
            ),
        )
        traced = self._traced.get(key)
        if traced is None:
            # No autograph: Lamina's ops branch on static shapes in Python, which autograph
            # would rewrite into graph control flow; tensor-dependent branches use ops.cond.
            traced = tf.function(
                self._fn, jit_compile=self._jit_compile, reduce_retracing=True, autograph=False
            )
            self._traced[key] = traced
        count = traced.experimental_get_tracing_count()
        out = traced(batches)
        _RankKeyedFunction._traces += traced.experimental_get_tracing_count() - count
        return out


def _no_sync() -> None:
    """A `tf.function` call returns once its work is done: nothing to wait for."""
