"""`lamina.distribution`: train over several devices and processes (Keras 3's API).

A `DeviceMesh` names a grid of devices, a `TensorLayout` splits a tensor over it, a
`LayoutMap` gives the layout of each variable by path. `DataParallel` replicates the
variables and splits each batch; `ModelParallel` also splits variables as its layout map
says. Each backend runs them on its own engine: JAX sharding and `jax.distributed`,
`torch.distributed`, `tf.distribute` (data parallel only). NumPy runs on one device and
refuses them.

Example:
    >>> mesh = lamina.distribution.DeviceMesh((1,), ("batch",), devices=["cpu:0"])
    >>> lamina.distribution.DataParallel(device_mesh=mesh).device_mesh.shape
    (1,)
"""

from lamina.distribution.engine import distribute_tensor as distribute_tensor
from lamina.distribution.engine import get_device_count as get_device_count
from lamina.distribution.engine import initialize as initialize
from lamina.distribution.engine import list_devices as list_devices
from lamina.distribution.engine import num_processes as num_processes
from lamina.distribution.engine import process_id as process_id
from lamina.distribution.layouts import DeviceMesh as DeviceMesh
from lamina.distribution.layouts import LayoutMap as LayoutMap
from lamina.distribution.layouts import TensorLayout as TensorLayout
from lamina.distribution.strategies import DataParallel as DataParallel
from lamina.distribution.strategies import Distribution as Distribution
from lamina.distribution.strategies import ModelParallel as ModelParallel
from lamina.distribution.strategies import distribution as distribution
from lamina.distribution.strategies import set_distribution as set_distribution

__all__ = [
    "DataParallel",
    "DeviceMesh",
    "Distribution",
    "LayoutMap",
    "ModelParallel",
    "TensorLayout",
    "distribute_tensor",
    "distribution",
    "get_device_count",
    "initialize",
    "list_devices",
    "num_processes",
    "process_id",
    "set_distribution",
]
