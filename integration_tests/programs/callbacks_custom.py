# backends: jax torch tensorflow
"""Callbacks: a custom Callback, LearningRateScheduler, TerminateOnNaN and History.

The custom callback records which hooks ran and sees the logs; the scheduler halves
the learning rate every epoch; a second run made to diverge stops at the first NaN.
"""

import math

import numpy as np

import lamina as keras

keras.utils.set_random_seed(12)
rng = np.random.default_rng(12)
x = rng.normal(size=(256, 4)).astype("float32")
y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")).astype("float32")


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []
        self.epoch_logs = []
        self.batches_per_epoch = []
        self.learning_rates = []

    def on_train_begin(self, logs=None):
        self.events.append("train_begin")
        assert self.model is not None

    def on_epoch_begin(self, epoch, logs=None):
        self.events.append(f"epoch_begin_{epoch}")
        self.batches_per_epoch.append(0)

    def on_train_batch_end(self, batch, logs=None):
        self.batches_per_epoch[-1] += 1
        assert "loss" in logs

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(f"epoch_end_{epoch}")
        self.epoch_logs.append(dict(logs))
        rate = keras.ops.convert_to_numpy(self.model.optimizer.learning_rate)
        self.learning_rates.append(float(rate))

    def on_train_end(self, logs=None):
        self.events.append("train_end")


def schedule(epoch, lr):
    return 0.1 if epoch == 0 else lr * 0.5


def make_model():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


model = make_model()
recorder = Recorder()
history = model.fit(
    x,
    y,
    epochs=4,
    batch_size=64,
    validation_split=0.25,
    callbacks=[
        keras.callbacks.LearningRateScheduler(schedule),
        recorder,
        keras.callbacks.TerminateOnNaN(),
    ],
    verbose=0,
)
assert isinstance(history, keras.callbacks.History)
assert history is model.history
assert history.epoch == [0, 1, 2, 3], history.epoch
assert history.params["epochs"] == 4 and history.params["steps"] == 3, history.params
assert recorder.events[0] == "train_begin" and recorder.events[-1] == "train_end"
assert recorder.events[1:-1] == [f"epoch_{w}_{e}" for e in range(4) for w in ("begin", "end")]
assert recorder.batches_per_epoch == [3, 3, 3, 3], recorder.batches_per_epoch
np.testing.assert_allclose(recorder.learning_rates, [0.1, 0.05, 0.025, 0.0125], rtol=1e-6)
np.testing.assert_allclose(history.history["learning_rate"], recorder.learning_rates, rtol=1e-6)
for epoch, logs in enumerate(recorder.epoch_logs):
    assert logs["loss"] == history.history["loss"][epoch]
    assert logs["val_loss"] == history.history["val_loss"][epoch]
assert history.history["loss"][-1] < history.history["loss"][0] * 0.2, history.history["loss"]

# A learning rate far too large makes the loss overflow: training stops at the first NaN.
diverging = make_model()
diverging.optimizer.learning_rate = 1e4
stopped = Recorder()
history = diverging.fit(
    x * 1e3,
    y,
    epochs=20,
    batch_size=16,
    verbose=0,
    callbacks=[keras.callbacks.TerminateOnNaN(), stopped],
)
last = history.history["loss"][-1]
assert math.isnan(last) or math.isinf(last), history.history["loss"]
assert len(history.history["loss"]) < 20
assert stopped.events[-1] == "train_end"
print("epochs run before NaN:", len(history.history["loss"]))
