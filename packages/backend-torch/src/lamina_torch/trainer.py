"""The training step on torch: eager autograd, `torch.compile` when `jit_compile=True`;
with ``"auto"`` (the default) `fit` times both and keeps the faster
(`lamina.trainers.auto_compile`).

Eager steps pay for every op they dispatch, so the step takes the short ways: the loss
tracker is updated in place, Adam's rule runs as torch's fused kernel
(`lamina_torch.optimizers`), and `fit` reads a step's logs only when something looks at
them (a callback's ``on_train_batch_end``, `train_on_batch`): computing every metric's
result after every batch costs more Python than the update itself on small models.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

from lamina.backend.kit import (
    auto_train_function,
    batch_size_of,
    loss_sums,
    track_loss,
    unmemoized,
    unpack_x_y_sample_weight,
)
from lamina_torch import distribution, fused, model_parallel
from lamina_torch.between_graphs import BetweenGraphs


class TorchTrainer:
    """Overrides `train_step` (autograd) and compiles steps with torch.compile on request."""

    _results_deferred: bool = False  # set while `fit`'s own steps run (`make_train_function`)

    def train_step(self, data: Any) -> dict[str, Any]:
        """One batch: forward, loss, backward, optimizer update, metrics."""
        with model_parallel.step_scope():  # ModelParallel: constants meet DTensors
            return _step_body(self, data)

    def _default_jit_compile(self) -> bool | str:
        # torch.compile wins on some models and loses on others: `fit` times both.
        return "auto"

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function
        distribution.sync_replicas(model)  # replicas start from process 0's weights
        mode = False if model.run_eagerly else model.jit_compile
        if mode == "auto":
            run: Any = auto_train_function(
                model,
                plain=("eager", self._step_runner(compiled=False)),
                # The plain steps before the trial fill the tables a first eager step would.
                compiled=("torch.compile", lambda: self._step_runner(True, eager_first=False)),
                compilations=_compiled_graphs,
                sync=_sync_device,
            )
        else:
            run = self._step_runner(compiled=bool(mode))
        object.__setattr__(model, "train_function", run)
        return run

    def _step_runner(self, compiled: bool, eager_first: bool = True) -> Any:
        """``run(batches) -> logs``: the train step, through `torch.compile` if `compiled`
        (after one eager step, unless not `eager_first`: see `_compiled_step`)."""
        model: Any = self
        step = model.train_step
        if compiled:
            _leave_updates_out_of_compiled_steps()
            step = _compiled_step(model, eager_first)
        # Lamina's own step, metrics and results: their logs can wait until read. Not
        # across processes: combining results is a collective every process must join, and
        # callbacks may read logs on some processes only.
        lamina_step = not compiled and _lamina_step(model)

        def run(batches: list[Any]) -> Mapping[str, Any]:
            logs: Mapping[str, Any] = {}
            defer = lamina_step and distribution.replicas() == 1
            object.__setattr__(model, "_results_deferred", defer)
            try:
                for batch in batches:
                    logs = step(batch)
            finally:
                object.__setattr__(model, "_results_deferred", False)
            return logs

        return run

    def get_metrics_result(self) -> Any:
        if self._results_deferred:
            return _PendingLogs(self._metrics_result_now)
        return self._metrics_result_now()

    def _metrics_result_now(self) -> dict[str, Any]:
        results: Callable[[], dict[str, Any]] = super().get_metrics_result  # type: ignore[misc]
        if distribution.replicas() == 1:
            return results()
        # Under DataParallel the logs hold every process's batches, not only this one's.
        return distribution.across_replicas(self, results)

    def test_step(self, data: Any) -> Any:
        with torch.no_grad(), model_parallel.step_scope():
            return super().test_step(data)  # type: ignore[misc]

    def predict_step(self, data: Any) -> Any:
        with torch.no_grad(), model_parallel.step_scope():
            # ModelParallel: each process gets the predictions of its own rows.
            return model_parallel.local_rows(super().predict_step(data))  # type: ignore[misc]

    def _inference_scope(self) -> Any:
        # `predict_on_batch` calls the model directly (no strategy, Lamina's predict_step).
        return torch.no_grad()

    def _to_tensors(self, batches: list[Any]) -> list[Any]:
        # Under ModelParallel, each batch becomes DTensors split along the batch axis.
        tensors = super()._to_tensors(batches)  # type: ignore[misc]
        return model_parallel.distribute_batches(tensors)


class _PendingLogs(Mapping[str, Any]):
    """A step's logs, computed from the metrics' state when first read.

    `fit` reads them right after the step or never; a reader holding them across steps
    would see the later state, which `fit` never does.
    """

    __slots__ = ("_compute", "_logs")

    def __init__(self, compute: Callable[[], dict[str, Any]]) -> None:
        self._compute = compute
        self._logs: dict[str, Any] | None = None

    def _read(self) -> dict[str, Any]:
        if self._logs is None:
            self._logs = self._compute()
        return self._logs

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def _apply_update(optimizer: Any, grads: list[Any], trainable: list[Any]) -> None:
    """The optimizer update, left out of a `torch.compile`d step: its fused kernels are
    already one call each, and inductor cannot trace Adam's in-place fused kernel."""
    with torch.no_grad():
        optimizer.apply(grads, trainable)


