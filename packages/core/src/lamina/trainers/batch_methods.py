"""The methods of `Trainer` that take one in-memory batch, and the checks, conversion and
set-up that every loop runs on its first batch."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import tree
from lamina.backend.config import SETTINGS


def to_python(logs: dict[str, Any]) -> dict[str, Any]:
    """Logs as Python floats (scalars) or NumPy arrays, detached from any graph."""
    from lamina.ops.core.conversion import convert_to_numpy

    out: dict[str, Any] = {}
    for key, value in logs.items():
        array = value if isinstance(value, (int, float)) else convert_to_numpy(value)
        out[key] = float(array) if np.ndim(array) == 0 else array
    return out


class BatchMethods:
    """`train_on_batch` and `test_on_batch`; checking, converting and preparing a batch.

    A mixin of `Trainer` (``self`` is the model, hence ``self: Any``).
    """

    def train_on_batch(
        self: Any,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        class_weight: dict[int, float] | None = None,
        return_dict: bool = False,
    ) -> Any:
        """One training step on one batch; returns the loss and metrics."""
        self._assert_compiled("train_on_batch")
        self._check_batch(_pack(x, y, sample_weight))
        if class_weight is not None:
            from lamina.trainers.data_adapters import class_weight_to_sample_weights

            sample_weight = class_weight_to_sample_weights(y, class_weight)
        batches = self._to_tensors([_pack(x, y, sample_weight)])
        self._prepare(batches[0], training=True)
        logs = self.make_train_function()(batches)
        self._sync_state()
        return self._format_logs(to_python(logs), return_dict)

    def test_on_batch(
        self: Any, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False
    ) -> Any:
        """The loss and metrics of one batch (metrics reset first)."""
        self._assert_compiled("test_on_batch")
        self._check_batch(_pack(x, y, sample_weight))
        self.reset_metrics()
        batches = self._to_tensors([_pack(x, y, sample_weight)])
        self._prepare(batches[0], training=False)
        logs = self.make_test_function()(batches)
        self._sync_state()
        return self._format_logs(to_python(logs), return_dict)

    def _prepare(self: Any, batch: Any, training: bool, with_targets: bool = True) -> None:
        """Create every variable a compiled step will touch, before any step is traced.

        Compiled steps (jax.jit, tf.function) must not create variables, so the model is
        built on the first batch, the compiled metrics are resolved from its shapes and the
        optimizer builds its slots here.
        """
        from lamina.trainers.data_adapters import unpack_x_y_sample_weight

        x, y, sample_weight = unpack_x_y_sample_weight(batch)
        metrics = self._compile_metrics
        needs_metrics = with_targets and y is not None and metrics is not None and not metrics.built
        loss = self._compile_loss
        needs_loss = (
            with_targets and loss is not None and not loss.metrics and (loss._losses is None)
        )
        if not self.built or needs_metrics or needs_loss:
            y_pred = self._plain_call(x, training=False)
            if needs_metrics:
                metrics.build(y, y_pred)
                # Metrics that size their variables from the first batch (R2Score) make
                # them here, eagerly; the update is then undone.
                metrics.update_state(y, y_pred, sample_weight)
                metrics.reset_state()
            if needs_loss:
                loss.build(y_pred)  # creates the per-output loss trackers
        if training and self.optimizer is not None and not self.optimizer.built:
            self.optimizer.build(self.trainable_variables)
            pending = self.__dict__.get("_deferred_restore")
            if pending is not None:  # optimizer state loaded before the optimizer existed
                pending.optimizer_built(self.optimizer)

    def _check_batch(self: Any, batch: Any) -> None:
        """Refuse non-numeric data by argument name before the backend converts it."""
        if all(isinstance(part, np.ndarray) and part.dtype.kind in "biufc" for part in batch):
            return  # the common case, checked without walking the batch
        from lamina.trainers.data_adapters.data_adapter_utils import check_batch_dtypes

        check_batch_dtypes(batch, self._takes_strings)

    def _takes_strings(self: Any, x: Any) -> bool:
        """Whether the model takes the non-numeric input `x`: the backend must hold it, and
        a model with declared inputs must have a string input."""
        inputs = getattr(self, "inputs", None)
        if inputs and not any(getattr(t, "dtype", None) == "string" for t in inputs):
            return False
        from lamina.ops.dispatch import backend

        try:
            backend().core.convert_to_tensor(x[:1], None)
        except Exception:  # the backend cannot represent it: not an input it can take
            return False
        return True

    def _to_tensors(self: Any, batches: list[Any]) -> list[Any]:
        """NumPy batches as the backend's tensors (None entries stay None)."""
        from lamina.ops.dispatch import backend

        b = backend()

        def convert(x: Any) -> Any:
            if x is None or b.core.is_tensor(x):
                return x
            if isinstance(x, np.ndarray) and x.dtype == np.float64:
                x = x.astype(SETTINGS.floatx)  # NumPy's default float is not Lamina's
            return b.core.convert_to_tensor(x, None)

        return [tree.map_structure(convert, batch) for batch in batches]


def _pack(x: Any, y: Any, sample_weight: Any) -> tuple[Any, ...]:
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``, as the data iterators yield them,
    so a custom step can unpack ``x, y = data``."""
    if sample_weight is not None:
        return (x, y, sample_weight)
    return (x,) if y is None else (x, y)
