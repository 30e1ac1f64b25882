"""The fit check of `check_layer`: the layer in a model, through the backend's own trainer.

A layer can pass every eager check and still fail where users meet it: inside `fit`, where
the backend compiles the step (jitted on JAX, a `tf.function` whose batch size is unknown on
TensorFlow, `torch.compile` on request). This check puts the layer in a functional model and
runs `compile`, `fit`, `evaluate` and `predict` over one full batch and a partial last
batch of one sample: on TensorFlow that second batch size retraces the step with the batch
dim unknown, the case that shape-driven code gets wrong.

The full batches have the size of the batch the eager checks used (at least 2), and the
eager references are computed batch by batch, so on JAX, where each eager op is compiled
per shape, they reuse the eager checks' compiled ops: only the one-sample batch is new.

On a backend whose compiled steps have static shapes (`Capability.STATIC_SHAPES`: JAX),
no batch dim is ever unknown, and the one-sample batch runs through `predict` only: in
`fit` and `evaluate` it would compile the same trace a second time, the train step
(forward and gradients) being each layer's most expensive compile.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import tree
from lamina.ops import dtypes


def _numpy(x: Any) -> np.ndarray[Any, Any]:
    from lamina.ops.core.conversion import convert_to_numpy

    return np.asarray(convert_to_numpy(x))


def _batch_size(data: Any) -> int:
    """The eager checks' batch size, at least 2 so that a one-sample batch is partial."""
    return max(2, int(np.shape(_numpy(tree.flatten(data)[0]))[0]))


def _tiled(data: Any, samples: int) -> Any:
    """`data` repeated along its batch axis to `samples` samples."""

    def tile(a: Any) -> np.ndarray[Any, Any]:
        a = _numpy(a)
        return np.take(a, np.arange(samples) % a.shape[0], axis=0)

    return tree.map_structure(tile, data)


def _rows(x: Any, start: int, stop: int | None) -> Any:
    return tree.map_structure(lambda a: a[start:stop], x)


def _eager_outputs(model: Any, x: Any, batch_size: int) -> Any:
    """The model called eagerly (``training=False``) batch by batch, outputs joined.

    Under ``run_eagerly``, so that it runs op by op where inference would otherwise run
    a compiled forward (JAX, TensorFlow): the reference `predict` is checked against."""
    compiled = model.run_eagerly
    model.run_eagerly = True
    try:
        parts = [
            model(_rows(x, 0, batch_size), training=False),
            model(_rows(x, batch_size, None), training=False),
        ]
    finally:
        model.run_eagerly = compiled
    return tree.map_structure(
        lambda first, last: np.concatenate([_numpy(first), _numpy(last)]), *parts
    )


def _modes() -> list[dict[str, Any]]:
    """The `compile` arguments to check: those the backend declares as distinct steps
    (`Backend.step_modes`: its default step, plus opt-in compilers such as torch.compile)."""
    from lamina.backend import current

    return [dict(mode) for mode in current().step_modes]


def _partial_batch_in_fit() -> bool:
    """Whether `fit` and `evaluate` also run the partial batch (see the module docstring):
    not where compiled steps have static shapes, as it is the same trace compiled again."""
    from lamina.backend import Capability, current

    return not current().supports(Capability.STATIC_SHAPES)


def _trains() -> bool:
    from lamina.backend import Capability, current

    return bool(current().supports(Capability.TRAINING))


def _changed(before: list[np.ndarray[Any, Any]], variables: list[Any]) -> list[bool]:
    return [
        not np.array_equal(old, _numpy(v.value), equal_nan=True)
        for old, v in zip(before, variables, strict=True)
    ]


def _state_moved_by_a_training_call(make_layer: Callable[[], Any], x: Any) -> list[bool]:
    """Which non-trainable variables an eager ``training=True`` call changes."""
    probe = make_layer()
    probe(x, training=False)
    before = [_numpy(v.value).copy() for v in probe.non_trainable_variables]
    probe(x, training=True)
    return _changed(before, probe.non_trainable_variables)


