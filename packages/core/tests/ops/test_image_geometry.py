"""Image geometry, filter and patch ops against NumPy/SciPy references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.ndimage as ndi

import lamina
from lamina import ops
from lamina.ops import image
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)
IMGS = RNG.uniform(size=(2, 6, 7, 3)).astype("float32")
KT = lamina.KerasTensor
SCIPY_MODES = {"constant": "grid-constant", "nearest": "nearest", "wrap": "grid-wrap",
               "mirror": "mirror", "reflect": "reflect"}  # fmt: skip


def _cf(x):
    return np.moveaxis(x, -1, 1 if x.ndim == 4 else 0)


def _sample_ref(x, ys, xs, order, mode, cval):
    """Sample NHWC `x` at per-image coordinates with scipy, channel by channel."""
    return np.stack(
        [
            np.stack([ndi.map_coordinates(x[b, ..., c], [ys[b], xs[b]], order=order,
                                          mode=SCIPY_MODES[mode], cval=cval)
                      for c in range(x.shape[-1])], -1)
            for b in range(x.shape[0])
        ]
    )  # fmt: skip


# --- affine / perspective ------------------------------------------------------------------

TRANSFORMS = np.array(
    [[0.9, 0.2, 0.6, -0.15, 1.1, -0.4, 0.0, 0.0], [1.2, -0.1, -1.3, 0.1, 0.8, 1.7, 0.01, -0.02]],
    "float32",
)


@pytest.mark.parametrize("fill_mode", list(SCIPY_MODES))
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_affine_transform_matches_scipy(fill_mode, interpolation, data_format):
    ys, xs = np.meshgrid(np.arange(6.0), np.arange(7.0), indexing="ij")
    t = TRANSFORMS.astype("float64")[:, :, None, None]
    k = t[:, 6] * xs + t[:, 7] * ys + 1
    x_in, y_in = (t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / k, (t[:, 3] * xs + t[:, 4] * ys +
                                                               t[:, 5]) / k  # fmt: skip
    order = 1 if interpolation == "bilinear" else 0
    want = _sample_ref(IMGS.astype("float64"), y_in, x_in, order, fill_mode, 0.25)
    x = IMGS if data_format == "channels_last" else _cf(IMGS)
    out = image.affine_transform(x, TRANSFORMS, interpolation, fill_mode, 0.25, data_format)
    out = ops.convert_to_numpy(out)
    out = out if data_format == "channels_last" else np.moveaxis(out, 1, -1)
    # Nearest sampling flips between neighbours at half-way points: compare away from them.
    tie = (np.abs(np.abs(x_in % 1) - 0.5) < 1e-3) | (np.abs(np.abs(y_in % 1) - 0.5) < 1e-3)
    keep = ~tie if order == 0 else np.ones_like(tie)
    assert_allclose(out[keep], want[keep], loose=10)


def test_affine_transform_single_image_int_and_spec():
    shift = np.array([1, 0, 2, 0, 1, -1, 0, 0], "float32")
    x = (IMGS[0] * 100).astype("int32")
    out = image.affine_transform(x, shift, "nearest")
    want = np.zeros_like(x)
    want[1:, :-2] = x[:-1, 2:]
    assert ops.dtype(out) == "int32"
    assert_allclose(out, want)
    spec = image.affine_transform(KT((None, 4, None, 3), "uint8"), KT((None, 8)))
    assert (spec.shape, spec.dtype) == ((None, 4, None, 3), "uint8")


def test_affine_transform_errors_name_the_op():
    with pytest.raises(ValueError, match="`affine_transform`: argument `transform`"):
        image.affine_transform(IMGS, np.ones((2, 6)))
    with pytest.raises(ValueError, match="`affine_transform`: argument `interpolation`"):
        image.affine_transform(IMGS, TRANSFORMS, interpolation="bicubic")
    with pytest.raises(ValueError, match="`affine_transform`: argument `fill_mode`"):
        image.affine_transform(IMGS, TRANSFORMS, fill_mode="zeros")


def test_perspective_transform_matches_affine_reference():
    start = np.array([[1, 0], [7, 0], [1, 6], [7, 6]], "float32")
    end = np.array([[0, 0], [6, 0], [0, 6], [6, 6]], "float32")
    out = image.perspective_transform(IMGS, start, end, fill_value=0.5)
    ys, xs = np.meshgrid(np.arange(6.0), np.arange(7.0), indexing="ij")
    want = _sample_ref(IMGS, np.stack([ys] * 2), np.stack([xs + 1] * 2), 1, "constant", 0.5)
    assert_allclose(out, want, loose=10)
    # A true projective map: the solved transform sends each end point to its start point.
    end2 = np.array([[[0, 0], [6, 1], [1, 5], [6, 6]]], "float32")
    out = image.perspective_transform(_cf(IMGS[:1]), start[None], end2,
                                      data_format="channels_first")  # fmt: skip
    a = [[xe, ye, 1, 0, 0, 0, -xe * xs_, -ye * xs_] for (xe, ye), (xs_, _) in zip(end2[0], start)]
    a += [[0, 0, 0, xe, ye, 1, -xe * ys_, -ye * ys_] for (xe, ye), (_, ys_) in zip(end2[0], start)]
    t = np.linalg.solve(np.array(a, "float64"), np.concatenate([start[:, 0], start[:, 1]]))
    want = image.affine_transform(_cf(IMGS[:1]), t.astype("float32"), data_format="channels_first")
    assert_allclose(out, want, loose=10)


def test_perspective_transform_spec_and_errors():
    spec = image.perspective_transform(KT((None, 5, 5, 2)), KT((None, 4, 2)), KT((None, 4, 2)))
    assert (spec.shape, spec.dtype) == ((None, 5, 5, 2), "float32")
    with pytest.raises(ValueError, match="`perspective_transform`: argument `end_points`"):
        image.perspective_transform(IMGS, np.ones((4, 2)), np.ones((3, 2)))


# --- map_coordinates -----------------------------------------------------------------------


@pytest.mark.parametrize("fill_mode", list(SCIPY_MODES))
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_matches_scipy(fill_mode, order):
    x = RNG.normal(size=(5, 4, 3)).astype("float32")
    coords = RNG.uniform(-3, 8, size=(3, 2, 6)).astype("float32")
    coords = np.where(np.abs(coords - np.round(coords)) > 0.45, coords + 0.1, coords)
    want = ndi.map_coordinates(x, coords, order=order, mode=SCIPY_MODES[fill_mode], cval=-1.0)
    out = image.map_coordinates(x, coords, order, fill_mode, -1.0)
    assert_allclose(out, want, loose=10)
    out = image.map_coordinates(x, list(coords), order, fill_mode, -1.0)
    assert_allclose(out, want, loose=10)


def test_map_coordinates_spec_dtype_and_errors():
    spec = image.map_coordinates(KT((4, 5), "int32"), KT((2, None, 3)), 1)
    assert (spec.shape, spec.dtype) == ((None, 3), "int32")
    out = image.map_coordinates(np.arange(5, dtype="int32"), [[0.4, 3.6]], 0)
    assert ops.dtype(out) == "int32"
    assert_allclose(out, np.array([0, 4], "int32"))
    with pytest.raises(ValueError, match="`map_coordinates`: argument `coordinates`"):
        image.map_coordinates(np.ones((3, 3)), np.ones((3, 4)), 1)
    with pytest.raises(ValueError, match="`map_coordinates`: argument `order`"):
        image.map_coordinates(np.ones((3, 3)), np.ones((2, 4)), 3)


# --- elastic_transform ---------------------------------------------------------------------


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_elastic_transform_is_seeded_and_identity_without_displacement(data_format):
    x = IMGS if data_format == "channels_last" else _cf(IMGS)
    assert_allclose(image.elastic_transform(x, alpha=0.0, seed=3, data_format=data_format), x)
    a = ops.convert_to_numpy(image.elastic_transform(x, 3.0, 2.0, seed=3, data_format=data_format))
    b = ops.convert_to_numpy(image.elastic_transform(x, 3.0, 2.0, seed=3, data_format=data_format))
    c = ops.convert_to_numpy(image.elastic_transform(x, 3.0, 2.0, seed=4, data_format=data_format))
    np.testing.assert_array_equal(a, b)
    assert a.shape == x.shape and not np.allclose(a, c)
    assert float(a.min()) >= 0.0 and float(a.max()) <= 1.0  # reflect fill stays in range


def test_elastic_transform_spec_and_errors():
    out = image.elastic_transform(KT((None, 8, 8, 3), "uint8"))
    assert (out.shape, out.dtype) == ((None, 8, 8, 3), "uint8")
    assert ops.dtype(image.elastic_transform((IMGS[0] * 255).astype("uint8"), seed=1)) == "uint8"
    with pytest.raises(ValueError, match="`elastic_transform`: argument `sigma`"):
        image.elastic_transform(IMGS, sigma=0.0)
    with pytest.raises(ValueError, match="`elastic_transform`: argument `seed`"):
        image.elastic_transform(IMGS, seed="a")


# --- gaussian_blur / sobel_edges / ssim ----------------------------------------------------


def _gauss(size, sigma):
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_gaussian_blur_matches_scipy(data_format):
    # Keras' order: kernel_size[0] and sigma[0] run along the width.
    k2d = np.outer(_gauss(5, 0.8), _gauss(3, 1.3))
    want = np.stack([np.stack([ndi.correlate(IMGS[b, ..., c], k2d, mode="constant")
                               for c in range(3)], -1) for b in range(2)])  # fmt: skip
    x = IMGS if data_format == "channels_last" else _cf(IMGS)
    out = image.gaussian_blur(x, (3, 5), (1.3, 0.8), data_format)
    assert_allclose(out, want if data_format == "channels_last" else _cf(want), loose=3)
    batched = ops.convert_to_numpy(image.gaussian_blur(IMGS))
    assert_allclose(image.gaussian_blur(IMGS[0]), batched[0])


def test_gaussian_blur_spec_and_errors():
    out = image.gaussian_blur(KT((None, None, 4, 3), "float16"))
    assert (out.shape, out.dtype) == ((None, None, 4, 3), "float16")
    with pytest.raises(ValueError, match="`gaussian_blur`: argument `kernel_size`"):
        image.gaussian_blur(IMGS, kernel_size=(0, 3))
    with pytest.raises(ValueError, match="`gaussian_blur`: argument `sigma`"):
        image.gaussian_blur(IMGS, sigma=(-1.0, 1.0))


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_sobel_edges_matches_scipy(data_format):
    def ref(img, axis):
        return ndi.sobel(img, axis=axis, mode="mirror")

    want = np.stack([np.stack([np.stack([ref(IMGS[b, ..., c], a) for a in (0, 1)], -1)
                               for c in range(3)], 2) for b in range(2)])  # fmt: skip
    x = IMGS if data_format == "channels_last" else _cf(IMGS)
    out = image.sobel_edges(x, data_format)
    if data_format == "channels_first":
        want = np.moveaxis(want, 3, 1)
    assert_allclose(out, want, loose=3)
    assert_allclose(image.sobel_edges(IMGS[0]), ops.convert_to_numpy(out)[0] if
                    data_format == "channels_last" else want[0].transpose(1, 2, 0, 3))  # fmt: skip


def test_sobel_edges_spec_and_errors():
    out = image.sobel_edges(KT((None, 4, 4, 3), "int32"))
    assert (out.shape, out.dtype) == ((None, 4, 4, 3, 2), "float32")
    with pytest.raises(ValueError, match=r"`sobel_edges`.*rank"):
        image.sobel_edges(np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"`sobel_edges`.*2x2"):
        image.sobel_edges(np.ones((1, 1, 4, 1)))


def _ssim_ref(a, b, max_val, size, sigma, k1=0.01, k2=0.03):
    g = _gauss(size, sigma)

    def blur(z):
        z = ndi.correlate1d(z, g, axis=1, mode="constant")
        z = ndi.correlate1d(z, g, axis=2, mode="constant")
        h = size // 2
        return z[:, h : z.shape[1] - h, h : z.shape[2] - h]

    a, b = a.astype("float64"), b.astype("float64")
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m1, m2 = blur(a), blur(b)
    lum = (2 * m1 * m2 + c1) / (m1**2 + m2**2 + c1)
    cs = (2 * (blur(a * b) - m1 * m2) + c2) / (blur(a * a) - m1**2 + blur(b * b) - m2**2 + c2)
    return (lum * cs).mean(axis=(1, 2, 3))


@pytest.mark.half_precision
def test_ssim_matches_reference_and_promotes():
    other = np.clip(IMGS + RNG.normal(scale=0.1, size=IMGS.shape), 0, 1).astype("float32")
    want = _ssim_ref(IMGS, other, 1.0, 5, 1.5)
    assert_allclose(image.ssim(IMGS, other, filter_size=5), want, loose=10)
    assert_allclose(image.ssim(_cf(IMGS), _cf(other), filter_size=5,
                               data_format="channels_first"), want, loose=10)  # fmt: skip
    assert_allclose(image.ssim(IMGS[0], IMGS[0], filter_size=5), np.float32(1.0), loose=10)
    x8 = (IMGS * 255).astype("uint8")
    out = image.ssim(x8, other.astype("float16") * 255, 255.0, 5)
    assert ops.dtype(out) == lamina.ops.dtypes.result_type("uint8", "float16")


def test_ssim_spec_and_errors():
    out = image.ssim(KT((None, 16, 16, 3)), KT((None, 16, 16, 3), "float64"))
    assert (out.shape, out.dtype) == ((None,), "float64")
    assert image.ssim(KT((16, 16, 1), "uint8"), KT((16, 16, 1), "uint8")).dtype == "float32"
    with pytest.raises(ValueError, match=r"`ssim`.*same shape"):
        image.ssim(IMGS, IMGS[:1])
    with pytest.raises(ValueError, match="`ssim`: argument `filter_size`"):
        image.ssim(IMGS, IMGS, filter_size=4)
    with pytest.raises(ValueError, match=r"`ssim`.*at least"):
        image.ssim(IMGS, IMGS)


# --- extract_patches / extract_patches_3d --------------------------------------------------


def _patches_ref(x, size, strides, dilation, padding):
    n = len(size)
    if padding == "same":
        pads = [(0, 0)]
        for d, k, s, r in zip(x.shape[1:-1], size, strides, dilation, strict=True):
            total = max((-(-d // s) - 1) * s + (k - 1) * r + 1 - d, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, pads + [(0, 0)])
    outs = [
        (d - (k - 1) * r - 1) // s + 1
        for d, k, s, r in zip(x.shape[1:-1], size, strides, dilation, strict=True)
    ]
    out = np.zeros((x.shape[0], *outs, int(np.prod(size)) * x.shape[-1]), x.dtype)
    for pos in itertools.product(*(range(o) for o in outs)):
        vals = [x[(slice(None),
                   *(p * s + o * r for p, s, o, r in zip(pos, strides, off, dilation)))]
                for off in itertools.product(*(range(k) for k in size))]  # fmt: skip
        out[(slice(None), *pos)] = np.concatenate(vals, -1)
    assert n == len(outs)
    return out


PATCHES = [
    ((2, 3), None, 1, "valid"),
    ((3, 2), (2, 1), 1, "same"),
    ((2, 2), (1, 2), (2, 1), "valid"),
    (3, 2, 1, "same"),
]


@pytest.mark.parametrize(("size", "strides", "dilation", "padding"), PATCHES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_extract_patches_matches_reference(size, strides, dilation, padding, data_format):
    def norm(v, d):
        return (v, v) if isinstance(v, int) else v

    k = norm(size, 0)
    want = _patches_ref(IMGS, k, norm(strides or k, 0), norm(dilation, 0), padding)
    x = IMGS if data_format == "channels_last" else _cf(IMGS)
    out = image.extract_patches(x, size, strides, dilation, padding, data_format)
    assert_allclose(out, want if data_format == "channels_last" else _cf(want))
    spec = image.extract_patches(KT(x.shape, "int8"), size, strides, dilation, padding,
                                 data_format)  # fmt: skip
    assert (spec.shape, spec.dtype) == (tuple(out.shape), "int8")


def test_extract_patches_3d_matches_reference():
    vol = RNG.normal(size=(2, 5, 4, 6, 2)).astype("float32")
    want = _patches_ref(vol, (2, 3, 2), (1, 1, 2), (2, 1, 1), "valid")
    assert_allclose(image.extract_patches_3d(vol, (2, 3, 2), (1, 1, 2), (2, 1, 1)), want)
    want = _patches_ref(vol, (3, 3, 3), (2, 2, 2), (1, 1, 1), "same")
    out = image.extract_patches_3d(np.moveaxis(vol[0], -1, 0), 3, 2, padding="same",
                                   data_format="channels_first")  # fmt: skip
    assert_allclose(out, np.moveaxis(want[0], -1, 0))


def test_extract_patches_spec_and_errors():
    out = image.extract_patches(KT((None, None, 8, 3), "uint8"), 2)
    assert (out.shape, out.dtype) == ((None, None, 4, 12), "uint8")
    assert image.extract_patches_3d(KT((None, 4, 4, 4, 2)), 2).shape == (None, 2, 2, 2, 16)
    with pytest.raises(ValueError, match="`extract_patches`: argument `padding`"):
        image.extract_patches(IMGS, 2, padding="full")
    with pytest.raises(ValueError, match=r"`extract_patches`.*larger than the input"):
        image.extract_patches(IMGS, 8)
    with pytest.raises(ValueError, match="`extract_patches_3d`: argument `size`"):
        image.extract_patches_3d(np.ones((1, 4, 4, 4, 1)), (2, 2))


@pytest.mark.half_precision
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_keeps_its_dtype(dtype):
    x = ops.cast(IMGS, dtype)
    cases = [
        (image.resize(x, (3, 4)), image.resize(IMGS, (3, 4))),
        (image.gaussian_blur(x), image.gaussian_blur(IMGS)),
        (image.affine_transform(x, TRANSFORMS), image.affine_transform(IMGS, TRANSFORMS)),
        (image.rgb_to_hsv(x), image.rgb_to_hsv(IMGS)),
    ]
    for out, want in cases:
        assert ops.dtype(out) == dtype
        assert_allclose(ops.cast(out, "float32"), ops.convert_to_numpy(want), dtype=dtype, loose=4)
