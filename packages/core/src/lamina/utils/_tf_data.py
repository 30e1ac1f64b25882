"""The one place the dataset utilities touch TensorFlow: wrapping batches in `tf.data`.

Imported only when TensorFlow is installed (`_batches.tensorflow_available`).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.utils._batches import SampleBatches


def _spec(shape: tuple[int | None, ...], dtype: str, batched: bool) -> Any:
    full = ((None,) if batched else ()) + tuple(shape)
    return tf.TensorSpec(full, tf.string if dtype == "string" else tf.as_dtype(dtype))


def batches_to_tf_dataset(batches: SampleBatches) -> Any:
    """A `tf.data.Dataset` giving the same batches as `batches` (reshuffled per pass)."""
    batched = batches.batch_size is not None
    specs = [_spec(shape, dtype, batched) for shape, dtype in batches.specs]
    signature: Any = specs[0] if len(specs) == 1 else tuple(specs)
    dataset = tf.data.Dataset.from_generator(batches.passes, output_signature=signature)
    return dataset.apply(tf.data.experimental.assert_cardinality(len(batches)))


def ragged_tf_dataset(batches: SampleBatches) -> Any:
    """Batches whose first part is a `tf.RaggedTensor` (audio with ``ragged=True``)."""
    size = batches.batch_size
    unbatched = batches.unbatched()
    specs = [_spec(shape, dtype, False) for shape, dtype in batches.specs]
    signature: Any = specs[0] if len(specs) == 1 else tuple(specs)
    dataset = tf.data.Dataset.from_generator(unbatched.passes, output_signature=signature)
    dataset = dataset.apply(tf.data.experimental.assert_cardinality(batches.count))
    return dataset if size is None else dataset.ragged_batch(size)


def is_tf_dataset(value: Any) -> bool:
    return isinstance(value, tf.data.Dataset)


def tf_dataset_samples(dataset: Any) -> tuple[list[Any], int | None]:
    """The samples of a `tf.data.Dataset` as NumPy structures, and its batch size (None
    when it is not batched)."""
    batch_size = _batch_size(dataset)
    samples: list[Any] = []
    for element in dataset.as_numpy_iterator():
        if batch_size is None:
            samples.append(element)
            continue
        flat = tf.nest.flatten(element)
        for i in range(len(flat[0])):
            samples.append(tf.nest.pack_sequence_as(element, [f[i] for f in flat]))
    return samples, batch_size


def _batch_size(dataset: Any) -> int | None:
    """The batch size of a `.batch()`ed dataset, looking through the datasets stacked on
    it (prefetch, map...), else None."""
    while dataset is not None:
        size = getattr(dataset, "_batch_size", None)
        if size is not None:
            return int(size)
        dataset = getattr(dataset, "_input_dataset", None)
    return None


def samples_to_tf_dataset(samples: Any, batch_size: int | None) -> Any:
    """`samples` (a structure of stacked arrays) as a `tf.data.Dataset`."""
    dataset = tf.data.Dataset.from_tensor_slices(samples)
    return dataset if batch_size is None else dataset.batch(batch_size)


def is_graph_tensor(value: Any) -> bool:
    """Whether `value` is a tensor of a TensorFlow graph being traced (`Dataset.map`,
    `tf.function`), which no backend other than TensorFlow's can compute on."""
    return bool(tf.is_symbolic_tensor(value))


def host_function(
    fn: Any,
    inputs: list[Any],
    outputs: list[tuple[tuple[int | None, ...], str]],
    stateful: bool = False,
) -> list[Any]:
    """`fn` as one node of the graph being traced: it runs on the host with the inputs'
    NumPy values and returns NumPy arrays of the given ``(shape, dtype)`` outputs. A
    `stateful` node (one that draws random numbers) is never run in parallel or merged."""
    dtypes = [tf.string if dtype == "string" else tf.as_dtype(dtype) for _, dtype in outputs]
    produced = tf.numpy_function(fn, inputs, dtypes, stateful=stateful)
    for tensor, (shape, _) in zip(produced, outputs):
        tensor.set_shape(shape)
    return list(produced)
