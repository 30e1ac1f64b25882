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
        self._names: list[str] = []
        self._trackers: list[Any] = []

    @property
    def metrics(self) -> list[Any]:
        """One `Mean` per output loss (``"<output>_loss"``) when the model has several."""
        return list(self._trackers)

    def build(self, y_pred: Any) -> None:
        """Resolve one loss and weight per output; a no-op once built."""
        if self._losses is None:
            self._build(y_pred)

    def _build(self, y_pred: Any) -> None:

        flat = tree.flatten(y_pred)
        names = _output_names(self._model, len(flat))
        specs = _per_output(self.loss, names, "loss")
        weights = (
            _per_output(self.loss_weights, names, "loss_weights")
            if self.loss_weights is not None
            else [1.0] * len(flat)
        )
        self._losses = [_resolve_loss(s) for s in specs]
        self._weights = [1.0 if w is None else float(w) for w in weights]
        self._names = names
        if len(flat) > 1:
            from lamina import metrics as metrics_module

            # Keras names them "<output>_loss"; they hold the unweighted per-output values
            # (the total is the weighted sum).
            self._trackers = [
                metrics_module.Mean(name=f"{n}_loss") for n, fn in zip(names, self._losses)
                if fn is not None
            ]

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """The weighted sum of the per-output losses (None when no output has a loss)."""
        total = None
        for i, value in self._values(y_true, y_pred, sample_weight):
            weight = self._weights[i]
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        return total

    def _values(self, y_true: Any, y_pred: Any, sample_weight: Any) -> list[tuple[int, Any]]:
        """``(output index, unweighted loss)`` for every output with a loss and a target."""
        self.build(y_pred)
        assert self._losses is not None
        flat_pred = tree.flatten(y_pred)
        flat_true = _flatten_like(y_true, y_pred, self._model)
        flat_sw = (
            _flatten_like(sample_weight, y_pred, self._model)
            if sample_weight is not None
            else [None] * len(flat_pred)
        )
        out = []
        for i, (fn, yt, yp, sw) in enumerate(zip(self._losses, flat_true, flat_pred, flat_sw)):
            if fn is None or yt is None:
                continue
            out.append((i, fn(yt, yp, sample_weight=sw)))
        return out

    def update_trackers(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Update the per-output loss means (several outputs only).

        They are recomputed from `y_pred` rather than kept from the loss computation: on
        JAX that computation runs inside the gradient trace, whose values cannot leave it.
        """
        if not self._trackers or y_true is None:
            return
        from lamina import ops

        y_pred = tree.map_structure(ops.stop_gradient, y_pred)
        with_loss = [i for i, fn in enumerate(self._losses or []) if fn is not None]
        batch = tree.flatten(y_pred)[0]
        for i, value in self._values(y_true, y_pred, sample_weight):
            self._trackers[with_loss.index(i)].update_state(value, sample_weight=_rows(batch))

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "loss": serialize_lamina_object(self.loss),
            "loss_weights": self.loss_weights,
        }


def _resolve_loss(spec: Any) -> Any:
    """A `Loss` for `spec`: loss functions are wrapped so they take sample weights."""
    from lamina import losses

    if spec is None:
        return None
    fn = losses.get(spec)
    if isinstance(fn, losses.Loss):
        return fn
    name = spec if isinstance(spec, str) else None
    return losses.LossFunctionWrapper(fn, name=name)


def _rows(x: Any) -> Any:
    from lamina import ops

    static = x.shape[0]
    return int(static) if static is not None else ops.shape(x)[0]


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
        """Resolve the metrics per output from the shapes of the first batch."""
        flat_pred = tree.flatten(y_pred)
        flat_true = _flatten_like(y_true, y_pred, self._model)
        names = _output_names(self._model, len(flat_pred))
        prefix = len(flat_pred) > 1
        for specs, target, arg in (
            (self._specs, self._per_output, "metrics"),
            (self._weighted_specs, self._weighted_per_output, "weighted_metrics"),
        ):
            target.clear()
            per = _per_output(specs, names, arg) if specs is not None else [None] * len(names)
            for name, spec, yt, yp in zip(names, per, flat_true, flat_pred):
                items = [] if spec is None else spec if isinstance(spec, (list, tuple)) else [
                    spec
                ]
                target.append(
                    [_resolve_metric(s, yt, yp, f"{name}_" if prefix else "") for s in items]
                )
        # A metric asked for both unweighted and weighted is logged twice: the weighted
        # one is told apart by a "weighted_" prefix.
        taken = {m.name for ms in self._per_output for m in ms}
        for ms in self._weighted_per_output:
            for m in ms:
                if m.name in taken:
                    m.name = "weighted_" + m.name
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


def _resolve_metric(spec: Any, y_true: Any, y_pred: Any, prefix: str) -> Any:
    """A `Metric` for `spec`, named as Keras names it (the string given, else its name)."""
    from lamina import metrics as metrics_module

    if isinstance(spec, str) and spec in ("accuracy", "acc", "crossentropy", "ce"):
        true_shape = tuple(y_true.shape)
        pred_shape = tuple(y_pred.shape)
        is_binary = pred_shape[-1:] == (1,)
        sparse = len(true_shape) < len(pred_shape) or (
            true_shape[-1:] == (1,) and pred_shape[-1:] != (1,)
        )
        if spec in ("accuracy", "acc"):
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
        return cls(name=prefix + spec)
    metric = metrics_module.get(spec)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(
            metric, name=spec if isinstance(spec, str) else None
        )
    elif isinstance(spec, str):
        metric.name = spec
    if prefix:
        metric.name = prefix + metric.name
    return metric
