"""Weights files: round trips, clear mismatch errors, sharding, atomic writes, deferred restore."""

from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import LaminaFileError


class Block(lamina.layers.Layer):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.inner = Dense(units, name="inner")
        self.extra = [Dense(2, name="a"), Dense(2, name="b")]

    def call(self, x):
        return self.extra[1](self.extra[0](self.inner(x)))


class Net(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.block = Block()
        self.head = Dense(1)

    def call(self, x):
        return self.head(self.block(x))


def _x():
    return np.random.default_rng(0).normal(size=(5, 4)).astype("float32")


def _outputs(model):
    return lamina.ops.convert_to_numpy(model(_x()))


def test_round_trip_into_built_model(tmp_path):
    a, b = Net(), Net()
    expected = _outputs(a)
    _outputs(b)
    path = tmp_path / "w.weights.h5"
    a.save_weights(path)
    status = b.load_weights(path)
    np.testing.assert_allclose(_outputs(b), expected, rtol=1e-6, atol=1e-6)
    assert not status.pending and "model/block/inner" in status.matched


def test_deferred_restore_applies_values_as_variables_are_created(tmp_path):
    a = Net()
    expected = _outputs(a)
    path = tmp_path / "w.weights.h5"
    a.save_weights(path)
    fresh = Net()
    assert not fresh.built and fresh.variables == []
    status = fresh.load_weights(path)
    assert status.pending  # nothing to put the values in yet
    assert fresh.variables == []
    np.testing.assert_allclose(_outputs(fresh), expected, rtol=1e-6, atol=1e-6)
    assert status.pending == [] and status.assert_consumed()


def test_deferred_restore_into_sequential_built_later(tmp_path):
    a = lamina.Sequential([Dense(4), Dense(2)])
    expected = _outputs(a)
    path = tmp_path / "s.weights.h5"
    a.save_weights(path)
    b = lamina.Sequential([Dense(4), Dense(2)])
    b.load_weights(path)
    np.testing.assert_allclose(_outputs(b), expected, rtol=1e-6, atol=1e-6)


def test_shape_mismatch_names_layer_variable_and_shapes(tmp_path):
    a = lamina.Sequential([lamina.Input((4,)), Dense(3, name="d")])
    b = lamina.Sequential([lamina.Input((4,)), Dense(5, name="d")])
    path = tmp_path / "m.weights.h5"
    a.save_weights(path)
    with pytest.raises(LaminaFileError, match=r"'d'.*'kernel'.*\(4, 5\).*\(4, 3\)"):
        b.load_weights(path)
    with pytest.warns(UserWarning, match="Skipping"):
        b.load_weights(path, skip_mismatch=True)


def test_missing_and_extra_layers_are_errors(tmp_path):
    small = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    big = lamina.Sequential([lamina.Input((4,)), Dense(3), Dense(3)])
    p_small, p_big = tmp_path / "s.weights.h5", tmp_path / "b.weights.h5"
    small.save_weights(p_small)
    big.save_weights(p_big)
    with pytest.raises(LaminaFileError, match="has none for it"):
        big.load_weights(p_small)
    with pytest.raises(LaminaFileError, match="does not have"):
        small.load_weights(p_big)


def test_sharded_weights_round_trip(tmp_path):
    a = lamina.Sequential([lamina.Input((4,)), Dense(64), Dense(64), Dense(2)])
    b = lamina.Sequential([lamina.Input((4,)), Dense(64), Dense(64), Dense(2)])
    index = tmp_path / "big.weights.json"
    a.save_weights(index, max_shard_size=8e3 / 1e9)  # ~8 kB per shard
    shards = sorted(p.name for p in tmp_path.glob("big_*.weights.h5"))
    assert len(shards) >= 2
    b.load_weights(index)
    np.testing.assert_allclose(_outputs(b), _outputs(a), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="max_shard_size"):
        a.save_weights(index, max_shard_size=-1)


def test_bad_suffix_is_a_clear_error(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    with pytest.raises(ValueError, match=r"\.weights\.h5.*filepath="):
        model.save_weights(tmp_path / "w.h5")


def test_failed_save_keeps_previous_file(tmp_path, monkeypatch):
    model = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    before = path.read_bytes()

    def explode(store):
        store["0"] = np.zeros((4, 3), "float32")
        raise KeyboardInterrupt("interrupted mid-save")

    monkeypatch.setattr(model.layers[0], "save_own_variables", explode)
    with pytest.raises(KeyboardInterrupt):
        model.save_weights(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.weights.h5"]


def test_links_non_numeric_and_oversized_datasets_are_refused(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)

    def forged(edit):
        target = tmp_path / f"forged_{edit.__name__}.weights.h5"
        target.write_bytes(path.read_bytes())
        with h5py.File(target, "r+") as f:
            edit(f)
        return target

    def external(f):
        f["model/extra/vars/0"] = h5py.ExternalLink("/etc/passwd", "/x")

    def soft(f):
        f["model/extra/vars/0"] = h5py.SoftLink("/model")

    def first_dataset(f):
        found = []
        f.visititems(lambda n, obj: found.append(n) if isinstance(obj, h5py.Dataset) else None)
        del f[found[0]]
        return found[0]

    def strings(f):
        f.create_dataset(first_dataset(f), data=np.array([b"x"], dtype="S1"))

    def huge(f):
        f.create_dataset(first_dataset(f), shape=(10**6, 10**4), dtype="float32")

    for edit, pattern in [
        (external, "ExternalLink"),
        (soft, "SoftLink"),
        (strings, "non-numeric"),
        (huge, "declares shape"),
    ]:
        with pytest.raises(LaminaFileError, match=pattern):
            model.load_weights(forged(edit))


def test_garbage_file_gives_library_error(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    path = tmp_path / "w.weights.h5"
    path.write_bytes(b"not hdf5 at all" * 10)
    with pytest.raises(LaminaFileError, match=r"w\.weights\.h5"):
        model.load_weights(path)
    with pytest.raises(FileNotFoundError):
        model.load_weights(tmp_path / "missing.weights.h5")
    assert os.path.exists(path)


class WithSpare(lamina.Model):
    """A built model holding a layer its `call` does not use (built only when used)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.head = Dense(2)
        self.spare = Dense(3)

    def call(self, x):
        return self.head(x)


def test_values_for_a_built_models_unbuilt_layer_wait_for_it(tmp_path):
    source = WithSpare()
    source(_x())
    expected = lamina.ops.convert_to_numpy(source.spare(_x()))
    path = tmp_path / "spare.weights.h5"
    source.save_weights(path)
    fresh = WithSpare()
    fresh(_x())  # built, but `spare` is not
    status = fresh.load_weights(path)
    assert status.pending == ["model/spare"]
    got = lamina.ops.convert_to_numpy(fresh.spare(_x()))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert status.pending == []


def test_values_are_read_into_aligned_arrays_equal_to_the_saved_ones(tmp_path):
    # 64-byte aligned, so a backend (TensorFlow) takes them without copying them first.
    from lamina.variables.offers import ALIGNMENT
    from lamina_saving.keras3.files import LayoutReader

    model = lamina.Sequential([lamina.Input((4,)), Dense(5), Dense(3)])
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with LayoutReader(path, path) as reader, h5py.File(path, "r") as f:
        values = [
            (lazy.load(), f[f"{group}/vars/{i}"][()])
            for group, items in reader.lazy().items()
            for i, (_, lazy) in enumerate(items)
        ]
    assert len(values) == 4
    for loaded, stored in values:
        assert loaded.ctypes.data % ALIGNMENT == 0
        np.testing.assert_array_equal(loaded, stored)


def test_saving_reads_each_variable_without_a_copy_and_still_round_trips(tmp_path):
    from lamina.backend.kit import numpy_views
    from lamina_saving.graph import saved_values

    model = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    dense = model.layers[-1]
    copy = dense.kernel.numpy()
    with numpy_views():
        view = dense.kernel.numpy()
    assert copy.flags.writeable and not view.flags.writeable  # a view may not be written
    np.testing.assert_array_equal(view, copy)
    kernel, bias = saved_values(dense)
    assert not kernel.flags.writeable
    np.testing.assert_array_equal(kernel, copy)
    assert dense.kernel.numpy().flags.writeable  # outside the block: a copy again
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    restored = lamina.Sequential([lamina.Input((4,)), Dense(3)])
    restored.load_weights(path)
    np.testing.assert_array_equal(restored.layers[-1].kernel.numpy(), copy)
    np.testing.assert_array_equal(restored.layers[-1].bias.numpy(), bias)


def test_damaged_values_never_reach_a_variable_though_checks_run_behind_reads(tmp_path):
    # Each layer's checksums are checked while the next layer is read, and always before
    # its own values are assigned.
    model = lamina.Sequential([lamina.Input((4,)), Dense(5), Dense(3), Dense(2)])
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        kernels = []
        f.visititems(lambda n, d: kernels.append(n) if isinstance(d, h5py.Dataset) else None)
        last = next(k for k in kernels if f[k].shape == (3, 2))
        f[last][0, 0] = f[last][0, 0] + 1.0  # the values change, their checksum does not
    fresh = lamina.Sequential([lamina.Input((4,)), Dense(5), Dense(3), Dense(2)])
    before = fresh.layers[-1].kernel.numpy()
    with pytest.raises(LaminaFileError, match="do not match their checksum"):
        fresh.load_weights(path)
    np.testing.assert_array_equal(fresh.layers[-1].kernel.numpy(), before)
    np.testing.assert_array_equal(fresh.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
