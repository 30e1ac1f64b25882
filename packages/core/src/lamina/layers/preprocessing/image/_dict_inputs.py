"""Dict inputs of the image layers (``{"images", "labels", "bounding_boxes",
"segmentation_masks"}``, as Keras 3 takes them): one random draw moves the images, the
boxes and the masks together.

A geometric layer splits its work in three: ``draw(images)`` (the random parameters, or
None), ``apply(images, params, masks)`` (the warp; ``masks=True`` for segmentation masks,
which are sampled with "nearest") and ``box_map(params, in_size, out_size)`` (where a
point of the input lands in the output, as six coefficients ``x' = m0 x + m1 y + m2``,
``y' = m3 x + m4 y + m5`` in continuous pixel coordinates: pixel ``i`` spans ``[i, i+1)``).
Colour layers leave boxes, masks and labels as they are. Mixing layers (``"mixing"``)
define ``mix(images) -> (images, order, weight)`` and mix the labels with the partner
``order`` and each image's own ``weight``. Policy layers (``"policy"``: `RandAugment`,
`AugMix`) pick among pool layers per image: they define ``transform_dict(images, boxes,
masks) -> (images, boxes, masks)`` on batches (None for an absent entry; the boxes are
given only when the layer's ``moves_boxes`` is true, else they pass through) and
``mask_dtype(dtype)``, the dtype their masks come out in. `follow` runs one pool layer
on all three and `select` keeps its result for the images that picked it.
"""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.utils.bounding_boxes.formats import _check_format, _from_xyxy, _to_xyxy
from lamina.utils.bounding_boxes.transforms import map_corners

PASS_THROUGH = "pass_through"
GEOMETRIC = "geometric"
MIXING = "mixing"
POLICY = "policy"
UNSUPPORTED = "unsupported"


def bounding_box_format(layer: str, value: Any) -> str | None:
    """The `bounding_box_format` argument: None or one of Keras 3's formats."""
    if value is None:
        return None
    try:
        return _check_format("bounding_box_format", value)
    except ValueError as error:
        raise ValueError(f"{layer}: {error}") from None


