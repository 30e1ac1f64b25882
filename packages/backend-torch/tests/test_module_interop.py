"""Lamina layers are torch.nn.Modules: parameters, state_dict and torch.optim work."""

from __future__ import annotations

import numpy as np
import torch

from lamina import ops
from lamina.initializers import Constant
from lamina.layers import Input, Layer
from lamina.models import Model, Sequential


class Affine(Layer):
    """A linear map onto 2 units, its kernel starting at 0.5."""

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], 2), Constant(0.5), name="kernel")

    def call(self, x):
        return ops.matmul(x, self.kernel)


class Nested(Model):
    def __init__(self):
        super().__init__()
        self.blocks = [Affine(), Affine()]

    def call(self, x):
        return self.blocks[1](self.blocks[0](x) @ torch.ones(2, 3))


def test_parameters_state_dict_and_torch_optim_see_every_variable():
    model = Nested()
    x = torch.ones(4, 3)
    model(x)
    params = list(model.parameters())
    assert len(params) == 2 and all(isinstance(p, torch.nn.Parameter) for p in params)
    assert sorted(model.state_dict()) == [
        "torch_params.nested/affine/kernel",
        "torch_params.nested/affine_1/kernel",
    ]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.blocks[0].kernel.numpy().copy()
    model(x).sum().backward()
    optimizer.step()
    assert not np.allclose(model.blocks[0].kernel.numpy(), before)


def test_load_state_dict_writes_into_lamina_variables():
    model = Sequential([Input((3,)), Affine()])
    state = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    assert np.all(model.weights[0].numpy() == 0)


def test_freezing_turns_off_requires_grad():
    model = Sequential([Input((3,)), Affine()])
    model.trainable = False
    assert not any(p.requires_grad for p in model.parameters())
    assert isinstance(model, torch.nn.Module)
