"""Resizing, scaling, padding and cropping (separable weight matrices, exact everywhere)."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.core.conversion import convert_to_numpy
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.image._common import (
    INTERPOLATIONS,
    data_format_of,
    float_input,
    image_shape,
    int_tuple,
    nearest_weights,
    one_of,
    restore,
    scale_weights,
    spatial_axes,
)
from lamina.ops.shapes import Shape, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["crop_images", "pad_images", "resize", "scale_and_translate"]

_METHODS = {
    "linear": "linear", "bilinear": "linear", "trilinear": "linear", "triangle": "linear",
    "cubic": "cubic", "bicubic": "cubic", "tricubic": "cubic", "keys_cubic": "cubic",
    "lanczos3": "lanczos3", "lanczos5": "lanczos5",
}  # fmt: skip


def _resampled(x: Any, plans: list[tuple[int, np.ndarray[Any, Any]]]) -> Any:
    dtype = dtypes.dtype_of(x)
    weights = tuple((axis, to_tensor(w.astype(np.float64), dtype)) for axis, w in plans)
    return backend().image.resample_axes(x, weights)


# --- pad_images / crop_images -------------------------------------------------------------


def _edges(
    op: str,
    kind: str,
    size: int | None,
    before: Any,
    after: Any,
    target: Any,
    names: tuple[str, ...],
) -> tuple[int | None, int | None, int | None]:
    """Resolve two of (before, after, target) into (before, after, out size)."""
    given = [v is not None for v in (before, after, target)]
    if sum(given) != 2:
        raise ValueError(
            f"`{op}`: exactly two of `{names[0]}`, `{names[1]}` and `{names[2]}` must be given. "
            f"Received: {names[0]}={before}, {names[1]}={after}, {names[2]}={target}"
        )
    for name, v in zip(names, (before, after, target), strict=True):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0):
            raise ValueError(
                f"`{op}`: argument `{name}` must be a non-negative int. Received: {name}={v!r}"
            )
    sign = 1 if kind == "pad" else -1
    if target is None:
        out = None if size is None else size + sign * (before + after)
        return int(before), int(after), out
    if size is None:
        return None, None, int(target)
    rest = sign * (int(target) - size)
    b = rest - after if before is None else int(before)
    a = rest - b if after is None else int(after)
    if b < 0 or a < 0 or (kind == "crop" and target > size):
        raise ValueError(
            f"`{op}`: `{names[2]}`={target} does not fit an image of size {size} with "
            f"{names[0]}={before}, {names[1]}={after}."
        )
    return b, a, int(target)


class _PadCrop(Op):
    kind = "pad"
    names = ("top_padding", "bottom_padding", "target_height", "left_padding",
             "right_padding", "target_width")  # fmt: skip

    def __init__(
        self, top: Any, left: Any, bottom: Any, right: Any, height: Any, width: Any,
        data_format: Any = None, name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        self.top, self.left, self.bottom, self.right = top, left, bottom, right
        self.height, self.width = height, width
        self.args = (top, bottom, height, left, right, width)
        self.data_format = data_format_of(self.op_name, data_format)

    def _plan(self, shape: Shape) -> tuple[tuple[int, ...], list[tuple[int | None, ...]]]:
        axes = spatial_axes(len(shape), self.data_format == "channels_first")
        t, b, h, le, r, w = self.args
        rows = _edges(self.op_name, self.kind, shape[axes[0]], t, b, h, self.names[:3])
        cols = _edges(self.op_name, self.kind, shape[axes[1]], le, r, w, self.names[3:])
        if self.kind == "crop":
            for axis, edge in zip(axes, (rows, cols), strict=True):
                if edge[2] is not None and edge[2] <= 0 and shape[axis] is not None:
                    raise ValueError(
                        f"`{self.op_name}`: cropping leaves nothing of an image of shape "
                        f"{shape}. Received: {dict(zip(self.names, self.args, strict=True))}"
                    )
        return axes, [rows, cols]

    def compute_output_spec(self, images: Any) -> SymbolicTensor:
        shape = image_shape(self.op_name, images)
        axes, plan = self._plan(shape)
        out = list(shape)
        for axis, edge in zip(axes, plan, strict=True):
            out[axis] = edge[2]
        return SymbolicTensor(tuple(out), dtypes.dtype_of(images))

    def call(self, images: Any) -> Any:
        shape = image_shape(self.op_name, images)
        axes, plan = self._plan(shape)
        x = to_tensor(images)
        # Sizes unknown while the backend traces (a TF batch dim) are scalar tensors here.
        dims = tuple(backend().core.shape(x))
        sign = 1 if self.kind == "pad" else -1
        edges = []
        for axis, given, (bef, aft, out) in zip(
            axes, (self.args[:3], self.args[3:]), plan, strict=True
        ):
            if bef is None:  # the target was given for a size known only when the step runs
                before, after, target = given
                rest = sign * (target - dims[axis])
                bef = rest - after if before is None else before
                aft = rest - bef if after is None else after
                out = target
            edges.append((axis, bef, aft, out))
        if self.kind == "pad":
            pads: list[tuple[Any, Any]] = [(0, 0)] * len(shape)
            for axis, bef, aft, _ in edges:
                pads[axis] = (bef, aft)
            return backend().image.pad(x, tuple(pads), "constant", 0.0)
        begin: list[Any] = [0] * len(shape)
        size: list[Any] = list(dims)
        for axis, bef, aft, out in edges:
            begin[axis] = bef
            size[axis] = dims[axis] - bef - aft if out is None else out
        return composite("image", "crop")(x, tuple(begin), tuple(size))


class PadImages(_PadCrop):
    kind = "pad"


class CropImages(_PadCrop):
    kind = "crop"
    names = ("top_cropping", "bottom_cropping", "target_height", "left_cropping",
             "right_cropping", "target_width")  # fmt: skip


def pad_images(
    images: Any,
    top_padding: int | None = None,
    left_padding: int | None = None,
    bottom_padding: int | None = None,
    right_padding: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> Any:
    """Zero-pad images; give exactly two of (top, bottom, target_height) and of the widths.

    Example:
        >>> lamina.ops.image.pad_images(np.ones((2, 2, 1)), 1, 1, 1, 1).shape  # (4, 4, 1)
    """
    op = PadImages(top_padding, left_padding, bottom_padding, right_padding, target_height,
                   target_width, data_format)  # fmt: skip
    return op(images)


def crop_images(
    images: Any,
    top_cropping: int | None = None,
    left_cropping: int | None = None,
    bottom_cropping: int | None = None,
    right_cropping: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> Any:
    """Crop images; give exactly two of (top, bottom, target_height) and of the widths.

    Example:
        >>> lamina.ops.image.crop_images(np.ones((4, 4, 1)), 1, 1, 1, 1).shape  # (2, 2, 1)
    """
    op = CropImages(top_cropping, left_cropping, bottom_cropping, right_cropping,
                    target_height, target_width, data_format)  # fmt: skip
    return op(images)


# --- resize -------------------------------------------------------------------------------


class Resize(Op):
    def __init__(
        self, size: Any, interpolation: str = "bilinear", antialias: bool = False,
        crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant", fill_value: float = 0.0, data_format: Any = None,
        name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        op = self.op_name
        if isinstance(size, int):
            raise ValueError(
                f"`{op}`: argument `size` must be a tuple of 2 ints. Received: size={size!r}"
            )
        self.size = int_tuple(op, "size", size, 2)
        self.interpolation = one_of(op, "interpolation", interpolation, INTERPOLATIONS)
        self.antialias = bool(antialias)
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(
                f"`{op}`: only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` may be "
                f"True. Received: crop_to_aspect_ratio={crop_to_aspect_ratio}, "
                f"pad_to_aspect_ratio={pad_to_aspect_ratio}"
            )
        self.crop, self.pad = bool(crop_to_aspect_ratio), bool(pad_to_aspect_ratio)
        self.crop_to_aspect_ratio, self.pad_to_aspect_ratio = self.crop, self.pad
        self.fill_mode = one_of(op, "fill_mode", fill_mode, ("constant",))
        self.fill_value = float(fill_value)
        self.data_format = data_format_of(op, data_format)

    def compute_output_spec(self, images: Any) -> SymbolicTensor:
        shape = list(image_shape(self.op_name, images))
        for axis, n in zip(spatial_axes(len(shape), self.data_format == "channels_first"),
                           self.size, strict=True):  # fmt: skip
            shape[axis] = n
        return SymbolicTensor(tuple(shape), dtypes.dtype_of(images))

    def call(self, images: Any) -> Any:
        image_shape(self.op_name, images)
        x, dtype = float_input(self.op_name, images)
        shape = static_shape(x)
        axes = spatial_axes(len(shape), self.data_format == "channels_first")
        if any(shape[a] is None for a in axes):
            raise ValueError(
                f"`{self.op_name}`: the height and width of `images` must be known (the "
                f"resampling weights are built for them). Received: images.shape={shape}"
            )
        h, w = (int(shape[a] or 0) for a in axes)
        th, tw = self.size
        if self.crop:
            ch = max(min(h, int(w * th / tw)), 1)
            cw = max(min(w, int(h * tw / th)), 1)
            begin: list[Any] = [0] * len(shape)
            size: list[Any] = list(backend().core.shape(x))  # a traced batch dim: a tensor
            begin[axes[0]], begin[axes[1]] = (h - ch) // 2, (w - cw) // 2
            size[axes[0]], size[axes[1]] = ch, cw
            x, h, w = composite("image", "crop")(x, tuple(begin), tuple(size)), ch, cw
        elif self.pad:
            ph, pw = max(h, int(w * th / tw)), max(w, int(h * tw / th))
            pads = [(0, 0)] * len(shape)
            top, left = (ph - h) // 2, (pw - w) // 2
            pads[axes[0]], pads[axes[1]] = (top, ph - h - top), (left, pw - w - left)
            x = backend().image.pad(x, tuple(pads), "constant", self.fill_value)
            h, w = ph, pw
        plans = []
        for axis, n_in, n_out in zip(axes, (h, w), self.size, strict=True):
            if self.interpolation == "nearest":
                plans.append((axis, nearest_weights(n_in, n_out)))
                continue
            kernel = {"bilinear": "linear", "bicubic": "cubic", "area": "box"}.get(
                self.interpolation, self.interpolation
            )
            aa = self.antialias or self.interpolation == "area"
            plans.append((axis, scale_weights(n_in, n_out, n_out / n_in, 0.0, kernel, aa)))
        return restore(_resampled(x, plans), dtype)


def resize(
    images: Any,
    size: tuple[int, int],
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str | None = None,
) -> Any:
    """Resize images to `size` ``(height, width)`` with half-pixel centres.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        size: the output ``(height, width)``.
        interpolation: nearest, bilinear, bicubic (Keys, a=-0.5), lanczos3, lanczos5 or area.
        antialias: widen the kernel when downsampling (as `jax.image.resize` does).
        crop_to_aspect_ratio: centre-crop to the target aspect ratio first.
        pad_to_aspect_ratio: pad with `fill_value` to the target aspect ratio first.
        fill_mode: only "constant".
        fill_value: the padding value of `pad_to_aspect_ratio`.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        The resized images, of the input's dtype (integers rounded and clipped).

    Example:
        >>> lamina.ops.image.resize(np.ones((4, 4, 3)), (2, 2)).shape  # (2, 2, 3)
    """
    op = Resize(size, interpolation, antialias, crop_to_aspect_ratio, pad_to_aspect_ratio,
                fill_mode, fill_value, data_format)  # fmt: skip
    return op(images)


# --- scale_and_translate ------------------------------------------------------------------


def _static_floats(op: str, arg: str, value: Any, n: int) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in np.ravel(convert_to_numpy(value)))
    except (TypeError, ValueError):
        out = ()
    if len(out) != n:
        raise ValueError(
            f"`{op}`: argument `{arg}` must hold one number per spatial dim ({n}). "
            f"Received: {arg}={value!r}"
        )
    return out


class ScaleAndTranslate(Op):
    def __init__(
        self, output_shape: Any, spatial_dims: Any, method: str, antialias: bool = True,
        name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        op = self.op_name
        self.output_shape = int_tuple(op, "output_shape", tuple(output_shape),
                                      len(tuple(output_shape)), minimum=0)  # fmt: skip
        self.spatial_dims = tuple(spatial_dims)
        self.method = _METHODS.get(one_of(op, "method", method, tuple(_METHODS)), "linear")
        self.antialias = bool(antialias)

    def _axes(self, shape: Shape) -> tuple[int, ...]:
        if len(shape) != len(self.output_shape):
            raise ValueError(
                f"`{self.op_name}`: argument `output_shape` must have the rank of `images` "
                f"({len(shape)}). Received: output_shape={self.output_shape}"
            )
        axes = tuple(canonical_axis(self.op_name, a, len(shape), "spatial_dims")
                     for a in self.spatial_dims)  # fmt: skip
        for i, (d, o) in enumerate(zip(shape, self.output_shape, strict=True)):
            if i not in axes and d is not None and d != o:
                raise ValueError(
                    f"`{self.op_name}`: `output_shape` may differ from the input shape only on "
                    f"`spatial_dims`. Received: images.shape={shape}, "
                    f"output_shape={self.output_shape}, spatial_dims={self.spatial_dims}"
                )
        return axes

    def compute_output_spec(self, images: Any, scale: Any, translation: Any) -> SymbolicTensor:
        shape = static_shape(images)
        self._axes(shape)
        dtype = dtypes.dtype_of(images)
        dtype = dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)
        return SymbolicTensor(self.output_shape, dtype)

    def call(self, images: Any, scale: Any, translation: Any) -> Any:
        x, _ = float_input(self.op_name, images)
        shape = static_shape(x)
        axes = self._axes(shape)
        scales = _static_floats(self.op_name, "scale", scale, len(axes))
        shifts = _static_floats(self.op_name, "translation", translation, len(axes))
        plans = [
            (a, scale_weights(int(shape[a] or 0), self.output_shape[a], s, t, self.method,
                              self.antialias))
            for a, s, t in zip(axes, scales, shifts, strict=True)
        ]  # fmt: skip
        return _resampled(x, plans)


def scale_and_translate(
    images: Any,
    output_shape: Any,
    scale: Any,
    translation: Any,
    spatial_dims: Any,
    method: str,
    antialias: bool = True,
) -> Any:
    """Resample `images` so input point ``p`` lands at ``p * scale + translation``.

    Follows `jax.image.scale_and_translate`: `scale` and `translation` (one value per
    `spatial_dims` entry) must be concrete; the result is float (integers become floatx).

    Example:
        >>> x = np.ones((4, 4))
        >>> lamina.ops.image.scale_and_translate(x, (8, 8), [2, 2], [0, 0], (0, 1), "linear")
    """
    return ScaleAndTranslate(output_shape, spatial_dims, method, antialias)(
        images, scale, translation
    )
