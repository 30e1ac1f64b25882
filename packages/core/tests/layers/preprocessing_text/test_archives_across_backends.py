"""Archives of text and table models reload on another backend and predict the same.

A subprocess on another installed backend builds and saves, as ``.keras`` archives, a
text model (two `TextVectorization` layers, int ids into an `Embedding` and tf-idf into a
`Dense`, their vocabulary and IDF weights inside the archive) and a FeatureSpace model
(Keras 3's recipe: a model on the encoded features wrapped into one on the raw inputs),
with their predictions on fixed raw inputs. This process, on the backend of the session,
loads both and must predict the same. One subprocess per backend session keeps it cheap;
the sessions together cover every backend as a target.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina.backend import registry

pytest.importorskip("lamina_saving")

SAVE = """
import sys
import numpy as np
import lamina
from lamina import layers
from lamina.utils import FeatureSpace

folder = sys.argv[1]
lamina.utils.set_random_seed(7)
texts = np.array([["the cat sat"], ["a dog ran far"], ["the dog sat"], ["a cat"]])
ids = layers.TextVectorization(max_tokens=12, output_sequence_length=5, name="ids")
ids.adapt(texts[:, 0])
tfidf = layers.TextVectorization(output_mode="tf_idf", name="tfidf")
tfidf.adapt(texts[:, 0])
raw = lamina.Input((1,), dtype="string", name="text")
pooled = layers.GlobalAveragePooling1D()(layers.Embedding(12, 4)(ids(raw)))
weighted = layers.Dense(3)(tfidf(raw))
text_model = lamina.Model(raw, layers.Dense(2)(layers.Concatenate()([pooled, weighted])))
text_model.save(folder + "/text.keras")
np.save(folder + "/text.npy", lamina.ops.convert_to_numpy(text_model(texts)))

rng = np.random.default_rng(0)
table = {
    "age": rng.uniform(20, 60, 6).astype("float32"),
    "city": np.array(["a", "b", "c", "a", "zz", "b"]),
    "code": np.array([1, 2, 3, 1, 9, 0], "int32"),
    "score": rng.uniform(0, 1, 6).astype("float32"),
}
space = FeatureSpace(
    {"age": "float_normalized", "city": "string_categorical", "code": "integer_hashed",
     "score": FeatureSpace.float_discretized(num_bins=3)},
    hashing_dim=4,
)
space.adapt(table)
encoded = space.get_encoded_features()
head = lamina.Model(encoded, layers.Dense(2)(layers.Dense(5, activation="relu")(encoded)))
table_model = lamina.Model(space.get_inputs(), head(space.get_encoded_features()))
table_model.save(folder + "/table.keras")
columns = {k: v[:, None] for k, v in table.items()}
np.save(folder + "/table.npy", lamina.ops.convert_to_numpy(table_model(columns)))
np.savez(folder + "/table_in.npz", **columns)
np.save(folder + "/text_in.npy", texts)
print("saved on", lamina.backend.backend())
"""


def _source_backend() -> str | None:
    """Another installed backend than the session's (numpy, then torch: they start fastest)."""
    here = lamina.backend.backend()
    for name in ("numpy", "torch", "jax", "tensorflow"):
        installed = name in registry.installed_backends()
        if name != here and installed and importlib.util.find_spec(name) is not None:
            return name
    return None


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    source = _source_backend()
    if source is None:
        pytest.skip("only one backend is installed: no other backend to save on")
    folder = tmp_path_factory.mktemp("text_archives")
    done = subprocess.run(
        [sys.executable, "-c", SAVE, str(folder)],
        env={**os.environ, "LAMINA_BACKEND": source},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"saving on {source} failed:\n{done.stderr[-4000:]}"
    assert f"saved on {source}" in done.stdout
    return source, folder


def _np(x: object) -> np.ndarray:
    return np.asarray(lamina.ops.convert_to_numpy(x))


def test_text_vectorization_archive_predicts_the_same(saved: tuple[str, Path]) -> None:
    _, folder = saved
    model = lamina.saving.load_model(str(folder / "text.keras"))
    texts = np.load(folder / "text_in.npy")
    expected = np.load(folder / "text.npy")
    assert np.abs(expected).max() > 1e-3  # a real signal
    np.testing.assert_allclose(_np(model(texts)), expected, rtol=1e-5, atol=1e-6)
    ids = model.get_layer("ids")
    assert ids.get_vocabulary()[:2] == ["", "[UNK]"] and len(ids.get_vocabulary()) > 4


def test_feature_space_model_archive_predicts_the_same(saved: tuple[str, Path]) -> None:
    _, folder = saved
    model = lamina.saving.load_model(str(folder / "table.keras"))
    columns = dict(np.load(folder / "table_in.npz"))
    expected = np.load(folder / "table.npy")
    assert np.abs(expected).max() > 1e-3
    np.testing.assert_allclose(_np(model(columns)), expected, rtol=1e-5, atol=1e-6)
