"""`check_layer`: the one contract test every layer runs, on the current backend.

Each layer's own tests check its numerics; this helper checks what every layer must get
right the same way (build, shapes, configs, weights, training flag, masks, mixed precision,
stateless calls, determinism), so those checks are written once and fail with one message
style. Failures raise `AssertionError` naming the layer class and the check that failed.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import tree
from lamina.ops import dtypes
from lamina.testing.layer_fit import check_fit
from lamina.testing.numerics import tolerance

ShapeLike = Any


class _Check:
    """Formats failures as ``check_layer(<Class>) [<check>]: <what went wrong>``."""

    def __init__(self, layer_cls: type) -> None:
        self.prefix = f"check_layer({getattr(layer_cls, '__name__', layer_cls)!s})"

    def fail(self, check: str, message: str) -> AssertionError:
        return AssertionError(f"{self.prefix} [{check}]: {message}")

    def true(self, condition: bool, check: str, message: str) -> None:
        if not condition:
            raise self.fail(check, message)

    def close(self, actual: Any, expected: Any, check: str, what: str) -> None:
        """Compare two structures of tensors within the tolerance of `actual`'s dtype."""
        got = tree.flatten(actual)
        want = tree.flatten(expected)
        self.true(
            len(got) == len(want),
            check,
            f"{what}: {len(got)} tensors vs {len(want)} tensors.",
        )
        for i, (a, b) in enumerate(zip(got, want)):
            a_np, b_np = _to_numpy(a), _to_numpy(b)
            self.true(
                a_np.shape == b_np.shape,
                check,
                f"{what}: output {i} has shape {a_np.shape} vs {b_np.shape}.",
            )
            rtol, atol = tolerance(dtypes.dtype_of(a)) if hasattr(a, "dtype") else (0.0, 0.0)
            try:
                np.testing.assert_allclose(
                    _comparable(a_np), _comparable(b_np), rtol=rtol, atol=atol, equal_nan=True
                )
            except AssertionError as err:
                raise self.fail(check, f"{what}: output {i} differs.\n{err}") from None


def _to_numpy(x: Any) -> np.ndarray[Any, Any]:
    from lamina.ops.core.conversion import convert_to_numpy

    return np.asarray(convert_to_numpy(x))


def _comparable(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if x.dtype.name in ("bfloat16", "float16"):
        return x.astype(np.float32)
    return x


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    )


def _map_shapes(fn: Callable[[tuple[Any, ...]], Any], shapes: ShapeLike) -> Any:
    """Apply `fn` to each shape of a shape or a list/tuple/dict structure of shapes."""
    if _is_shape(shapes):
        return fn(tuple(shapes))
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return type(shapes)(_map_shapes(fn, s) for s in shapes)
    raise ValueError(
        "Argument `input_shape` must be a shape tuple or a list/dict of shape tuples. "
        f"Received: input_shape={shapes!r}"
    )


def _random_data(shape: tuple[Any, ...], dtype: str, rng: np.random.Generator) -> Any:
    if any(d is None for d in shape):
        raise ValueError(
            "Argument `input_shape` must have known dims to make test data. "
            f"Received: input_shape={shape}"
        )
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in dtypes.FLOATS:
        return rng.standard_normal(shape).astype(dtypes.to_numpy_dtype(dtype))
    return rng.integers(0, 10, size=shape).astype(dtypes.to_numpy_dtype(dtype))


def _shape_of(x: Any) -> tuple[Any, ...]:
    return tuple(None if d is None else int(d) for d in x.shape)


def _shapes_match(actual: tuple[Any, ...], expected: tuple[Any, ...]) -> bool:
    """Equal ranks and equal dims, where None on either side matches any dim."""
    if len(actual) != len(expected):
        return False
    return all(a is None or e is None or a == e for a, e in zip(actual, expected))


