"""Bounding-box utilities (``lamina.utils.bounding_boxes``): Keras 3's box formats and the
conversions between them (`formats`), the overlap measures (`iou`), the geometric moves
that follow an image's crop, pad or affine warp (`transforms`), and the anchor deltas of
detection heads (`deltas`).

Formats (the last axis holds 4 numbers): "xyxy" (left, top, right, bottom), "yxyx",
"xywh" (left, top, width, height), "center_xywh", "center_yxhw", and the relative
"rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh" (fractions of the image's width and
height, which the conversions then need).
"""

from lamina.utils.bounding_boxes.deltas import decode_deltas_to_boxes as decode_deltas_to_boxes
from lamina.utils.bounding_boxes.deltas import encode_box_to_deltas as encode_box_to_deltas
from lamina.utils.bounding_boxes.formats import FORMATS as FORMATS
from lamina.utils.bounding_boxes.formats import clip_to_image_size as clip_to_image_size
from lamina.utils.bounding_boxes.formats import convert_format as convert_format
from lamina.utils.bounding_boxes.iou import compute_ciou as compute_ciou
from lamina.utils.bounding_boxes.iou import compute_iou as compute_iou
from lamina.utils.bounding_boxes.transforms import affine_transform as affine_transform
from lamina.utils.bounding_boxes.transforms import crop as crop
from lamina.utils.bounding_boxes.transforms import pad as pad

__all__ = [
    "FORMATS",
    "affine_transform",
    "clip_to_image_size",
    "compute_ciou",
    "compute_iou",
    "convert_format",
    "crop",
    "decode_deltas_to_boxes",
    "encode_box_to_deltas",
    "pad",
]
