"""Convolutions and pooling against loop-based NumPy references, 1D-3D, both data formats."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
FORMATS = ["channels_last", "channels_first"]


def _rand(*shape):
    return RNG.normal(size=shape).astype("float32")


def _first(x):
    return np.moveaxis(x, -1, 1)


def _last(x):
    return np.moveaxis(x, 1, -1)


def _same_pads(sizes, window, strides, dilation):
    pads = []
    for n, k, s, d in zip(sizes, window, strides, dilation):
        span = (k - 1) * d + 1
        total = max((-(-n // s) - 1) * s + span - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _patches(x, window, strides, dilation, padding, fill=0.0):
    """Yield (out index, window patch) over a channels_last array, padding with `fill`."""
    n = len(window)
    pads = (
        _same_pads(x.shape[1:-1], window, strides, dilation) if padding == "same" else [(0, 0)] * n
    )
    xp = np.pad(x.astype("float64"), [(0, 0), *pads, (0, 0)], constant_values=fill)
    spans = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    outs = [(xp.shape[i + 1] - spans[i]) // strides[i] + 1 for i in range(n)]
    for o in itertools.product(*(range(m) for m in outs)):
        idx = tuple(
            slice(o[i] * strides[i], o[i] * strides[i] + spans[i], dilation[i]) for i in range(n)
        )
        yield o, outs, xp[(slice(None), *idx)]  # (N, *window, C)


def ref_conv(x, k, strides, padding, dilation):
    n = k.ndim - 2
    kin, cout = k.shape[-2:]
    groups = x.shape[-1] // kin
    out = None
    for o, outs, p in _patches(x, k.shape[:-2], strides, dilation, padding):
        if out is None:
            out = np.zeros((x.shape[0], *outs, cout))
        for g in range(groups):
            pg = p[..., g * kin : (g + 1) * kin].reshape(x.shape[0], -1)
            kg = k[..., g * (cout // groups) : (g + 1) * (cout // groups)].reshape(
                -1, cout // groups
            )
            out[(slice(None), *o, slice(g * (cout // groups), (g + 1) * (cout // groups)))] = (
                pg @ kg
            )
    del n
    return out


def ref_depthwise(x, k, strides, padding, dilation):
    c, m = k.shape[-2:]
    flat = k.reshape(*k.shape[:-2], 1, c * m)
    return ref_conv(x, flat, strides, padding, dilation)


def ref_conv_transpose(x, k, strides, padding, output_padding, dilation):
    """Scatter every input sample through the kernel, then crop as the conv gradient does."""
    n = k.ndim - 2
    sizes = x.shape[1:-1]
    spans = [(k.shape[i] - 1) * dilation[i] + 1 for i in range(n)]
    full = [(sizes[i] - 1) * strides[i] + spans[i] for i in range(n)]
    y = np.zeros((x.shape[0], *full, k.shape[-2]))
    for i in itertools.product(*(range(s) for s in sizes)):
        for j in itertools.product(*(range(w) for w in k.shape[:-2])):
            pos = tuple(i[a] * strides[a] + j[a] * dilation[a] for a in range(n))
            y[(slice(None), *pos)] += x[(slice(None), *i)] @ k[j].T
    out = []
    for a in range(n):
        s, span, size = strides[a], spans[a], sizes[a]
        if output_padding is None:
            length = size * s + (max(span - s, 0) if padding == "valid" else 0)
        else:
            pad = span // 2 if padding == "same" else 0
            length = (size - 1) * s + span - 2 * pad + output_padding[a]
        before = 0 if padding == "valid" else max((size - 1) * s + span - length, 0) // 2
        out.append((before, length))
    grow = [(0, 0)] + [(0, max(b + L - f, 0)) for (b, L), f in zip(out, full)] + [(0, 0)]
    y = np.pad(y, grow)
    return y[(slice(None), *(slice(b, b + L) for b, L in out))]


def ref_pool(x, window, strides, padding, kind):
    out = None
    for o, outs, p in _patches(x, window, strides, (1,) * len(window), padding, fill=np.nan):
        if out is None:
            out = np.zeros((x.shape[0], *outs, x.shape[-1]))
        axes = tuple(range(1, len(window) + 1))
        red = np.nanmax(p, axis=axes) if kind == "max" else np.nanmean(p, axis=axes)
        out[(slice(None), *o)] = red
    return out


def ref_adaptive(x, size, kind):
    n = len(size)
    sizes = x.shape[1:-1]
    out = np.zeros((x.shape[0], *size, x.shape[-1]))
    for o in itertools.product(*(range(s) for s in size)):
        idx = tuple(
            slice(o[i] * sizes[i] // size[i], -(-(o[i] + 1) * sizes[i] // size[i]))
            for i in range(n)
        )
        p = x[(slice(None), *idx)]
        axes = tuple(range(1, n + 1))
        out[(slice(None), *o)] = p.max(axis=axes) if kind == "max" else p.mean(axis=axes)
    return out


def _run(fn, x, *args, data_format, **kwargs):
    """Call `fn` in `data_format` with a channels_last `x`; return a channels_last result."""
    xin = x if data_format == "channels_last" else _first(x)
    out = ops.convert_to_numpy(fn(xin, *args, data_format=data_format, **kwargs))
    return out if data_format == "channels_last" else _last(out)


CONV_CASES = [
    # spatial, kernel window, cin, cout, strides, padding, dilation
    ((9,), (3,), 2, 3, 1, "valid", 1),
    ((9,), (4,), 2, 3, 2, "same", 1),
    ((10,), (3,), 4, 6, 1, "same", 2),
    ((7, 6), (3, 2), 3, 4, 1, "valid", 1),
    ((7, 6), (3, 3), 2, 5, (2, 1), "same", 1),
    ((8, 8), (3, 3), 2, 3, 1, "same", (2, 1)),
    ((5, 4, 6), (2, 3, 2), 2, 3, 1, "valid", 1),
    ((5, 4, 6), (3, 2, 3), 2, 2, 2, "same", 1),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv_matches_reference(case, data_format):
    spatial, window, cin, cout, strides, padding, dilation = case
    x, k = _rand(2, *spatial, cin), _rand(*window, cin, cout)
    n = len(spatial)
    s = strides if isinstance(strides, tuple) else (strides,) * n
    d = dilation if isinstance(dilation, tuple) else (dilation,) * n
    got = _run(ops.conv, x, k, strides, padding, data_format=data_format, dilation_rate=dilation)
    assert_allclose(got, ref_conv(x, k, s, padding, d), "float32", loose=10)


def test_grouped_conv_matches_reference():
    x, k = _rand(2, 7, 6, 4), _rand(3, 3, 2, 6)
    got = ops.conv(x, k, 1, "same", "channels_last")
    assert_allclose(got, ref_conv(x, k, (1, 1), "same", (1, 1)), loose=10)


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", [c for c in CONV_CASES if len(c[0]) < 3], ids=str)
def test_depthwise_and_separable_conv_match_reference(case, data_format):
    spatial, window, cin, cout, strides, padding, dilation = case
    x, dk, pk = (
        _rand(2, *spatial, cin),
        _rand(*window, cin, 2),
        _rand(*(1,) * len(spatial), 2 * cin, cout),
    )
    n = len(spatial)
    s = strides if isinstance(strides, tuple) else (strides,) * n
    d = dilation if isinstance(dilation, tuple) else (dilation,) * n
    want = ref_depthwise(x, dk, s, padding, d)
    got = _run(
        ops.depthwise_conv, x, dk, strides, padding, data_format=data_format, dilation_rate=dilation
    )
    assert_allclose(got, want, "float32", loose=10)
    got = _run(
        ops.separable_conv,
        x,
        dk,
        pk,
        strides,
        padding,
        data_format=data_format,
        dilation_rate=dilation,
    )
    want = ref_conv(want, pk, (1,) * n, "valid", (1,) * n)
    assert_allclose(got, want, "float32", loose=10)


TRANSPOSE_CASES = [
    # spatial, window, cin, cout, strides, padding, output_padding, dilation
    ((5,), (3,), 2, 3, 2, "valid", None, 1),
    ((5,), (4,), 2, 3, 2, "same", None, 1),
    ((5,), (3,), 2, 3, 3, "same", 1, 1),
    ((6,), (3,), 2, 2, 1, "same", None, 2),
    ((4, 3), (3, 2), 3, 2, 2, "valid", (1, 0), 1),
    ((4, 3), (3, 3), 2, 4, (2, 1), "same", None, 1),
    ((3, 4), (2, 3), 2, 3, 1, "valid", None, (1, 2)),
    ((3, 2, 3), (2, 3, 2), 2, 2, 2, "same", None, 1),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=str)
def test_conv_transpose_matches_reference(case, data_format):
    spatial, window, cin, cout, strides, padding, outpad, dilation = case
    x, k = _rand(2, *spatial, cin), _rand(*window, cout, cin)
    n = len(spatial)
    s = strides if isinstance(strides, tuple) else (strides,) * n
    d = dilation if isinstance(dilation, tuple) else (dilation,) * n
    op = outpad if outpad is None or isinstance(outpad, tuple) else (outpad,) * n
    got = _run(
        ops.conv_transpose,
        x,
        k,
        strides,
        padding,
        outpad,
        data_format=data_format,
        dilation_rate=dilation,
    )
    assert_allclose(got, ref_conv_transpose(x, k, s, padding, op, d), "float32", loose=10)


POOL_CASES = [
    ((9,), 2, None, "valid"),
    ((9,), 3, 2, "same"),
    ((7, 6), (2, 3), None, "valid"),
    ((7, 6), 3, (2, 1), "same"),
    ((5, 4, 6), 2, None, "valid"),
    ((5, 4, 5), (2, 3, 2), 2, "same"),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("kind", ["max", "average"])
@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_pool_matches_reference(case, kind, data_format):
    spatial, size, strides, padding = case
    n = len(spatial)
    x = _rand(2, *spatial, 3)
    fn = ops.max_pool if kind == "max" else ops.average_pool
    got = _run(fn, x, size, strides, padding, data_format=data_format)
    window = size if isinstance(size, tuple) else (size,) * n
    st = window if strides is None else strides if isinstance(strides, tuple) else (strides,) * n
    assert_allclose(got, ref_pool(x, window, st, padding, kind), "float32")


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("kind", ["max", "average"])
@pytest.mark.parametrize(
    ("spatial", "size"), [((7,), 3), ((7, 5), (3, 2)), ((6, 5, 4), (4, 2, 3)), ((4, 4), 4)]
)
def test_adaptive_pool_matches_reference(spatial, size, kind, data_format):
    x = _rand(2, *spatial, 3)
    fn = ops.adaptive_max_pool if kind == "max" else ops.adaptive_average_pool
    got = _run(fn, x, size, data_format=data_format)
    full = size if isinstance(size, tuple) else (size,) * len(spatial)
    assert_allclose(got, ref_adaptive(x, full, kind), "float32")


def test_data_format_defaults_to_the_config():
    x, k = _rand(1, 3, 6, 6), _rand(3, 3, 3, 2)
    before = lamina.config.image_data_format()
    lamina.config.set_image_data_format("channels_first")
    try:
        assert tuple(ops.conv(x, k).shape) == (1, 2, 4, 4)
        assert ops.max_pool(lamina.KerasTensor((None, 3, 8, 8)), 2).shape == (None, 3, 4, 4)
    finally:
        lamina.config.set_image_data_format(before)


SPECS = [
    (
        lambda x: ops.conv(x, np.ones((3, 3, 3, 8), "float32"), 2, "same"),
        (None, 16, None, 3),
        (None, 8, None, 8),
    ),
    (lambda x: ops.conv(x, np.ones((3, 3, 3, 8), "float32")), (None, 16, 10, 3), (None, 14, 8, 8)),
    (
        lambda x: ops.conv(
            x, np.ones((3, 4, 5), "float32"), data_format="channels_first", dilation_rate=2
        ),
        (4, 4, None),
        (4, 5, None),
    ),
    (lambda x: ops.conv(x, np.ones((2, 2, 2, 3, 4), "float32")), (2, 5, 5, 5, 3), (2, 4, 4, 4, 4)),
    (
        lambda x: ops.depthwise_conv(x, np.ones((3, 3, 3, 2), "float32"), 1, "same"),
        (None, None, 7, 3),
        (None, None, 7, 6),
    ),
    (
        lambda x: ops.separable_conv(
            x, np.ones((3, 3, 3, 2), "float32"), np.ones((1, 1, 6, 5), "float32")
        ),
        (None, 9, 9, 3),
        (None, 7, 7, 5),
    ),
    (
        lambda x: ops.conv_transpose(x, np.ones((3, 3, 8, 3), "float32"), 2, "same"),
        (None, None, 4, 3),
        (None, None, 8, 8),
    ),
    (
        lambda x: ops.conv_transpose(x, np.ones((3, 8, 3), "float32"), 2),
        (None, 5, 3),
        (None, 11, 8),
    ),
    (lambda x: ops.max_pool(x, 2), (None, 9, 3), (None, 4, 3)),
    (lambda x: ops.average_pool(x, 3, 2, "same"), (None, None, 9, 3), (None, None, 5, 3)),
    (
        lambda x: ops.max_pool(x, 2, data_format="channels_first"),
        (None, 3, 6, 6, 6),
        (None, 3, 3, 3, 3),
    ),
    (lambda x: ops.adaptive_average_pool(x, (2, 3)), (None, None, None, 3), (None, 2, 3, 3)),
    (lambda x: ops.adaptive_max_pool(x, 4, "channels_first"), (2, 3, None), (2, 3, 4)),
]


@pytest.mark.parametrize(("fn", "shape", "expected"), SPECS)
def test_symbolic_output_shapes(fn, shape, expected):
    out = fn(lamina.KerasTensor(shape, "float32"))
    assert out.shape == expected
    assert out.dtype == "float32"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("float16", "float32"),
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        ("int32", "int32"),
        ("uint8", "bool"),
    ],
)
def test_conv_promotes_inputs(a, b):
    expected = dtypes.result_type(a, b)
    if expected not in dtypes.FLOATS:
        expected = dtypes.result_type(expected, float)
    x, k = np.ones((1, 5, 5, 2), a), np.ones((3, 3, 2, 2), b)
    sym = ops.conv(lamina.KerasTensor((1, 5, 5, 2), a), lamina.KerasTensor((3, 3, 2, 2), b))
    assert sym.dtype == expected
    for fn in (ops.conv, ops.depthwise_conv):
        out = fn(x, k)
        assert ops.dtype(out) == expected
        assert_allclose(out, np.full(out.shape, 9.0 if fn is ops.depthwise_conv else 18.0))
    out = ops.conv_transpose(x, k, 1, "same")
    assert ops.dtype(out) == expected


def test_pool_promotes_ints_to_floatx():
    x = np.arange(16, dtype="int32").reshape(1, 4, 4, 1)
    out = ops.max_pool(x, 2)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, np.array([5.0, 7.0, 13.0, 15.0]).reshape(1, 2, 2, 1))
    assert ops.average_pool(lamina.KerasTensor((1, 4, 4, 1), "int8"), 2).dtype == "float32"


ERRORS = [
    ("conv", lambda: ops.conv(np.ones((2, 5)), np.ones((3, 5, 1)))),
    ("conv", lambda: ops.conv(np.ones((1, 5, 3)), np.ones((3, 2, 4)))),
    ("conv", lambda: ops.conv(np.ones((1, 5, 3)), np.ones((3, 3, 4)), padding="full")),
    ("conv", lambda: ops.conv(np.ones((1, 5, 3)), np.ones((3, 3, 4)), data_format="NHWC")),
    ("conv", lambda: ops.conv(np.ones((1, 2, 3)), np.ones((3, 3, 4)))),
    ("conv", lambda: ops.conv(np.ones((1, 9, 3)), np.ones((3, 3, 4)), 2, dilation_rate=2)),
    ("conv", lambda: ops.conv(lamina.KerasTensor((1, 9, 3)), np.ones((3, 3, 4)), strides=0)),
    ("depthwise_conv", lambda: ops.depthwise_conv(np.ones((1, 5, 3)), np.ones((3, 2, 2)))),
    (
        "separable_conv",
        lambda: ops.separable_conv(np.ones((1, 5, 3)), np.ones((3, 3, 2)), np.ones((2, 6, 4))),
    ),
    ("conv_transpose", lambda: ops.conv_transpose(np.ones((1, 5, 3)), np.ones((3, 3, 2)), 1)),
    (
        "conv_transpose",
        lambda: ops.conv_transpose(np.ones((1, 5, 3)), np.ones((3, 2, 3)), 2, output_padding=2),
    ),
    ("max_pool", lambda: ops.max_pool(np.ones((5, 3)), 2)),
    ("max_pool", lambda: ops.max_pool(np.ones((1, 5, 3)), (2, 2))),
    ("average_pool", lambda: ops.average_pool(np.ones((1, 5, 3)), 2, padding="causal")),
    ("adaptive_average_pool", lambda: ops.adaptive_average_pool(np.ones((1, 5, 3)), 0)),
    ("adaptive_max_pool", lambda: ops.adaptive_max_pool(lamina.KerasTensor((1, 5)), 2)),
]


@pytest.mark.parametrize(("name", "fn"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_arguments_name_the_op(name, fn):
    with pytest.raises(ValueError, match=f"`{name}`"):
        fn()


def test_complex_input_is_a_type_error():
    with pytest.raises(TypeError, match="`conv`"):
        ops.conv(np.ones((1, 5, 1), "complex64"), np.ones((3, 1, 1), "float32"))
