"""`layers.TorchModuleWrapper`: a torch.nn.Module whose parameters are Lamina variables."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import backend
from lamina.saving.serialization import SafeModeScope

on_torch = pytest.mark.skipif(
    backend() != "torch", reason="TorchModuleWrapper runs torch modules: torch backend only"
)


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [1.5]], "float32")).astype("float32")
    return x, y


@pytest.mark.skipif(backend() == "torch", reason="checks the error on other backends")
def test_other_backends_refuse_it_naming_the_torch_backend():
    with pytest.raises(ValueError, match=r"needs the 'torch' backend.*active backend is"):
        layers.TorchModuleWrapper(object())


@on_torch
def test_parameters_become_the_layers_variables():
    import torch

    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    module[1].bias.requires_grad_(False)
    layer = layers.TorchModuleWrapper(module, name="wrapped")
    assert [v.path for v in layer.weights] == [
        "wrapped/0.weight",
        "wrapped/0.bias",
        "wrapped/1.weight",
        "wrapped/1.bias",
    ]
    assert [v.trainable for v in layer.weights] == [True, True, True, False]
    assert len(layer.trainable_weights) == 3
    # The module computes with the variables themselves: assigning one changes its output.
    layer.weights[0].assign(np.zeros((3, 4), "float32"))
    x = torch.ones(2, 4)
    expected = module[1](module[0].bias.expand(2, 3)).detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected, rtol=1e-6)
    assert module[0].weight is layer.weights[0].value


@on_torch
def test_fit_trains_the_wrapped_module():
    import torch

    torch.manual_seed(0)
    module = torch.nn.Linear(4, 1)
    model = lamina.Sequential([lamina.Input((4,)), layers.TorchModuleWrapper(module)])
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    x, y = _data()
    history = model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.05 * history.history["loss"][0]
    np.testing.assert_allclose(
        module.weight.detach().numpy(), model.weights[0].numpy(), rtol=0, atol=0
    )
    np.testing.assert_allclose(module.weight.detach().numpy(), [[1.0, -2.0, 0.5, 1.5]], atol=0.1)


@on_torch
def test_training_argument_sets_the_modules_mode():
    import torch

    module = torch.nn.Dropout(0.5)
    layer = layers.TorchModuleWrapper(module)
    x = torch.ones(1000)
    assert (layer(x, training=True) == 0).any()
    assert module.training  # still in train mode after a training call
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x.numpy())
    assert module.training is False
    # None leaves the mode the module is in.
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    module.train()
    assert (layer(x) == 0).any()


@on_torch
def test_tied_parameters_are_one_variable():
    import torch

    embed = torch.nn.Embedding(5, 3)
    head = torch.nn.Linear(3, 5, bias=False)
    head.weight = embed.weight
    layer = layers.TorchModuleWrapper(torch.nn.ModuleDict({"embed": embed, "head": head}))
    assert [v.name for v in layer.weights] == ["embed.weight"]
    assert head.weight is embed.weight is layer.weights[0].value


@on_torch
def test_symbolic_shapes_without_touching_batchnorm_statistics():
    import torch

    module = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6))
    layer = layers.TorchModuleWrapper(module)
    before = module[1].running_mean.clone()
    out = layer(lamina.Input((4,)))
    assert out.shape == (None, 6)
    torch.testing.assert_close(module[1].running_mean, before)
    assert module.training  # tracing restored the mode
    given = layers.TorchModuleWrapper(torch.nn.Linear(4, 2), output_shape=(None, 2))
    assert given(lamina.Input((4,))).shape == (None, 2)


@on_torch
def test_buffers_are_non_trainable_variables_the_module_updates():
    import torch

    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    layer = layers.TorchModuleWrapper(module)
    names = [v.name for v in layer.non_trainable_weights]
    assert names == ["1.running_mean", "1.running_var", "1.num_batches_tracked"]
    layer(torch.randn(8, 4), training=True)
    assert int(layer.non_trainable_weights[2].numpy()) == 1
    np.testing.assert_array_equal(
        layer.non_trainable_weights[0].numpy(), module[1].running_mean.numpy()
    )
    assert not np.allclose(layer.non_trainable_weights[0].numpy(), 0.0)
    assert module[1].running_mean is layer.non_trainable_weights[0].value


@on_torch
def test_weights_files_hold_parameters_and_buffers(tmp_path):
    pytest.importorskip("lamina_saving")
    import torch

    def build():
        module = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6))
        return module, lamina.Sequential([lamina.Input((4,)), layers.TorchModuleWrapper(module)])

    source_module, source = build()
    source.compile(optimizer="sgd", loss="mse")
    x, _ = _data()
    source.fit(x, np.zeros((64, 6), "float32"), epochs=1, verbose=0)  # moves running stats
    path = tmp_path / "m.weights.h5"
    source.save_weights(path)
    target_module, target = build()
    target.load_weights(path)
    for key, value in source_module.state_dict().items():
        torch.testing.assert_close(target_module.state_dict()[key], value)
    np.testing.assert_allclose(target.predict(x, verbose=0), source.predict(x, verbose=0))


@on_torch
def test_config_pickles_the_module_and_safe_mode_refuses_it():
    import torch

    layer = layers.TorchModuleWrapper(torch.nn.Linear(4, 2), output_shape=(None, 2))
    config = layer.get_config()
    assert isinstance(config["module"], str) and config["output_shape"] == (None, 2)
    with pytest.raises(ValueError, match=r"torch\.load.*safe_mode=False"):
        layers.TorchModuleWrapper.from_config(config)
    with SafeModeScope(False):
        clone = layers.TorchModuleWrapper.from_config(config)
    x = torch.ones(3, 4)
    torch.testing.assert_close(clone(x), layer(x))
    assert clone.module is not layer.module


@on_torch
def test_modules_it_cannot_wrap_are_refused():
    import torch

    with pytest.raises(ValueError, match=r"must be a torch\.nn\.Module.*Received: module=3"):
        layers.TorchModuleWrapper(3)
    with pytest.raises(ValueError, match=r"uninitialized .*call the module once"):
        layers.TorchModuleWrapper(torch.nn.LazyLinear(2))
