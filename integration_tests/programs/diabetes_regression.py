# backends: jax torch tensorflow
"""Regression on scikit-learn's diabetes data, judged by mean absolute error.

Features are standardized by a Normalization layer, the target by hand; the model must
beat predicting the training mean by a clear margin on held-out data.
"""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

import lamina as keras

keras.utils.set_random_seed(9)
x, y = load_diabetes(return_X_y=True)
x = x.astype("float32")
y = y.astype("float32")
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0)
y_mean, y_std = y_train.mean(), y_train.std()

normalizer = keras.layers.Normalization()
normalizer.adapt(x_train)
model = keras.Sequential(
    [
        keras.Input(shape=(x.shape[1],)),
        normalizer,
        keras.layers.Dense(32, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-3)),
        keras.layers.Dense(1),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(5e-3),
    loss="mae",
    metrics=[keras.metrics.MeanAbsoluteError(name="mae"), keras.metrics.R2Score(name="r2")],
)
history = model.fit(
    x_train,
    (y_train - y_mean) / y_std,
    validation_data=(x_test, (y_test - y_mean) / y_std),
    epochs=30,
    batch_size=32,
    verbose=0,
)
assert history.history["loss"][-1] < history.history["loss"][0], history.history["loss"]
# The loss includes the L2 penalty: it is the MAE plus something positive.
assert history.history["loss"][-1] > history.history["mae"][-1]

predictions = model.predict(x_test, verbose=0).ravel() * y_std + y_mean
mae = np.abs(predictions - y_test).mean()
baseline = np.abs(y_train.mean() - y_test).mean()
assert mae < 0.85 * baseline, (mae, baseline)
assert history.history["val_r2"][-1] > 0.2, history.history["val_r2"]
np.testing.assert_allclose(history.history["val_mae"][-1] * y_std, mae, rtol=1e-3)
print("test MAE", mae, "baseline", baseline)
