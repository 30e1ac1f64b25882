"""Filters and windows: gaussian blur, Sobel edges, SSIM and patch extraction."""

from __future__ import annotations

from typing import Any

from lamina.ops import composites, dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite, pick
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.image._common import (
    batched,
    data_format_of,
    float_input,
    float_tuple,
    gaussian_taps,
    image_shape,
    int_tuple,
    one_of,
    restore,
    same_padding,
    spatial_axes,
    unbatched,
)
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["extract_patches", "extract_patches_3d", "gaussian_blur", "sobel_edges", "ssim"]


def _float_dtype(dtype: str) -> str:
    return dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)


class GaussianBlur(Op):
    def __init__(
        self, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0), data_format: Any = None,
        name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        self.kernel_size = int_tuple(self.op_name, "kernel_size", kernel_size, 2)
        self.sigma = float_tuple(self.op_name, "sigma", sigma, 2)
        self.data_format = data_format_of(self.op_name, data_format)

    def compute_output_spec(self, images: Any) -> SymbolicTensor:
        return SymbolicTensor(image_shape(self.op_name, images), dtypes.dtype_of(images))

    def call(self, images: Any) -> Any:
        shape = image_shape(self.op_name, images)
        x, dtype = float_input(self.op_name, images)
        axes = spatial_axes(len(shape), self.data_format == "channels_first")
        # As Keras: kernel_size[0]/sigma[0] run along the width, [1] along the height.
        sizes = (self.kernel_size[1], self.kernel_size[0])
        sigmas = (self.sigma[1], self.sigma[0])
        pads = [(0, 0)] * len(shape)
        for axis, k in zip(axes, sizes, strict=True):
            pads[axis] = ((k - 1) // 2, k - 1 - (k - 1) // 2)
        x = backend().image.pad(x, tuple(pads), "constant", 0.0)
        kernels = tuple(
            (axis, gaussian_taps(k, s)) for axis, k, s in zip(axes, sizes, sigmas, strict=True)
        )
        return restore(composite("image", "correlate_axes")(x, kernels), dtype)


def gaussian_blur(
    images: Any,
    kernel_size: tuple[int, int] = (3, 3),
    sigma: tuple[float, float] = (1.0, 1.0),
    data_format: str | None = None,
) -> Any:
    """Blur images with a normalized gaussian kernel, zero-padded to keep their size.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        kernel_size: the kernel's size; as in Keras, entry 0 spans the width and entry 1
            the height.
        sigma: the standard deviations, in the same order as `kernel_size`.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Example:
        >>> lamina.ops.image.gaussian_blur(np.ones((5, 5, 1))).shape  # (5, 5, 1)
    """
    return GaussianBlur(kernel_size, sigma, data_format)(images)


class SobelEdges(Op):
    def __init__(self, data_format: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.data_format = data_format_of(self.op_name, data_format)

    def compute_output_spec(self, images: Any) -> SymbolicTensor:
        shape = image_shape(self.op_name, images)
        return SymbolicTensor((*shape, 2), _float_dtype(dtypes.dtype_of(images)))

    def call(self, images: Any) -> Any:
        shape = image_shape(self.op_name, images)
        for a in spatial_axes(len(shape), self.data_format == "channels_first"):
            if (shape[a] or 0) < 2:
                raise ValueError(
                    f"`{self.op_name}`: images must be at least 2x2. Received: images.shape={shape}"
                )
        x, _ = float_input(self.op_name, images)
        x = batched(x, len(shape), 4)
        pads = [(0, 0)] * 4
        for a in spatial_axes(4, self.data_format == "channels_first"):
            pads[a] = (1, 1)
        x = backend().image.pad(x, tuple(pads), "reflect", 0.0)
        out = pick(backend().image, "sobel_edges", composites.sobel_edges)(
            x, self.data_format == "channels_first"
        )
        return unbatched(out, len(shape) + 1, 5)


def sobel_edges(images: Any, data_format: str | None = None) -> Any:
    """Sobel gradients ``[dy, dx]`` of every channel, with reflect padding (as `tf.image`).

    Returns:
        Float edges of shape ``images.shape + (2,)``.

    Example:
        >>> lamina.ops.image.sobel_edges(np.ones((1, 4, 4, 1))).shape  # (1, 4, 4, 1, 2)
    """
    return SobelEdges(data_format)(images)


class Ssim(Op):
    def __init__(
        self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5,
        k1: float = 0.01, k2: float = 0.03, data_format: Any = None, name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        op = self.op_name
        self.filter_size = int_tuple(op, "filter_size", filter_size, 1)[0]
        if self.filter_size % 2 == 0:
            raise ValueError(
                f"`{op}`: argument `filter_size` must be odd. Received: filter_size={filter_size}"
            )
        self.filter_sigma = float_tuple(op, "filter_sigma", filter_sigma, 1)[0]
        self.max_val = float_tuple(op, "max_val", max_val, 1)[0]
        self.k1, self.k2 = float(k1), float(k2)
        self.data_format = data_format_of(op, data_format)

    def _check(self, x1: Any, x2: Any) -> Shape:
        s1 = image_shape(self.op_name, x1, "image1")
        s2 = static_shape(x2)
        if len(s1) != len(s2) or any(a != b and None not in (a, b) for a, b in zip(s1, s2)):
            raise ValueError(
                f"`{self.op_name}`: `image1` and `image2` must have the same shape. "
                f"Received: image1.shape={s1}, image2.shape={s2}"
            )
        for a in spatial_axes(len(s1), self.data_format == "channels_first"):
            if s1[a] is not None and s1[a] < self.filter_size:  # type: ignore[operator]
                raise ValueError(
                    f"`{self.op_name}`: images must be at least filter_size="
                    f"{self.filter_size} on each side. Received: image1.shape={s1}"
                )
        return s1

    def compute_output_spec(self, image1: Any, image2: Any) -> SymbolicTensor:
        shape = self._check(image1, image2)
        dtype = dtypes.result_type(dtypes.promotion_key(image1), dtypes.promotion_key(image2))
        return SymbolicTensor(shape[:1] if len(shape) == 4 else (), _float_dtype(dtype))

    def call(self, image1: Any, image2: Any) -> Any:
        shape = self._check(image1, image2)
        dtype = _float_dtype(
            dtypes.result_type(dtypes.promotion_key(image1), dtypes.promotion_key(image2))
        )
        x1, x2 = (batched(to_tensor(x, dtype), len(shape), 4) for x in (image1, image2))
        taps = gaussian_taps(self.filter_size, self.filter_sigma)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        out = pick(backend().image, "ssim", composites.ssim)(
            x1, x2, taps, c1, c2, self.data_format == "channels_first"
        )
        return out if len(shape) == 4 else backend().numpy.reshape(out, ())


def ssim(
    image1: Any,
    image2: Any,
    max_val: float = 1.0,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    data_format: str | None = None,
) -> Any:
    """The structural similarity index of two images (gaussian window, valid positions).

    Args:
        image1: one image (rank 3) or a batch (rank 4).
        image2: the same shape as `image1`.
        max_val: the dynamic range of the pixel values.
        filter_size: the odd size of the gaussian window.
        filter_sigma: its standard deviation.
        k1: the luminance stabilization constant.
        k2: the contrast stabilization constant.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        The mean SSIM per image: shape ``(batch,)``, or a scalar for one image.

    Example:
        >>> x = np.ones((16, 16, 1), "float32")
        >>> lamina.ops.image.ssim(x, x)  # 1.0
    """
    return Ssim(max_val, filter_size, filter_sigma, k1, k2, data_format)(image1, image2)


class ExtractPatches(Op):
    spatial = 2

    def __init__(
        self, size: Any, strides: Any = None, dilation_rate: Any = 1, padding: str = "valid",
        data_format: Any = None, name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        op, n = self.op_name, self.spatial
        self.size = int_tuple(op, "size", size, n)
        self.strides = self.size if strides is None else int_tuple(op, "strides", strides, n)
        self.dilation_rate = int_tuple(op, "dilation_rate", dilation_rate, n)
        self.padding = one_of(op, "padding", padding, ("valid", "same"))
        self.data_format = data_format_of(op, data_format)

    def _out_shape(self, shape: Shape) -> Shape:
        cf = self.data_format == "channels_first"
        axes = spatial_axes(len(shape), cf, self.spatial)
        out = list(shape)
        for a, k, s, d in zip(axes, self.size, self.strides, self.dilation_rate, strict=True):
            n = shape[a]
            if n is None:
                continue
            span = (k - 1) * d + 1
            if self.padding == "same":
                out[a] = -(-n // s)
            elif n < span:
                raise ValueError(
                    f"`{self.op_name}`: the patch (span {span}) is larger than the input "
                    f"(size {n}) with padding='valid'. Received: shape={shape}"
                )
            else:
                out[a] = (n - span) // s + 1
        c = len(shape) - self.spatial - 1 if cf else len(shape) - 1
        k_total = 1
        for k in self.size:
            k_total *= k
        out[c] = None if shape[c] is None else k_total * shape[c]  # type: ignore[operator]
        return tuple(out)

    def compute_output_spec(self, images: Any) -> SymbolicTensor:
        shape = image_shape(self.op_name, images, spatial=self.spatial)
        return SymbolicTensor(self._out_shape(shape), dtypes.dtype_of(images))

    def call(self, images: Any) -> Any:
        shape = image_shape(self.op_name, images, spatial=self.spatial)
        self._out_shape(shape)
        full = self.spatial + 2
        x = batched(to_tensor(images), len(shape), full)
        cf = self.data_format == "channels_first"
        if self.padding == "same":
            pads = [(0, 0)] * full
            b_shape = static_shape(x)
            for a, k, s, d in zip(spatial_axes(full, cf, self.spatial), self.size,
                                  self.strides, self.dilation_rate, strict=True):  # fmt: skip
                pads[a] = same_padding(b_shape[a], k, s, d)
            x = backend().image.pad(x, tuple(pads), "constant", 0.0)
        out = composite("image", "extract_patches")(
            x, self.size, self.strides, self.dilation_rate, cf
        )
        return unbatched(out, len(shape), full)


class ExtractPatches3D(ExtractPatches):
    spatial = 3


# The generated snake_case would split "3D"; errors must name the public function.
ExtractPatches3D.op_name = "extract_patches_3d"


def extract_patches(
    images: Any,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Extract patches of `size` from images into the channel axis.

    The channel axis of the result holds each patch flattened in (row, column, channel)
    order, as `tf.image.extract_patches` does.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        size: the patch ``(height, width)`` (or one int for both).
        strides: the step between patches (default: `size`).
        dilation_rate: the spacing of a patch's pixels.
        padding: "valid" or "same".
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Example:
        >>> lamina.ops.image.extract_patches(np.ones((1, 4, 4, 3)), 2).shape  # (1, 2, 2, 12)
    """
    return ExtractPatches(size, strides, dilation_rate, padding, data_format)(images)


def extract_patches_3d(
    volumes: Any,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Extract 3-D patches of `size` ``(depth, height, width)`` from volumes.

    Example:
        >>> lamina.ops.image.extract_patches_3d(np.ones((1, 4, 4, 4, 1)), 2).shape
    """
    return ExtractPatches3D(size, strides, dilation_rate, padding, data_format)(volumes)
