"""`lamina.preprocessing`: the dataset builders and image/sequence helpers Keras 3 keeps
here (the same functions as in `lamina.utils`)."""

from lamina.preprocessing import image as image
from lamina.preprocessing import sequence as sequence
from lamina.utils.image_dataset import image_dataset_from_directory as image_dataset_from_directory
from lamina.utils.text_dataset import text_dataset_from_directory as text_dataset_from_directory
from lamina.utils.timeseries_dataset import (
    timeseries_dataset_from_array as timeseries_dataset_from_array,
)

__all__ = [
    "image",
    "image_dataset_from_directory",
    "sequence",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]
