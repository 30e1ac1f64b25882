"""The training step on torch: eager autograd, `torch.compile` when `jit_compile=True`.

Eager steps pay for every op they dispatch, so the step takes the short ways: the loss
tracker is updated in place, and Adam's rule runs as torch's fused kernel
(`lamina_torch.optimizers`).
"""

from __future__ import annotations

from typing import Any

import torch

from lamina.backend.kit import batch_size_of, loss_sums, track_loss, unpack_x_y_sample_weight
from lamina_torch import distribution


class TorchTrainer:
    """Overrides `train_step` (autograd) and compiles steps with torch.compile on request."""

    def train_step(self, data: Any) -> dict[str, Any]:
        """One batch: forward, loss, backward, optimizer update, metrics."""
        model: Any = self
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = model(x, training=True)
        loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        _track_loss(model, loss, x)
        trainable = model.trainable_weights
        if trainable:
            for variable in trainable:
                variable.value.grad = None
            if loss.requires_grad:  # else no weight reached the loss: every gradient is None
                model.optimizer.scale_loss(loss).backward()
            grads = [variable.value.grad for variable in trainable]
            grads = distribution.average_gradients(grads, trainable)  # DataParallel: DDP's
            with torch.no_grad():
                model.optimizer.apply(grads, trainable)
        return model.compute_metrics(x, y, y_pred, sample_weight)

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function
        step = model.train_step
        if model.jit_compile and not model.run_eagerly:
            step = torch.compile(step)

        distribution.sync_replicas(model)  # replicas start from process 0's weights

        def run(batches: list[Any]) -> dict[str, Any]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs = step(batch)
            return logs

        object.__setattr__(model, "train_function", run)
        return run

    def get_metrics_result(self) -> dict[str, Any]:
        # Under DataParallel the logs hold every process's batches, not only this one's.
        return distribution.across_replicas(self, super().get_metrics_result)  # type: ignore[misc]

    def test_step(self, data: Any) -> Any:
        with torch.no_grad():
            return super().test_step(data)  # type: ignore[misc]

    def predict_step(self, data: Any) -> Any:
        with torch.no_grad():
            return super().predict_step(data)  # type: ignore[misc]


def _track_loss(model: Any, loss: Any, x: Any) -> None:
    """`track_loss` for the scalar loss.

    For the plain mean that `compile` creates this is two in-place adds (``sum += loss *
    batch_size``, ``weight += batch_size``) instead of a dozen dispatched ops.
    """
    sums = loss_sums(model)
    if sums is None or getattr(loss, "ndim", None) != 0:
        track_loss(model, loss, x)
        return
    batch_size = batch_size_of(x)
    total, count = (v.value for v in sums)
    with torch.no_grad():
        total.add_(loss.detach().to(total.dtype) * batch_size)
        count.add_(batch_size)
