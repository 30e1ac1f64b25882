# backends: jax torch tensorflow
"""A custom loss and a custom metric written with keras.ops, with class and sample weights.

Imbalanced binary data: a focal-style loss as a Loss subclass, an F-score-like metric as
a Metric subclass with its own state, `class_weight` to up-weight the rare class, and
`sample_weight` in evaluate (seen by the loss and `weighted_metrics`). Both objects
round-trip through get_config.
"""

import numpy as np

import lamina as keras
from lamina import ops


@keras.saving.register_keras_serializable(package="my_losses")
class WeightedFocalLoss(keras.losses.Loss):
    def __init__(self, gamma=2.0, name="weighted_focal_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.gamma = gamma

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, y_pred.dtype)
        y_pred = ops.clip(y_pred, 1e-7, 1.0 - 1e-7)
        p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
        return ops.mean(-ops.power(1.0 - p_t, self.gamma) * ops.log(p_t), axis=-1)

    def get_config(self):
        return {**super().get_config(), "gamma": self.gamma}


@keras.saving.register_keras_serializable(package="my_metrics")
class PositiveRecall(keras.metrics.Metric):
    """The share of positives predicted positive, weighted by sample weight."""

    def __init__(self, threshold=0.5, name="positive_recall", **kwargs):
        super().__init__(name=name, **kwargs)
        self.threshold = threshold
        self.hits = self.add_variable(shape=(), initializer="zeros", name="hits")
        self.positives = self.add_variable(shape=(), initializer="zeros", name="positives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.reshape(ops.cast(y_true, "float32"), (-1,))
        predicted = ops.reshape(ops.cast(y_pred > self.threshold, "float32"), (-1,))
        weight = (
            ops.ones_like(y_true)
            if sample_weight is None
            else ops.reshape(ops.cast(sample_weight, "float32"), (-1,))
        )
        self.hits.assign_add(ops.sum(y_true * predicted * weight))
        self.positives.assign_add(ops.sum(y_true * weight))

    def result(self):
        return ops.divide_no_nan(self.hits, self.positives)

    def reset_state(self):
        self.hits.assign(0.0)
        self.positives.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "threshold": self.threshold}


loss = WeightedFocalLoss(gamma=1.5)
assert WeightedFocalLoss.from_config(loss.get_config()).gamma == 1.5
metric = PositiveRecall(threshold=0.4)
assert PositiveRecall.from_config(metric.get_config()).threshold == 0.4
metric.update_state(
    np.array([1, 1, 0, 1]),
    np.array([0.9, 0.1, 0.8, 0.6]),
    sample_weight=np.array([1.0, 3.0, 1.0, 1.0]),
)
np.testing.assert_allclose(float(keras.ops.convert_to_numpy(metric.result())), 2 / 5, rtol=1e-6)
metric.reset_state()
assert float(keras.ops.convert_to_numpy(metric.result())) == 0.0
y_true = np.array([[1.0], [0.0]], dtype="float32")
y_prob = np.array([[0.8], [0.3]], dtype="float32")
expected = np.mean([-(0.2**1.5) * np.log(0.8), -(0.3**1.5) * np.log(0.7)])
np.testing.assert_allclose(
    float(keras.ops.convert_to_numpy(loss(y_true, y_prob))), expected, rtol=1e-5
)

keras.utils.set_random_seed(18)
rng = np.random.default_rng(18)
x = rng.normal(size=(1000, 6)).astype("float32")
score = 2.0 * x[:, 0] + x[:, 1] - 2.5
y = (score + 0.3 * rng.normal(size=1000) > 0).astype("float32")[:, None]  # shaped like y_pred
assert 0.03 < y.mean() < 0.2, y.mean()


def train(class_weight):
    keras.utils.set_random_seed(18)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=WeightedFocalLoss(gamma=1.5),
        metrics=[PositiveRecall(), "accuracy"],
        weighted_metrics=[PositiveRecall(name="weighted_recall")],
    )
    history = model.fit(x, y, epochs=10, batch_size=32, class_weight=class_weight, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0], history.history["loss"]
    return model, history


plain, _ = train(None)
weighted, history = train({0: 1.0, 1: 8.0})
recall_plain = plain.evaluate(x, y, verbose=0, return_dict=True)["positive_recall"]
recall_weighted = weighted.evaluate(x, y, verbose=0, return_dict=True)["positive_recall"]
assert recall_weighted > recall_plain + 0.05, (recall_plain, recall_weighted)
assert recall_weighted > 0.8, recall_weighted

# sample_weight in evaluate reaches the loss and the weighted metrics only.
sample_weight = np.where(y[:, 0] > 0, 0.0, 1.0).astype("float32")
results = weighted.evaluate(x, y, sample_weight=sample_weight, verbose=0, return_dict=True)
assert results["weighted_recall"] == 0.0, results
np.testing.assert_allclose(results["positive_recall"], recall_weighted, rtol=1e-6)
unweighted = weighted.evaluate(x, y, verbose=0, return_dict=True)
assert results["loss"] < unweighted["loss"], (results, unweighted)
print("positive recall without / with class_weight:", recall_plain, recall_weighted)