def _flat_shapes(structure: Any) -> list[tuple[Any, ...]]:
    if _is_shape(structure):
        return [tuple(structure)]
    if isinstance(structure, dict):
        return [s for k in sorted(structure) for s in _flat_shapes(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [s for item in structure for s in _flat_shapes(item)]
    raise TypeError(f"Not a shape structure: {structure!r}")


def _new_layer(layer_cls: type, kwargs: dict[str, Any]) -> Any:
    """A fresh layer; layers among the arguments (wrappers) are cloned, never shared."""
    from lamina.layers.layer import Layer

    fresh = {
        k: type(v).from_config(v.get_config()) if isinstance(v, Layer) else v
        for k, v in kwargs.items()
    }
    return layer_cls(**fresh)


def _call(layer: Any, x: Any, **kwargs: Any) -> Any:
    return layer(x, **kwargs)


def _input_dtype_of(input_dtype: Any, index: int) -> str:
    if isinstance(input_dtype, (list, tuple)):
        return dtypes.standardize_dtype(input_dtype[index])
    return dtypes.standardize_dtype(input_dtype)


def _make_inputs(input_shape: ShapeLike, input_dtype: Any, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    counter = iter(range(10_000))
    return _map_shapes(
        lambda s: _random_data(s, _input_dtype_of(input_dtype, next(counter)), rng), input_shape
    )


def _symbolic_inputs(input_shape: ShapeLike, input_dtype: Any) -> Any:
    from lamina.layers.input_layer import Input

    counter = iter(range(10_000))
    return _map_shapes(
        lambda s: Input(
            batch_shape=(None, *s[1:]), dtype=_input_dtype_of(input_dtype, next(counter))
        ),
        input_shape,
    )


def check_layer(
    layer_cls: type,
    init_kwargs: dict[str, Any],
    input_shape: ShapeLike = None,
    *,
    input_dtype: Any = "float32",
    expected_output_shape: ShapeLike = None,
    expected_output_dtype: Any = None,
    expected_num_trainable_weights: int | None = None,
    expected_num_non_trainable_weights: int | None = None,
    expected_num_losses: int | None = None,
    supports_masking: bool | None = None,
    input_data: Any = None,
    run_training_check: bool = True,
    run_mixed_precision_check: bool = True,
    custom_objects: dict[str, Any] | None = None,
    assert_built_after_instantiation: bool = False,
    skip_fit_check: str | None = None,
) -> Any:
    """Run the shared layer contract on the current backend.

    Args:
        layer_cls: the layer class under test.
        init_kwargs: constructor arguments (a ``seed`` here enables the seeded-training check).
        input_shape: a full shape (batch dim included), or a list/dict of them for layers
            taking several inputs. Optional when `input_data` is given.
        input_dtype: dtype of the generated inputs (one, or one per input).
        expected_output_shape: the eager output's shape (None dims match anything).
        expected_output_dtype: the eager output's dtype.
        expected_num_trainable_weights: how many trainable weights the built layer has.
        expected_num_non_trainable_weights: how many non-trainable weights it has.
        expected_num_losses: how many losses the layer holds after one call.
        supports_masking: the expected `supports_masking`; True also runs a masked call.
        input_data: inputs to use instead of generated random ones.
        run_training_check: also call with ``training=True`` and check stateless training
            calls leave the variables untouched.
        run_mixed_precision_check: also build with ``dtype="mixed_float16"``.
        custom_objects: extra names for deserializing configs.
        assert_built_after_instantiation: the layer must be built by its constructor.
        skip_fit_check: leave out the fit check (the layer in a model through `compile`,
            `fit`, `evaluate` and `predict` with the backend's own compiled steps), giving
            the reason; only for a layer that cannot sit in a model as it is.

    Returns:
        The layer built and called by the eager check, for further assertions.

    Raises:
        AssertionError: a check failed; the message names the class and the check.
        ValueError: neither `input_shape` nor `input_data` was given, or
            `skip_fit_check` is given without a reason.
    """
    if skip_fit_check is not None and not (
        isinstance(skip_fit_check, str) and skip_fit_check.strip()
    ):
        raise ValueError(
            "check_layer: argument `skip_fit_check` must be a reason (a non-empty string) or "
            f"None. Received: skip_fit_check={skip_fit_check!r}"
        )
    if input_shape is None and input_data is None:
        raise ValueError(
            "check_layer needs `input_shape` or `input_data`. "
            "Received: input_shape=None, input_data=None"
        )
    with _custom_object_scope(custom_objects):
        return _run_checks(
            layer_cls,
            init_kwargs,
            input_shape,
            input_dtype,
            expected_output_shape,
            expected_output_dtype,
            expected_num_trainable_weights,
            expected_num_non_trainable_weights,
            expected_num_losses,
            supports_masking,
            input_data,
            run_training_check,
            run_mixed_precision_check,
            custom_objects,
            assert_built_after_instantiation,
            skip_fit_check is None,
        )


def _custom_object_scope(custom_objects: dict[str, Any] | None) -> Any:
    """Make `custom_objects` visible to every `from_config` the checks run."""
    serialization = _serialization()
    if serialization is None or not custom_objects:
        return contextlib.nullcontext()
    return serialization.CustomObjectScope(custom_objects)


def _run_checks(
    layer_cls: type,
    init_kwargs: dict[str, Any],
    input_shape: ShapeLike,
    input_dtype: Any,
    expected_output_shape: ShapeLike,
    expected_output_dtype: Any,
    expected_num_trainable_weights: int | None,
    expected_num_non_trainable_weights: int | None,
    expected_num_losses: int | None,
    supports_masking: bool | None,
    input_data: Any,
    run_training_check: bool,
    run_mixed_precision_check: bool,
    custom_objects: dict[str, Any] | None,
    assert_built_after_instantiation: bool,
    run_fit_check: bool,
) -> Any:
    c = _Check(layer_cls)
    if input_data is None:
        input_data = _make_inputs(input_shape, input_dtype, seed=1337)
    if input_shape is None:
        input_shape = (
            tree.map_structure(lambda a: tuple(np.shape(a)), input_data)
            if tree.is_nested(input_data)
            else tuple(np.shape(input_data))
        )
    if input_dtype == "float32" and not tree.is_nested(input_data):
        input_dtype = dtypes.dtype_of(input_data)

    layer = _check_instantiation_and_config(
        c, layer_cls, init_kwargs, custom_objects, assert_built_after_instantiation
    )
    output = _check_eager_call(
        c,
        layer,
        input_data,
        input_shape,
        expected_output_shape,
        expected_output_dtype,
        expected_num_trainable_weights,
        expected_num_non_trainable_weights,
        expected_num_losses,
    )
    _check_config_after_build(c, layer_cls, layer, input_data, custom_objects)
    _check_symbolic_call(c, layer_cls, init_kwargs, input_shape, input_dtype, output)
    if run_training_check:
        _check_training_flag(c, layer, input_data, output)
    _check_stateless_call(c, layer, input_data, run_training_check)
    _check_determinism(c, layer_cls, init_kwargs, layer, input_data, run_training_check)
    if supports_masking is not None:
        c.true(
            bool(layer.supports_masking) == supports_masking,
            "masking",
            f"supports_masking is {layer.supports_masking}, expected {supports_masking}.",
        )
        if supports_masking:
            _check_masking(c, layer, input_data, output)
    if run_mixed_precision_check:
        _check_mixed_precision(c, layer_cls, init_kwargs, input_data, output)
    if run_fit_check:
        check_fit(
            c,
            lambda: _new_layer(layer_cls, init_kwargs),
            lambda: _symbolic_inputs(input_shape, input_dtype),
            input_data,
        )
    return layer


# --- the individual checks -------------------------------------------------------------


def _serialization() -> Any:
    try:
        from lamina.saving import serialization
    except ImportError:
        return None
    return serialization


def _check_instantiation_and_config(
    c: _Check,
    layer_cls: type,
    init_kwargs: dict[str, Any],
    custom_objects: dict[str, Any] | None,
    assert_built: bool,
) -> Any:
    layer = _new_layer(layer_cls, init_kwargs)
    if assert_built:
        c.true(bool(layer.built), "build", "the layer is not built after instantiation.")
    _check_config_round_trip(c, layer_cls, layer, custom_objects, "config")
    return layer


def _check_config_round_trip(
    c: _Check, layer_cls: Any, layer: Any, custom_objects: dict[str, Any] | None, check: str
) -> None:
    config = layer.get_config()
    c.true(isinstance(config, dict), check, f"get_config() returned {type(config).__name__}.")
    revived = layer_cls.from_config(config)
    c.true(
        type(revived) is layer_cls,
        check,
        f"from_config returned a {type(revived).__name__}, expected {layer_cls.__name__}.",
    )
    c.true(
        revived.get_config() == config,
        check,
        f"from_config(get_config()) changed the config.\n"
        f"  before: {config}\n  after:  {revived.get_config()}",
    )
    serialization = _serialization()
    if serialization is None:
        return
    serialized = serialization.serialize_lamina_object(layer)
    try:
        json.dumps(serialized)
    except TypeError as err:
        raise c.fail(check, f"the serialized config is not JSON-able: {err}") from None
    objects = {layer_cls.__name__: layer_cls, **(custom_objects or {})}
    revived = serialization.deserialize_lamina_object(
        json.loads(json.dumps(serialized)), custom_objects=objects
    )
    c.true(
        type(revived) is layer_cls,
        check,
        f"deserialize_lamina_object returned a {type(revived).__name__}.",
    )
    again = serialization.serialize_lamina_object(revived)
    c.true(
        json.loads(json.dumps(again)) == json.loads(json.dumps(serialized)),
        check,
        f"serialize/deserialize changed the config.\n  before: {serialized}\n  after:  {again}",
    )


def _check_config_after_build(
    c: _Check, layer_cls: Any, layer: Any, x: Any, custom_objects: dict[str, Any] | None
) -> None:
    """The config still round-trips once built, and the revived layer computes the same."""
    _check_config_round_trip(c, layer_cls, layer, custom_objects, "config after build")
    revived = layer_cls.from_config(layer.get_config())
    _call(revived, x, training=False)
    try:
        revived.set_weights(layer.get_weights())
    except ValueError as err:
        raise c.fail("config after build", f"the revived layer has other weights: {err}") from None
    c.close(
        _call(revived, x, training=False),
        _call(layer, x, training=False),
        "config after build",
        "from_config(get_config()) with the same weights vs the original layer",
    )


def _check_eager_call(
    c: _Check,
    layer: Any,
    x: Any,
    input_shape: ShapeLike,
    expected_shape: ShapeLike,
    expected_dtype: Any,
    n_trainable: int | None,
    n_non_trainable: int | None,
    n_losses: int | None,
) -> Any:
    output = _call(layer, x)
    c.true(bool(layer.built), "build", "the layer is not built after its first call.")
    actual = tree.map_structure(_shape_of, output)
    actual_flat = [_shape_of(o) for o in tree.flatten(output)]
    if expected_shape is not None:
        want = _flat_shapes(expected_shape)
        c.true(
            len(want) == len(actual_flat)
            and all(_shapes_match(a, e) for a, e in zip(actual_flat, want)),
            "output shape",
            f"output shape {actual} does not match expected_output_shape {expected_shape}.",
        )
    computed = layer.compute_output_shape(input_shape)
    computed_flat = _flat_shapes(computed)
    c.true(
        len(computed_flat) == len(actual_flat)
        and all(_shapes_match(a, e) for a, e in zip(actual_flat, computed_flat)),
        "compute_output_shape",
        f"compute_output_shape({input_shape}) returned {computed}, "
        f"but calling the layer gave {actual}.",
    )
    if expected_dtype is not None:
        want_dtypes = (
            [dtypes.standardize_dtype(d) for d in expected_dtype]
            if isinstance(expected_dtype, (list, tuple))
            else [dtypes.standardize_dtype(expected_dtype)] * len(actual_flat)
        )
        got_dtypes = [dtypes.dtype_of(o) for o in tree.flatten(output)]
        c.true(
            got_dtypes == want_dtypes,
            "output dtype",
            f"output dtypes {got_dtypes}, expected {want_dtypes}.",
        )
    for count, weights, what in (
        (n_trainable, layer.trainable_weights, "trainable weights"),
        (n_non_trainable, layer.non_trainable_weights, "non-trainable weights"),
        (n_losses, layer.losses, "losses"),
    ):
        if count is not None:
            c.true(
                len(weights) == count,
                what,
                f"the layer has {len(weights)} {what}, expected {count}.",
            )
    return output


def _check_symbolic_call(
    c: _Check,
    layer_cls: type,
    init_kwargs: dict[str, Any],
    input_shape: ShapeLike,
    input_dtype: Any,
    eager_output: Any,
) -> None:
    eager_flat = tree.flatten(eager_output)
    eager_shapes = [_shape_of(o) for o in eager_flat]
    eager_dtypes = [dtypes.dtype_of(o) for o in eager_flat]
    for how in ("symbolic call", "compute_output_spec"):
        layer = _new_layer(layer_cls, init_kwargs)
        inputs = _symbolic_inputs(input_shape, input_dtype)
        if how == "symbolic call":
            spec = layer(inputs)
        else:
            spec = layer.compute_output_spec(inputs)
        flat = tree.flatten(spec)
        shapes = [tuple(s.shape) for s in flat]
        c.true(
            len(shapes) == len(eager_shapes)
            and all(_shapes_match(s, e) for s, e in zip(shapes, eager_shapes)),
            how,
            f"with a None batch dim it gives shapes {shapes}; the eager call gave "
            f"{eager_shapes}.",
        )
        got = [dtypes.standardize_dtype(s.dtype) for s in flat]
        c.true(
            got == eager_dtypes,
            how,
            f"it gives dtypes {got}; the eager call gave {eager_dtypes}.",
        )


def _check_training_flag(c: _Check, layer: Any, x: Any, output: Any) -> None:
    expected = [_shape_of(o) for o in tree.flatten(output)]
    for training in (True, False):
        try:
            result = _call(layer, x, training=training)
        except Exception as err:
            raise c.fail("training", f"calling with training={training} raised {err!r}") from err
        shapes = [_shape_of(o) for o in tree.flatten(result)]
        c.true(
            shapes == expected,
            "training",
            f"training={training} gives shapes {shapes}, the default call {expected}.",
        )


def _snapshot(layer: Any) -> list[np.ndarray[Any, Any]]:
    return [_to_numpy(v.value).copy() for v in layer.variables]


def _check_stateless_call(c: _Check, layer: Any, x: Any, with_training: bool) -> None:
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]
    before = _snapshot(layer)
    out, new_values = layer.stateless_call(trainable, non_trainable, x, training=False)
    expected = _call(layer, x, training=False)
    c.close(out, expected, "stateless_call", "stateless_call(training=False) vs __call__")
    c.true(
        len(new_values) == len(non_trainable),
        "stateless_call",
        f"returned {len(new_values)} non-trainable values for {len(non_trainable)} variables.",
    )
    for variable, value in zip(layer.non_trainable_variables, new_values):
        c.true(
            tuple(np.shape(_to_numpy(value))) == tuple(variable.shape),
            "stateless_call",
            f"the new value of {variable.path} has shape {np.shape(_to_numpy(value))}, "
            f"the variable {tuple(variable.shape)}.",
        )
    if with_training:
        layer.stateless_call(trainable, non_trainable, x, training=True)
    after = _snapshot(layer)
    for variable, old, new in zip(layer.variables, before, after):
        c.true(
            old.shape == new.shape and np.array_equal(old, new, equal_nan=True),
            "stateless_call",
            f"stateless_call assigned to variable {variable.path}; it must return new "
            "values instead.",
        )


def _check_determinism(
    c: _Check,
    layer_cls: type,
    init_kwargs: dict[str, Any],
    layer: Any,
    x: Any,
    with_training: bool,
) -> None:
    """Two layers with equal weights (and equal seeds) give equal outputs."""
    modes: list[bool] = [False]
    if with_training and ("seed" in init_kwargs or not layer._seed_variables()):
        modes.append(True)
    for training in modes:
        first = _new_layer(layer_cls, init_kwargs)
        second = _new_layer(layer_cls, init_kwargs)
        _call(first, x, training=False)
        _call(second, x, training=False)
        second.set_weights(first.get_weights())
        # The build calls above may have advanced seeds differently: restart both equally.
        for a, b in zip(first._seed_variables(), second._seed_variables()):
            b.assign(a.value)
        out_a = _call(first, x, training=training)
        out_b = _call(second, x, training=training)
        c.close(
            out_a,
            out_b,
            "determinism",
            f"two layers with the same weights and seed, training={training}",
        )


def _make_mask(x: Any, seed: int) -> Any:
    first = tree.flatten(x)[0]
    shape = tuple(np.shape(first))
    mask_shape = shape[:-1] if len(shape) >= 2 else shape
    rng = np.random.default_rng(seed)
    mask = rng.random(mask_shape) > 0.3
    if mask.ndim >= 2:
        mask[..., 0] = True  # every sample keeps at least one step
    return mask


def _check_masking(c: _Check, layer: Any, x: Any, output: Any) -> None:
    mask = _make_mask(x, seed=7)
    try:
        masked = _call(layer, x, mask=mask)
    except Exception as err:
        raise c.fail("masking", f"calling with a mask raised {err!r}") from err
    want = [_shape_of(o) for o in tree.flatten(output)]
    got = [_shape_of(o) for o in tree.flatten(masked)]
    c.true(got == want, "masking", f"a masked call gives shapes {got}, unmasked {want}.")
    out_mask = layer.compute_mask(x, mask)
    if out_mask is None:
        return
    again = layer.compute_mask(x, mask)
    for m, m2, o in zip(tree.flatten(out_mask), tree.flatten(again), tree.flatten(masked)):
        if m is None:
            continue
        m_np = _to_numpy(m)
        c.true(
            np.array_equal(m_np, _to_numpy(m2)),
            "masking",
            "compute_mask gives different masks for the same inputs.",
        )
        out_shape = _shape_of(o)
        c.true(
            m_np.shape == out_shape[: m_np.ndim],
            "masking",
            f"compute_mask gives a mask of shape {m_np.shape}, which does not lead the "
            f"output shape {out_shape}.",
        )


@functools.cache
def _holds_half_precision(backend_name: str) -> bool:
    from lamina.backend.registry import current

    try:  # one conversion, once per backend, until capabilities declare half precision
        current().core.convert_to_tensor(np.zeros((1,), np.float16), "float16")
    except TypeError:
        return False
    return True


def holds_half_precision() -> bool:
    """Whether the active backend has float16 and bfloat16 tensors.

    The array API standard defines neither, so a strict array-API backend has none; the
    mixed-precision check and the tests marked ``half_precision`` are skipped there.
    """
    from lamina.backend.registry import current

    return _holds_half_precision(current().name)


def _check_mixed_precision(
    c: _Check, layer_cls: type, init_kwargs: dict[str, Any], x: Any, output: Any
) -> None:
    if not holds_half_precision():
        return  # nothing to check: this backend has no float16 outputs to give
    layer = _new_layer(layer_cls, {**init_kwargs, "dtype": "mixed_float16"})
    result = _call(layer, x)
    for variable in layer.weights:
        kind = dtypes.standardize_dtype(variable.dtype)
        c.true(
            kind not in dtypes.FLOATS or kind == "float32",
            "mixed precision",
            f"variable {variable.path} is {kind}; mixed_float16 keeps variables float32.",
        )
    for ref, out in zip(tree.flatten(output), tree.flatten(result)):
        if dtypes.dtype_of(ref) not in dtypes.FLOATS:
            continue
        got = dtypes.dtype_of(out)
        c.true(
            got == "float16",
            "mixed precision",
            f"a mixed_float16 layer returns {got}; float outputs must be float16.",
        )
