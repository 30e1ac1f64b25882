"""Reading training data: arrays, generators, `PyDataset`, tf.data and torch loaders."""

from lamina.trainers.data_adapters.array_data_adapter import (
    ArrayDataAdapter as ArrayDataAdapter,
)
from lamina.trainers.data_adapters.data_adapter import DataAdapter as DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import (
    class_weight_to_sample_weights as class_weight_to_sample_weights,
)
from lamina.trainers.data_adapters.data_adapter_utils import (
    pack_x_y_sample_weight as pack_x_y_sample_weight,
)
from lamina.trainers.data_adapters.data_adapter_utils import (
    train_validation_split as train_validation_split,
)
from lamina.trainers.data_adapters.data_adapter_utils import (
    unpack_x_y_sample_weight as unpack_x_y_sample_weight,
)
from lamina.trainers.data_adapters.epoch_iterator import EpochIterator as EpochIterator
from lamina.trainers.data_adapters.epoch_iterator import get_data_adapter as get_data_adapter
from lamina.trainers.data_adapters.generator_data_adapter import (
    GeneratorDataAdapter as GeneratorDataAdapter,
)

__all__ = [
    "ArrayDataAdapter",
    "DataAdapter",
    "EpochIterator",
    "GeneratorDataAdapter",
    "class_weight_to_sample_weights",
    "get_data_adapter",
    "pack_x_y_sample_weight",
    "train_validation_split",
    "unpack_x_y_sample_weight",
]
