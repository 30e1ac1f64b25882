"""Image galleries and overlays (``lamina.visualization``, Keras 3's
``keras.visualization``).

`draw_bounding_boxes` and `draw_segmentation_masks` paint onto arrays with NumPy alone;
the `plot_*` galleries need matplotlib, the optional extra
``pip install "lamina[visualization]"``, imported only when a gallery is drawn.
"""

from lamina.visualization.draw import draw_bounding_boxes as draw_bounding_boxes
from lamina.visualization.draw import draw_segmentation_masks as draw_segmentation_masks
from lamina.visualization.gallery import plot_bounding_box_gallery as plot_bounding_box_gallery
from lamina.visualization.gallery import plot_image_gallery as plot_image_gallery
from lamina.visualization.gallery import (
    plot_segmentation_mask_gallery as plot_segmentation_mask_gallery,
)

__all__ = [
    "draw_bounding_boxes",
    "draw_segmentation_masks",
    "plot_bounding_box_gallery",
    "plot_image_gallery",
    "plot_segmentation_mask_gallery",
]
