"""Images to and from files and arrays, with Pillow (the ``lamina[image]`` extra)."""

from __future__ import annotations

import io
import os
import warnings
from typing import Any

import numpy as np

from lamina.backend.config import SETTINGS, standardize_data_format
from lamina.ops.dtypes import standardize_dtype

_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")
_COLOR_MODES = {"grayscale": "L", "rgb": "RGB", "rgba": "RGBA"}


def pil_image() -> Any:
    """Pillow's `PIL.Image` module, or an ImportError naming the extra that installs it."""
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            "Reading and writing images needs Pillow: pip install 'lamina[image]' "
            "(or pip install pillow)."
        ) from error
    return Image


def check_color_mode(color_mode: str) -> str:
    """The Pillow mode of a Keras `color_mode`."""
    if color_mode not in _COLOR_MODES:
        raise ValueError(
            "Argument `color_mode` must be 'grayscale', 'rgb' or 'rgba'. "
            f"Received: color_mode={color_mode!r}"
        )
    return _COLOR_MODES[color_mode]


def load_img(
    path: str | os.PathLike[str] | io.BytesIO,
    color_mode: str = "rgb",
    target_size: tuple[int, int] | None = None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
) -> Any:
    """Load an image file as a PIL image.

    Args:
        path: a file path or an `io.BytesIO` holding the file.
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"``.
        target_size: ``(height, width)`` to resize to, or None to keep the size.
        interpolation: Pillow's resampling: nearest, bilinear, bicubic, hamming, box or
            lanczos.
        keep_aspect_ratio: centre-crop to the target's aspect ratio before resizing.

    Returns:
        A `PIL.Image.Image`.

    Example:
        >>> import io
        >>> buffer = io.BytesIO()
        >>> lamina.utils.save_img(buffer, np.zeros((4, 6, 3)), file_format="png")
        >>> lamina.utils.load_img(buffer, target_size=(2, 3)).size
        (3, 2)
    """
    Image = pil_image()
    mode = check_color_mode(color_mode)
    if isinstance(path, io.BytesIO):
        img = Image.open(path)
    elif isinstance(path, (str, os.PathLike)):
        with open(os.fspath(path), "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(
            "Argument `path` must be a file path or an io.BytesIO. "
            f"Received: path of type {type(path).__name__}"
        )
    if img.mode != mode:
        img = img.convert(mode)
    if target_size is None:
        return img
    if interpolation not in _RESAMPLING:
        raise ValueError(
            f"Argument `interpolation` must be one of {_RESAMPLING}. "
            f"Received: interpolation={interpolation!r}"
        )
    height, width = int(target_size[0]), int(target_size[1])
    if (img.size[0], img.size[1]) == (width, height):
        return img
    resample = getattr(Image.Resampling, interpolation.upper())
    if keep_aspect_ratio:
        w, h = img.size
        crop_w, crop_h = min(w, round(h * width / height)), min(h, round(w * height / width))
        left, top = (w - crop_w) // 2, (h - crop_h) // 2
        img = img.crop((left, top, left + crop_w, top + crop_h))
    return img.resize((width, height), resample)


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> Any:
    """A PIL image as a float array ``(height, width, channels)`` (or channels first).

    Args:
        img: a PIL image.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the global one).
        dtype: the array's dtype (default: floatx).

    Returns:
        A NumPy array.
    """
    data_format = standardize_data_format(data_format)
    x = np.asarray(img, dtype=dtype or SETTINGS.floatx)
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError(f"Unsupported image shape: {x.shape} (expected 2 or 3 dims).")
    return np.transpose(x, (2, 0, 1)) if data_format == "channels_first" else x