def resize_window(size: tuple[int, int], target: tuple[int, int], mode: str | None) -> list[int]:
    """The window of the input that a resize to `target` maps onto the output,
    ``[top, left, height, width]``: the whole image, its centred crop to the target aspect
    ratio ("crop"), or the padded canvas around it ("pad"; negative offsets)."""
    (h, w), (th, tw) = size, target
    if mode == "crop":
        ch, cw = max(min(h, int(w * th / tw)), 1), max(min(w, int(h * tw / th)), 1)
        return [(h - ch) // 2, (w - cw) // 2, ch, cw]
    if mode == "pad":
        ph, pw = max(h, int(w * th / tw)), max(w, int(h * tw / th))
        return [-((ph - h) // 2), -((pw - w) // 2), ph, pw]
    return [0, 0, h, w]


def window_map(window: list[Any], target: tuple[Any, Any]) -> list[Any]:
    """The box map of a window ``[top, left, height, width]`` stretched to `target`."""
    top, left, wh, ww = (ops.cast(v, "float32") for v in window)
    sy = ops.divide(ops.cast(target[0], "float32"), wh)
    sx = ops.divide(ops.cast(target[1], "float32"), ww)
    zero = ops.zeros_like(sx)
    return [sx, zero, ops.negative(ops.multiply(left, sx)), zero, sy,
            ops.negative(ops.multiply(top, sy))]  # fmt: skip


def inverse_sampling_map(coefficients: list[Any]) -> list[Any]:
    """The box map of an affine sampling matrix ``[a0, a1, a2, b0, b1, b2, ...]`` that
    takes output pixel centres to input pixel centres (what `ops.image.affine_transform`
    reads): the half-pixel shift to continuous coordinates, then the inverse."""
    a0, a1, a2, b0, b1, b2 = coefficients[:6]
    tx = ops.subtract(ops.add(a2, 0.5), ops.multiply(ops.add(a0, a1), 0.5))
    ty = ops.subtract(ops.add(b2, 0.5), ops.multiply(ops.add(b0, b1), 0.5))
    det = ops.subtract(ops.multiply(a0, b1), ops.multiply(a1, b0))
    m0, m1 = ops.divide(b1, det), ops.negative(ops.divide(a1, det))
    m3, m4 = ops.negative(ops.divide(b0, det)), ops.divide(a0, det)
    m2 = ops.negative(ops.add(ops.multiply(m0, tx), ops.multiply(m1, ty)))
    m5 = ops.negative(ops.add(ops.multiply(m3, tx), ops.multiply(m4, ty)))
    return [m0, m1, m2, m3, m4, m5]


def _hw(layer: Any, images: Any) -> tuple[Any, Any]:
    rows, cols = layer._spatial_axes()
    shape = ops.shape(images)
    return shape[rows], shape[cols]


def check_boxes(layer: Any, boxes: Any) -> None:
    """Boxes that `layer` can move: a dict with ``boxes``, and a `bounding_box_format`."""
    name = type(layer).__name__
    fmt = layer.bounding_box_format
    if fmt is None:
        raise ValueError(
            f"{name}: an input with `bounding_boxes` needs the layer's `bounding_box_format` "
            f"argument. Received: bounding_box_format=None"
        )
    if not isinstance(boxes, dict) or "boxes" not in boxes:
        raise ValueError(
            f"{name}: `bounding_boxes` must be a dict with `boxes` (and `labels`). "
            f"Received: bounding_boxes={type(boxes).__name__}"
        )


def _move_boxes(layer: Any, boxes: dict[str, Any], params: Any, before: Any, after: Any,
                batched: bool) -> dict[str, Any]:  # fmt: skip
    check_boxes(layer, boxes)
    fmt = layer.bounding_box_format
    (h, w), (oh, ow) = _hw(layer, before), _hw(layer, after)
    x = ops.cast(boxes["boxes"], "float32")
    x = x if batched else ops.expand_dims(x, 0)
    parts = _to_xyxy(x, fmt, ops.cast(h, "float32"), ops.cast(w, "float32"))
    matrix = [ops.reshape(m, (-1, 1)) if len(getattr(m, "shape", ())) else m
              for m in layer.box_map(params, (h, w), (oh, ow))]  # fmt: skip
    x1, y1, x2, y2 = map_corners(parts, matrix)
    oh_f, ow_f = ops.cast(oh, "float32"), ops.cast(ow, "float32")
    x1, x2 = ops.clip(x1, 0.0, ow_f), ops.clip(x2, 0.0, ow_f)
    y1, y2 = ops.clip(y1, 0.0, oh_f), ops.clip(y2, 0.0, oh_f)
    moved = _from_xyxy([x1, y1, x2, y2], fmt, oh_f, ow_f)
    moved = moved if batched else ops.squeeze(moved, 0)
    out = dict(boxes)
    if "labels" in boxes:
        labels = boxes["labels"]
        padding = ops.equal(labels, ops.cast(-1, ops.dtype(labels)))
        # Padding boxes (label -1) stay as they were; boxes pushed out of the image (no
        # area left) become padding.
        moved = ops.where(ops.expand_dims(padding, -1), ops.cast(boxes["boxes"], "float32"),
                          moved)  # fmt: skip
        empty = ops.logical_or(ops.less_equal(x2, x1), ops.less_equal(y2, y1))
        empty = empty if batched else ops.squeeze(empty, 0)
        out["labels"] = ops.where(empty, ops.cast(-1, ops.dtype(labels)), labels)
    out["boxes"] = ops.cast(moved, ops.dtype(boxes["boxes"]))
    return out


def _move_masks(layer: Any, masks: Any, params: Any, batched: bool) -> Any:
    dtype = ops.dtype(masks)
    m = masks if batched else ops.expand_dims(masks, 0)
    squeeze = len(m.shape) == 3  # masks given without a channel axis
    if squeeze:
        m = ops.expand_dims(m, 1 if layer._channels_first else -1)
    m = layer.apply(ops.cast(m, "float32"), params, True)
    if squeeze:
        m = ops.squeeze(m, 1 if layer._channels_first else -1)
    m = m if batched else ops.squeeze(m, 0)
    return ops.cast(ops.round(m) if "int" in str(dtype) else m, dtype)


def follow(layer: Any, images: Any, boxes: Any, masks: Any) -> tuple[Any, Any, Any]:
    """`layer`, active, on a batch of images, and its same draw on the batch's boxes and
    masks when it is geometric (boxes: a dict of batched ``boxes`` and ``labels``); other
    layers give the boxes and masks back as they were. None stands for an absent entry."""
    if getattr(layer, "dict_inputs", PASS_THROUGH) != GEOMETRIC:
        return layer.transform(images, True), boxes, masks
    params = layer.draw(images, True)
    result = layer.apply(images, params, False)
    if boxes is not None:
        boxes = _move_boxes(layer, boxes, params, images, result, True)
    if masks is not None:
        masks = _move_masks(layer, masks, params, True)
    return result, boxes, masks


def select(picked: Any, new: Any, old: Any) -> Any:
    """Per sample, `new` where `picked` (``(batch,)`` booleans) and `old` elsewhere: for
    tensors and for dicts of them (boxes); what `new` passed through (the same object, or
    None) is kept as it is."""
    if new is None or new is old:
        return old
    if isinstance(new, dict):
        return {key: select(picked, new[key], old[key]) for key in new}
    condition = ops.reshape(picked, (-1,) + (1,) * (len(old.shape) - 1))
    return ops.where(condition, new, old)


def _call_policy(layer: Any, data: dict[str, Any], images: Any, batched: bool,
                 active: bool) -> dict[str, Any]:  # fmt: skip
    """A policy layer on a dict input, its boxes and masks batched like the images."""
    from lamina import tree

    def batch(x: Any) -> Any:
        return x if batched else tree.map_structure(lambda t: ops.expand_dims(t, 0), x)

    def unbatch(x: Any) -> Any:
        return x if batched else tree.map_structure(lambda t: ops.squeeze(t, 0), x)

    out = dict(data)
    boxes, masks = data.get("bounding_boxes"), data.get("segmentation_masks")
    if not active:
        out["images"] = unbatch(images)
        if masks is not None:
            out["segmentation_masks"] = ops.cast(masks, layer.mask_dtype(ops.dtype(masks)))
        return out
    moved = boxes if boxes is not None and layer.moves_boxes else None
    if moved is not None:
        check_boxes(layer, moved)
        moved = batch({key: ops.convert_to_tensor(v) for key, v in moved.items()})
    result, moved, masks = layer.transform_dict(
        images, moved, None if masks is None else batch(ops.convert_to_tensor(masks))
    )
    out["images"] = unbatch(result)
    if moved is not None:
        out["bounding_boxes"] = unbatch(moved)
    if masks is not None:
        out["segmentation_masks"] = unbatch(masks)
    return out


def _mix_labels(labels: Any, order: Any, weight: Any, batched: bool) -> Any:
    """``w labels + (1 - w) labels[order]`` per sample, in float32."""
    y = ops.cast(labels, "float32")
    y = y if batched else ops.expand_dims(y, 0)
    w = ops.reshape(weight, (-1,) + (1,) * (len(y.shape) - 1))
    mixed = ops.add(ops.multiply(w, y), ops.multiply(ops.subtract(1.0, w), ops.take(y, order, 0)))
    return mixed if batched else ops.squeeze(mixed, 0)


def output_spec(layer: Any, data: dict[str, Any], image_spec: Any) -> dict[str, Any]:
    """The symbolic output of a dict input, given that of its images: boxes and labels
    keep their specs, masks take the images' new height and width."""
    from lamina import tree
    from lamina.ops.symbolic import SymbolicTensor

    # Fresh tensors even for what passes through: an output must not be its own input.
    out = tree.map_structure(lambda t: SymbolicTensor(tuple(t.shape), dtype=t.dtype), data)
    out["images"] = image_spec
    labels = data.get("labels")
    if labels is not None and getattr(layer, "dict_inputs", PASS_THROUGH) == MIXING:
        out["labels"] = SymbolicTensor(tuple(labels.shape), dtype="float32")
    masks = data.get("segmentation_masks")
    if masks is not None and getattr(layer, "dict_inputs", PASS_THROUGH) == POLICY:
        dtype = layer.mask_dtype(masks.dtype)
        out["segmentation_masks"] = SymbolicTensor(tuple(masks.shape), dtype=dtype)
    if masks is not None and getattr(layer, "dict_inputs", PASS_THROUGH) == GEOMETRIC:
        shape = list(masks.shape)
        new = tuple(image_spec.shape)
        rows = -2 if layer._channels_first or len(shape) < len(new) else -3
        image_rows = -2 if layer._channels_first else -3
        shape[rows], shape[rows + 1] = new[image_rows], new[image_rows + 1]
        out["segmentation_masks"] = SymbolicTensor(tuple(shape), dtype=masks.dtype)
    return out


def call_on_dict(layer: Any, data: dict[str, Any], training: bool, active: bool) -> dict[str, Any]:
    """Run `layer` on a dict input; `active` is False where the layer is the identity
    (a random layer outside training)."""
    name = type(layer).__name__
    kind = getattr(layer, "dict_inputs", PASS_THROUGH)
    if "images" not in data:
        raise ValueError(
            f"{name}: a dict input needs an `images` entry. Received keys: {sorted(data)}"
        )
    extra = sorted(k for k in data if k != "images")
    if kind == MIXING:
        extra = [k for k in extra if k in ("bounding_boxes", "segmentation_masks")]
    if kind in (UNSUPPORTED, MIXING) and extra:
        raise ValueError(
            f"{name} takes a dict input with `images` (and, for mixing layers, `labels`) "
            "only: it does not yet carry the other entries along. Received keys: "
            f"{extra}"
        )
    from lamina.layers.preprocessing.image._base import check_rank

    rank = check_rank(name, data["images"])
    batched = rank == 4
    images = layer._prepare(data["images"])
    images = images if batched else ops.expand_dims(images, 0)
    if kind == POLICY:
        return _call_policy(layer, data, images, batched, active)
    out = dict(data)
    if not active:
        out["images"] = images if batched else ops.squeeze(images, 0)
        if kind == MIXING and "labels" in data:  # float labels, as in training
            out["labels"] = ops.cast(data["labels"], "float32")
        return out
    if kind == MIXING:
        result, order, weight = layer.mix(images)
        out["images"] = result if batched else ops.squeeze(result, 0)
        if "labels" in data:
            out["labels"] = _mix_labels(data["labels"], order, weight, batched)
        return out
    if kind != GEOMETRIC:
        result = layer.transform(images, training)
        out["images"] = result if batched else ops.squeeze(result, 0)
        return out
    params = layer.draw(images, training)
    result = layer.apply(images, params, False)
    out["images"] = result if batched else ops.squeeze(result, 0)
    if "bounding_boxes" in data:
        out["bounding_boxes"] = _move_boxes(layer, data["bounding_boxes"], params, images,
                                            result, batched)  # fmt: skip
    if "segmentation_masks" in data:
        out["segmentation_masks"] = _move_masks(layer, data["segmentation_masks"], params,
                                                batched)  # fmt: skip
    return out
