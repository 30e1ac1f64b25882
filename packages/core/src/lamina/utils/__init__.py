"""Utilities (``lamina.utils``): data helpers, progress bars, sessions, and the
serialization names Keras also lists here."""

from lamina.config import disable_interactive_logging as disable_interactive_logging
from lamina.config import enable_interactive_logging as enable_interactive_logging
from lamina.config import is_interactive_logging_enabled as is_interactive_logging_enabled
from lamina.ops.dtypes import standardize_dtype as standardize_dtype
from lamina.ops.symbolic import is_symbolic as is_keras_tensor
from lamina.saving.serialization import CustomObjectScope as CustomObjectScope
from lamina.saving.serialization import custom_object_scope as custom_object_scope
from lamina.saving.serialization import deserialize_lamina_object as deserialize_keras_object
from lamina.saving.serialization import get_custom_objects as get_custom_objects
from lamina.saving.serialization import get_registered_name as get_registered_name
from lamina.saving.serialization import get_registered_object as get_registered_object
from lamina.saving.serialization import register_serializable as register_keras_serializable
from lamina.saving.serialization import serialize_lamina_object as serialize_keras_object
from lamina.trainers.data_adapters import pack_x_y_sample_weight as pack_x_y_sample_weight
from lamina.trainers.data_adapters import unpack_x_y_sample_weight as unpack_x_y_sample_weight
from lamina.utils import bounding_boxes as bounding_boxes
from lamina.utils.audio_dataset import audio_dataset_from_directory as audio_dataset_from_directory
from lamina.utils.config import Config as Config
from lamina.utils.dataset_utils import get_source_inputs as get_source_inputs
from lamina.utils.dataset_utils import split_dataset as split_dataset
from lamina.utils.feature_space import FeatureSpace as FeatureSpace
from lamina.utils.file_utils import get_file as get_file
from lamina.utils.image_dataset import image_dataset_from_directory as image_dataset_from_directory
from lamina.utils.image_utils import array_to_img as array_to_img
from lamina.utils.image_utils import img_to_array as img_to_array
from lamina.utils.image_utils import load_img as load_img
from lamina.utils.image_utils import save_img as save_img
from lamina.utils.model_visualization import model_to_dot as model_to_dot
from lamina.utils.model_visualization import plot_model as plot_model
from lamina.utils.numerical import normalize as normalize
from lamina.utils.numerical import to_categorical as to_categorical
from lamina.utils.progbar import Progbar as Progbar
from lamina.utils.py_dataset import PyDataset as PyDataset
from lamina.utils.py_dataset import PyDataset as Sequence
from lamina.utils.sequence import pad_sequences as pad_sequences
from lamina.utils.session import clear_session as clear_session
from lamina.utils.session import set_random_seed as set_random_seed
from lamina.utils.text_dataset import text_dataset_from_directory as text_dataset_from_directory
from lamina.utils.timeseries_dataset import (
    timeseries_dataset_from_array as timeseries_dataset_from_array,
)

__all__ = [
    "Config",
    "CustomObjectScope",
    "FeatureSpace",
    "Progbar",
    "PyDataset",
    "Sequence",
    "array_to_img",
    "audio_dataset_from_directory",
    "bounding_boxes",
    "clear_session",
    "custom_object_scope",
    "deserialize_keras_object",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "get_file",
    "get_source_inputs",
    "image_dataset_from_directory",
    "img_to_array",
    "is_interactive_logging_enabled",
    "is_keras_tensor",
    "load_img",
    "model_to_dot",
    "normalize",
    "pack_x_y_sample_weight",
    "pad_sequences",
    "plot_model",
    "register_keras_serializable",
    "save_img",
    "serialize_keras_object",
    "set_random_seed",
    "split_dataset",
    "standardize_dtype",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
    "to_categorical",
    "unpack_x_y_sample_weight",
]
