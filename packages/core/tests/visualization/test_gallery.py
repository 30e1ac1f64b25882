"""lamina.visualization's matplotlib galleries (Agg backend; skipped where matplotlib is
not installed) and the install hint when it is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from lamina import visualization

RNG = np.random.default_rng(5)
IMAGES = RNG.uniform(0, 255, (3, 8, 10, 3)).astype("float32")
BOXES = {"boxes": np.array([[[1, 1, 6, 5]]] * 3, "float32"), "labels": np.array([[1]] * 3)}


@pytest.fixture
def plt() -> object:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    yield pyplot
    pyplot.close("all")


def test_plot_image_gallery(plt: object, tmp_path: Path) -> None:
    fig = visualization.plot_image_gallery(IMAGES, y_true=[0, 1, 1], y_pred=np.eye(2)[[1, 1, 0]],
                                           label_map={0: "cat", 1: "dog"}, cols=2,
                                           data_format="channels_last")  # fmt: skip
    assert len(fig.axes) == 4  # 2 x 2, the last cell empty
    assert fig.axes[0].get_title() == "True: cat\nPred: dog"
    shown = fig.axes[1].get_images()[0].get_array()
    np.testing.assert_allclose(shown, IMAGES[1] / 255.0, atol=1e-6)
    path = tmp_path / "gallery.png"
    visualization.plot_image_gallery({"images": IMAGES[:1], "labels": [1]}, path=str(path),
                                     data_format="channels_last")  # fmt: skip
    assert path.stat().st_size > 0


def test_plot_bounding_box_gallery(plt: object) -> None:
    fig = visualization.plot_bounding_box_gallery(
        IMAGES, "xyxy", y_true=BOXES, class_mapping={1: "car"}, legend=True,
        true_color=(0, 188, 212), line_thickness=1, data_format="channels_last",
    )  # fmt: skip
    shown = np.asarray(fig.axes[0].get_images()[0].get_array())
    np.testing.assert_allclose(shown[1, 3], np.array([0, 188, 212]) / 255.0, atol=1e-6)
    assert [t.get_text() for t in fig.axes[0].texts] == ["car"]
    assert fig.legends and len(fig.legends[0].get_texts()) == 2
    with pytest.raises(TypeError, match="colour"):
        visualization.plot_bounding_box_gallery(IMAGES, "xyxy", colour=(1, 2, 3))


def test_plot_segmentation_mask_gallery(plt: object) -> None:
    masks = RNG.integers(0, 3, (3, 8, 10, 1))
    fig = visualization.plot_segmentation_mask_gallery(IMAGES, 3, y_true=masks, y_pred=masks,
                                                       data_format="channels_last")  # fmt: skip
    assert len(fig.axes) == 9  # images, true masks, predicted masks: one row each
    first, overlay = (np.asarray(fig.axes[i].get_images()[0].get_array()) for i in (0, 3))
    assert not np.allclose(first, overlay)


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "lamina\[visualization\]"'):
        visualization.plot_image_gallery(IMAGES, data_format="channels_last")
