"""`DeviceMesh`, `TensorLayout`, `LayoutMap`: plain data, the same on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import distribution as dist

DEVICES = [f"cpu:{i}" for i in range(8)]


def mesh_2x4() -> dist.DeviceMesh:
    return dist.DeviceMesh((2, 4), ("batch", "model"), devices=DEVICES)


def test_mesh_reshapes_devices_row_major() -> None:
    mesh = mesh_2x4()
    assert mesh.shape == (2, 4)
    assert mesh.axis_names == ("batch", "model")
    assert mesh.devices.shape == (2, 4)
    assert mesh.devices[1, 0] == "cpu:4"
    assert mesh.axis_size("model") == 4
    assert mesh == mesh_2x4() and hash(mesh) == hash(mesh_2x4())
    assert mesh != dist.DeviceMesh((4, 2), ("batch", "model"), devices=DEVICES)


@pytest.mark.parametrize(
    ("shape", "names", "devices", "match"),
    [
        ((), (), DEVICES, "cannot be empty"),
        ((2, 4), ("batch",), DEVICES, "same length"),
        ((2, 2), ("batch", "model"), DEVICES, "holds 4 devices, but 8"),
        ((2, 4), ("x", "x"), DEVICES, "repeats"),
        ((0, 8), ("a", "b"), DEVICES, "positive ints"),
        ((8,), "batch", DEVICES, "sequence of strings"),
    ],
)
def test_mesh_refuses_inconsistent_arguments(
    shape: tuple[int, ...], names: tuple[str, ...], devices: list[str], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        dist.DeviceMesh(shape, names, devices=devices)


def test_layout_axes_and_mesh_set_once() -> None:
    layout = dist.TensorLayout([None, "model"])
    assert layout.axes == (None, "model") and layout.device_mesh is None
    layout.device_mesh = mesh_2x4()
    assert layout.device_mesh == mesh_2x4()
    with pytest.raises(ValueError, match="Cannot override"):
        layout.device_mesh = mesh_2x4()


def test_layout_refuses_unknown_and_repeated_axes() -> None:
    with pytest.raises(ValueError, match=r"Invalid axis names.*\['data'\]"):
        dist.TensorLayout(["data", None], mesh_2x4())
    layout = dist.TensorLayout(["data"])
    with pytest.raises(ValueError, match="Invalid axis names"):
        layout.device_mesh = mesh_2x4()
    with pytest.raises(ValueError, match="more than once"):
        dist.TensorLayout(["model", "model"])
    with pytest.raises(ValueError, match="axes"):
        dist.TensorLayout("model")  # type: ignore[arg-type]


def test_layout_map_exact_key_then_one_regex() -> None:
    layout_map = dist.LayoutMap(mesh_2x4())
    layout_map["dense.*kernel"] = (None, "model")
    layout_map["dense_1/kernel"] = ("model", None)  # exact keys win over patterns
    layout_map["conv.*"] = dist.TensorLayout([None, None, None, "model"])
    assert layout_map["dense/kernel"].axes == (None, "model")
    assert layout_map["outer/dense_2/kernel"].axes == (None, "model")  # re.search
    assert layout_map["dense_1/kernel"].axes == ("model", None)
    assert layout_map["conv2d/kernel"].axes == (None, None, None, "model")
    assert layout_map["dense/bias"] is None
    assert layout_map.get("dense/bias", "replicated") == "replicated"
    # Tuples and mesh-less layouts take the map's mesh.
    assert layout_map["dense/kernel"].device_mesh == mesh_2x4()
    assert len(layout_map) == 3 and list(layout_map) == [
        "dense.*kernel",
        "dense_1/kernel",
        "conv.*",
    ]
    del layout_map["conv.*"]
    assert layout_map["conv2d/kernel"] is None


def test_layout_map_refuses_ambiguity_repeats_and_bad_values() -> None:
    layout_map = dist.LayoutMap(mesh_2x4())
    layout_map["dense.*"] = (None, "model")
    layout_map[".*kernel"] = ("model", None)
    with pytest.raises(ValueError, match="matches several layout keys"):
        layout_map["dense/kernel"]
    with pytest.raises(ValueError, match="already in the LayoutMap"):
        layout_map["dense.*"] = (None, None)
    with pytest.raises(ValueError, match="TensorLayout"):
        layout_map["bias"] = "model"  # type: ignore[assignment]
    other = dist.DeviceMesh((8,), ("model",), devices=DEVICES)
    with pytest.raises(ValueError, match="another mesh"):
        layout_map["bias"] = dist.TensorLayout(["model"], other)
    with pytest.raises(ValueError, match="device_mesh"):
        dist.LayoutMap("mesh")  # type: ignore[arg-type]


def test_mesh_devices_are_an_array_of_names() -> None:
    mesh = dist.DeviceMesh((8,), ("batch",), devices=np.array(DEVICES))
    assert list(mesh.devices) == DEVICES
