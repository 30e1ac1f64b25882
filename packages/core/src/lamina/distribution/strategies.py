"""`Distribution` strategies and the one in effect (`distribution`, `set_distribution`).

A strategy answers three questions: how a batch is split (`get_data_layout`), how each
variable is placed (`get_variable_layout`) and how a named intermediate tensor is
(`get_tensor_layout`). Variables created while a strategy is in effect take its layout;
`fit`, `evaluate` and `predict` split each batch along its batch dimension.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from lamina.backend.scoped import ScopedVar
from lamina.distribution.engine import (
    STRATEGY_BACKENDS,
    check_divisible,
    engine,
    list_devices,
)
from lamina.distribution.layouts import DeviceMesh, LayoutMap, TensorLayout

_DISTRIBUTION: ScopedVar[Distribution | None] = ScopedVar(
    "lamina_distribution", default=None
)
_LAYOUT_SOURCE: ScopedVar[Any] = ScopedVar(
    "lamina_layout_source", default=None
)


class Distribution(abc.ABC):
    """How data and variables are spread over a `DeviceMesh` (the base of the strategies).

    Args:
        device_mesh: the devices.
        batch_dim_name: the mesh axis the batch dimension of the data is split along.
        auto_shard_dataset: whether each process reads only its part of a dataset.
    """

    def __init__(
        self,
        device_mesh: DeviceMesh,
        batch_dim_name: str | None = None,
        auto_shard_dataset: bool = True,
    ) -> None:
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                f"Argument `device_mesh` must be a `DeviceMesh`. "
                f"Received: device_mesh={device_mesh!r}"
            )
        if batch_dim_name is not None and batch_dim_name not in device_mesh.axis_names:
            raise ValueError(
                f"Argument `batch_dim_name` must be an axis of the mesh "
                f"{list(device_mesh.axis_names)}. Received: batch_dim_name={batch_dim_name!r}"
            )
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = bool(auto_shard_dataset)

    @abc.abstractmethod
    def get_data_layout(self, data_shape: Sequence[int | None]) -> TensorLayout:
        """The layout of an input batch of shape `data_shape`."""

    @abc.abstractmethod
    def get_variable_layout(self, variable: Any) -> TensorLayout:
        """The layout of `variable` (read from its `path` and `shape`)."""

    @abc.abstractmethod
    def get_tensor_layout(self, path: str) -> TensorLayout | None:
        """The layout of the intermediate tensor named `path`, or None (engine's choice)."""

    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        """Put this strategy in effect inside the block (the previous one after it)."""
        _check_supported(self)
        token = _DISTRIBUTION.set(self)
        try:
            yield
        finally:
            _DISTRIBUTION.reset(token)

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh

    @property
    def batch_dim_name(self) -> str | None:
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value: bool) -> None:
        self._auto_shard_dataset = bool(value)

    def distribute_dataset(self, dataset: Any) -> Any:
        """This process's part of `dataset`, a batched `tf.data.Dataset` of global batches.

        In a job of several processes with `auto_shard_dataset`, each batch is cut into one
        equal part per process and this process keeps its own (`fit` does this for a
        dataset it is given); otherwise the dataset comes back unchanged.

        Raises:
            ValueError: `dataset` is not a `tf.data.Dataset`, or its batch size does not
                divide by the number of processes.
        """
        from lamina.distribution.engine import num_processes, process_id
        from lamina.trainers.data_adapters.data_adapter_utils import is_tf_dataset

        if not is_tf_dataset(dataset):
            raise ValueError(
                "Only a `tf.data.Dataset` can be split between processes. "
                f"Received: dataset of type {type(dataset).__name__}"
            )
        if not self._auto_shard_dataset or num_processes() == 1:
            return dataset
        from lamina.trainers.data_adapters.tf_dataset_adapter import shard_dataset

        return shard_dataset(dataset, num_processes(), process_id())

    def _replicated(self, rank: int) -> TensorLayout:
        return TensorLayout([None] * rank, self._device_mesh)

    def _batch_split(self, data_shape: Sequence[int | None]) -> TensorLayout:
        rank = len(data_shape)
        if rank == 0:
            return self._replicated(0)
        return TensorLayout([self._batch_dim_name] + [None] * (rank - 1), self._device_mesh)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} device_mesh={self._device_mesh!r}>"


class DataParallel(Distribution):
    """One replica of every variable on each device; each batch split between them.

    Gradients are averaged over the devices (and processes), so `fit` moves the weights
    as it would on one device over the whole batch.

    Args:
        device_mesh: a mesh whose first axis is the batch axis; or give `devices`.
        devices: the devices of a one-axis mesh named "batch" (default: every device).
        auto_shard_dataset: whether each process reads only its part of a dataset.

    Example:
        >>> mesh = lamina.distribution.DeviceMesh((2,), ("batch",), devices=["cpu:0", "cpu:1"])
        >>> lamina.distribution.DataParallel(device_mesh=mesh).batch_dim_name
        'batch'
    """

    def __init__(
        self,
        device_mesh: DeviceMesh | None = None,
        devices: Sequence[str] | None = None,
        auto_shard_dataset: bool = True,
    ) -> None:
        if device_mesh is None:
            devices = list(devices) if devices is not None else list_devices()
            device_mesh = DeviceMesh((len(devices),), ("batch",), devices)
        elif devices is not None:
            raise ValueError(
                "Give `device_mesh` or `devices`, not both. "
                f"Received: device_mesh={device_mesh!r}, devices={devices!r}"
            )
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                f"Argument `device_mesh` must be a `DeviceMesh`. "
                f"Received: device_mesh={device_mesh!r}"
            )
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)

    def get_data_layout(self, data_shape: Sequence[int | None]) -> TensorLayout:
        return self._batch_split(data_shape)

    def get_variable_layout(self, variable: Any) -> TensorLayout:
        return self._replicated(len(variable.shape))

    def get_tensor_layout(self, path: str) -> TensorLayout | None:
        return None