_update = BetweenGraphs(_apply_update)
"""What the step calls: `_apply_update`, left out of compiled steps."""


def _step_body(model: Any, data: Any) -> dict[str, Any]:
    """`TorchTrainer.train_step` inside its step scope: a function of the model, so that a
    compiled step can run a copy of its code (`_compiled_step`)."""
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    y_pred = model(x, training=True)
    loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
    _track_loss(model, loss, x)
    trainable = model.trainable_weights
    if trainable:
        params = [variable.value for variable in trainable]
        for param in params:
            param.grad = None
        if loss.requires_grad:  # else no weight reached the loss: every gradient is None
            model.optimizer.scale_loss(loss).backward()
        grads = [param.grad for param in params]
        grads = distribution.average_gradients(grads, trainable)  # DataParallel: DDP's
        _update(model.optimizer, grads, trainable)
    return model.compute_metrics(x, y, y_pred, sample_weight)


def _compiled_step(model: Any, eager_first: bool) -> Callable[[Any], Any]:
    """`model.train_step` through `torch.compile`, on code of this model's own, after one
    eager step if `eager_first`.

    torch.compile keeps its compiled frames per code object, at most `recompile_limit` (8)
    of them, and each one guards on the model it traced: with every model's step on one
    code object, the steps of all but a process' first few models ran eagerly. It also
    guards on the lookup tables Lamina fills on first use (constructor signatures, op
    fallbacks), which the first step fills: compiled first, each costs a recompile of the
    whole step (about 10 s each on a CPU). For the same reason ops skip their memo of
    eager checks there (`unmemoized`). Lamina's own step compiles its body inside the step
    scope, since a graph break (the backward) cannot happen inside that context manager.
    Shapes are static: a partial last batch compiles once more, which cost less than
    tracing with symbolic sizes (71 against 85 s for one small model on a CPU, cold caches).
    """
    own = type(model).train_step is not TorchTrainer.train_step  # the user's own step
    step_function = type(model).train_step if own else _step_body
    # Bound, not a partial: torch.compile then caches the copy's frame, not a wrapper's.
    body = torch.compile(types.MethodType(_code_copy(step_function), model), dynamic=False)

    def compiled(data: Any) -> Any:
        with unmemoized(), (contextlib.nullcontext() if own else model_parallel.step_scope()):
            return body(data)

    if not eager_first:
        return compiled
    stepped = False

    def step(data: Any) -> Any:
        nonlocal stepped
        if stepped:
            return compiled(data)
        stepped = True
        return model.train_step(data)

    return step


def _code_copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` over a fresh copy of its code: torch.compile's cache of its own."""
    copy = types.FunctionType(
        fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    return copy


def _leave_updates_out_of_compiled_steps() -> None:
    """Mark the update and the fused recurrent kernels before a step is first compiled
    (see `BetweenGraphs`)."""
    _update.mark()
    fused.call_kernel.mark()


def _compiled_graphs() -> int:
    """Graphs torch.compile has built in this process (the trial counts the new ones)."""
    return int(torch._dynamo.utils.counters["stats"]["unique_graphs"])


def _sync_device() -> None:
    """Wait for queued CUDA work, so a timed step is the whole step."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _lamina_step(model: Any) -> bool:
    """Whether `model` trains with Lamina's own `train_step`, `compute_metrics` and
    `get_metrics_result` (no override that could read or change the logs it returns)."""
    from lamina.models import Model

    names = ("train_step", "compute_metrics", "get_metrics_result")
    return all(getattr(getattr(model, n), "__func__", None) is getattr(Model, n) for n in names)


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
