"""load_img / img_to_array / array_to_img / save_img / smart_resize with Pillow."""

from __future__ import annotations

import builtins
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lamina
from lamina import utils

PIL = pytest.importorskip("PIL.Image")


def _pixels(path: Path, mode: str | None = None, size: tuple[int, int] | None = None) -> Any:
    with PIL.open(path) as img:
        img = img.convert(mode) if mode else img
        img = img.resize(size, PIL.Resampling.BILINEAR) if size else img
        return np.asarray(img)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    array = rng.integers(0, 256, size=(5, 7, 3)).astype("float32")
    path = tmp_path / "x.png"
    utils.save_img(path, array, scale=False)
    img = utils.load_img(path)
    assert img.size == (7, 5) and img.mode == "RGB"
    back = utils.img_to_array(img)
    assert back.dtype == np.float32 and back.shape == (5, 7, 3)
    np.testing.assert_array_equal(back, array)
    gray = utils.img_to_array(utils.load_img(str(path), color_mode="grayscale"))
    assert gray.shape == (5, 7, 1)
    np.testing.assert_array_equal(gray[:, :, 0], _pixels(path, "L"))
    assert utils.img_to_array(utils.load_img(path, color_mode="rgba")).shape == (5, 7, 4)
    first = utils.img_to_array(img, data_format="channels_first", dtype="uint8")
    assert first.shape == (3, 5, 7) and first.dtype == np.uint8


def test_load_img_resizes_and_keeps_aspect_ratio(tmp_path: Path) -> None:
    array = np.zeros((4, 8, 3), "uint8")
    array[:, 2:6] = 255  # a white centre band: a 4x4 centre crop is all white
    path = tmp_path / "band.bmp"
    PIL.fromarray(array).save(path)
    img = utils.load_img(path, target_size=(2, 2), interpolation="bilinear")
    assert img.size == (2, 2)
    np.testing.assert_array_equal(np.asarray(img), _pixels(path, size=(2, 2)))
    cropped = utils.load_img(path, target_size=(2, 2), keep_aspect_ratio=True)
    np.testing.assert_array_equal(np.asarray(cropped), 255)
    with pytest.raises(ValueError, match="interpolation"):
        utils.load_img(path, target_size=(2, 2), interpolation="cubic-ish")
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(path, color_mode="hsv")


def test_array_to_img_scales_and_modes() -> None:
    x = np.linspace(-1.0, 1.0, 12, dtype="float32").reshape(2, 2, 3)
    img = utils.array_to_img(x)
    assert img.mode == "RGB"
    expected = np.rint((x + 1.0) / 2.0 * 255).astype("uint8")
    np.testing.assert_array_equal(np.asarray(img), expected)
    assert utils.array_to_img(np.ones((2, 2, 1)) * 3, scale=False).mode == "L"
    assert utils.array_to_img(np.ones((2, 2, 1)) * 4000, scale=False).mode == "I"
    assert utils.array_to_img(np.zeros((4, 2, 2)), data_format="channels_first").mode == "RGBA"
    tensor = lamina.ops.convert_to_tensor(np.zeros((2, 2, 3), "float32"))
    assert utils.array_to_img(tensor).size == (2, 2)
    with pytest.raises(ValueError, match="3D"):
        utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="channels"):
        utils.array_to_img(np.zeros((2, 2, 2)))


def test_save_img_file_object_and_jpeg_alpha(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    utils.save_img(buffer, np.zeros((3, 3, 3)), file_format="png")
    buffer.seek(0)
    assert utils.load_img(buffer).size == (3, 3)
    with pytest.warns(UserWarning, match="alpha"):
        utils.save_img(tmp_path / "a.jpg", np.ones((3, 3, 4)))
    with PIL.open(tmp_path / "a.jpg") as img:
        assert img.mode == "RGB"


def test_smart_resize_matches_crop_then_resize() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((8, 4, 3)).astype("float32")
    out = lamina.ops.convert_to_numpy(lamina.preprocessing.image.smart_resize(x, (2, 2)))
    reference = lamina.ops.convert_to_numpy(lamina.ops.image.resize(x[2:6], (2, 2)))
    np.testing.assert_allclose(out, reference, rtol=1e-6)
    batch = np.stack([x, x])
    assert tuple(lamina.preprocessing.image.smart_resize(batch, (3, 3)).shape) == (2, 3, 3, 3)


def test_missing_pillow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_pil(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match=r"lamina\[image\]"):
        utils.load_img("anything.png")