def check_fit(
    c: Any,
    make_layer: Callable[[], Any],
    make_inputs: Callable[[], Any],
    data: Any,
) -> None:
    """Fit, evaluate and predict a model holding a fresh layer; fail through `c`.

    Checks, for each mode of `_modes`: `fit` gives finite losses, changes at least one
    trainable weight when there are any, and changes every non-trainable variable that an
    eager ``training=True`` call changes (moving statistics, seed states); `predict` agrees
    with an eager call and `evaluate` with an eagerly run `evaluate`. On a backend without
    training (NumPy) only `evaluate` and `predict` run. `predict` always gets a full and a
    partial batch; `fit` and `evaluate` too, except with `Capability.STATIC_SHAPES`.

    Args:
        c: the `check_layer` failure formatter (``true``, ``close``, ``fail``).
        make_layer: returns a new, unbuilt layer configured as under test.
        make_inputs: returns the symbolic inputs (None batch dim) for the layer.
        data: one batch of inputs; it is tiled to a full batch and one more sample.
    """
    from lamina.models import Model

    batch_size = _batch_size(data)
    x = _tiled(data, batch_size + 1)
    fit_rows = None if _partial_batch_in_fit() else batch_size
    trains = _trains()
    for mode in _modes():
        what = f"fit{mode or ''}"
        layer = make_layer()
        inputs = make_inputs()
        model = Model(inputs, layer(inputs))
        eager = _eager_outputs(model, x, batch_size)
        if any(dtypes.dtype_of(o) not in dtypes.FLOATS for o in tree.flatten(eager)):
            raise c.fail(
                what,
                "the layer's outputs are not all floats, so no loss can train it; pass "
                "`skip_fit_check` with the reason.",
            )
        y = tree.map_structure(lambda o: np.zeros(np.shape(_numpy(o)), "float32"), eager)
        model.compile(optimizer="sgd", loss="mse", **mode)
        fit_x, fit_y = _rows(x, 0, fit_rows), _rows(y, 0, fit_rows)
        if trains:
            _check_training(c, what, model, layer, make_layer, fit_x, fit_y, batch_size)
            eager = _eager_outputs(model, x, batch_size)
        predicted = model.predict(x, batch_size=batch_size, verbose=0)
        c.close(predicted, eager, what, "predict() vs an eager call of the model")
        loss = model.evaluate(fit_x, fit_y, batch_size=batch_size, verbose=0)
        model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        expected = model.evaluate(fit_x, fit_y, batch_size=batch_size, verbose=0)
        c.close(np.float32(loss), np.float32(expected), what, "evaluate() vs run_eagerly=True")


def _check_training(
    c: Any,
    what: str,
    model: Any,
    layer: Any,
    make_layer: Callable[[], Any],
    x: Any,
    y: Any,
    batch_size: int,
) -> None:
    trainable = [_numpy(v.value).copy() for v in layer.trainable_variables]
    state = [_numpy(v.value).copy() for v in layer.non_trainable_variables]
    try:
        with warnings.catch_warnings():
            # torch.compile imports torch modules that warn about torch's own deprecations.
            warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\.")
            history = model.fit(x, y, batch_size=batch_size, epochs=1, shuffle=False, verbose=0)
    except Exception as err:
        raise c.fail(what, f"fit raised {err!r}") from err
    losses = history.history.get("loss", [])
    c.true(
        len(losses) == 1 and bool(np.all(np.isfinite(losses))),
        what,
        f"fit reported losses {losses}; expected one finite loss per epoch.",
    )
    if trainable:
        c.true(
            any(_changed(trainable, layer.trainable_variables)),
            what,
            "fit changed none of the layer's trainable weights.",
        )
    moved = _changed(state, layer.non_trainable_variables)
    expected = _state_moved_by_a_training_call(make_layer, _rows(x, 0, batch_size))
    for variable, by_fit, by_call in zip(layer.non_trainable_variables, moved, expected):
        c.true(
            by_fit or not by_call,
            what,
            f"an eager training call updates {variable.path}, but fit left it unchanged.",
        )
