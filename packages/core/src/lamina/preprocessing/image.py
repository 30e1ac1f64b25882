"""`lamina.preprocessing.image`: image files to and from arrays, and `smart_resize`."""

from lamina.utils.image_utils import array_to_img as array_to_img
from lamina.utils.image_utils import img_to_array as img_to_array
from lamina.utils.image_utils import load_img as load_img
from lamina.utils.image_utils import save_img as save_img
from lamina.utils.image_utils import smart_resize as smart_resize

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