def array_to_img(
    x: Any, data_format: str | None = None, scale: bool = True, dtype: Any = None
) -> Any:
    """A 3D array (1, 3 or 4 channels) as a PIL image.

    Args:
        x: the image array (or tensor).
        data_format: where its channels are (default: the global setting).
        scale: rescale the values to ``[0, 255]`` (from their own min and max).
        dtype: unused by Pillow; accepted as Keras 3 does.

    Returns:
        A `PIL.Image.Image`.
    """
    Image = pil_image()
    from lamina import ops

    data_format = standardize_data_format(data_format)
    array = np.asarray(ops.convert_to_numpy(x), dtype="float64")
    if array.ndim != 3:
        raise ValueError(
            f"Argument `x` must be a 3D image array. Received: x with shape {array.shape}"
        )
    if data_format == "channels_first":
        array = np.transpose(array, (1, 2, 0))
    if scale:
        array = array - np.min(array)
        top = np.max(array)
        if top != 0:
            array = array / top
        array = array * 255
    channels = array.shape[2]
    modes = {1: "L", 3: "RGB", 4: "RGBA"}
    if channels not in modes:
        raise ValueError(
            "Argument `x` must have 1, 3 or 4 channels. "
            f"Received: x with shape {array.shape} ({channels} channels)"
        )
    data = np.clip(np.rint(array), 0, 255).astype("uint8")
    if channels == 1:
        if np.max(array) > 255:  # 16-bit grayscale kept as such (Pillow's "I" mode)
            return Image.fromarray(array[:, :, 0].astype("int32"), "I")
        return Image.fromarray(data[:, :, 0], "L")
    return Image.fromarray(data, modes[channels])


def save_img(
    path: str | os.PathLike[str] | io.BytesIO,
    x: Any,
    data_format: str | None = None,
    file_format: str | None = None,
    scale: bool = True,
    **kwargs: Any,
) -> None:
    """Save an image array to a file (format from `file_format` or the file name).

    Args:
        path: the file path or a writable file object.
        x: the image array.
        data_format: where its channels are (default: the global setting).
        file_format: a Pillow format name; default from the file name's extension.
        scale: rescale the values to ``[0, 255]``.
        **kwargs: passed on to `PIL.Image.Image.save`.
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else ""
    fmt = (file_format or "").lower() or os.path.splitext(name)[1][1:].lower()
    if img.mode == "RGBA" and fmt in ("jpg", "jpeg"):
        warnings.warn(
            "JPEG has no alpha channel: the image is saved as RGB.", UserWarning, stacklevel=2
        )
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def smart_resize(
    x: Any,
    size: tuple[int, int],
    interpolation: str = "bilinear",
    data_format: str = "channels_last",
    **kwargs: Any,
) -> Any:
    """Resize an image (or batch) to `size` without distorting it: centre-crop to the
    target aspect ratio, then resize.

    Args:
        x: an image ``(h, w, c)`` or a batch of them (channels first with `data_format`).
        size: the output ``(height, width)``.
        interpolation: as `lamina.ops.image.resize`.
        data_format: ``"channels_last"`` or ``"channels_first"``.
        **kwargs: ``backend_module`` is accepted and ignored (Keras 3 uses it internally).

    Returns:
        The resized images, as a tensor of the active backend.

    Example:
        >>> tuple(lamina.preprocessing.image.smart_resize(np.ones((8, 4, 3)), (2, 2)).shape)
        (2, 2, 3)
    """
    from lamina import ops

    unknown = set(kwargs) - {"backend_module"}
    if unknown:
        raise TypeError(f"smart_resize: unexpected keyword arguments {sorted(unknown)}")
    if len(size) != 2:
        raise ValueError(f"Argument `size` must be (height, width). Received: size={size!r}")
    images = ops.convert_to_tensor(x)
    if standardize_dtype(images.dtype) not in ("float16", "float32", "float64", "bfloat16"):
        images = ops.cast(images, "float32")
    return ops.image.resize(
        images,
        (int(size[0]), int(size[1])),
        interpolation=interpolation,
        crop_to_aspect_ratio=True,
        data_format=standardize_data_format(data_format),
    )
