"""lamina.utils.bounding_boxes: every format against NumPy-written boxes (1e-5), IoU
against a pairwise loop, CIoU against the formula in float64 (1e-5), clipping exact."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lamina import ops
from lamina.utils import bounding_boxes as bb

RNG = np.random.default_rng(14)
H, W = 40.0, 60.0
X1 = RNG.uniform(0, 30, (2, 5))
Y1 = RNG.uniform(0, 20, (2, 5))
BW, BH = RNG.uniform(1, 25, (2, 5)), RNG.uniform(1, 15, (2, 5))
XYXY = np.stack([X1, Y1, X1 + BW, Y1 + BH], -1).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x), "float64")


def _in(fmt: str) -> np.ndarray:
    x1, y1, x2, y2 = np.moveaxis(XYXY, -1, 0)
    w, h = x2 - x1, y2 - y1
    base = fmt.removeprefix("rel_")
    out = {
        "xyxy": [x1, y1, x2, y2], "yxyx": [y1, x1, y2, x2], "xywh": [x1, y1, w, h],
        "center_xywh": [x1 + w / 2, y1 + h / 2, w, h],
        "center_yxhw": [y1 + h / 2, x1 + w / 2, h, w],
    }[base]  # fmt: skip
    out = np.stack(out, -1)
    if fmt.startswith("rel_"):
        scale = {"xyxy": [W, H, W, H], "yxyx": [H, W, H, W], "xywh": [W, H, W, H],
                 "center_xywh": [W, H, W, H], "center_yxhw": [H, W, H, W]}[base]  # fmt: skip
        out = out / np.array(scale)
    return out.astype("float32")


@pytest.mark.parametrize("source,target", list(itertools.permutations(bb.FORMATS, 2)))
def test_convert_format(source: str, target: str) -> None:
    out = bb.convert_format(_in(source).astype("float32"), source, target, height=H, width=W)
    np.testing.assert_allclose(_np(out), _in(target), rtol=1e-5, atol=1e-4)


def test_convert_dict_dtype_and_errors() -> None:
    data = {"boxes": XYXY.astype("float32"), "labels": np.ones((2, 5), "int32")}
    out = bb.convert_format(data, "xyxy", "xywh", dtype="float16")
    np.testing.assert_allclose(_np(out["boxes"]), _in("xywh"), rtol=2e-3, atol=2e-2)
    assert str(ops.dtype(out["boxes"])) == "float16" and out["labels"] is data["labels"]
    with pytest.raises(ValueError, match="`target`"):
        bb.convert_format(XYXY, "xyxy", "xxyy")
    with pytest.raises(ValueError, match="height"):
        bb.convert_format(XYXY, "xyxy", "rel_xyxy")


def test_clip_to_image_size() -> None:
    boxes = np.array([[-5, 2, 20, 8], [70, 5, 80, 9], [10, 30, 50, 50]], "float32")
    out = bb.clip_to_image_size({"boxes": boxes, "labels": np.array([1, 2, 3], "int32")}, 40, 60)
    np.testing.assert_allclose(_np(out["boxes"]),
                               [[0, 2, 20, 8], [60, 5, 60, 9], [10, 30, 50, 40]])  # fmt: skip
    np.testing.assert_array_equal(_np(out["labels"]), [1, -1, 3])
    rel = bb.clip_to_image_size({"boxes": np.array([[0.5, -0.2, 1.3, 0.4]], "float32")},
                                bounding_box_format="rel_xyxy")  # fmt: skip
    np.testing.assert_allclose(_np(rel["boxes"]), [[0.5, 0.0, 1.0, 0.4]], atol=1e-6)
    with pytest.raises(ValueError, match="height"):
        bb.clip_to_image_size({"boxes": boxes})


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union


def test_compute_iou() -> None:
    other = XYXY[:, ::-1][:, :4] + np.float32(3.0)
    out = _np(bb.compute_iou(_in("center_xywh"), bb.convert_format(other, "xyxy",
                                                                   "center_xywh"),
                             "center_xywh"))  # fmt: skip
    expected = [[[_iou(a, b) for b in other[i]] for a in XYXY[i]] for i in range(2)]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert out.shape == (2, 5, 4) and out.max() > 0
    padded = np.concatenate([XYXY[0], -np.ones((1, 4), "float32")])
    masked = _np(bb.compute_iou(padded, padded, "xyxy", use_masking=True, mask_val=-7))
    assert np.all(masked[-1] == -7) and np.all(masked[:, -1] == -7)
    np.testing.assert_allclose(np.diag(masked)[:5], 1.0, rtol=1e-6)
    rel = _np(bb.compute_iou(_in("rel_xyxy"), _in("rel_xyxy"), "rel_xyxy", image_shape=(H, W)))
    np.testing.assert_allclose(np.diagonal(rel, axis1=1, axis2=2), 1.0, rtol=1e-5)


def test_compute_ciou() -> None:
    a, b = XYXY[0], XYXY[1]
    out = _np(bb.compute_ciou(a.astype("float32"), b.astype("float32"), "xyxy"))
    iou = np.array([_iou(p, q) for p, q in zip(a, b)])
    cw = np.maximum(a[:, 2], b[:, 2]) - np.minimum(a[:, 0], b[:, 0])
    ch = np.maximum(a[:, 3], b[:, 3]) - np.minimum(a[:, 1], b[:, 1])
    rho = ((a[:, 0] + a[:, 2] - b[:, 0] - b[:, 2]) ** 2
           + (a[:, 1] + a[:, 3] - b[:, 1] - b[:, 3]) ** 2) / 4  # fmt: skip
    v = 4 / math.pi**2 * (np.arctan((b[:, 2] - b[:, 0]) / (b[:, 3] - b[:, 1]))
                          - np.arctan((a[:, 2] - a[:, 0]) / (a[:, 3] - a[:, 1]))) ** 2  # fmt: skip
    alpha = v / (1 - iou + v)
    np.testing.assert_allclose(out, iou - rho / (cw**2 + ch**2) - alpha * v, rtol=1e-4,
                               atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(_np(bb.compute_ciou(a, a, "xyxy")), 1.0, atol=1e-5)


def _np_affine(boxes: np.ndarray, angle: np.ndarray, tx: float, ty: float, scale: float,
               sx: float, sy: float) -> np.ndarray:  # fmt: skip
    """The box around the four corners moved by Keras 3's map, in NumPy float64: the
    inverse of the sampling matrix of the negated rotation and shears."""
    out = []
    for i in range(boxes.shape[0]):
        t, kx, ky = np.deg2rad([-angle[i], -sx, -sy])
        # Keras 3's sampling matrix for (t, kx, ky), inverted: the forward map.
        a = np.cos(t - ky) / np.cos(ky)
        c = -np.sin(t - ky) / np.cos(ky)
        b = a * np.tan(kx) + np.sin(t)
        d = np.cos(t) - c * np.tan(kx)
        linear = scale * np.array([[d, -b], [-c, a]])
        centre = np.array([(W - 1) / 2, (H - 1) / 2])
        shift = np.array([tx * (W - 1), ty * (H - 1)])
        x1, y1, x2, y2 = np.moveaxis(boxes[i].astype("float64"), -1, 0)
        corners = np.stack([[x1, y1], [x2, y1], [x1, y2], [x2, y2]])  # (4, 2, n)
        rel = corners - (centre - shift)[None, :, None]
        moved = np.einsum("ij,kjn->kin", linear, rel) + centre[None, :, None]
        out.append(np.stack([moved[:, 0].min(0), moved[:, 1].min(0), moved[:, 0].max(0),
                             moved[:, 1].max(0)], -1))  # fmt: skip
    return np.stack(out)


@pytest.mark.parametrize("fmt", ["xyxy", "center_yxhw", "rel_xywh"])
def test_affine_transform(fmt: str) -> None:
    angle = np.array([30.0, -75.0], "float32")
    out = bb.affine_transform(_in(fmt), angle, 0.1, -0.2, 1.3, 10.0, -5.0, H, W,
                              bounding_box_format=fmt)  # fmt: skip
    xyxy = _np(bb.convert_format(out, fmt, "xyxy", height=H, width=W))
    np.testing.assert_allclose(xyxy, _np_affine(XYXY, angle, 0.1, -0.2, 1.3, 10.0, -5.0),
                               rtol=1e-4, atol=1e-3)  # fmt: skip
    same = bb.affine_transform(XYXY[0], 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, H, W)
    np.testing.assert_allclose(_np(same), XYXY[0], atol=1e-4)
    # Two results of Keras 3.15's own affine_transform (80x100 image), recorded.
    box = np.array([[[10.0, 20.0, 30.0, 30.0]]], "float32")
    turned = bb.affine_transform(box, np.array([30.0], "float32"), 0.1, 0.2, 1.0, 0.0, 0.0,
                                 80, 100)  # fmt: skip
    np.testing.assert_allclose(_np(turned), [[[22.015648, 41.095703, 44.33616, 59.75596]]],
                               atol=1e-3)  # fmt: skip
    sheared = bb.affine_transform(box, 0.0, 0.0, 0.0, 1.0, 20.0, 10.0, 80, 100)
    np.testing.assert_allclose(_np(sheared), [[[5.437603, 13.035084, 27.79375, 26.561625]]],
                               atol=1e-3)  # fmt: skip


def test_crop_and_pad() -> None:
    top, left = np.array([3.0, 8.0], "float32"), np.array([5.0, 0.0], "float32")
    shifted = XYXY - np.stack([left, top, left, top], -1)[:, None, :]
    expected = np.clip(shifted, 0, [20, 12, 20, 12])
    out = bb.crop(_in("xywh"), top, left, 12, 20, bounding_box_format="xywh")
    np.testing.assert_allclose(_np(bb.convert_format(out, "xywh", "xyxy")), expected,
                               atol=1e-4)  # fmt: skip
    padded = bb.pad(XYXY, top, left, bounding_box_format="xyxy")
    np.testing.assert_allclose(_np(padded), XYXY + np.stack([left, top, left, top],
                                                            -1)[:, None, :], atol=1e-5)  # fmt: skip
    with pytest.raises(ValueError, match="bounding_box_format='rel_xyxy'"):
        bb.pad(XYXY, 1, 1, bounding_box_format="rel_xyxy")


@pytest.mark.parametrize("encoding", ["center_yxhw", "center_xywh"])
def test_box_deltas_round_trip(encoding: str) -> None:
    anchors = XYXY[0]
    boxes = XYXY[1]
    variance = [0.1, 0.1, 0.2, 0.2]
    deltas = _np(bb.encode_box_to_deltas(anchors, _in("rel_xyxy")[1], "xyxy", "rel_xyxy",
                                         encoding, variance, image_shape=(H, W)))  # fmt: skip
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    dx = (boxes[:, 0] + bw / 2 - anchors[:, 0] - aw / 2) / aw
    dy = (boxes[:, 1] + bh / 2 - anchors[:, 1] - ah / 2) / ah
    ref = [dy, dx, np.log(bh / ah), np.log(bw / aw)] if encoding == "center_yxhw" else [
        dx, dy, np.log(bw / aw), np.log(bh / ah)]  # fmt: skip
    np.testing.assert_allclose(deltas, np.stack(ref, -1) / variance, rtol=1e-4, atol=1e-4)
    levels = {"p3": deltas.astype("float32")}
    back = bb.decode_deltas_to_boxes({"p3": anchors}, levels, "xyxy", "xywh", encoding, variance)
    np.testing.assert_allclose(_np(back["p3"]), _in("xywh")[1], rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="variance"):
        bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", variance=[1.0, 2.0])
    with pytest.raises(ValueError, match="encoded_format"):
        bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy", "xyxy")
