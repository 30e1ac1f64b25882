"""`Resizing` and `CenterCrop`: deterministic changes of image size."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import (
    ImagePreprocessingLayer,
    one_of,
    positive_int,
)
from lamina.ops import dtypes

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5", "area")


def _resized_shape(shape: tuple[Any, ...], size: tuple[int, int], channels_first: bool) -> Any:
    out = list(shape)
    offset = len(shape) - 3
    rows = offset + (1 if channels_first else 0)
    out[rows], out[rows + 1] = size
    return tuple(out)


def aspect_crop(images: Any, size: tuple[int, int], data_format: str, masks: bool) -> Any:
    """Keras 3's fallback of the crop layers: a centre crop to the aspect ratio of `size`,
    resized to it (bilinear; "nearest" for segmentation masks)."""
    return ops.image.resize(
        images, size, interpolation="nearest" if masks else "bilinear",
        crop_to_aspect_ratio=True, data_format=data_format,
    )  # fmt: skip


class Resizing(ImagePreprocessingLayer):
    """Resize images to ``(height, width)``; integer images stay integer (rounded, clipped
    to their dtype's range), as in Keras 3.

    Args:
        height: output height.
        width: output width.
        interpolation: nearest, bilinear, bicubic, lanczos3, lanczos5 or area.
        crop_to_aspect_ratio: centre-crop to the target aspect ratio first (no distortion).
        pad_to_aspect_ratio: pad to the target aspect ratio first, with `fill_value`.
        fill_mode: how padding is filled (only "constant").
        fill_value: the padding value.
        antialias: widen the filter when downsampling.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs (boxes
            and segmentation masks are resized, cropped or padded with the images).

    Example:
        >>> lamina.layers.Resizing(224, 224)(np.zeros((2, 64, 64, 3))).shape  # (2, 224, 224, 3)
    """

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int("Resizing", "height", height)
        self.width = positive_int("Resizing", "width", width)
        self.interpolation = one_of("Resizing", "interpolation", interpolation, _INTERPOLATIONS)
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(
                "Resizing: arguments `crop_to_aspect_ratio` and `pad_to_aspect_ratio` cannot "
                "both be True. Received: crop_to_aspect_ratio=True, pad_to_aspect_ratio=True"
            )
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = one_of("Resizing", "fill_mode", fill_mode, ("constant",))
        self.fill_value = float(fill_value)
        self.antialias = bool(antialias)

    def _prepare(self, inputs: Any) -> Any:
        return inputs

    def _output_dtype(self, input_dtype: Any) -> Any:
        name = dtypes.standardize_dtype(input_dtype)
        return name if name in dtypes.INTS else self.compute_dtype

    def _aspect_mode(self) -> str | None:
        return "crop" if self.crop_to_aspect_ratio else "pad" if self.pad_to_aspect_ratio else None

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        window = _dict_inputs.resize_window(size, out_size, self._aspect_mode())
        return _dict_inputs.window_map(window, out_size)

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        in_dtype = dtypes.standardize_dtype(images.dtype)
        x = images if in_dtype not in dtypes.INTS else ops.cast(images, "float32")
        out = ops.image.resize(
            x,
            (self.height, self.width),
            interpolation="nearest" if masks else self.interpolation,
            antialias=self.antialias,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio,
            fill_mode=self.fill_mode,
            fill_value=0.0 if masks else self.fill_value,
            data_format=self.data_format,
        )
        if masks:
            return out
        if in_dtype in dtypes.INTS:
            return ops.saturate_cast(ops.round(out), in_dtype)
        return ops.cast(out, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return _resized_shape(tuple(input_shape), (self.height, self.width), self._channels_first)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "height": self.height,
                "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
                "fill_mode": self.fill_mode,
                "fill_value": self.fill_value,
                "antialias": self.antialias,
            }
        )
        return config


class CenterCrop(ImagePreprocessingLayer):
    """Crop the centre ``(height, width)`` of each image; images smaller than that are
    resized (centre-cropped to the target aspect ratio first), as in Keras 3. The output is
    in the compute dtype.

    Args:
        height: output height.
        width: output width.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> lamina.layers.CenterCrop(2, 2)(np.ones((4, 4, 1))).shape  # (2, 2, 1)
    """

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(self, height: int, width: int, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int("CenterCrop", "height", height)
        self.width = positive_int("CenterCrop", "width", width)

    def _sizes(self, images: Any) -> tuple[int, int]:
        rows, cols = self._spatial_axes()
        h, w = images.shape[rows], images.shape[cols]
        if h is None or w is None:
            raise ValueError(
                "CenterCrop: the inputs' height and width must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        return int(h), int(w)

    def _crops(self, h: int, w: int) -> bool:
        return h >= self.height and w >= self.width

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        h, w = self._sizes(images)
        if self._crops(h, w):
            top, left = (h - self.height) // 2, (w - self.width) // 2
            return ops.image.crop_images(
                images, top, left, target_height=self.height, target_width=self.width,
                data_format=self.data_format,
            )  # fmt: skip
        return aspect_crop(images, (self.height, self.width), self.data_format, masks)

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        h, w = int(size[0]), int(size[1])
        if self._crops(h, w):
            window = [(h - self.height) // 2, (w - self.width) // 2, self.height, self.width]
        else:
            window = _dict_inputs.resize_window((h, w), out_size, "crop")
        return _dict_inputs.window_map(window, out_size)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return _resized_shape(tuple(input_shape), (self.height, self.width), self._channels_first)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config
