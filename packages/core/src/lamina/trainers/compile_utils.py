"""What `compile(loss=..., metrics=...)` turns into: losses and metrics per model output."""

from __future__ import annotations

from typing import Any

from lamina import tree


def _output_names(model: Any, count: int) -> list[str]:
    names = model.output_names if count > 1 else []
    return list(names) if len(names) == count else [f"output_{i}" for i in range(count)]


def _per_output(spec: Any, names: list[str], arg: str) -> list[Any]:
    """`spec` (one for all, a list, or a dict by output name) as one entry per output."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ValueError(
                f"Argument `{arg}` has keys {unknown} that name no model output. "
                f"Outputs: {names}"
            )
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)) and len(names) > 1:
        if len(spec) != len(names):
            raise ValueError(
                f"Argument `{arg}` must have one entry per model output ({len(names)}). "
                f"Received {len(spec)}: {spec!r}"
            )
        return list(spec)
    return [spec] * len(names)


class CompileLoss:
    """The compiled loss: one loss per output, weighted and summed.

    Args:
        loss: a loss (name, function or `Loss`), a list per output or a dict by output name.
        loss_weights: a scalar weight per output, as a list or dict.
        model: the model whose outputs the structure refers to.
    """

    def __init__(self, loss: Any, loss_weights: Any, model: Any) -> None:
        self.loss = loss
        self.loss_weights = loss_weights
        self._model = model
        self._losses: list[Any] | None = None
        self._weights: list[float] = []

    def _build(self, y_pred: Any) -> None:
        from lamina import losses

        flat = tree.flatten(y_pred)
        names = _output_names(self._model, len(flat))
        specs = _per_output(self.loss, names, "loss")
        weights = (
            _per_output(self.loss_weights, names, "loss_weights")
            if self.loss_weights is not None
            else [1.0] * len(flat)
        )
        self._losses = [losses.get(s) if s is not None else None for s in specs]
        self._weights = [1.0 if w is None else float(w) for w in weights]

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        from lamina import losses
        from lamina.ops.numpy.reduction import mean

        if self._losses is None:
            self._build(y_pred)
        assert self._losses is not None
        flat_pred = tree.flatten(y_pred)
        flat_true = _flatten_like(y_true, y_pred, self._model)
        flat_sw = (
            _flatten_like(sample_weight, y_pred, self._model)
            if sample_weight is not None
            else [None] * len(flat_pred)
        )
        total = None
        for fn, weight, yt, yp, sw in zip(
            self._losses, self._weights, flat_true, flat_pred, flat_sw
        ):
            if fn is None or yt is None:
                continue
            value = fn(yt, yp, sample_weight=sw) if sw is not None else fn(yt, yp)
            if not isinstance(fn, losses.Loss):  # a plain function returns per-sample values
                value = mean(value)
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        return total

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "loss": serialize_lamina_object(self.loss),
            "loss_weights": self.loss_weights,
        }


def _flatten_like(values: Any, y_pred: Any, model: Any) -> list[Any]:
    """`values` (y or sample weights) in the order of `tree.flatten(y_pred)`."""
    flat_pred = tree.flatten(y_pred)
    if len(flat_pred) == 1:
        return [values if not isinstance(values, (list, tuple)) or len(values) != 1
                else values[0]]
    if isinstance(values, dict) and not isinstance(y_pred, dict):
        names = _output_names(model, len(flat_pred))
        return [values.get(n) for n in names]
    flat = tree.flatten(values)
    if len(flat) != len(flat_pred):
        raise ValueError(
            f"The model has {len(flat_pred)} outputs but the targets have {len(flat)} "
            "entries. Pass one target per output (a list, or a dict by output name)."
        )
    return flat


class CompileMetrics:
    """The compiled metrics: metric objects per output, built on the first batch.

    ``"accuracy"`` becomes binary, categorical or sparse categorical accuracy from the
    shapes of the first batch, as in Keras.
    """

    def __init__(self, metrics: Any, weighted_metrics: Any, model: Any) -> None:
        self._specs = metrics
        self._weighted_specs = weighted_metrics
        self._model = model
        self.built = False
        self._per_output: list[list[Any]] = []
        self._weighted_per_output: list[list[Any]] = []

    @property
    def metrics(self) -> list[Any]:
        return [m for ms in self._per_output + self._weighted_per_output for m in ms]

    def build(self, y_true: Any, y_pred: Any) -> None:
        flat_pred = tree.flatten(y_pred)
        flat_true = _flatten_like(y_true, y_pred, self._model)
        names = _output_names(self._model, len(flat_pred))
        prefix = len(flat_pred) > 1
        for specs, target, weighted in (
            (self._specs, self._per_output, False),
            (self._weighted_specs, self._weighted_per_output, True),
        ):
            per = _per_output(specs, names, "metrics") if specs is not None else [
                None
            ] * len(names)
            for name, spec, yt, yp in zip(names, per, flat_true, flat_pred):
                items = [] if spec is None else spec if isinstance(spec, (list, tuple)) else [
                    spec
                ]
                target.append(
                    [
                        _resolve_metric(s, yt, yp, f"{name}_" if prefix else "", weighted)
                        for s in items
                    ]
                )
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if not self.built:
            self.build(y_true, y_pred)
        flat_pred = tree.flatten(y_pred)
        flat_true = _flatten_like(y_true, y_pred, self._model)
        flat_sw = (
            _flatten_like(sample_weight, y_pred, self._model)
            if sample_weight is not None
            else [None] * len(flat_pred)
        )
        for i, (yt, yp) in enumerate(zip(flat_true, flat_pred)):
            if yt is None:
                continue
            for m in self._per_output[i]:
                m.update_state(yt, yp)
            for m in self._weighted_per_output[i]:
                m.update_state(yt, yp, sample_weight=flat_sw[i])

    def reset_state(self) -> None:
        for m in self.metrics:
            m.reset_state()


def _resolve_metric(spec: Any, y_true: Any, y_pred: Any, prefix: str, weighted: bool) -> Any:
    from lamina import metrics as metrics_module

    if isinstance(spec, str) and spec in ("accuracy", "acc", "crossentropy", "ce"):
        true_shape = tuple(y_true.shape)
        pred_shape = tuple(y_pred.shape)
        is_binary = pred_shape[-1:] == (1,)
        sparse = len(true_shape) < len(pred_shape) or (
            true_shape[-1:] == (1,) and pred_shape[-1:] != (1,)
        )
        kind = "accuracy" if spec in ("accuracy", "acc") else "crossentropy"
        if kind == "accuracy":
            cls: Any = (
                metrics_module.BinaryAccuracy
                if is_binary
                else metrics_module.SparseCategoricalAccuracy
                if sparse
                else metrics_module.CategoricalAccuracy
            )
        else:
            cls = (
                metrics_module.BinaryCrossentropy
                if is_binary
                else metrics_module.SparseCategoricalCrossentropy
                if sparse
                else metrics_module.CategoricalCrossentropy
            )
        name = ("weighted_" if weighted else "") + prefix + spec
        return cls(name=name)
    metric = metrics_module.get(spec)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(metric, name=prefix + metric.__name__)
    elif prefix:
        metric._name = prefix + metric.name
    return metric
