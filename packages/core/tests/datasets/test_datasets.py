"""lamina.datasets: every loader reads small generated files served from a file:// origin
(no network), with Keras 3's arguments, shapes and dtypes; pickled objects are refused."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lamina
from lamina import datasets
from lamina.datasets import _safe_pickle, _sources

RNG = np.random.default_rng(0)


class Mirror:
    """A folder of dataset files served as the loaders' origins."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root / "origin"
        self.root.mkdir()
        self.hashes = dict(_sources.FILE_HASHES)
        monkeypatch.setattr(_sources, "KERAS_DATASETS_URL", self.root.as_uri() + "/")
        monkeypatch.setattr(_sources, "CIFAR_URL", self.root.as_uri() + "/")
        monkeypatch.setattr(_sources, "FILE_HASHES", self.hashes)
        monkeypatch.setenv("LAMINA_HOME", str(root / "home"))

    def add(self, name: str, data: bytes) -> None:
        (self.root / name).write_bytes(data)
        if self.hashes.get(name) is not None:
            self.hashes[name] = hashlib.sha256(data).hexdigest()

    def npz(self, name: str, **arrays: Any) -> None:
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        self.add(name, buffer.getvalue())


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mirror:
    return Mirror(tmp_path, monkeypatch)


def _objects(lists: list[list[int]]) -> np.ndarray:
    out = np.empty(len(lists), dtype=object)
    out[:] = lists
    return out


def test_mnist_shapes_dtypes_and_cache(mirror: Mirror, tmp_path: Path) -> None:
    x = RNG.integers(0, 256, (6, 28, 28), dtype=np.uint8)
    y = np.arange(6, dtype=np.uint8)
    mirror.npz("mnist.npz", x_train=x[:4], y_train=y[:4], x_test=x[4:], y_test=y[4:])
    (x_train, y_train), (x_test, y_test) = datasets.mnist.load_data()
    assert x_train.shape == (4, 28, 28) and x_train.dtype == np.uint8
    assert y_test.dtype == np.uint8
    np.testing.assert_array_equal(x_test, x[4:])
    np.testing.assert_array_equal(y_train, y[:4])
    assert (tmp_path / "home" / "datasets" / "mnist.npz").exists()


def test_a_wrong_hash_is_refused(mirror: Mirror) -> None:
    mirror.npz(
        "mnist.npz",
        x_train=np.zeros(1),
        y_train=np.zeros(1),
        x_test=np.zeros(1),
        y_test=np.zeros(1),
    )
    mirror.hashes["mnist.npz"] = "0" * 64
    with pytest.raises(ValueError, match="corrupted"):
        datasets.mnist.load_data()


