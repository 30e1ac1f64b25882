"""`model.export(format="tf_saved_model")` and `lamina.export.ExportArchive`.

The artifacts are loaded back with plain TensorFlow and compared to the Lamina model's own
outputs. TensorFlow-only tests skip where it is not installed (the jax test venv).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lamina
import lamina.export
from lamina.layers.core import Dense
from lamina_saving.export.specs import (
    ExportSpec,
    infer_signature,
    normalize_signature,
    signature_for_model,
)

BACKEND = lamina.backend.backend()
EXPORTS = BACKEND in ("tensorflow", "jax")
HAS_TF = importlib.util.find_spec("tensorflow") is not None

needs_export = pytest.mark.skipif(
    not EXPORTS, reason="SavedModel export needs the tensorflow or jax backend"
)


def _tf() -> Any:
    return pytest.importorskip("tensorflow")


def _sequential() -> Any:
    return lamina.Sequential(
        [lamina.Input((4,)), Dense(8, activation="relu"), Dense(3)], name="seq"
    )


def _data(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype("float32")


def _np(x: Any) -> np.ndarray:
    return np.asarray(lamina.ops.convert_to_numpy(x))


# --- exported artifacts, served by plain TensorFlow ---------------------------------------
@needs_export
def test_sequential_serves_in_plain_tensorflow(tmp_path: Path) -> None:
    tf = _tf()
    model = _sequential()
    x = _data(5, 4)
    model.export(tmp_path / "seq", verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "seq"))
    np.testing.assert_allclose(loaded.serve(x).numpy(), _np(model(x)), atol=1e-5)
    # Another batch size goes through the same artifact: the batch dim is free.
    x2 = _data(2, 4, seed=1)
    np.testing.assert_allclose(loaded.serve(x2).numpy(), _np(model(x2)), atol=1e-5)
    (out,) = loaded.signatures["serving_default"](tf.constant(x)).values()
    np.testing.assert_allclose(out.numpy(), _np(model(x)), atol=1e-5)
    assert len(loaded.variables) == 4
    assert sorted(v.shape.as_list() for v in loaded.variables) == sorted(
        list(v.shape) for v in model.variables
    )


@needs_export
def test_fixed_input_signature_from_input_spec(tmp_path: Path) -> None:
    tf = _tf()
    model = _sequential()
    x = _data(3, 4)
    model.export(
        tmp_path / "fixed",
        verbose=False,
        input_signature=[lamina.InputSpec(shape=(3, 4), dtype="float32")],
    )
    loaded = tf.saved_model.load(str(tmp_path / "fixed"))
    np.testing.assert_allclose(loaded.serve(x).numpy(), _np(model(x)), atol=1e-5)
    spec = loaded.signatures["serving_default"].structured_input_signature[1]
    assert [s.shape.as_list() for s in spec.values()] == [[3, 4]]


@needs_export
def test_inference_mode_and_non_trainable_state(tmp_path: Path) -> None:
    tf = _tf()
    from lamina.layers.regularization import Dropout

    model = lamina.Sequential([lamina.Input((6,)), Dense(6), Dropout(0.9), Dense(2)])
    x = _data(4, 6)
    model.export(tmp_path / "drop", verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "drop"))
    # training=False: dropout is off, so the artifact is deterministic and equals the model.
    np.testing.assert_allclose(loaded.serve(x).numpy(), _np(model(x, training=False)), atol=1e-5)
    np.testing.assert_allclose(loaded.serve(x).numpy(), loaded.serve(x).numpy())


@needs_export
def test_functional_model_with_two_inputs(tmp_path: Path) -> None:
    tf = _tf()
    a = lamina.Input((3,), name="a")
    b = lamina.Input((2,), name="b")
    out = Dense(4)(lamina.ops.concatenate([Dense(5)(a), b], axis=-1))
    model = lamina.Model([a, b], out)
    xa, xb = _data(6, 3), _data(6, 2, seed=1)
    model.export(tmp_path / "two", verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "two"))
    np.testing.assert_allclose(
        loaded.serve([xa, xb]).numpy(), _np(model([xa, xb])), atol=1e-5
    )
    outs = loaded.signatures["serving_default"](a=tf.constant(xa), b=tf.constant(xb))
    np.testing.assert_allclose(next(iter(outs.values())).numpy(), _np(model([xa, xb])), atol=1e-5)


class _TwoDense(lamina.Model):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.first = Dense(5, activation="tanh")
        self.second = Dense(2)

    def call(self, inputs: Any) -> Any:
        return self.second(self.first(inputs))


@needs_export
def test_subclassed_model_signature_from_build_shape(tmp_path: Path) -> None:
    tf = _tf()
    model = _TwoDense()
    x = _data(3, 7)
    expected = _np(model(x))
    model.export(tmp_path / "sub", verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "sub"))
    np.testing.assert_allclose(loaded.serve(x).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(
        loaded.serve(x[:1]).numpy(), expected[:1], atol=1e-5
    )


@needs_export
def test_export_archive_with_custom_endpoints(tmp_path: Path, capsys: Any) -> None:
    tf = _tf()
    model = _sequential()
    archive = lamina.export.ExportArchive()
    archive.track(model)
    spec = lamina.InputSpec(shape=(2, 4), dtype="float32")
    archive.add_endpoint("serve", lambda x: model(x, training=False), input_signature=[spec])
    archive.add_endpoint(
        "doubled", lambda x: lamina.ops.multiply(model(x, training=False), 2.0),
        input_signature=[spec],
    )
    archive.add_variable_collection("kernels", [layer.kernel for layer in model.layers])
    archive.write_out(tmp_path / "arch")
    assert "doubled" in capsys.readouterr().out
    loaded = tf.saved_model.load(str(tmp_path / "arch"))
    x = _data(2, 4)
    np.testing.assert_allclose(loaded.serve(x).numpy(), _np(model(x)), atol=1e-5)
    np.testing.assert_allclose(loaded.doubled(x).numpy(), 2 * _np(model(x)), atol=1e-5)
    assert [list(v.shape) for v in loaded.kernels] == [[4, 8], [8, 3]]
    assert list(loaded.signatures) == ["serving_default"]


@needs_export
def test_export_archive_rejects_bad_use(tmp_path: Path) -> None:
    _tf()
    archive = lamina.export.ExportArchive()
    spec = [ExportSpec((1,), "float32")]
    with pytest.raises(ValueError, match="input_signature"):
        archive.add_endpoint("serve", lambda x: x)
    with pytest.raises(ValueError, match="name"):
        archive.add_endpoint("not a name", lambda x: x, input_signature=spec)
    with pytest.raises(ValueError, match="no endpoint"):
        archive.write_out(tmp_path / "never_written")
    with pytest.raises(ValueError, match="built"):
        archive.track(Dense(3))
    with pytest.raises(TypeError, match="resource"):
        archive.track(object())


@needs_export
def test_unbuilt_subclassed_model_needs_a_signature(tmp_path: Path) -> None:
    _tf()
    with pytest.raises(ValueError, match="not been built"):
        _TwoDense().export(tmp_path / "nope", verbose=False)


# --- backends without a SavedModel route; TensorFlow missing --------------------------------
@pytest.mark.skipif(EXPORTS, reason="this backend can export")
def test_other_backends_raise_a_clear_error(tmp_path: Path) -> None:
    model = _sequential()
    with pytest.raises(ValueError) as info:
        model.export(tmp_path / "x")
    assert str(info.value) == (
        "model.export(format='tf_saved_model') needs the tensorflow or jax backend; "
        f"the current backend is {BACKEND!r}"
    )
    with pytest.raises(ValueError, match="tensorflow or jax backend"):
        lamina.export.ExportArchive()


@pytest.mark.skipif(not (BACKEND == "jax" and not HAS_TF), reason="needs jax without tensorflow")
def test_jax_without_tensorflow_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(ImportError, match="pip install tensorflow"):
        _sequential().export(tmp_path / "x")


# --- arguments, on every backend ---------------------------------------------------------------
def test_bad_format_names_the_argument(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"Argument `format` must be one of \('tf_saved_model',\)"
                       r"\. Received: format='onnx'"):
        _sequential().export(tmp_path / "x", format="onnx")


def test_unknown_keyword_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="is_static"):
        _sequential().export(tmp_path / "x", is_static=True)


def test_inferred_signatures() -> None:
    assert infer_signature(_sequential()) == [ExportSpec((None, 4), "float32", "input_layer")]
    a = lamina.Input((3,), name="a")
    b = lamina.Input((2,), dtype="int32", name="b")
    model = lamina.Model({"a": a, "b": b}, Dense(1)(a))
    assert infer_signature(model) == [
        {"a": ExportSpec((None, 3), "float32", "a"), "b": ExportSpec((None, 2), "int32", "b")}
    ]
    sub = _TwoDense()
    sub(_data(8, 7))
    assert infer_signature(sub) == [ExportSpec((None, 7), "float32")]


def test_given_signatures_are_normalized() -> None:
    a, b = lamina.Input((3,), name="a"), lamina.Input((2,), name="b")
    model = lamina.Model([a, b], Dense(1)(lamina.ops.concatenate([a, b], axis=-1)))
    flat = [lamina.InputSpec(shape=(None, 3)), lamina.InputSpec(shape=(None, 2), dtype="int32")]
    expected = [[ExportSpec((None, 3), "float32"), ExportSpec((None, 2), "int32")]]
    assert signature_for_model(model, flat) == expected
    assert signature_for_model(model, [flat]) == expected
    single = normalize_signature(lamina.Input((5,), dtype="float16"))
    assert single == [ExportSpec((None, 5), "float16", single[0].name)]


def test_bad_signatures_are_reported() -> None:
    with pytest.raises(ValueError, match="InputSpec without one"):
        normalize_signature([lamina.InputSpec(ndim=2)])
    with pytest.raises(TypeError, match="input_signature"):
        normalize_signature(["float32"])
    with pytest.raises(ValueError, match="at least one input"):
        normalize_signature([])
    with pytest.raises(ValueError, match="negative"):
        normalize_signature([ExportSpec((-1, 2), "float32")])
