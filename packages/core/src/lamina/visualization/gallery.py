"""Image galleries drawn with matplotlib (the optional extra, imported when a gallery is
drawn): plain images with their labels, images with boxes, images with class masks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lamina.visualization._common import channels_last, pyplot, to_numpy, to_unit
from lamina.visualization._common import data_format as _data_format
from lamina.visualization.draw import draw_bounding_boxes, draw_segmentation_masks

_OUTPUT_ARGS = ("path", "show", "transparent", "dpi", "scale")


def _grid(fn: str, count: int, rows: int | None, cols: int | None) -> tuple[int, int]:
    for arg, value in (("rows", rows), ("cols", cols)):
        if value is not None and (isinstance(value, bool) or int(value) < 1):
            raise ValueError(f"{fn}: argument `{arg}` must be a positive int. Received: "
                             f"{arg}={value!r}")  # fmt: skip
    if rows is None and cols is None:
        cols = math.ceil(math.sqrt(count))
    if rows is None:
        rows = math.ceil(count / int(cols or 1))
    if cols is None:
        cols = math.ceil(count / rows)
    return int(rows), int(cols)


def _name(label: Any, label_map: dict[int, str] | None) -> str:
    value = to_numpy(label).reshape(-1)
    key = int(value.argmax()) if value.size > 1 else int(value[0])  # one-hot or an id
    return str(label_map.get(key, key)) if label_map else str(key)


def _gallery(fn: str, images: Any, y_true: Any, y_pred: Any, label_map: Any, rows: Any,
             cols: Any, value_range: Any, scale: float, legend_handles: Any,
             fmt: str) -> Any:  # fmt: skip
    plt = pyplot(fn)
    x = to_unit(channels_last(fn, images, fmt), value_range)
    rows, cols = _grid(fn, x.shape[0], rows, cols)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * scale, rows * scale), squeeze=False)
    for index, ax in enumerate(axes.reshape(-1)):
        ax.axis("off")
        if index >= x.shape[0]:
            continue
        image = x[index]
        ax.imshow(image[..., 0] if image.shape[-1] == 1 else image,
                  cmap="gray" if image.shape[-1] == 1 else None, vmin=0.0, vmax=1.0)  # fmt: skip
        title = []
        if y_true is not None:
            title.append(f"True: {_name(y_true[index], label_map)}")
        if y_pred is not None:
            title.append(f"Pred: {_name(y_pred[index], label_map)}")
        if title:
            ax.set_title("\n".join(title), fontsize=8)
    if legend_handles:
        fig.legend(handles=legend_handles, loc="lower center")
    return fig


def _finish(fig: Any, path: Any, show: Any, transparent: bool, dpi: int) -> Any:
    plt = pyplot("plot_image_gallery")
    if path is not None:
        fig.savefig(path, transparent=transparent, dpi=dpi, bbox_inches="tight")
        plt.close(fig)
    elif show:
        plt.show()
        plt.close(fig)
    return fig


def plot_image_gallery(images: Any, y_true: Any = None, y_pred: Any = None,
                       label_map: dict[int, str] | None = None, rows: int | None = None,
                       cols: int | None = None, value_range: Any = (0, 255), scale: float = 2,
                       path: str | None = None, show: bool | None = None,
                       transparent: bool = True, dpi: int = 60, legend_handles: Any = None,
                       data_format: str | None = None) -> Any:  # fmt: skip
    """Show a batch of images in a grid, titled with their labels.

    Args:
        images: ``(batch, height, width, channels)`` images (channels first per
            `data_format`), or a dict with ``images`` (and ``labels``, used as `y_true`).
        y_true: the true labels (ids or one-hot rows), or None.
        y_pred: the predicted labels, or None.
        label_map: class id to the name shown.
        rows: grid rows (default: what `cols` leaves, or a near-square grid).
        cols: grid columns.
        value_range: the images' ``(low, high)`` (mapped to black and white).
        scale: inches per grid cell.
        path: save the figure there (and close it).
        show: show the figure with ``pyplot.show()`` (when no `path`).
        transparent: save with a transparent background.
        dpi: the saved figure's resolution.
        legend_handles: matplotlib handles for a legend under the grid.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        The matplotlib Figure.

    Example:
        >>> images = np.random.default_rng(0).uniform(0, 255, (4, 8, 8, 3))
        >>> fig = lamina.visualization.plot_image_gallery(images, y_true=[0, 1, 1, 0])
    """
    fn = "plot_image_gallery"
    if isinstance(images, dict):
        y_true = images.get("labels") if y_true is None else y_true
        images = images["images"]
    fig = _gallery(fn, images, y_true, y_pred, label_map, rows, cols, value_range, scale,
                   legend_handles, _data_format(fn, data_format))  # fmt: skip
    return _finish(fig, path, show, transparent, dpi)


def _uint8(fn: str, images: Any, value_range: Any, fmt: str) -> np.ndarray:
    return np.round(to_unit(channels_last(fn, images, fmt), value_range) * 255).astype("uint8")


def plot_bounding_box_gallery(images: Any, bounding_box_format: str, y_true: Any = None,
                              y_pred: Any = None, value_range: Any = (0, 255),
                              true_color: Any = (0, 188, 212), pred_color: Any = (255, 235, 59),
                              line_thickness: int = 2, font_scale: float = 1.0,
                              text_thickness: int | None = None,
                              class_mapping: dict[int, str] | None = None,
                              ground_truth_mapping: dict[int, str] | None = None,
                              prediction_mapping: dict[int, str] | None = None,
                              legend: bool = False, legend_handles: Any = None,
                              rows: int | None = None, cols: int | None = None,
                              data_format: str | None = None, **kwargs: Any) -> Any:  # fmt: skip
    """Show images with their true and predicted boxes outlined (class names as text).

    Args:
        images: ``(batch, height, width, channels)`` images.
        bounding_box_format: the boxes' format.
        y_true: true boxes, a dict with ``boxes`` and ``labels`` (or None).
        y_pred: predicted boxes, the same kind of dict (or None).
        value_range: the images' ``(low, high)``.
        true_color: the outline colour of `y_true`, RGB in 0-255.
        pred_color: the outline colour of `y_pred`.
        line_thickness: the outline width in pixels.
        font_scale: the class names' size relative to the default (8 points).
        text_thickness: kept for Keras 3.
        class_mapping: class id to name, for both kinds of boxes.
        ground_truth_mapping: class id to name for `y_true` (default: `class_mapping`).
        prediction_mapping: class id to name for `y_pred` (default: `class_mapping`).
        legend: add a "Ground Truth" / "Prediction" legend.
        legend_handles: matplotlib handles for a legend of your own.
        rows: grid rows.
        cols: grid columns.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: `path`, `show`, `transparent`, `dpi`, `scale` as for
            `plot_image_gallery`.

    Returns:
        The matplotlib Figure.

    Example:
        >>> images = np.zeros((2, 16, 16, 3))
        >>> boxes = {"boxes": np.array([[[2, 2, 9, 9]]] * 2), "labels": np.array([[1]] * 2)}
        >>> fig = lamina.visualization.plot_bounding_box_gallery(images, "xyxy", y_true=boxes)
    """
    fn = "plot_bounding_box_gallery"
    plt = pyplot(fn)
    x = _uint8(fn, images, value_range, _data_format(fn, data_format))
    sets = []
    for boxes, colour, mapping in ((y_true, true_color, ground_truth_mapping),
                                   (y_pred, pred_color, prediction_mapping)):  # fmt: skip
        if boxes is not None:
            x = draw_bounding_boxes(x, boxes, bounding_box_format, color=colour,
                                    line_thickness=line_thickness,
                                    data_format="channels_last")  # fmt: skip
            sets.append((boxes, colour, mapping or class_mapping))
    if legend and legend_handles is None:
        legend_handles = [plt.Rectangle((0, 0), 1, 1, color=tuple(np.asarray(c) / 255.0),
                                        label=name)
                          for name, c in (("Ground Truth", true_color),
                                          ("Prediction", pred_color))]  # fmt: skip
    output = {k: kwargs.pop(k) for k in _OUTPUT_ARGS if k in kwargs}
    if kwargs:
        raise TypeError(f"{fn}: unexpected keyword arguments {sorted(kwargs)}; it takes "
                        f"{list(_OUTPUT_ARGS)} beside its own")  # fmt: skip
    fig = _gallery(fn, x, None, None, None, rows, cols, (0, 255), output.get("scale", 2),
                   legend_handles, "channels_last")  # fmt: skip
    _label_boxes(fig, x.shape[1:3], sets, bounding_box_format, 8 * font_scale)
    return _finish(fig, output.get("path"), output.get("show"),
                   output.get("transparent", True), output.get("dpi", 60))  # fmt: skip


def _label_boxes(fig: Any, size: tuple[int, int], sets: list[Any], fmt: str,
                 fontsize: float) -> None:  # fmt: skip
    from lamina.utils import bounding_boxes as bb

    for boxes, colour, mapping in sets:
        if not mapping:
            continue
        xyxy = to_numpy(bb.convert_format(boxes["boxes"], fmt, "xyxy", height=size[0],
                                          width=size[1]))  # fmt: skip
        labels = to_numpy(boxes["labels"])
        for ax, image_boxes, image_labels in zip(fig.axes, xyxy, labels, strict=False):
            for box, label in zip(image_boxes, image_labels, strict=True):
                if int(label) != -1:
                    ax.text(float(box[0]), float(box[1]), mapping.get(int(label), str(label)),
                            color=np.asarray(colour) / 255.0, fontsize=fontsize,
                            verticalalignment="bottom")  # fmt: skip


def plot_segmentation_mask_gallery(images: Any, num_classes: int, value_range: Any = (0, 255),
                                   y_true: Any = None, y_pred: Any = None,
                                   color_mapping: dict[int, Any] | None = None,
                                   blend: bool = True, alpha: float = 0.8,
                                   ignore_index: int = -1, data_format: str | None = None,
                                   **kwargs: Any) -> Any:  # fmt: skip
    """Show images above their true and predicted segmentation masks (one row each).

    Args:
        images: ``(batch, height, width, channels)`` images.
        num_classes: the number of classes.
        value_range: the images' ``(low, high)``.
        y_true: true masks ``(batch, height, width[, 1])`` of class ids (or None).
        y_pred: predicted masks (or None).
        color_mapping: class id to (R, G, B); default: a palette of distinct colours.
        blend: mix the colours with the images (False: paint them).
        alpha: the colours' weight when blending.
        ignore_index: the class id left unpainted.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: passed to `plot_image_gallery` (`path`, `show`, `scale`, ...).

    Returns:
        The matplotlib Figure.

    Example:
        >>> images = np.zeros((2, 8, 8, 3))
        >>> masks = np.random.default_rng(0).integers(0, 3, (2, 8, 8, 1))
        >>> fig = lamina.visualization.plot_segmentation_mask_gallery(images, 3, y_true=masks)
    """
    fn = "plot_segmentation_mask_gallery"
    fmt = _data_format(fn, data_format)
    x = _uint8(fn, images, value_range, fmt)
    panels = [x]
    for masks in (y_true, y_pred):
        if masks is not None:
            if fmt == "channels_first" and to_numpy(masks).ndim == 4:
                masks = np.moveaxis(to_numpy(masks), 1, -1)
            drawn = draw_segmentation_masks(x, masks, num_classes, color_mapping, alpha, blend,
                                            ignore_index, "channels_last")  # fmt: skip
            panels.append(drawn)
    kwargs.setdefault("rows", len(panels))
    kwargs.setdefault("cols", x.shape[0])
    return plot_image_gallery(np.concatenate(panels), value_range=(0, 255),
                              data_format="channels_last", **kwargs)  # fmt: skip