def test_fashion_mnist_idx_files(mirror: Mirror, tmp_path: Path) -> None:
    images = RNG.integers(0, 256, (5, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    for prefix, sl in (("train", slice(0, 3)), ("t10k", slice(3, 5))):
        mirror.add(
            f"{prefix}-labels-idx1-ubyte.gz", gzip.compress(b"\0" * 8 + labels[sl].tobytes())
        )
        mirror.add(
            f"{prefix}-images-idx3-ubyte.gz", gzip.compress(b"\0" * 16 + images[sl].tobytes())
        )
    (x_train, y_train), (x_test, y_test) = datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, images[:3])
    np.testing.assert_array_equal(y_train, [3, 1, 4])
    np.testing.assert_array_equal(y_test, [1, 5])
    assert x_test.shape == (2, 28, 28)
    assert (tmp_path / "home" / "datasets" / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").exists()


def _batch(n: int, labels_key: str = "labels", protocol: int = 2, **extra: Any) -> bytes:
    data = RNG.integers(0, 256, (n, 3072), dtype=np.uint8)
    batch = {
        b"batch_label": b"batch",
        b"data": data,
        labels_key.encode(): list(range(n)),
        b"filenames": [b"f%d.png" % i for i in range(n)],
        **extra,
    }
    return pickle.dumps(batch, protocol=protocol)


def _tar(mirror: Mirror, name: str, members: dict[str, bytes]) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, payload in members.items():
            info = tarfile.TarInfo(path)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    mirror.add(name, buffer.getvalue())


def test_cifar10_batches_through_the_restricted_reader(mirror: Mirror) -> None:
    batches = {f"cifar-10-batches-py/data_batch_{i}": _batch(2) for i in range(1, 6)}
    batches["cifar-10-batches-py/test_batch"] = _batch(3, protocol=4)
    _tar(mirror, "cifar-10-python.tar.gz", batches)
    (x_train, y_train), (x_test, y_test) = datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
    assert x_test.shape == (3, 32, 32, 3) and y_test.ravel().tolist() == [0, 1, 2]
    first = pickle.loads(batches["cifar-10-batches-py/data_batch_1"])[b"data"]
    np.testing.assert_array_equal(x_train[1], first[1].reshape(3, 32, 32).transpose(1, 2, 0))


def test_cifar100_label_modes_and_channels_first(mirror: Mirror) -> None:
    _tar(
        mirror,
        "cifar-100-python.tar.gz",
        {
            "cifar-100-python/train": _batch(4, "fine_labels", coarse_labels=[9, 8, 7, 6]),
            "cifar-100-python/test": _batch(2, "fine_labels", coarse_labels=[5, 4]),
        },
    )
    (_, y_fine), _ = datasets.cifar100.load_data()
    assert y_fine.ravel().tolist() == [0, 1, 2, 3]
    lamina.config.set_image_data_format("channels_first")
    try:
        (x, y_coarse), _ = datasets.cifar100.load_data(label_mode="coarse")
    finally:
        lamina.config.set_image_data_format("channels_last")
    assert y_coarse.ravel().tolist() == [9, 8, 7, 6] and x.shape == (4, 3, 32, 32)
    with pytest.raises(ValueError, match="label_mode"):
        datasets.cifar100.load_data(label_mode="medium")


def _reference_sequences(xs: list, rng: np.random.RandomState, start: int, index_from: int):
    order = np.arange(len(xs))
    rng.shuffle(order)
    return [[start] + [w + index_from for w in xs[i]] for i in order], order


def test_imdb_sequences_and_word_index(mirror: Mirror) -> None:
    train = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1]]
    test = [[2, 2], [9, 1, 1]]
    mirror.npz(
        "imdb.npz",
        x_train=_objects(train),
        y_train=np.array([1, 0, 1, 0]),
        x_test=_objects(test),
        y_test=np.array([0, 1]),
    )
    mirror.add("imdb_word_index.json", json.dumps({"the": 1, "movie": 2}).encode())
    (x_train, y_train), (x_test, y_test) = datasets.imdb.load_data()
    rng = np.random.RandomState(113)
    ref_train, order = _reference_sequences(train, rng, 1, 3)
    ref_test, test_order = _reference_sequences(test, rng, 1, 3)
    # As in Keras 3, num_words=None means "below the largest index": that one becomes OOV.
    top = max(max(s) for s in ref_train + ref_test)
    ref_train = [[2 if w == top else w for w in s] for s in ref_train]
    ref_test = [[2 if w == top else w for w in s] for s in ref_test]
    assert x_train.dtype == object and [list(s) for s in x_train] == ref_train
    np.testing.assert_array_equal(y_train, np.array([1, 0, 1, 0])[order])
    assert [list(s) for s in x_test] == ref_test
    np.testing.assert_array_equal(y_test, np.array([0, 1])[test_order])
    (short, _), _ = datasets.imdb.load_data(maxlen=4, num_words=6, skip_top=4)
    assert all(len(s) < 4 for s in short)
    assert all(w == 2 or 4 <= w < 6 for s in short for w in s)
    assert datasets.imdb.get_word_index() == {"the": 1, "movie": 2}
    with pytest.raises(ValueError, match="maxlen"):
        datasets.imdb.load_data(maxlen=1)


