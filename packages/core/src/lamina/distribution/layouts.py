"""`DeviceMesh`, `TensorLayout` and `LayoutMap`: where tensors live, as plain data.

None of these touch an engine: a mesh is a named grid of device strings, a layout names
the mesh axis (or None) each tensor axis is split along, and a layout map finds the
layout of a variable from its path. Backends turn them into their own objects
(`jax.sharding.NamedSharding`...) when a tensor is placed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, MutableMapping, Sequence
from typing import Any

import numpy as np


class DeviceMesh:
    """A grid of devices with a name for each of its axes.

    Args:
        shape: the grid's shape, e.g. ``(2, 4)``; its size is the number of devices.
        axis_names: one name per axis of `shape`, e.g. ``("batch", "model")``.
        devices: the devices (``"cpu:0"`` strings), in row-major order; defaults to
            `lamina.distribution.list_devices()`.

    Raises:
        ValueError: `shape` or `axis_names` is empty, their lengths differ, or the size of
            `shape` is not the number of devices.

    Example:
        >>> mesh = lamina.distribution.DeviceMesh(
        ...     (2, 2), ("batch", "model"), devices=[f"cpu:{i}" for i in range(4)])
        >>> mesh.devices.shape
        (2, 2)
    """

    def __init__(
        self,
        shape: Sequence[int],
        axis_names: Sequence[str],
        devices: Sequence[str] | np.ndarray[Any, Any] | None = None,
    ) -> None:
        if not shape or not axis_names:
            raise ValueError(
                "Arguments `shape` and `axis_names` cannot be empty. "
                f"Received: shape={shape!r}, axis_names={axis_names!r}"
            )
        shape = tuple(shape)
        if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in shape):
            raise ValueError(f"Argument `shape` must hold positive ints. Received: shape={shape!r}")
        if isinstance(axis_names, str) or not all(isinstance(a, str) for a in axis_names):
            raise ValueError(
                "Argument `axis_names` must be a sequence of strings. "
                f"Received: axis_names={axis_names!r}"
            )
        if len(shape) != len(axis_names):
            raise ValueError(
                "Arguments `shape` and `axis_names` must have the same length. "
                f"Received: shape={shape!r}, axis_names={axis_names!r}"
            )
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Argument `axis_names` repeats a name. Received: {axis_names!r}")
        if devices is None:
            from lamina.distribution.engine import list_devices

            devices = list_devices()
        array = np.array(devices, dtype=object)
        if int(np.prod(shape)) != array.size:
            raise ValueError(
                f"Argument `shape` {shape} holds {int(np.prod(shape))} devices, but "
                f"{array.size} were given: devices={list(array.ravel())!r}"
            )
        self._shape = tuple(int(d) for d in shape)
        self._axis_names = tuple(axis_names)
        self._devices = array.reshape(self._shape)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def axis_names(self) -> tuple[str, ...]:
        return self._axis_names

    @property
    def devices(self) -> np.ndarray[Any, Any]:
        """The device strings, shaped like the mesh."""
        return self._devices

    def axis_size(self, name: str) -> int:
        """The number of devices along the axis `name`."""
        return self._shape[self._axis_names.index(name)]

    def __repr__(self) -> str:
        return (
            f"<DeviceMesh shape={self._shape}, axis_names={self._axis_names}, "
            f"devices={list(self._devices.ravel())}>"
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DeviceMesh)
            and self._shape == other._shape
            and self._axis_names == other._axis_names
            and bool(np.array_equal(self._devices, other._devices))
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._axis_names, tuple(self._devices.ravel())))


class TensorLayout:
    """How one tensor is split over a `DeviceMesh`: a mesh axis name (or None) per axis.

    Args:
        axes: for each tensor axis, the mesh axis it is split along, or None (replicated).
        device_mesh: the mesh; may be left out and set once later (a `LayoutMap` fills it).

    Raises:
        ValueError: an axis names no axis of the mesh.

    Example:
        >>> mesh = lamina.distribution.DeviceMesh(
        ...     (2, 2), ("batch", "model"), devices=[f"cpu:{i}" for i in range(4)])
        >>> lamina.distribution.TensorLayout([None, "model"], mesh).axes
        (None, 'model')
    """

    def __init__(self, axes: Sequence[str | None], device_mesh: DeviceMesh | None = None):
        if isinstance(axes, str) or not all(a is None or isinstance(a, str) for a in axes):
            raise ValueError(
                "Argument `axes` must be a sequence of mesh axis names or None. "
                f"Received: axes={axes!r}"
            )
        named = [a for a in axes if a is not None]
        if len(set(named)) != len(named):
            raise ValueError(
                f"Argument `axes` uses a mesh axis more than once. Received: axes={axes!r}"
            )
        if device_mesh is not None and not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                "Argument `device_mesh` must be a `DeviceMesh` or None. "
                f"Received: device_mesh={device_mesh!r}"
            )
        self._axes = tuple(axes)
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def axes(self) -> tuple[str | None, ...]:
        return self._axes

    @property
    def device_mesh(self) -> DeviceMesh | None:
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh: DeviceMesh) -> None:
        if self._device_mesh is not None:
            raise ValueError(
                f"Cannot override the device mesh of a layout. Existing value: "
                f"{self._device_mesh!r}"
            )
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                f"`device_mesh` must be a `DeviceMesh`. Received: device_mesh={device_mesh!r}"
            )
        self._device_mesh = device_mesh
        self._validate_axes()

    def _validate_axes(self) -> None:
        if self._device_mesh is None:
            return
        valid = set(self._device_mesh.axis_names)
        unknown = {a for a in self._axes if a is not None} - valid
        if unknown:
            raise ValueError(
                f"Invalid axis names for the layout: {sorted(unknown)}. The mesh's axis "
                f"names are {list(self._device_mesh.axis_names)}. Received: axes={self._axes}"
            )

    def __repr__(self) -> str:
        return f"<TensorLayout axes={self._axes}, device_mesh={self._device_mesh!r}>"


class LayoutMap(MutableMapping[str, TensorLayout]):
    """Layouts by variable path, keys being regular expressions (`re.search`).

    A lookup first tries the path as an exact key, then every key as a pattern searched
    in the path; a path matching several patterns is an error, one matching none gets
    None (the variable is replicated). A tuple value is turned into a `TensorLayout` on
    the map's mesh.

    Args:
        device_mesh: the mesh of every layout in the map.

    Example:
        >>> mesh = lamina.distribution.DeviceMesh(
        ...     (2, 2), ("batch", "model"), devices=[f"cpu:{i}" for i in range(4)])
        >>> layout_map = lamina.distribution.LayoutMap(mesh)
        >>> layout_map["dense.*kernel"] = (None, "model")
        >>> layout_map["dense_1/kernel"].axes
        (None, 'model')
        >>> layout_map["conv/bias"] is None
        True
    """

    def __init__(self, device_mesh: DeviceMesh) -> None:
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(
                f"Argument `device_mesh` must be a `DeviceMesh`. "
                f"Received: device_mesh={device_mesh!r}"
            )
        self._layout_map: dict[str, TensorLayout] = {}
        self._device_mesh = device_mesh

    def __getitem__(self, key: str) -> TensorLayout:  # None when nothing matches
        if key in self._layout_map:
            return self._layout_map[key]
        matches = [k for k in self._layout_map if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(
                f"Path {key!r} matches several layout keys: {matches}. Make the keys "
                "specific enough that each path matches one."
            )
        return self._layout_map[matches[0]] if matches else None  # type: ignore[return-value]

    def __setitem__(self, key: str, layout: TensorLayout | Sequence[str | None]) -> None:
        if not isinstance(key, str):
            raise ValueError(f"LayoutMap keys must be strings. Received: key={key!r}")
        if key in self._layout_map:
            raise ValueError(
                f"Key {key!r} is already in the LayoutMap with value "
                f"{self._layout_map[key]!r}; keys must not repeat."
            )
        if isinstance(layout, tuple):
            layout = TensorLayout(axes=layout, device_mesh=None)
        if not isinstance(layout, TensorLayout):
            raise ValueError(
                f"LayoutMap values must be a `TensorLayout` or a tuple of mesh axis names. "
                f"Received: {layout!r} for key {key!r}"
            )
        if layout.device_mesh is None:
            layout.device_mesh = self._device_mesh
        elif layout.device_mesh != self._device_mesh:
            raise ValueError(
                f"The layout for key {key!r} is on another mesh ({layout.device_mesh!r}) "
                f"than the LayoutMap's ({self._device_mesh!r})."
            )
        self._layout_map[key] = layout

    def __delitem__(self, key: str) -> None:
        del self._layout_map[key]

    def __len__(self) -> int:
        return len(self._layout_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout_map)

    def get(self, key: str, default: Any = None) -> Any:
        found = self[key]
        return default if found is None else found

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh
