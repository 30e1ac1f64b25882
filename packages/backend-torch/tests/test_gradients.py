"""Variables are torch Parameters: only trainable ones ask autograd for a gradient.

The shared gradient tests (every training backend's own autodiff against NumPy) are in
core: packages/core/tests/training/test_native_gradients.py.
"""

from __future__ import annotations

import numpy as np
import torch

import lamina
from lamina import ops


def test_variables_are_parameters_and_only_trainable_ones_require_grad():
    v = lamina.Variable(np.ones((6,)), dtype="float64", trainable=False)
    assert isinstance(v.value, torch.nn.Parameter) and not v.value.requires_grad
    v.trainable = True
    loss = ops.sum(ops.sin(ops.matmul(np.ones((4, 3)), ops.reshape(v, (3, 2)))))
    loss.backward()
    assert v.value.grad is not None and v.value.grad.dtype == torch.float64


class ZeroGradStep(lamina.Sequential):
    """A custom step as torch's Keras 3 guide starts one: `zero_grad`, then `backward`."""

    def train_step(self, data):
        x, y = data
        self.zero_grad()
        loss = self.compute_loss(y=y, y_pred=self(x, training=True))
        loss.backward()
        return {"loss": loss}


def test_zero_grad_in_a_custom_step_clears_the_last_steps_gradients():
    # Custom train steps on torch are tested in core (test_functional_subclass.py); here,
    # that a second step's .grad holds its own gradient, not the sum with the first one's.
    lamina.utils.set_random_seed(0)
    model = ZeroGradStep([lamina.layers.Input((3,)), lamina.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    model.train_on_batch(x, y)
    first = [v.value.grad.clone() for v in model.trainable_weights]
    model.train_on_batch(x, y)
    for g, again in zip(first, [v.value.grad for v in model.trainable_weights], strict=True):
        torch.testing.assert_close(again, g)