def test_reuters_split_and_labels(mirror: Mirror) -> None:
    xs = [[1, 2], [3], [4, 5, 6], [7], [8, 9]]
    mirror.npz("reuters.npz", x=_objects(xs), y=np.array([0, 1, 2, 3, 4]))
    (x_train, y_train), (x_test, y_test) = datasets.reuters.load_data(
        test_split=0.4, start_char=None, index_from=0, oov_char=None, num_words=10
    )
    order = np.arange(5)
    np.random.RandomState(113).shuffle(order)
    assert [list(s) for s in x_train] == [xs[i] for i in order[:3]]
    np.testing.assert_array_equal(y_train, order[:3])
    np.testing.assert_array_equal(y_test, order[3:])
    assert [list(s) for s in x_test] == [xs[i] for i in order[3:]]
    assert len(datasets.reuters.get_label_names()) == 46
    assert datasets.reuters.get_label_names()[3] == "earn"
    with pytest.raises(ValueError, match="test_split"):
        datasets.reuters.load_data(test_split=1.0)


@pytest.mark.parametrize("name", ["boston_housing", "california_housing"])
def test_housing_splits(mirror: Mirror, name: str) -> None:
    features = 13 if name == "boston_housing" else 8
    x = RNG.normal(size=(10, features)).astype("float32")
    y = np.arange(10, dtype="float32")
    mirror.npz(f"{name}.npz", x=x, y=y)
    (x_train, y_train), (x_test, y_test) = getattr(datasets, name).load_data(test_split=0.3)
    order = np.arange(10)
    np.random.RandomState(113).shuffle(order)
    np.testing.assert_array_equal(y_train, y[order[:7]])
    np.testing.assert_array_equal(x_test, x[order[7:]])
    np.testing.assert_array_equal(y_test, y[order[7:]])
    assert x_train.shape == (7, features)
    if name == "california_housing":
        (small, _), _ = datasets.california_housing.load_data(version="small")
        assert small.shape == (8, 8)
        with pytest.raises(ValueError, match="version"):
            datasets.california_housing.load_data(version="tiny")


class Sneaky:
    def __reduce__(self) -> Any:
        return (os.getcwd, ())


def test_pickled_objects_are_refused(mirror: Mirror) -> None:
    mirror.npz(
        "imdb.npz",
        x_train=_objects([[1]]),
        y_train=np.array([0]),
        x_test=np.array([Sneaky()], dtype=object),
        y_test=np.array([0]),
    )
    with pytest.raises(datasets.UnsafeDatasetFileError, match="getcwd"):
        datasets.imdb.load_data()
    _tar(
        mirror,
        "cifar-10-python.tar.gz",
        {
            f"cifar-10-batches-py/data_batch_{i}": pickle.dumps({b"data": Sneaky()})
            for i in range(1, 6)
        },
    )
    with pytest.raises(datasets.UnsafeDatasetFileError, match="getcwd"):
        datasets.cifar10.load_data()


@pytest.mark.parametrize(
    "payload",
    [
        pickle.dumps(Sneaky(), protocol=2),
        pickle.dumps({b"x": Sneaky()}, protocol=4),
        pickle.dumps(np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f4")]), protocol=2),
        pickle.dumps({1, 2}, protocol=4),
        b"cbuiltins\neval\n(S'1'\ntR.",
        b"\x80\x02",
    ],
)
def test_restricted_reader_refuses(payload: bytes) -> None:
    with pytest.raises(datasets.UnsafeDatasetFileError):
        _safe_pickle.restricted_loads(payload)


def test_restricted_reader_reads_plain_data() -> None:
    value = {
        b"a": [1, -2, 3.5, None, True],
        "b": (b"x", "y"),
        "c": 2**70,
        "d": np.arange(6, dtype="int16").reshape(2, 3),
    }
    for protocol in (2, 3, 4):
        out = _safe_pickle.restricted_loads(pickle.dumps(value, protocol=protocol))
        assert out["c"] == 2**70 and out[b"a"] == [1, -2, 3.5, None, True]
        np.testing.assert_array_equal(out["d"], value["d"])
        assert out["d"].dtype == np.int16
