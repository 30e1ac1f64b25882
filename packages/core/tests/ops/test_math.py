"""Special math against NumPy/SciPy: values, symbolic specs, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import lamina
from lamina import ops
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)


def _r(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


X = _r(3, 4)
UNIT = np.clip(X / 4, -0.9, 0.9)
POS = np.abs(X) + 0.5


@pytest.mark.parametrize(
    ("op", "ref", "x"),
    [
        (ops.erf, scipy.special.erf, X),
        (ops.erfc, scipy.special.erfc, X),
        (ops.erfinv, scipy.special.erfinv, UNIT),
        (ops.rsqrt, lambda v: 1 / np.sqrt(v), POS),
    ],
    ids=["erf", "erfc", "erfinv", "rsqrt"],
)
def test_special_functions_match_scipy(op, ref, x):
    assert_allclose(op(x), ref(x.astype("f8")).astype("f4"), loose=10)
    ints = np.array([0, 1, 2], "int32") if op is not ops.erfinv else np.array([0, 0], "int32")
    out = op(ints if op is not ops.rsqrt else ints + 1)
    assert ops.dtype(out) == "float32"
    spec = op(lamina.KerasTensor((None, 4), "int8"))
    assert (spec.shape, spec.dtype) == ((None, 4), "float32")
    assert op(lamina.KerasTensor((2,), "float16")).dtype == "float16"


@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (1, True), ((0, 1), False), (-1, False)]
)
def test_logsumexp_matches_scipy(axis, keepdims):
    x = _r(2, 3, 4) * 10
    out = ops.logsumexp(x, axis=axis, keepdims=keepdims)
    assert_allclose(out, scipy.special.logsumexp(x, axis=axis, keepdims=keepdims), loose=10)
    spec = ops.logsumexp(lamina.KerasTensor((2, None, 4), "int32"), axis=axis, keepdims=keepdims)
    expected = np.empty((2, 7, 4)).sum(axis=axis, keepdims=keepdims).shape
    assert spec.shape == tuple(None if d == 7 else d for d in expected)
    assert spec.dtype == "float32"


def test_logdet_matches_numpy():
    m = _r(2, 3, 3)
    spd = m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3, dtype="f4")
    assert_allclose(ops.logdet(spd), np.linalg.slogdet(spd)[1], loose=100)
    spec = ops.logdet(lamina.KerasTensor((None, 3, 3), "int32"))
    assert (spec.shape, spec.dtype) == ((None,), "float32")


@pytest.mark.parametrize("k", [1, 3, 4])
def test_top_k_matches_numpy(k):
    x = np.array([[1.0, 5.0, 3.0, 5.0], [0.0, -1.0, 2.0, 7.0]], "float32")
    values, indices = ops.top_k(x, k)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :k]
    assert ops.dtype(indices) == "int32"
    assert_allclose(values, np.take_along_axis(x, order, -1))
    np.testing.assert_array_equal(_np(indices), order)
    unsorted_v, _ = ops.top_k(x, k, sorted=False)
    np.testing.assert_array_equal(np.sort(_np(unsorted_v), -1), np.sort(_np(values), -1))
    spec_v, spec_i = ops.top_k(lamina.KerasTensor((None, 4), "int32"), k)
    assert (spec_v.shape, spec_v.dtype, spec_i.shape, spec_i.dtype) == (
        (None, k),
        "int32",
        (None, k),
        "int32",
    )


def test_in_top_k_matches_reference():
    preds = np.array([[0.1, 0.7, 0.2], [0.5, 0.5, 0.0], [0.3, 0.2, 0.5]], "float32")
    targets = np.array([2, 1, 1], "int32")
    for k in (1, 2, 3):
        target_scores = preds[np.arange(3), targets][:, None]
        expected = np.sum(preds > target_scores, axis=-1) < k
        out = ops.in_top_k(targets, preds, k)
        assert ops.dtype(out) == "bool"
        np.testing.assert_array_equal(_np(out), expected)
    spec = ops.in_top_k(lamina.KerasTensor((None,), "int32"), lamina.KerasTensor((None, 5)), 2)
    assert (spec.shape, spec.dtype) == ((None,), "bool")


def test_view_as_complex_and_real_roundtrip():
    x = _r(3, 2)
    c = ops.view_as_complex(x)
    assert ops.dtype(c) == "complex64"
    np.testing.assert_allclose(_np(c), x[:, 0] + 1j * x[:, 1])
    back = ops.view_as_real(c)
    assert ops.dtype(back) == "float32"
    assert_allclose(back, x)
    spec = ops.view_as_complex(lamina.KerasTensor((None, 4, 2)))
    assert (spec.shape, spec.dtype) == ((None, 4), "complex64")
    spec = ops.view_as_real(lamina.KerasTensor((None, 4), "complex128"))
    assert (spec.shape, spec.dtype) == ((None, 4, 2), "float64")


DATA = np.array([[1.0, 2.0], [3.0, -4.0], [5.0, 6.0], [-7.0, 8.0]], "float32")
IDS = np.array([0, 0, 3, 1], "int32")


def _segment_ref(data, ids, n, ufunc, identity):
    out = np.full((n, *data.shape[1:]), identity, data.dtype)
    ufunc.at(out, ids, data)
    return out


@pytest.mark.parametrize(
    ("op", "ufunc", "identity"),
    [
        (ops.segment_sum, np.add, 0),
        (ops.segment_prod, np.multiply, 1),
        (ops.segment_max, np.maximum, -np.inf),
        (ops.segment_min, np.minimum, np.inf),
    ],
    ids=["sum", "prod", "max", "min"],
)
def test_segment_reductions_match_numpy(op, ufunc, identity):
    # Segment 2 is empty: 0, 1, -inf and inf by convention.
    assert_allclose(op(DATA, IDS), _segment_ref(DATA, IDS, 4, ufunc, identity))
    assert_allclose(op(DATA, IDS, num_segments=5), _segment_ref(DATA, IDS, 5, ufunc, identity))
    sorted_ids = np.array([0, 0, 1, 2], "int32")
    out = op(DATA, sorted_ids, num_segments=3, sorted=True)
    assert_allclose(out, _segment_ref(DATA, sorted_ids, 3, ufunc, identity))
    ints = DATA.astype("int32")
    out = op(ints, sorted_ids)
    assert ops.dtype(out) == "int32"
    info = np.iinfo("int32")
    int_identity = {np.add: 0, np.multiply: 1, np.maximum: info.min, np.minimum: info.max}
    assert_allclose(out, _segment_ref(ints, sorted_ids, 3, ufunc, int_identity[ufunc]))
    spec = op(lamina.KerasTensor((None, 2), "float16"), lamina.KerasTensor((None,), "int32"), 7)
    assert (spec.shape, spec.dtype) == ((7, 2), "float16")
    spec = op(lamina.KerasTensor((4,)), lamina.KerasTensor((4,), "int32"))
    assert spec.shape == (None,)


def test_segment_int_extremes_for_empty_segments():
    data = np.array([3, 1], "int32")
    ids = np.array([0, 2], "int32")
    np.testing.assert_array_equal(_np(ops.segment_max(data, ids)), [3, np.iinfo("int32").min, 1])
    np.testing.assert_array_equal(_np(ops.segment_min(data, ids)), [3, np.iinfo("int32").max, 1])


def _c(shape):
    return _r(*shape), _r(*shape)


@pytest.mark.parametrize(
    ("op", "ref", "shape"),
    [
        (ops.fft, np.fft.fft, (3, 8)),
        (ops.fft2, np.fft.fft2, (2, 4, 6)),
        (ops.ifft2, np.fft.ifft2, (4, 6)),
    ],
    ids=["fft", "fft2", "ifft2"],
)
def test_complex_ffts_match_numpy(op, ref, shape):
    real, imag = _c(shape)
    out_r, out_i = op((real, imag))
    expected = ref(real.astype("f8") + 1j * imag)
    assert ops.dtype(out_r) == "float32"
    assert_allclose(out_r, expected.real.astype("f4"), loose=10)
    assert_allclose(out_i, expected.imag.astype("f4"), loose=10)
    spec = op((lamina.KerasTensor((None, *shape[1:])), lamina.KerasTensor((None, *shape[1:]))))
    assert [(s.shape, s.dtype) for s in spec] == [((None, *shape[1:]), "float32")] * 2


@pytest.mark.parametrize("n", [None, 6, 12])
def test_rfft_irfft_match_numpy(n):
    x = _r(2, 8)
    real, imag = ops.rfft(x, fft_length=n)
    expected = np.fft.rfft(x.astype("f8"), n=n)
    assert_allclose(real, expected.real.astype("f4"), loose=10)
    assert_allclose(imag, expected.imag.astype("f4"), loose=10)
    back = ops.irfft((real, imag), fft_length=n)
    assert_allclose(back, np.fft.irfft(expected, n=n).astype("f4"), loose=10)
    spec = ops.rfft(lamina.KerasTensor((None, 8), "int32"), fft_length=n)
    assert spec[0].shape == (None, (n or 8) // 2 + 1) and spec[0].dtype == "float32"
    spec = ops.irfft(spec, fft_length=n)
    assert spec.shape == (None, n or 8)


def test_fft_promotes_ints():
    out = ops.fft((np.arange(4, dtype="int32"), np.zeros(4, "int32")))
    assert ops.dtype(out[0]) == "float32"
    assert_allclose(out[0], np.fft.fft(np.arange(4.0)).real.astype("f4"), loose=10)


@pytest.mark.half_precision
def test_fft_keeps_half_precision():
    half = ops.rfft(np.arange(4, dtype="float16"))
    assert ops.dtype(half[0]) == "float16"


@pytest.mark.parametrize(("length", "stride"), [(3, 2), (4, 4), (1, 1), (6, 1)])
def test_extract_sequences_matches_numpy(length, stride):
    x = _r(2, 6)
    out = ops.extract_sequences(x, length, stride)
    n = 1 + (6 - length) // stride
    expected = np.stack([x[:, i * stride : i * stride + length] for i in range(n)], axis=1)
    assert_allclose(out, expected)
    spec = ops.extract_sequences(lamina.KerasTensor((None, 6), "int8"), length, stride)
    assert (spec.shape, spec.dtype) == ((None, n, length), "int8")


def _np_stft(x, seq, stride, fft_len, window, center):
    n = seq
    if window is None:
        win = np.ones(n)
    elif isinstance(window, str):
        a = 0.5 if window == "hann" else 0.54
        win = a - (1 - a) * np.cos(2 * np.pi * np.arange(n) / n)
    else:
        win = np.asarray(window, "f8")
    left = (fft_len - n) // 2
    win = np.pad(win, (left, fft_len - n - left))
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(fft_len // 2, fft_len // 2)], mode="reflect")
    frames = 1 + (x.shape[-1] - fft_len) // stride
    segs = np.stack([x[..., i * stride : i * stride + fft_len] for i in range(frames)], -2)
    return np.fft.rfft(segs * win, n=fft_len)


@pytest.mark.parametrize(
    ("seq", "stride", "fft_len", "window", "center"),
    [
        (8, 4, 8, "hann", True),
        (6, 2, 8, "hamming", True),
        (8, 3, 16, None, False),
        (5, 2, 8, np.linspace(0.1, 1.0, 5).astype("f4"), True),
    ],
)
def test_stft_matches_reference(seq, stride, fft_len, window, center):
    x = _r(2, 32)
    real, imag = ops.stft(x, seq, stride, fft_len, window=window, center=center)
    expected = _np_stft(x.astype("f8"), seq, stride, fft_len, window, center)
    assert tuple(real.shape) == expected.shape
    assert_allclose(real, expected.real.astype("f4"), loose=10)
    assert_allclose(imag, expected.imag.astype("f4"), loose=10)
    spec = ops.stft(lamina.KerasTensor((None, 32)), seq, stride, fft_len, window, center)
    assert spec[0].shape == (None, *expected.shape[1:])


@pytest.mark.parametrize(
    ("seq", "stride", "fft_len", "center"), [(16, 4, 16, True), (12, 3, 16, True), (8, 2, 8, False)]
)
def test_istft_inverts_stft(seq, stride, fft_len, center):
    x = _r(2, 64)
    spec = ops.stft(x, seq, stride, fft_len, center=center)
    back = ops.istft(spec, seq, stride, fft_len, length=64, center=center)
    assert tuple(back.shape) == (2, 64)
    lo, hi = (0, 64) if center else (fft_len, 64 - fft_len)
    assert_allclose(_np(back)[:, lo:hi], x[:, lo:hi], loose=100)
    sym = ops.istft(
        (lamina.KerasTensor(tuple(spec[0].shape)),) * 2, seq, stride, fft_len, center=center
    )
    eager = ops.istft(spec, seq, stride, fft_len, center=center)
    assert sym.shape == tuple(eager.shape)


ERRORS = [
    ("top_k", lambda: ops.top_k(np.ones(3), 4)),
    ("top_k", lambda: ops.top_k(np.ones(3), -1)),
    ("in_top_k", lambda: ops.in_top_k(np.ones((2, 2), "int32"), np.ones((2, 3)), 1)),
    ("in_top_k", lambda: ops.in_top_k(np.ones(3, "int32"), np.ones((2, 3)), 1)),
    ("logsumexp", lambda: ops.logsumexp(np.ones((2, 3)), axis=2)),
    ("logdet", lambda: ops.logdet(np.ones((2, 3)))),
    ("view_as_complex", lambda: ops.view_as_complex(np.ones((2, 3)))),
    ("segment_sum", lambda: ops.segment_sum(np.ones((3, 2)), np.zeros(4, "int32"))),
    ("segment_max", lambda: ops.segment_max(np.ones(3), np.zeros((3, 1), "int32"))),
    ("segment_min", lambda: ops.segment_min(np.ones(3), np.zeros(3, "int32"), num_segments=-1)),
    ("segment_prod", lambda: ops.segment_prod(np.ones(()), np.zeros(1, "int32"))),
    ("fft", lambda: ops.fft(np.ones(4))),
    ("fft", lambda: ops.fft((np.ones(4), np.ones(3)))),
    ("fft2", lambda: ops.fft2((np.ones(4), np.ones(4)))),
    ("ifft2", lambda: ops.ifft2((np.ones(4), np.ones(4)))),
    ("rfft", lambda: ops.rfft(np.ones(4), fft_length=0)),
    ("irfft", lambda: ops.irfft((np.ones(1), np.ones(1)))),
    ("extract_sequences", lambda: ops.extract_sequences(np.ones(4), 0, 1)),
    ("stft", lambda: ops.stft(np.ones(32), 16, 4, 8)),
    ("stft", lambda: ops.stft(np.ones(32), 8, 4, 8, window="bad")),
    ("stft", lambda: ops.stft(np.ones(32), 8, 4, 8, window=np.ones(5))),
    ("istft", lambda: ops.istft((np.ones((3, 4)), np.ones((3, 4))), 8, 4, 8)),
]


@pytest.mark.parametrize(("name", "fn"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_inputs_raise_naming_the_op(name, fn):
    with pytest.raises(ValueError, match=f"`{name}`"):
        fn()


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("segment_sum", lambda: ops.segment_sum(np.ones(3), np.zeros(3, "float32"))),
        ("in_top_k", lambda: ops.in_top_k(np.ones(2, "float32"), np.ones((2, 3)), 1)),
        ("view_as_real", lambda: ops.view_as_real(np.ones(3, "float32"))),
        ("rfft", lambda: ops.rfft(np.ones(3, "complex64"))),
        ("fft", lambda: ops.fft((lamina.KerasTensor((2,), "string"), lamina.KerasTensor((2,))))),
    ],
)
def test_bad_dtypes_raise_type_error(name, fn):
    with pytest.raises(TypeError, match=f"`{name}`"):
        fn()


@pytest.mark.parametrize(
    "op",
    [ops.segment_sum, ops.segment_prod, ops.segment_max, ops.segment_min],
    ids=lambda f: f.__name__,
)
def test_segment_ids_out_of_range_are_dropped(op):
    ids = np.array([0, 5, -1, 1], "int32")
    keep = np.array([True, False, False, True])
    expected = op(DATA[keep], ids[keep], num_segments=2)
    assert_allclose(op(DATA, ids, num_segments=2), _np(expected))
