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
