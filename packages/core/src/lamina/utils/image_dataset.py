"""`image_dataset_from_directory`: a labelled image dataset from class sub-directories."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from lamina.backend.config import standardize_data_format
from lamina.utils._batches import check_format
from lamina.utils._directory import directory_dataset, shared_arguments
from lamina.utils.image_utils import check_color_mode, pil_image

ALLOWED_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")
_CHANNELS = {"grayscale": 1, "rgb": 3, "rgba": 4}


def image_dataset_from_directory(
    directory: str | os.PathLike[str],
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: list[str] | None = None,
    color_mode: str = "rgb",
    batch_size: int | None = 32,
    image_size: tuple[int, int] = (256, 256),
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    interpolation: str = "bilinear",
    follow_links: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    data_format: str | None = None,
    format: str = "tf",
    verbose: bool = True,
) -> Any:
    """A dataset of images (bmp, gif, jpeg, png) read from `directory`.

    With ``labels="inferred"`` each sub-directory of `directory` is a class (in sorted
    order, or the order of `class_names`). Images are read with Pillow (the
    ``lamina[image]`` extra), converted to `color_mode`, resized to `image_size` with
    `lamina.ops.image.resize` and given as float32 values in ``[0, 255]``.

    Args:
        directory: the folder of images (one sub-folder per class when inferring labels).
        labels: ``"inferred"``, None, or a list of integer labels, one per file in
            alphanumeric order of the paths.
        label_mode: ``"int"``, ``"categorical"`` (one-hot), ``"binary"`` (float of shape
            ``(batch, 1)``, two classes) or None (images only).
        class_names: the sub-directories to use, in label order.
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"`` (1, 3 or 4 channels).
        batch_size: images per batch, or None for single images.
        image_size: ``(height, width)`` every image is resized to.
        shuffle: shuffle the files (seeded) and each pass.
        seed: the shuffling seed (needed with `validation_split` and `shuffle`).
        validation_split: the fraction of files kept for validation (taken from the end).
        subset: ``"training"``, ``"validation"`` or ``"both"`` (a list of the two).
        interpolation: bilinear, nearest, bicubic, area, lanczos3 or lanczos5.
        follow_links: follow symbolic links to sub-directories.
        crop_to_aspect_ratio: centre-crop to the aspect ratio of `image_size` first.
        pad_to_aspect_ratio: zero-pad to the aspect ratio of `image_size` first.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: the global one).
        format: ``"tf"``.
        verbose: print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` when TensorFlow is installed, else a `lamina.utils.PyDataset`,
        yielding ``(images, labels)`` (or images alone), with `class_names` and
        `file_paths` attributes. ``subset="both"`` returns ``[training, validation]``.

    Example:
        ```python
        train, val = lamina.utils.image_dataset_from_directory(
            "flowers/", image_size=(64, 64), validation_split=0.2, subset="both", seed=1
        )
        ```
    """
    shared = shared_arguments(locals())
    caller = "image_dataset_from_directory"
    check_format(format)
    check_color_mode(color_mode)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{caller}: argument `interpolation` must be one of {_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation!r}"
        )
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            f"{caller}: only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can "
            "be True. Received: both True"
        )
    if (
        not isinstance(image_size, (list, tuple))
        or len(image_size) != 2
        or not all(isinstance(d, int) and d > 0 for d in image_size)
    ):
        raise ValueError(
            f"{caller}: argument `image_size` must be a pair of positive ints "
            f"(height, width). Received: image_size={image_size!r}"
        )
    data_format = standardize_data_format(data_format)
    pil_image()
    channels = _CHANNELS[color_mode]
    size = (int(image_size[0]), int(image_size[1]))
    shape = (channels, *size) if data_format == "channels_first" else (*size, channels)

    def read(path: str) -> np.ndarray[Any, Any]:
        return read_image(
            path,
            color_mode,
            size,
            interpolation,
            crop_to_aspect_ratio,
            pad_to_aspect_ratio,
            data_format,
        )

    return directory_dataset(
        caller,
        directory,
        formats=ALLOWED_FORMATS,
        kind="image",
        **shared,
        read=read,
        sample_spec=(shape, "float32"),
    )


def read_image(
    path: str,
    color_mode: str,
    size: tuple[int, int],
    interpolation: str,
    crop_to_aspect_ratio: bool,
    pad_to_aspect_ratio: bool,
    data_format: str,
) -> np.ndarray[Any, Any]:
    """One image file as float32 ``size`` + channels (the first frame of an animation)."""
    from lamina import ops

    Image = pil_image()
    with Image.open(path) as img:
        img.seek(0)
        pixels = np.asarray(img.convert(check_color_mode(color_mode)), dtype="float32")
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.shape[:2] != size:
        pixels = np.asarray(
            ops.convert_to_numpy(
                ops.image.resize(
                    pixels,
                    size,
                    interpolation=interpolation,
                    crop_to_aspect_ratio=crop_to_aspect_ratio,
                    pad_to_aspect_ratio=pad_to_aspect_ratio,
                    data_format="channels_last",
                )
            ),
            dtype="float32",
        )
    return np.transpose(pixels, (2, 0, 1)) if data_format == "channels_first" else pixels
