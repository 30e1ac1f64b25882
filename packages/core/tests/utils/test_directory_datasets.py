"""text/image/audio_dataset_from_directory: labels from folders, label modes, class
names, splits (incl. "both"), seeded shuffles, image sizing and colour modes, and `fit`."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import layers, utils
from lamina.backend import Capability

from .conftest import batches_of, check_kind

PIL = pytest.importorskip("PIL.Image")


def _texts(root: Path) -> dict[str, str]:
    """Three classes with 2, 3 and 1 files; returns path -> content."""
    contents = {}
    for cls, n in (("a", 2), ("b", 3), ("c", 1)):
        (root / cls).mkdir(parents=True)
        for i in range(n):
            path = root / cls / f"{i}.txt"
            path.write_text(f"{cls} text {i}", encoding="utf-8")
            contents[str(path)] = f"{cls} text {i}"
    (root / "a" / "skip.md").write_text("not a txt")
    (root / "top.txt").write_text("files at the top are not in any class")
    return contents


def test_text_inferred_labels_in_order(tmp_path: Path, output: str) -> None:
    contents = _texts(tmp_path)
    ds = utils.text_dataset_from_directory(tmp_path, shuffle=False, batch_size=4, verbose=False)
    check_kind(ds, output)
    assert ds.class_names == ["a", "b", "c"]
    assert len(ds.file_paths) == 6
    texts, labels = zip(*batches_of(ds))
    np.testing.assert_array_equal(np.concatenate(labels), [0, 0, 1, 1, 1, 2])
    assert np.concatenate(labels).dtype == np.int32
    assert list(np.concatenate(texts)) == [contents[p] for p in ds.file_paths]


def test_text_label_modes_and_max_length(tmp_path: Path, output: str) -> None:
    _texts(tmp_path)
    cat = utils.text_dataset_from_directory(
        tmp_path,
        label_mode="categorical",
        shuffle=False,
        batch_size=None,
        max_length=3,
        verbose=False,
    )
    samples = list(batches_of(cat))
    assert samples[0][0] == "a t"
    np.testing.assert_array_equal(samples[2][1], [0.0, 1.0, 0.0])
    assert samples[2][1].dtype == np.float32
    unlabelled = utils.text_dataset_from_directory(
        tmp_path, shuffle=False, verbose=False, label_mode=None
    )
    (only_texts,) = list(batches_of(unlabelled))
    assert only_texts.shape == (6,)


def test_class_names_order_and_binary(tmp_path: Path, output: str) -> None:
    for cls in ("x", "y"):
        (tmp_path / cls).mkdir()
        (tmp_path / cls / "f.txt").write_text(cls)
    ds = utils.text_dataset_from_directory(
        tmp_path, class_names=["y", "x"], label_mode="binary", shuffle=False, verbose=False
    )
    ((texts, labels),) = list(batches_of(ds))
    assert list(texts) == ["y", "x"]
    np.testing.assert_array_equal(labels, [[0.0], [1.0]])
    with pytest.raises(ValueError, match="class_names"):
        utils.text_dataset_from_directory(tmp_path, class_names=["x"], verbose=False)


def test_explicit_labels_cover_all_files_in_path_order(tmp_path: Path, output: str) -> None:
    _texts(tmp_path)
    ds = utils.text_dataset_from_directory(
        tmp_path, labels=[5, 4, 3, 2, 1, 0, 9], shuffle=False, batch_size=10, verbose=False
    )
    ((texts, labels),) = list(batches_of(ds))
    # os.walk order, folders sorted by path: the top folder's own files come first.
    assert texts[0] == "files at the top are not in any class" and texts[1] == "a text 0"
    np.testing.assert_array_equal(labels, [5, 4, 3, 2, 1, 0, 9])
    with pytest.raises(ValueError, match="one label per file"):
        utils.text_dataset_from_directory(tmp_path, labels=[0, 1], verbose=False)


def test_validation_split_subsets_and_seeded_shuffle(tmp_path: Path, output: str) -> None:
    _texts(tmp_path)
    kwargs = {"validation_split": 0.34, "seed": 7, "batch_size": 2, "verbose": False}
    train, val = utils.text_dataset_from_directory(tmp_path, subset="both", **kwargs)
    assert len(train.file_paths) == 4 and len(val.file_paths) == 2
    assert set(train.file_paths).isdisjoint(val.file_paths)
    again = utils.text_dataset_from_directory(tmp_path, subset="validation", **kwargs)
    assert again.file_paths == val.file_paths
    # The file order is NumPy's RandomState(seed) permutation of the sorted paths.
    plain = utils.text_dataset_from_directory(tmp_path, shuffle=False, verbose=False)
    order = np.random.RandomState(7).permutation(6)
    assert train.file_paths + val.file_paths == [plain.file_paths[i] for i in order]
    seen = sorted(t for texts, _ in batches_of(train) for t in texts)
    assert seen == sorted(Path(p).read_text() for p in train.file_paths)


def test_bad_arguments(tmp_path: Path) -> None:
    _texts(tmp_path)
    fn = utils.text_dataset_from_directory
    with pytest.raises(ValueError, match="seed"):
        fn(tmp_path, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="subset"):
        fn(tmp_path, validation_split=0.2, seed=1)
    with pytest.raises(ValueError, match="subset"):
        fn(tmp_path, validation_split=0.2, subset="test", seed=1)
    with pytest.raises(ValueError, match="validation_split"):
        fn(tmp_path, validation_split=1.5, subset="training", seed=1)
    with pytest.raises(ValueError, match="label_mode"):
        fn(tmp_path, label_mode="sparse")
    with pytest.raises(ValueError, match="binary"):
        fn(tmp_path, label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="labels"):
        fn(tmp_path, labels="folders")
    with pytest.raises(ValueError, match="directory"):
        fn(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no text files"):
        fn(tmp_path / "empty", labels=None)


def _images(root: Path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    pixels = {}
    for cls, size, ext in (("cat", (6, 4), "png"), ("dog", (3, 5), "bmp")):
        (root / cls).mkdir(parents=True)
        for i in range(3):
            array = rng.integers(0, 256, size=(*size, 3), dtype=np.uint8)
            path = root / cls / f"{i}.{ext}"
            PIL.fromarray(array).save(path)
            pixels[str(path)] = array
    return pixels


def test_image_sizes_colors_and_labels(tmp_path: Path, output: str) -> None:
    pixels = _images(tmp_path)
    ds = utils.image_dataset_from_directory(
        tmp_path, image_size=(6, 4), shuffle=False, batch_size=4, verbose=False
    )
    check_kind(ds, output)
    images, labels = zip(*batches_of(ds))
    images, labels = np.concatenate(images), np.concatenate(labels)
    assert images.shape == (6, 6, 4, 3) and images.dtype == np.float32
    np.testing.assert_array_equal(labels, [0, 0, 0, 1, 1, 1])
    # Images already of the target size come through unchanged.
    np.testing.assert_array_equal(images[0], pixels[ds.file_paths[0]])
    gray = utils.image_dataset_from_directory(
        tmp_path,
        image_size=(3, 5),
        color_mode="grayscale",
        shuffle=False,
        batch_size=None,
        label_mode=None,
        verbose=False,
    )
    first = list(batches_of(gray))
    assert first[3].shape == (3, 5, 1)
    expected = np.asarray(PIL.fromarray(pixels[gray.file_paths[3]]).convert("L"), "float32")
    np.testing.assert_array_equal(first[3][:, :, 0], expected)


def test_image_resize_crop_pad_and_channels_first(tmp_path: Path, output: str) -> None:
    _images(tmp_path)
    for option in ("crop_to_aspect_ratio", "pad_to_aspect_ratio", None):
        kwargs = {option: True} if option else {}
        ds = utils.image_dataset_from_directory(
            tmp_path,
            image_size=(4, 4),
            shuffle=False,
            batch_size=6,
            verbose=False,
            interpolation="nearest",
            **kwargs,
        )
        ((images, _),) = list(batches_of(ds))
        assert images.shape == (6, 4, 4, 3)
        with PIL.open(ds.file_paths[0]) as img:
            source = np.asarray(img.convert("RGB"), "float32")
        reference = lamina.ops.convert_to_numpy(
            lamina.ops.image.resize(source, (4, 4), interpolation="nearest", **kwargs)
        )
        np.testing.assert_allclose(images[0], reference)
    first = utils.image_dataset_from_directory(
        tmp_path,
        image_size=(2, 3),
        color_mode="rgba",
        data_format="channels_first",
        batch_size=2,
        shuffle=False,
        verbose=False,
    )
    assert next(iter(batches_of(first)))[0].shape == (2, 4, 2, 3)


def test_image_bad_arguments(tmp_path: Path) -> None:
    _images(tmp_path)
    fn = utils.image_dataset_from_directory
    with pytest.raises(ValueError, match="color_mode"):
        fn(tmp_path, color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation"):
        fn(tmp_path, interpolation="spline")
    with pytest.raises(ValueError, match="crop_to_aspect_ratio"):
        fn(tmp_path, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="image_size"):
        fn(tmp_path, image_size=(0, 3))


def _wav(path: Path, samples: np.ndarray, rate: int = 8000) -> None:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[1])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(samples.astype("<i2").tobytes())


def test_audio_padding_lengths_and_scale(tmp_path: Path, output: str) -> None:
    clips = {}
    for cls, lengths in (("no", (5, 3)), ("yes", (4,))):
        (tmp_path / cls).mkdir()
        for i, n in enumerate(lengths):
            samples = (np.arange(n * 2).reshape(n, 2) * 1000 - 3000).astype("int16")
            _wav(tmp_path / cls / f"{i}.wav", samples)
            clips[str(tmp_path / cls / f"{i}.wav")] = samples
    ds = utils.audio_dataset_from_directory(tmp_path, shuffle=False, batch_size=2, verbose=False)
    check_kind(ds, output)
    (a, la), (b, lb) = list(batches_of(ds))
    assert a.shape == (2, 5, 2) and b.shape == (1, 4, 2) and a.dtype == np.float32
    np.testing.assert_array_equal(np.concatenate([la, lb]), [0, 0, 1])
    np.testing.assert_allclose(a[0], clips[ds.file_paths[0]] / 32768.0)
    np.testing.assert_array_equal(a[1, 3:], 0.0)
    fixed = utils.audio_dataset_from_directory(
        tmp_path,
        shuffle=False,
        batch_size=3,
        output_sequence_length=4,
        verbose=False,
        sampling_rate=8000,
    )
    ((audio, _),) = list(batches_of(fixed))
    assert audio.shape == (3, 4, 2)
    with pytest.raises(ValueError, match="sampling_rate"):
        utils.audio_dataset_from_directory(tmp_path, sampling_rate=0, verbose=False)
    with pytest.raises(ValueError, match="ragged"):
        utils.audio_dataset_from_directory(tmp_path, ragged=True, output_sequence_length=3)


def test_audio_resampled_to_sampling_rate(tmp_path: Path, output: str) -> None:
    signal = pytest.importorskip("scipy.signal")
    (tmp_path / "a").mkdir()
    samples = (np.random.default_rng(0).uniform(-1, 1, (50, 2)) * 20000).astype("int16")
    _wav(tmp_path / "a" / "0.wav", samples, rate=8000)
    expected = signal.resample_poly(samples / 32768.0, 3, 2, axis=0)  # 8 kHz -> 12 kHz
    for length, shape in ((None, (1, 75, 2)), (60, (1, 60, 2))):
        ds = utils.audio_dataset_from_directory(
            tmp_path,
            sampling_rate=12000,
            output_sequence_length=length,
            labels=None,
            batch_size=1,
            shuffle=False,
            verbose=False,
        )
        check_kind(ds, output)
        (audio,) = list(batches_of(ds))
        assert audio.shape == shape
        # float32 output of a float64 reference: a few float32 ulps at unit amplitude.
        np.testing.assert_allclose(audio[0], expected[: shape[1]], rtol=0, atol=1e-6)


def test_resampling_keeps_a_tone() -> None:
    from lamina.utils.audio_dataset import resample

    time_in = np.arange(800) / 8000.0
    tone = np.sin(2 * np.pi * 440.0 * time_in)[:, None].astype("float32")
    for rate in (16000, 6000):
        out = resample(tone, 8000, rate)
        assert out.shape == (-(-800 * rate // 8000), 1)
        time_out = np.arange(len(out)) / rate
        middle = slice(len(out) // 4, 3 * len(out) // 4)  # away from the zero-padded ends
        reference = np.sin(2 * np.pi * 440.0 * time_out)[middle]
        np.testing.assert_allclose(out[middle, 0], reference, rtol=0, atol=2e-3)


def test_audio_ragged_on_tf_data(tmp_path: Path) -> None:
    tf = pytest.importorskip("tensorflow")
    for cls, n in (("a", 3), ("b", 5)):
        (tmp_path / cls).mkdir()
        _wav(tmp_path / cls / "x.wav", np.ones((n, 1), "int16"))
    ds = utils.audio_dataset_from_directory(
        tmp_path, ragged=True, shuffle=False, batch_size=2, verbose=False
    )
    audio, _ = next(iter(ds))
    assert isinstance(audio, tf.RaggedTensor)
    assert audio.row_lengths().numpy().tolist() == [3, 5]


@pytest.mark.requires(Capability.TRAINING)
def test_fit_on_image_and_audio_datasets(tmp_path: Path, output: str) -> None:
    _images(tmp_path / "img")
    ds = utils.image_dataset_from_directory(
        tmp_path / "img",
        image_size=(4, 4),
        batch_size=4,
        seed=1,
        verbose=False,
        label_mode="categorical",
    )
    model = lamina.Sequential(
        [lamina.Input((4, 4, 3)), layers.Rescaling(1 / 255), layers.Flatten(), layers.Dense(2)]
    )
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    assert np.isfinite(model.fit(ds, epochs=2, verbose=0).history["loss"]).all()
    for cls in ("a", "b"):
        (tmp_path / "wav" / cls).mkdir(parents=True)
        _wav(tmp_path / "wav" / cls / "x.wav", np.full((6, 1), 100, "int16"))
    audio = utils.audio_dataset_from_directory(
        tmp_path / "wav",
        batch_size=2,
        output_sequence_length=6,
        label_mode="binary",
        verbose=False,
    )
    model = lamina.Sequential([lamina.Input((6, 1)), layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    assert np.isfinite(model.fit(audio, epochs=1, verbose=0).history["loss"]).all()
