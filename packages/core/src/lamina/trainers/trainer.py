"""`Trainer`: compile, fit, evaluate and predict; the backend supplies the step.

The loops, bookkeeping and callbacks are written once here. What differs per backend
(how gradients are taken, how a step is compiled) comes from the backend's
`trainer_mixin`, which `Model` puts ahead of this class: JAX runs a jitted pure step over
explicit state, PyTorch an eager autograd step, TensorFlow a `tf.function`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import tree
from lamina.trainers.auto_compile import plan_fit
from lamina.trainers.batch_methods import BatchMethods, to_python
from lamina.trainers.inference import Inference


class Trainer(BatchMethods, Inference):
    """The training half of `Model` (see `compile`, `fit`, `evaluate`, `predict`)."""

    compiled: bool
    optimizer: Any
    loss: Any
    stop_training: bool
    history: Any
    run_eagerly: bool
    jit_compile: bool | str
    steps_per_execution: int
    train_function: Any
    test_function: Any
    predict_function: Any
    _compile_loss: Any
    _compile_metrics: Any
    _loss_tracker: Any
    _compile_config: dict[str, Any] | None
    _jit_compile_choice: Any

    def __init__(self) -> None:
        state = {
            "compiled": False,
            "optimizer": None,
            "loss": None,
            "stop_training": False,
            "history": None,
            "run_eagerly": False,
            "jit_compile": False,
            "steps_per_execution": 1,
            "train_function": None,
            "test_function": None,
            "predict_function": None,
            "_compile_loss": None,
            "_compile_metrics": None,
            "_loss_tracker": None,
            "_compile_config": None,
            "_jit_compile_choice": None,
        }
        for key, value in state.items():
            object.__setattr__(self, key, value)

    # --- compile -------------------------------------------------------------------------
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: Any = "auto",
        auto_scale_loss: bool = True,
    ) -> None:
        """Set the optimizer, loss and metrics for training.

        Args:
            optimizer: an optimizer or its name.
            loss: a loss (name, function, `Loss`), or one per output (list or dict).
            loss_weights: a weight per output loss.
            metrics: metrics (names, functions, `Metric`s), per output for several.
            weighted_metrics: metrics that also take the sample weights.
            run_eagerly: run steps as plain Python (debugging).
            steps_per_execution: batches per compiled call.
            jit_compile: compile the step (XLA / torch.compile). "auto" picks per backend:
                where compiling does not always pay, `fit` times the step both ways during
                its first steps and keeps the faster (`model.jit_compile` then reads the
                resolved bool; until then it reads "auto").
            auto_scale_loss: wrap the optimizer in a `LossScaleOptimizer` under
                ``mixed_float16``.

        Raises:
            ValueError: `steps_per_execution` is not a positive int, or `jit_compile` is
                not True, False or "auto".
        """
        from lamina import metrics as metrics_module
        from lamina import optimizers
        from lamina.trainers.compile_utils import CompileLoss, CompileMetrics

        if (
            isinstance(steps_per_execution, bool)
            or not isinstance(steps_per_execution, int)
            or (steps_per_execution < 1)
        ):
            raise ValueError(
                "Argument `steps_per_execution` must be a positive int. "
                f"Received: steps_per_execution={steps_per_execution!r}"
            )
        opt = optimizers.get(optimizer)
        mixed16 = self.dtype_policy.name == "mixed_float16"  # type: ignore[attr-defined]
        if auto_scale_loss and mixed16 and not isinstance(opt, optimizers.LossScaleOptimizer):
            opt = optimizers.LossScaleOptimizer(opt)
        set_ = object.__setattr__
        set_(self, "optimizer", opt)
        set_(self, "loss", loss)
        set_(self, "_compile_loss", CompileLoss(loss, loss_weights, self) if loss else None)
        set_(self, "_compile_metrics", CompileMetrics(metrics, weighted_metrics, self))
        set_(self, "_loss_tracker", metrics_module.Mean(name="loss"))
        set_(self, "run_eagerly", bool(run_eagerly))
        set_(self, "steps_per_execution", steps_per_execution)
        set_(self, "jit_compile", self._resolve_jit_compile(jit_compile, bool(run_eagerly)))
        set_(self, "_jit_compile_choice", None)
        set_(self, "compiled", True)
        set_(self, "train_function", None)
        set_(self, "test_function", None)
        set_(self, "predict_function", None)
        from lamina.saving.serialization import serialize_lamina_object

        set_(
            self,
            "_compile_config",
            {
                "optimizer": serialize_lamina_object(opt),
                "loss": serialize_lamina_object(loss),
                "loss_weights": loss_weights,
                "metrics": serialize_lamina_object(metrics),
                "weighted_metrics": serialize_lamina_object(weighted_metrics),
                "run_eagerly": bool(run_eagerly),
                "steps_per_execution": steps_per_execution,
                "jit_compile": jit_compile,
            },
        )

    def _resolve_jit_compile(self, jit_compile: Any, run_eagerly: bool = False) -> bool | str:
        """The backend's default for "auto": a bool, or "auto" where `fit` chooses by timing
        the step both ways (`lamina.trainers.auto_compile`)."""
        if isinstance(jit_compile, str) and jit_compile == "auto":
            return False if run_eagerly else self._default_jit_compile()
        if not isinstance(jit_compile, (bool, np.bool_)):
            raise ValueError(
                'Argument `jit_compile` must be True, False or "auto". '
                f"Received: jit_compile={jit_compile!r} (of type {type(jit_compile).__name__})"
            )
        return bool(jit_compile)

    def _default_jit_compile(self) -> bool | str:
        return False

    def get_compile_config(self) -> dict[str, Any] | None:
        """The `compile` arguments, serialized (saved in model archives)."""
        return self._compile_config

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """Compile again from `get_compile_config`'s output."""
        from lamina.saving.serialization import deserialize_lamina_object

        kwargs = {
            k: deserialize_lamina_object(v)
            if k in ("optimizer", "loss", "metrics", "weighted_metrics")
            else v
            for k, v in config.items()
        }
        self.compile(**kwargs)

    @property
    def metrics(self) -> list[Any]:
        """The loss tracker, the compiled metrics, the per-output losses, then the metrics
        tracked on layers."""
        out: list[Any] = []
        if self._loss_tracker is not None:
            out.append(self._loss_tracker)
        if self._compile_metrics is not None:
            out.extend(self._compile_metrics.metrics)
        if self._compile_loss is not None:
            out.extend(self._compile_loss.metrics)
        out.extend(self._tracked_metrics())  # type: ignore[attr-defined]
        return out

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    # --- what a step computes (overridable) ----------------------------------------------
    def compute_loss(
        self,
        x: Any = None,
        y: Any = None,
        y_pred: Any = None,
        sample_weight: Any = None,
        training: bool = True,
    ) -> Any:
        """The compiled loss on `y`/`y_pred` plus the model's own losses (`model.losses`)."""
        from lamina.ops.core.conversion import cast, convert_to_tensor, dtype

        terms = []
        if self._compile_loss is not None and y is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                terms.append(value)
        terms.extend(self.losses)  # type: ignore[attr-defined]
        if not terms:
            return convert_to_tensor(0.0)
        total = terms[0]
        for t in terms[1:]:
            total = total + cast(t, dtype(total))
        return total

    def compute_metrics(
        self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None
    ) -> dict[str, Any]:
        """Update the compiled metrics (and per-output losses); return every result."""
        if self._compile_metrics is not None and y is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        if self._compile_loss is not None and y is not None:
            self._compile_loss.update_trackers(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """``{name: result}`` for every metric (dict results are merged in)."""
        from lamina.metrics.metric import result_value

        logs: dict[str, Any] = {}
        for m in self.metrics:
            result = result_value(m.result())
            if isinstance(result, dict):
                logs.update(result)
            else:
                logs[m.name] = result
        return logs

    def test_step(self, data: Any) -> dict[str, Any]:
        """One evaluation batch: forward pass, loss and metrics (no gradients)."""
        from lamina.trainers.data_adapters import unpack_x_y_sample_weight

        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False
        )
        self._loss_tracker.update_state(loss, sample_weight=batch_size_of(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """One prediction batch."""
        from lamina.trainers.data_adapters import unpack_x_y_sample_weight

        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # --- compiled functions (backends override) ------------------------------------------
    def make_train_function(self, force: bool = False) -> Any:
        """The function running `steps_per_execution` training batches; backends compile it."""
        from lamina.ops.dispatch import backend

        raise TypeError(
            f"The {backend().name} backend cannot train (it has no gradients): `fit` and "
            "`train_on_batch` need a backend with training support (jax, torch or "
            "tensorflow). `evaluate` and `predict` work on every backend."
        )

    def make_test_function(self, force: bool = False) -> Any:
        if self.test_function is not None and not force:
            return self.test_function

        def run(batches: list[Any]) -> dict[str, Any]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs = self.test_step(batch)
            return logs

        object.__setattr__(self, "test_function", run)
        return run

    def make_predict_function(self, force: bool = False) -> Any:
        if self.predict_function is not None and not force:
            return self.predict_function

        def run(batches: list[Any]) -> list[Any]:
            return [self.predict_step(batch) for batch in batches]

        object.__setattr__(self, "predict_function", run)
        return run

    def _one_pass_callbacks(self, callbacks: Any, verbose: int, steps: Any) -> Any:
        """The callbacks of one pass over the data (`evaluate`, `predict`)."""
        from lamina.callbacks import CallbackList

        return CallbackList(
            callbacks,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=1,
            steps=steps,
        )

    def _sync_state(self) -> None:
        """Write state held outside the variables (JAX's loop state) back into them."""

    # --- loops ---------------------------------------------------------------------------
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: Any = True,
        class_weight: dict[int, float] | None = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
    ) -> Any:
        """Train for `epochs` epochs; returns the `History`.

        Raises:
            ValueError: the model is not compiled, or the data is inconsistent (lengths of
                x, y and sample weights differ).
            TypeError: `x`, `y` or `sample_weight` is not numeric (strings, say).
        """
        from lamina.callbacks import CallbackList
        from lamina.trainers.data_adapters import (
            EpochIterator,
            train_validation_split,
            unpack_x_y_sample_weight,
        )

        self._assert_compiled("fit")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                (x, y, sample_weight), validation_split=validation_split
            )
        val_x = val_y = val_sw = None
        if validation_data is not None:
            val_x, val_y, val_sw = unpack_x_y_sample_weight(validation_data)
        iterator = EpochIterator(
            x=x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps_per_epoch,
            shuffle=shuffle,
            class_weight=class_weight,
            steps_per_execution=self.steps_per_execution,
        )
        train_function = None
        verbose = 1 if verbose == "auto" else int(verbose)
        callback_list = CallbackList(
            callbacks,
            add_history=True,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=iterator.num_batches,
        )
        object.__setattr__(self, "stop_training", False)
        callback_list.on_train_begin()
        restored = callback_list.initial_epoch_override()
        start = restored if restored is not None else initial_epoch
        logs: dict[str, Any] = {}
        for epoch in range(start, epochs):
            self.reset_metrics()
            callback_list.on_epoch_begin(epoch)
            for step, batches in iterator.enumerate_epoch():
                callback_list.on_train_batch_begin(step)
                if train_function is None:
                    self._check_batch(batches[0])
                batches = self._to_tensors(batches)
                if train_function is None:
                    self._prepare(batches[0], training=True)
                    train_function = self.make_train_function()
                    per_epoch = iterator.num_batches
                    left = None if per_epoch is None else per_epoch * (epochs - epoch) - step
                    plan_fit(train_function, verbose, left)
                logs = train_function(batches)
                # Reading logs waits for the step: only when a callback looks at them.
                if callback_list._targets("on_train_batch_end"):
                    callback_list.on_train_batch_end(step, self._ordered(to_python(logs)))
                if self.stop_training:
                    break
            if getattr(iterator, "ran_out_of_data", False):
                object.__setattr__(self, "stop_training", True)
            self._sync_state()
            epoch_logs = to_python(self._get_metrics_result_or_logs(logs))
            if val_x is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self.evaluate(
                    val_x,
                    val_y,
                    sample_weight=val_sw,
                    batch_size=validation_batch_size or batch_size,
                    steps=validation_steps,
                    verbose=0,
                    callbacks=callback_list,
                    return_dict=True,
                )
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            callback_list.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self.stop_training:
                break
        self._sync_state()
        callback_list.on_train_end(logs)
        return self.history

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Any = None,
        return_dict: bool = False,
    ) -> Any:
        """The loss and metrics over the data (a list, or a dict with `return_dict`).

        Raises:
            ValueError: the model is not compiled.
            TypeError: `x`, `y` or `sample_weight` is not numeric.
        """
        from lamina.callbacks import CallbackList
        from lamina.trainers.data_adapters import EpochIterator

        self._assert_compiled("evaluate")
        iterator = EpochIterator(
            x=x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps,
            shuffle=False,
            steps_per_execution=self.steps_per_execution,
        )
        test_function = None
        verbose = 1 if verbose == "auto" else int(verbose)
        # Validation inside `fit` passes fit's own list, so callbacks see the test hooks.
        callback_list = (
            callbacks
            if isinstance(callbacks, CallbackList)
            else self._one_pass_callbacks(callbacks, verbose, iterator.num_batches)
        )
        self.reset_metrics()
        callback_list.on_test_begin()
        logs: dict[str, Any] = {}
        for step, batches in iterator.enumerate_epoch():
            callback_list.on_test_batch_begin(step)
            if test_function is None:
                self._check_batch(batches[0])
            batches = self._to_tensors(batches)
            if test_function is None:
                self._prepare(batches[0], training=False)
                test_function = self.make_test_function()
            logs = test_function(batches)
            if callback_list._targets("on_test_batch_end"):
                callback_list.on_test_batch_end(step, self._ordered(to_python(logs)))
        self._sync_state()
        logs = to_python(self._get_metrics_result_or_logs(logs))
        callback_list.on_test_end(logs)
        return self._format_logs(logs, return_dict)

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: Any = None,
    ) -> Any:
        """Outputs for every sample, as NumPy arrays (nested outputs concatenated)."""
        from lamina.ops.core.conversion import convert_to_numpy
        from lamina.trainers.data_adapters import EpochIterator

        one_batch = self._predict_one_batch(x, batch_size, verbose, steps, callbacks)
        if one_batch is not None:
            return one_batch
        iterator = EpochIterator(
            x=x,
            batch_size=batch_size,
            steps_per_epoch=steps,
            shuffle=False,
            steps_per_execution=self.steps_per_execution,
        )
        predict_function = None
        verbose = 1 if verbose == "auto" else int(verbose)
        callback_list = self._one_pass_callbacks(callbacks, verbose, iterator.num_batches)
        callback_list.on_predict_begin()
        outputs: list[Any] = []
        for step, batches in iterator.enumerate_epoch():
            callback_list.on_predict_batch_begin(step)
            if predict_function is None:
                self._check_batch(batches[0])
            batches = self._to_tensors(batches)
            if predict_function is None:
                self._prepare(batches[0], training=False, with_targets=False)
                predict_function = self.make_predict_function()
            for out in predict_function(batches):
                outputs.append(tree.map_structure(convert_to_numpy, out))
            callback_list.on_predict_batch_end(step, {"outputs": outputs[-1]})
        self._sync_state()
        callback_list.on_predict_end()
        if not outputs:
            raise ValueError("`predict` received no data: the input had no batches.")
        return tree.map_structure(lambda *xs: np.concatenate(xs, axis=0), *outputs)

    # --- helpers -------------------------------------------------------------------------
    def _get_metrics_result_or_logs(self, logs: Any) -> dict[str, Any]:
        """The metrics' results, unless a custom step returned logs of its own."""
        results = self.get_metrics_result()
        if isinstance(logs, dict) and logs and set(logs) != set(results):
            return self._ordered(dict(logs))
        return results

    def _ordered(self, logs: dict[str, Any]) -> dict[str, Any]:
        """`logs` in `metrics_names` order, other keys after (jitted JAX steps sort keys)."""
        names = self.metrics_names
        order = [n for n in names if n in logs] + [k for k in logs if k not in names]
        return {k: logs[k] for k in order}

    def _format_logs(self, logs: dict[str, Any], return_dict: bool) -> Any:
        """`logs` as a dict, or its values in `metrics_names` order (a scalar if one)."""
        logs = self._ordered(logs)
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def _assert_compiled(self, method: str) -> None:
        if not self.compiled:
            raise ValueError(
                f"You must call `compile()` before `{method}()` on model {self.name!r}."  # type: ignore[attr-defined]
            )


def batch_size_of(x: Any) -> Any:
    """The batch size of `x`: an int, or a scalar tensor inside a graph with a None batch."""
    from lamina import ops

    first = tree.flatten(x)[0]
    static = first.shape[0]
    return int(static) if static is not None else ops.shape(first)[0]
