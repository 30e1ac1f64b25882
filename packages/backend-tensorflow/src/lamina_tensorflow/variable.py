"""Variables holding a tf.Variable, so TF's checkpoints and SavedModel see them."""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from lamina.backend.kit import TrainableStateVariable, Variable, take_offered
from lamina_tensorflow import distribution
from lamina_tensorflow.core import convert_to_tensor


class TensorflowVariable(TrainableStateVariable):
    """A `lamina.Variable` whose state is a `tf.Variable`.

    TF fixes a tf.Variable's `trainable` at creation, so changing `trainable` makes a new
    tf.Variable holding the same value (on the same device). Code that captured the old
    tf.Variable (a traced tf.function, a tf.train.Checkpoint) keeps seeing the old one.
    """

    _variable: tf.Variable

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # A layer may build inside a graph trace (compute_output_spec, tf.function): lift
        # creation out to eager mode so the variable holds a real initial value.
        with tf.init_scope():
            super().__init__(*args, **kwargs)

    def _follow_trainable(self) -> None:
        old = self.__dict__.get("_variable")
        if old is not None and old.trainable != self._trainable:
            if isinstance(old, tf.distribute.DistributedValues):  # a copy per replica
                with old.distribute_strategy.scope():
                    self._variable = tf.Variable(
                        old.read_value(),
                        trainable=self._trainable,
                        name=self.name,
                        synchronization=old.synchronization,
                        aggregation=old.aggregation,
                    )
                return
            with tf.device(old.device):
                self._variable = tf.Variable(
                    old.read_value(), trainable=self._trainable, name=self.name
                )

    def _initialize(self, value: Any) -> None:
        # Under a DataParallel strategy, a tf.distribute variable (one copy per replica).
        self._variable = distribution.new_variable(value, self.trainable, self.name, self)

    def _direct_assign(self, value: Any) -> None:
        if isinstance(self._variable, tf.distribute.DistributedValues):
            distribution.check_replica_write(self._variable, self.path)
        self._variable.assign(value)

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        if isinstance(value, np.ndarray) and _offered(value, dtype):
            # A tensor over the array's memory: TF copies every NumPy array it converts,
            # and assigning a tensor keeps its buffer, so the variable keeps the array's.
            return tf.experimental.dlpack.from_dlpack(value.__dlpack__())
        return convert_to_tensor(value, dtype)

    def _stored_value(self) -> Any:
        return self._variable

    @property
    def tf_variable(self) -> tf.Variable:
        """The tf.Variable holding the value (what TF's checkpoints and SavedModels track)."""
        return self._variable

    # What tf.GradientTape needs to watch a Lamina variable as the tf.Variable it holds
    # (``tape.gradient(loss, model.trainable_variables)``, as Keras 3 code writes it).
    def _should_act_as_resource_variable(self) -> None:
        """Marks this object as a resource variable for TF's tape."""

    @property
    def handle(self) -> Any:
        return self._variable.handle


EIGEN_ALIGNMENT = 64
"""The byte alignment TF's kernels assume of a tensor's memory (Eigen with AVX-512): an
array at another address would crash them if a tensor were made over it."""


def _offered(value: np.ndarray[Any, Any], dtype: str) -> bool:
    """Whether `value` is an array offered to variables (`kit.take_offered`) that a tensor
    of `dtype` can be made over without a copy."""
    return (
        value.dtype.name == dtype
        and value.dtype.kind in "biufc"  # what DLPack carries (not ml_dtypes' bfloat16)
        and value.ctypes.data % EIGEN_ALIGNMENT == 0
        and take_offered(value.ctypes.data, value.nbytes)
    )


def _variable_to_tensor(
    variable: TensorflowVariable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Any:
    """Let TF ops take a Lamina variable directly (``tf_tensor + variable`` in a graph)."""
    value = tf.convert_to_tensor(variable.value)
    return value if dtype is None else tf.cast(value, dtype)


tf.register_tensor_conversion_function(TensorflowVariable, _variable_to_tensor)
