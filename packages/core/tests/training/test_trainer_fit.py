"""`fit`: every input kind, its arguments (validation, weights, epochs, steps), History."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability

pytestmark = pytest.mark.requires(Capability.TRAINING)

RNG = np.random.default_rng(1)
X = RNG.normal(size=(40, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.1).astype("float32")


def _linear(seed: int = 0) -> lamina.Model:
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def _steps(model) -> int:
    return int(model.optimizer.iterations.numpy())


def test_fit_arrays_history_and_epoch_counts():
    model = _linear()
    history = model.fit(X, Y, batch_size=16, epochs=3, verbose=0)
    assert history is model.history
    assert history.epoch == [0, 1, 2]
    assert set(history.history) == {"loss", "mae"}
    assert all(len(v) == 3 for v in history.history.values())
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert _steps(model) == 9  # ceil(40 / 16) = 3 batches per epoch
    assert history.params["epochs"] == 3 and history.params["steps"] == 3


def test_fit_logs_equal_an_evaluate_free_numpy_check_of_the_last_epoch():
    # With shuffle=False and one batch, the epoch loss is the loss before the update.
    model = _linear()
    before = model.predict(X, verbose=0)
    history = model.fit(X, Y, batch_size=40, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], ((before - Y) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(history.history["mae"][0], np.abs(before - Y).mean(), rtol=1e-5)


def test_validation_split_takes_the_tail_and_validation_data_tuple():
    model = _linear()
    history = model.fit(X, Y, batch_size=8, epochs=2, validation_split=0.25, verbose=0)
    assert set(history.history) == {"loss", "mae", "val_loss", "val_mae"}
    assert _steps(model) == 2 * 4  # 30 training samples, batch 8
    np.testing.assert_allclose(
        history.history["val_loss"][-1],
        model.evaluate(X[30:], Y[30:], verbose=0, return_dict=True)["loss"], rtol=1e-5)

    weights = np.linspace(0.0, 1.0, 40).astype("float32")
    history = model.fit(X, Y, epochs=1, verbose=0, validation_data=(X[:10], Y[:10], weights[:10]))
    pred = model.predict(X[:10], verbose=0)
    expected = (((pred - Y[:10]) ** 2)[:, 0] * weights[:10]).mean()
    np.testing.assert_allclose(history.history["val_loss"][0], expected, rtol=1e-4)


def test_validation_freq_and_validation_steps_and_batch_size():
    model = _linear()
    seen = []
    callback = lamina.callbacks.LambdaCallback(
        on_test_batch_end=lambda batch, logs: seen.append(batch)
    )
    history = model.fit(X, Y, epochs=4, batch_size=20, validation_data=(X, Y),
                        validation_freq=2, validation_steps=3, validation_batch_size=5,
                        callbacks=[callback], verbose=0)
    assert len(history.history["loss"]) == 4
    assert len(history.history["val_loss"]) == 2  # after epochs 2 and 4
    assert seen == [0, 1, 2, 0, 1, 2]


def test_initial_epoch_and_steps_per_epoch():
    model = _linear()
    history = model.fit(X, Y, batch_size=4, epochs=5, initial_epoch=3, steps_per_epoch=2,
                        verbose=0)
    assert history.epoch == [3, 4]
    assert _steps(model) == 4


def test_shuffle_false_is_deterministic_and_shuffle_true_changes_batches():
    class Record(lamina.layers.Layer):
        def __init__(self, seen, **kwargs):
            super().__init__(**kwargs)
            self.record = seen.append  # a bound method: not tracked (copied) like a list

        def call(self, x):
            self.record(lamina.ops.convert_to_numpy(x).copy())
            return x

    orders = {}
    for shuffle in (False, True):
        seen: list = []
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential([layers.Input((3,)), Record(seen), layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        model.fit(X, Y, batch_size=10, epochs=1, shuffle=shuffle, verbose=0)
        orders[shuffle] = np.concatenate([s for s in seen if s.shape[0] == 10])[-40:]
    np.testing.assert_array_equal(orders[False], X)
    assert not np.array_equal(orders[True], X)
    np.testing.assert_allclose(np.sort(orders[True], axis=0), np.sort(X, axis=0))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_class_weight_scales_the_loss_per_class():
    lamina.utils.set_random_seed(0)
    labels = (X[:, 0] > 0).astype("int32")
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2, activation="softmax")])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="sparse_categorical_crossentropy")
    probs = model.predict(X, verbose=0)
    per_sample = -np.log(probs[np.arange(40), labels])
    history = model.fit(X, labels, batch_size=40, class_weight={0: 0.5, 1: 3.0}, verbose=0)
    weights = np.where(labels == 1, 3.0, 0.5)
    expected = (per_sample * weights).mean()
    np.testing.assert_allclose(history.history["loss"][0], expected, rtol=1e-4)


def test_sample_weight_changes_the_loss_and_zero_weights_freeze_training():
    model = _linear()
    before = [w.copy() for w in model.get_weights()]
    model.fit(X, Y, sample_weight=np.zeros(40, "float32"), batch_size=8, verbose=0)
    for w, b in zip(model.get_weights(), before):
        np.testing.assert_allclose(w, b)
    start_loss = ((model.predict(X, verbose=0) - Y) ** 2).mean()
    # 2-D weights, another batch size: the TF step is traced again with relaxed shapes
    history = model.fit(X, Y, sample_weight=np.full((40, 1), 2.0, "float32"),
                        batch_size=40, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], 2.0 * start_loss, rtol=1e-5)


def test_mismatched_lengths_and_shapes_fail_before_training():
    model = _linear()
    with pytest.raises(ValueError, match=r"samples"):
        model.fit(X, Y[:30], verbose=0)
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(X, Y, sample_weight=np.ones(7), verbose=0)
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(X, Y, validation_split=1.5, verbose=0)
    assert (_steps(model) == 0 and not model.optimizer.built) or _steps(model) == 0
    with pytest.raises(ValueError):
        model.fit(X[:, :2], Y, verbose=0)  # the model takes 3 features
    assert _steps(model) == 0


def test_nested_dict_and_list_inputs_and_outputs():
    lamina.utils.set_random_seed(0)
    a = layers.Input((3,), name="a")
    b = layers.Input((2,), name="b")
    joined = layers.Concatenate()([a, b])
    first = layers.Dense(1, name="first")(joined)
    second = layers.Dense(2, name="second")(joined)
    model = lamina.Model({"a": a, "b": b}, {"first": first, "second": second})
    model.compile(optimizer="sgd", loss={"first": "mse", "second": "mae"})
    xb = RNG.normal(size=(40, 2)).astype("float32")
    y2 = RNG.normal(size=(40, 2)).astype("float32")
    history = model.fit({"a": X, "b": xb}, {"first": Y, "second": y2}, batch_size=8,
                        epochs=2, verbose=0)
    assert set(history.history) == {"loss", "first_loss", "second_loss"}
    out = model.predict({"a": X, "b": xb}, batch_size=7, verbose=0)
    assert isinstance(out, dict) and out["first"].shape == (40, 1)
    assert out["second"].shape == (40, 2)

    listed = lamina.Model([a, b], [first, second])
    listed.compile(optimizer="sgd", loss=["mse", "mae"])
    history = listed.fit([X, xb], [Y, y2], batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    with pytest.raises(ValueError, match="x"):
        listed.fit([X, xb[:5]], [Y, y2], verbose=0)


def _batches(n_batches: int, size: int = 8):
    for i in range(n_batches):
        lo = (i * size) % 40
        yield X[lo:lo + size], Y[lo:lo + size]


def test_python_generators_with_steps_and_validation_steps():
    model = _linear()

    def forever():
        while True:
            yield from _batches(5)

    history = model.fit(forever(), steps_per_epoch=3, epochs=2, validation_data=forever(),
                        validation_steps=2, verbose=0)
    assert _steps(model) == 6
    assert len(history.history["val_loss"]) == 2
    finite = _linear()
    finite.fit(_batches(4), epochs=1, verbose=0)
    assert _steps(finite) == 4
    logs = finite.evaluate(_batches(5), verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], finite.evaluate(X, Y, verbose=0,
                                                               return_dict=True)["loss"],
                               rtol=1e-5)


class _Squares(lamina.utils.PyDataset):
    def __init__(self, batch: int, **kwargs):
        super().__init__(**kwargs)
        self.batch = batch

    def __len__(self) -> int:
        return int(np.ceil(40 / self.batch))

    def __getitem__(self, index: int):
        lo = index * self.batch
        return X[lo:lo + self.batch], Y[lo:lo + self.batch]


@pytest.mark.parametrize("workers", [1, 2])
def test_py_dataset_with_workers_trains_on_every_batch(workers):
    model = _linear()
    history = model.fit(_Squares(8, workers=workers), epochs=2,
                        validation_data=_Squares(20, workers=workers), verbose=0)
    assert _steps(model) == 10
    assert len(history.history["val_loss"]) == 2
    pred = model.predict(_Squares(16, workers=workers), verbose=0)
    np.testing.assert_allclose(pred, model.predict(X, verbose=0), rtol=1e-5, atol=1e-6)


def test_tf_data_dataset():
    tf = pytest.importorskip("tensorflow")
    model = _linear()
    train = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
    history = model.fit(train, epochs=2, validation_data=train.take(2), verbose=0)
    assert _steps(model) == 10 and len(history.history["val_loss"]) == 2
    logs = model.evaluate(train, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], model.evaluate(X, Y, verbose=0,
                                                            return_dict=True)["loss"], rtol=1e-5)
    pred = model.predict(tf.data.Dataset.from_tensor_slices(X).batch(16), verbose=0)
    assert pred.shape == (40, 1)
    repeated = _linear()
    repeated.fit(train.repeat(), steps_per_epoch=3, epochs=2, verbose=0)
    assert _steps(repeated) == 6


def test_torch_data_loader():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    model = _linear()
    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=8)
    history = model.fit(loader, epochs=2, validation_data=loader, verbose=0)
    assert _steps(model) == 10 and len(history.history["val_mae"]) == 2
    pred = model.predict(DataLoader(TensorDataset(torch.from_numpy(X)), batch_size=16),
                         verbose=0)
    np.testing.assert_allclose(pred, model.predict(X, verbose=0), rtol=1e-5, atol=1e-6)


def test_callbacks_see_every_hook_in_order_and_can_stop_training():
    events: list[str] = []

    class Recorder(lamina.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            events.append(f"epoch_begin{epoch}")

        def on_train_batch_end(self, batch, logs=None):
            events.append(f"batch{batch}:{sorted(logs)}")

        def on_test_begin(self, logs=None):
            events.append("test_begin")

        def on_epoch_end(self, epoch, logs=None):
            events.append(f"epoch_end{epoch}:{sorted(logs)}")
            if epoch == 1:
                self.model.stop_training = True

        def on_train_end(self, logs=None):
            events.append("train_end")

    model = _linear()
    history = model.fit(X, Y, batch_size=20, epochs=5, validation_data=(X, Y), verbose=0,
                        callbacks=[Recorder()])
    assert history.epoch == [0, 1]
    assert events == [
        "train_begin",
        "epoch_begin0", "batch0:['loss', 'mae']", "batch1:['loss', 'mae']", "test_begin",
        "epoch_end0:['loss', 'mae', 'val_loss', 'val_mae']",
        "epoch_begin1", "batch0:['loss', 'mae']", "batch1:['loss', 'mae']", "test_begin",
        "epoch_end1:['loss', 'mae', 'val_loss', 'val_mae']",
        "train_end",
    ]


def test_early_stopping_restores_and_stops():
    model = _linear()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")  # the loss never improves
    stop = lamina.callbacks.EarlyStopping(monitor="loss", patience=1, min_delta=1e-4)
    history = model.fit(X, Y, epochs=10, verbose=0, callbacks=[stop])
    assert len(history.epoch) == 2


def test_fit_when_no_trainable_weight_reaches_the_loss():
    # torch raised "element 0 of tensors does not require grad"; JAX and TensorFlow train
    # with no gradient. The weights stay as they were on every backend.
    inputs = layers.Input((3,))
    dense = layers.Dense(1)
    outputs = lamina.ops.stop_gradient(dense(inputs))
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse")
    before = [np.array(w) for w in model.get_weights()]
    history = model.fit(X, Y, epochs=1, batch_size=16, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    for old, new in zip(before, model.get_weights()):
        np.testing.assert_array_equal(old, new)