class ModelParallel(Distribution):
    """Variables split over the mesh as a `LayoutMap` says; batches split along one axis.

    Variables whose path matches no key of the map are replicated.

    Args:
        layout_map: the layouts by variable path (regular expressions).
        batch_dim_name: the mesh axis the batch is split along (default: the first).
        auto_shard_dataset: whether each process reads only its part of a dataset.

    Raises:
        ValueError: `layout_map` is missing or not a `LayoutMap`.

    Example:
        >>> mesh = lamina.distribution.DeviceMesh(
        ...     (2, 2), ("batch", "model"), devices=[f"cpu:{i}" for i in range(4)])
        >>> layout_map = lamina.distribution.LayoutMap(mesh)
        >>> layout_map["dense.*kernel"] = (None, "model")
        >>> strategy = lamina.distribution.ModelParallel(
        ...     layout_map=layout_map, batch_dim_name="batch")
        >>> strategy.get_data_layout((8, 3)).axes
        ('batch', None)
    """

    def __init__(
        self,
        *,
        layout_map: LayoutMap | None = None,
        batch_dim_name: str | None = None,
        auto_shard_dataset: bool = True,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("device_mesh", None)  # Keras 3 accepts and ignores it: the map has one
        if kwargs:
            raise TypeError(f"Unexpected keyword arguments: {sorted(kwargs)}")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(
                "Argument `layout_map` must be a `lamina.distribution.LayoutMap`. "
                f"Received: layout_map={layout_map!r}"
            )
        mesh = layout_map.device_mesh
        super().__init__(mesh, batch_dim_name or mesh.axis_names[0], auto_shard_dataset)
        self._layout_map = layout_map

    @property
    def layout_map(self) -> LayoutMap:
        return self._layout_map

    def get_data_layout(self, data_shape: Sequence[int | None]) -> TensorLayout:
        return self._batch_split(data_shape)

    def get_variable_layout(self, variable: Any) -> TensorLayout:
        layout = self._layout_map[variable.path]
        if layout is None:
            return self._replicated(len(variable.shape))
        if len(layout.axes) != len(variable.shape):
            raise ValueError(
                f"The layout {layout.axes} for variable {variable.path!r} does not fit its "
                f"shape {tuple(variable.shape)}: one mesh axis (or None) per dimension."
            )
        check_divisible(tuple(variable.shape), layout, f"variable {variable.path!r}")
        return layout

    def get_tensor_layout(self, path: str) -> TensorLayout | None:
        return self._layout_map[path]


def _check_supported(value: Distribution) -> None:
    strategies = engine(type(value).__name__).strategies()
    kind = next((c.__name__ for c in type(value).__mro__ if c.__name__ in STRATEGY_BACKENDS), None)
    if kind is not None and kind not in strategies:
        from lamina.ops.dispatch import backend

        raise RuntimeError(
            f"{kind} does not run on the {backend().name} backend (it runs "
            f"{', '.join(sorted(strategies)) or 'no strategy'}). Backends that run {kind}: "
            f"{', '.join(STRATEGY_BACKENDS[kind])}."
        )


def distribution() -> Distribution | None:
    """The strategy in effect (set by `set_distribution` or `Distribution.scope`), or None."""
    return _DISTRIBUTION.get()


def set_distribution(value: Distribution | None) -> None:
    """Put `value` in effect for what follows (None: back to one device).

    Raises:
        ValueError: `value` is not a `Distribution` or None.
        RuntimeError: the backend does not run this strategy.
    """
    if value is not None and not isinstance(value, Distribution):
        raise ValueError(
            "Argument `value` must be a `lamina.distribution.Distribution` or None. "
            f"Received: value={value!r}"
        )
    if value is not None:
        _check_supported(value)
    _DISTRIBUTION.set(value)


def relayout_output(layer_path: str, outputs: Any) -> Any:
    """`outputs` of the layer at `layer_path`, placed as the strategy's layout for
    ``"<layer_path>/output"`` says (unchanged without one): how a layout map steers the
    sharding of activations, as in Keras 3.

    Raises:
        ValueError: the layout's rank is not an output's.
    """
    current = _DISTRIBUTION.get()
    layout = None if current is None else current.get_tensor_layout(f"{layer_path}/output")
    if layout is None:
        return outputs
    from lamina import tree
    from lamina.distribution.engine import distribute_tensor

    return tree.map_structure(
        lambda t: distribute_tensor(t, layout) if hasattr(t, "shape") else t, outputs
    )


@contextlib.contextmanager
def layout_like(reference: Any) -> Iterator[None]:
    """Variables created inside take `reference`'s layout (optimizer slots of a weight)."""
    token = _LAYOUT_SOURCE.set(reference)
    try:
        yield
    finally:
        _LAYOUT_SOURCE.reset(token)


def variable_layout(variable: Any) -> TensorLayout | None:
    """The layout the strategy in effect gives a new `variable`, or None without one."""
    current = _DISTRIBUTION.get()
    if current is None:
        return None
    source = _LAYOUT_SOURCE.get()
    if source is None or tuple(source.shape) != tuple(variable.shape):
        source = variable
    return current.get_variable_layout(source)
