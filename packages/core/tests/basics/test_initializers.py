"""lamina.initializers: values vs NumPy, statistics, seeding, orthogonality, configs, errors.

Statistics use 60 000 draws; the std of a sample mean is then sigma / 245, so mean checks
allow 0.02 sigma (about 5 standard errors) and std checks 2% relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import signal

import lamina
from lamina import initializers, ops
from lamina.random import SeedGenerator
from lamina.testing import assert_allclose

KERAS_NAMES = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
    "IdentityInitializer", "Initializer", "LecunNormal", "LecunUniform", "Ones", "Orthogonal",
    "OrthogonalInitializer", "RandomNormal", "RandomUniform", "STFT", "STFTInitializer",
    "TruncatedNormal", "VarianceScaling", "Zeros", "constant", "deserialize", "get",
    "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity", "lecun_normal",
    "lecun_uniform", "ones", "orthogonal", "random_normal", "random_uniform", "serialize",
    "stft", "truncated_normal", "variance_scaling", "zeros",
]  # fmt: skip

SHAPE = (200, 300)  # fan_in 200, fan_out 300, fan_avg 250
TRUNC = 0.87962566103423978


def _np(x):
    return ops.convert_to_numpy(x).astype("float64")


def test_every_keras_name_exists():
    missing = [n for n in KERAS_NAMES if not hasattr(initializers, n)]
    assert missing == []


@pytest.mark.parametrize(
    "alias, cls",
    [
        ("glorot_uniform", "GlorotUniform"), ("glorot_normal", "GlorotNormal"),
        ("he_uniform", "HeUniform"), ("he_normal", "HeNormal"), ("lecun_uniform", "LecunUniform"),
        ("lecun_normal", "LecunNormal"), ("zeros", "Zeros"), ("ones", "Ones"),
        ("constant", "Constant"), ("identity", "Identity"), ("orthogonal", "Orthogonal"),
        ("random_normal", "RandomNormal"), ("random_uniform", "RandomUniform"),
        ("truncated_normal", "TruncatedNormal"), ("variance_scaling", "VarianceScaling"),
        ("stft", "STFT"), ("IdentityInitializer", "Identity"),
        ("OrthogonalInitializer", "Orthogonal"), ("STFTInitializer", "STFT"),
    ],
)  # fmt: skip
def test_aliases_are_the_classes_and_get_resolves_them(alias, cls):
    assert getattr(initializers, alias) is getattr(initializers, cls)
    assert type(initializers.get(alias)) is getattr(initializers, cls)


# --- deterministic initializers -----------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_zeros_ones_constant(dtype):
    z = initializers.Zeros()((2, 3), dtype=dtype)
    o = initializers.Ones()((2, 3), dtype=dtype)
    c = initializers.Constant(5)((2, 3), dtype=dtype)
    for t, v in ((z, 0), (o, 1), (c, 5)):
        assert ops.dtype(t) == dtype
        np.testing.assert_array_equal(ops.convert_to_numpy(t), np.full((2, 3), v, dtype))


def test_default_dtype_is_floatx():
    assert ops.dtype(initializers.Ones()((2,))) == lamina.config.floatx()
    assert ops.dtype(initializers.GlorotUniform(seed=1)((2, 2))) == lamina.config.floatx()


def test_constant_broadcasts_an_array_and_rejects_a_mismatch():
    got = initializers.Constant([1.0, 2.0, 3.0])((2, 3))
    np.testing.assert_array_equal(ops.convert_to_numpy(got), [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(ValueError, match="shape"):
        initializers.Constant([1.0, 2.0])((2, 3))
    with pytest.raises(TypeError, match="value"):
        initializers.Constant("abc")


def test_identity_with_gain_and_rectangular_shape():
    got = initializers.Identity(gain=2.5)((3, 4))
    assert_allclose(got, 2.5 * np.eye(3, 4))
    with pytest.raises(ValueError, match="2D"):
        initializers.Identity()((2, 2, 2))


def _windows(name, n, periodic):
    if periodic:
        return signal.get_window(name, n, fftbins=True)
    return {
        "hann": np.hanning,
        "hamming": np.hamming,
        "blackman": np.blackman,
        "bartlett": np.bartlett,
        "boxcar": np.ones,
    }[name](n)


@pytest.mark.parametrize("window", ["hann", "hamming", "blackman", "bartlett", "boxcar"])
@pytest.mark.parametrize("periodic", [False, True])
def test_stft_kernel_computes_a_windowed_rfft(window, periodic):
    n, bins = 16, 9  # fft_length 16
    frame = np.random.default_rng(0).normal(size=n)
    win = _windows(window, n, periodic)
    spectrum = np.fft.rfft(frame * win) / np.sqrt(np.sum(win**2))
    for side, part in (("real", spectrum.real), ("imag", spectrum.imag)):
        init = initializers.STFT(side=side, window=window, periodic=periodic)
        kernel = _np(init((n, 1, bins), dtype="float32"))
        assert kernel.shape == (n, 1, bins)
        np.testing.assert_allclose(frame @ kernel[:, 0, :], part, rtol=1e-5, atol=1e-5)


def test_stft_spectrum_scaling_array_window_and_channels():
    n, bins = 8, 5
    win = np.linspace(0.5, 1.0, n)
    frame = np.random.default_rng(1).normal(size=n)
    init = initializers.STFT(window=win, scaling="spectrum")
    kernel = _np(init((n, 3, bins), dtype="float32"))
    assert kernel.shape == (n, 3, bins)
    want = np.fft.rfft(frame * win).real / np.sum(win)
    for ch in range(3):
        np.testing.assert_allclose(frame @ kernel[:, ch, :], want, rtol=1e-5, atol=1e-5)
    plain = _np(initializers.STFT(window=None, scaling=None)((n, 1, bins)))
    np.testing.assert_allclose(frame @ plain[:, 0, :], np.fft.rfft(frame).real, atol=1e-5)


def test_stft_bad_arguments():
    with pytest.raises(ValueError, match="side"):
        initializers.STFT(side="both")
    with pytest.raises(ValueError, match="scaling"):
        initializers.STFT(scaling="power")
    with pytest.raises(ValueError, match="window"):
        initializers.STFT(window="kaiserish")
    with pytest.raises(ValueError, match="frame_length"):
        initializers.STFT(window=[1.0, 1.0])((4, 1, 3))
    with pytest.raises(ValueError, match="shape"):
        initializers.STFT()((4, 3))


# --- random initializers: statistics ------------------------------------------------------
# (initializer, expected std, bound on |x| or None)
def _stat_cases():
    fan_in, fan_out, fan_avg = 200.0, 300.0, 250.0
    return {
        "random_normal": (initializers.RandomNormal(0.0, 0.5, seed=1), 0.5, None),
        "random_uniform": (initializers.RandomUniform(-0.3, 0.3, seed=1), 0.3 / 3**0.5, 0.3),
        "truncated_normal": (initializers.TruncatedNormal(0.0, 0.5, seed=1), 0.5 * TRUNC, 1.0),
        "glorot_uniform": (
            initializers.GlorotUniform(seed=1), (1 / fan_avg) ** 0.5, (3 / fan_avg) ** 0.5,
        ),
        "glorot_normal": (
            initializers.GlorotNormal(seed=1),
            (1 / fan_avg) ** 0.5,
            2 * (1 / fan_avg) ** 0.5 / TRUNC,
        ),
        "he_uniform": (initializers.HeUniform(seed=1), (2 / fan_in) ** 0.5, (6 / fan_in) ** 0.5),
        "he_normal": (
            initializers.HeNormal(seed=1), (2 / fan_in) ** 0.5, 2 * (2 / fan_in) ** 0.5 / TRUNC,
        ),
        "lecun_uniform": (
            initializers.LecunUniform(seed=1), (1 / fan_in) ** 0.5, (3 / fan_in) ** 0.5,
        ),
        "lecun_normal": (
            initializers.LecunNormal(seed=1), (1 / fan_in) ** 0.5, 2 * (1 / fan_in) ** 0.5 / TRUNC,
        ),
        "fan_out_untruncated": (
            initializers.VarianceScaling(3.0, "fan_out", "untruncated_normal", seed=1),
            (3 / fan_out) ** 0.5,
            None,
        ),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_stat_cases()))
def test_random_statistics(name):
    init, std, bound = _stat_cases()[name]
    x = _np(init(SHAPE, dtype="float32"))
    assert x.shape == SHAPE
    assert abs(x.mean()) < 0.02 * std
    assert abs(x.std() - std) < 0.02 * std
    if bound is not None:
        assert np.abs(x).max() <= bound * (1 + 1e-6)


def test_random_normal_mean_is_applied():
    x = _np(initializers.RandomNormal(mean=3.0, stddev=0.1, seed=4)(SHAPE))
    assert abs(x.mean() - 3.0) < 0.002


def test_variance_scaling_uses_the_receptive_field_for_conv_kernels():
    # fan_in = 3 * 3 * 64 = 576
    x = _np(initializers.HeNormal(seed=2)((3, 3, 64, 128)))
    std = (2 / 576) ** 0.5
    assert abs(x.std() - std) < 0.02 * std


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_random_output_dtype(dtype):
    for init in (initializers.GlorotUniform(seed=0), initializers.Orthogonal(seed=0)):
        assert ops.dtype(init((4, 4), dtype=dtype)) == dtype


def test_random_initializers_reject_int_dtype():
    with pytest.raises(TypeError, match="dtype"):
        initializers.RandomNormal(seed=1)((2, 2), dtype="int32")


# --- seeding -------------------------------------------------------------------------------
SEEDED = [
    lambda s: initializers.RandomNormal(seed=s),
    lambda s: initializers.RandomUniform(seed=s),
    lambda s: initializers.TruncatedNormal(seed=s),
    lambda s: initializers.GlorotUniform(seed=s),
    lambda s: initializers.HeNormal(seed=s),
    lambda s: initializers.Orthogonal(seed=s),
]


@pytest.mark.parametrize("make", SEEDED)
def test_same_seed_same_values_other_seed_other_values(make):
    a = make(7)
    first = _np(a((8, 6)))
    np.testing.assert_array_equal(_np(a((8, 6))), first)  # every call
    np.testing.assert_array_equal(_np(make(7)((8, 6))), first)  # every instance
    np.testing.assert_array_equal(_np(a.clone()((8, 6))), first)
    assert not np.array_equal(_np(make(8)((8, 6))), first)


@pytest.mark.parametrize("make", SEEDED)
def test_unseeded_draws_fresh_values_each_call(make):
    init = make(None)
    assert not np.array_equal(_np(init((8, 6))), _np(init((8, 6))))


def test_seed_generator_seed_advances_and_replays():
    a = initializers.RandomNormal(seed=SeedGenerator(3))
    b = initializers.RandomNormal(seed=SeedGenerator(3))
    a1, a2 = _np(a((5,))), _np(a((5,)))
    assert not np.array_equal(a1, a2)
    np.testing.assert_array_equal(_np(b((5,))), a1)


# --- orthogonal -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(6, 6), (10, 4), (4, 10), (3, 3, 4, 8)])
def test_orthogonal_is_orthonormal(shape):
    q = _np(initializers.Orthogonal(gain=1.0, seed=5)(shape, dtype="float32"))
    assert q.shape == shape
    m = q.reshape(-1, shape[-1])
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)


def test_orthogonal_gain_and_errors():
    q = _np(initializers.Orthogonal(gain=3.0, seed=1)((5, 5)))
    np.testing.assert_allclose(q.T @ q, 9.0 * np.eye(5), atol=1e-4)
    with pytest.raises(ValueError, match="2 dimensions"):
        initializers.Orthogonal()((5,))


# --- configs and get ---------------------------------------------------------------------
ROUND_TRIP = [
    initializers.Zeros(),
    initializers.Ones(),
    initializers.Constant(2.5),
    initializers.Constant([[1.0, 2.0]]),
    initializers.Identity(gain=3.0),
    initializers.RandomNormal(mean=1.0, stddev=2.0, seed=3),
    initializers.RandomUniform(minval=-2.0, maxval=1.0, seed=3),
    initializers.TruncatedNormal(mean=0.5, stddev=0.2, seed=3),
    initializers.VarianceScaling(2.0, "fan_avg", "uniform", seed=3),
    initializers.GlorotUniform(seed=3),
    initializers.GlorotNormal(seed=3),
    initializers.HeUniform(seed=3),
    initializers.HeNormal(),
    initializers.LecunUniform(seed=3),
    initializers.LecunNormal(seed=3),
    initializers.Orthogonal(gain=2.0, seed=3),
    initializers.STFT(side="imag", window="hamming", scaling="spectrum", periodic=True),
]


@pytest.mark.parametrize("init", ROUND_TRIP, ids=lambda i: type(i).__name__)
def test_config_round_trip(init):
    config = initializers.serialize(init)
    assert config["class_name"] == type(init).__name__
    for restored in (initializers.deserialize(config), initializers.get(config)):
        assert type(restored) is type(init)
        assert restored.get_config() == init.get_config()
    shape = (4, 1, 5) if isinstance(init, initializers.STFT) else (2, 2)
    if getattr(init, "seed", 0) is not None:
        np.testing.assert_array_equal(_np(restored(shape)), _np(init(shape)))


def test_keras_style_config_and_custom_objects():
    config = {
        "module": "keras.initializers",
        "class_name": "GlorotUniform",
        "config": {"seed": 3},
        "registered_name": None,
    }
    init = initializers.deserialize(config)
    assert isinstance(init, initializers.GlorotUniform) and init.seed == 3

    class Halves(initializers.Initializer):
        def __call__(self, shape, dtype=None):
            return ops.full(shape, 0.5, dtype=dtype)

    restored = initializers.deserialize(
        initializers.serialize(Halves()), custom_objects={"Halves": Halves}
    )
    np.testing.assert_array_equal(_np(restored((2,))), [0.5, 0.5])


def test_get_accepts_every_identifier_kind():
    assert initializers.get(None) is None
    assert isinstance(initializers.get("HeNormal"), initializers.HeNormal)
    assert isinstance(initializers.get(initializers.Ones), initializers.Ones)
    inst = initializers.Zeros()
    assert initializers.get(inst) is inst

    def fn(shape, dtype=None):
        return ops.zeros(shape, dtype=dtype)

    assert initializers.get(fn) is fn
    for bad in ("not_an_initializer", 3):
        with pytest.raises(ValueError, match=r"identifier|config"):
            initializers.get(bad)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: initializers.VarianceScaling(scale=0.0), "scale"),
        (lambda: initializers.VarianceScaling(mode="fan_max"), "mode"),
        (lambda: initializers.VarianceScaling(distribution="cauchy"), "distribution"),
        (lambda: initializers.RandomUniform(minval=1.0, maxval=0.0), "minval"),
        (lambda: initializers.RandomNormal(stddev=-1.0), "stddev"),
        (lambda: initializers.RandomNormal(seed="abc"), "seed"),
        (lambda: initializers.GlorotUniform(seed=-1), "seed"),
        (lambda: initializers.Zeros()((2, -1)), "shape"),
        (lambda: initializers.GlorotUniform()("big"), "shape"),
    ],
)
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_argument_types():
    with pytest.raises(TypeError, match="gain"):
        initializers.Orthogonal(gain="2")
    with pytest.raises(TypeError, match="mean"):
        initializers.RandomNormal(mean=None)


def test_layer_add_weight_uses_names_and_shapes():
    layer = lamina.layers.Layer()
    w = layer.add_weight(shape=(3, 4), initializer="orthogonal")
    m = ops.convert_to_numpy(w.value).astype("float64")
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-5)
    b = layer.add_weight(shape=(4,), initializer=initializers.Constant(0.5))
    np.testing.assert_array_equal(ops.convert_to_numpy(b.value), np.full(4, 0.5, "float32"))
    assert math.isclose(float(np.std(_np(layer.add_weight(shape=(400, 400))))), (1 / 400) ** 0.5,
                        rel_tol=0.03)
