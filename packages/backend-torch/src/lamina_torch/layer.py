"""The layer mixin: every Lamina layer is also a torch.nn.Module."""

from __future__ import annotations

from typing import Any

import torch

from lamina.backend.kit import LayerMixin


class TorchLayerMixin(torch.nn.Module, LayerMixin):
    """Makes `model.parameters()`, `state_dict()` and `torch.optim` work on Lamina layers.

    Lamina tracks sublayers itself, so they are not registered as torch child modules
    (that would list nested parameters twice). Instead each layer exposes all of its
    variables, nested ones included, in one ``torch_params`` ParameterDict keyed by path.
    """

    variables: list[Any]  # the layer's (not torch.nn.Module.__getattr__'s)

    def _backend_init(self) -> None:
        torch.nn.Module.__init__(self)

    def __setattr__(self, name: str, value: Any) -> None:
        # Plain torch modules and parameters assigned by the user keep torch's bookkeeping;
        # everything else (Lamina layers included) is a plain attribute, which is faster.
        if isinstance(value, torch.nn.Parameter) or (
            isinstance(value, torch.nn.Module) and not isinstance(value, TorchLayerMixin)
        ):
            torch.nn.Module.__setattr__(self, name, value)
        else:
            object.__setattr__(self, name, value)

    def _backend_track_variables(self, variables: list[Any]) -> None:
        params = torch.nn.ParameterDict()
        for variable in variables:
            key = variable.path.replace(".", "_")
            base, n = key, 1
            while key in params:
                key, n = f"{base}_{n}", n + 1
            params[key] = variable.parameter
        torch.nn.Module.__setattr__(self, "torch_params", params)

    # torch walks `_parameters` directly: refresh the view first, since nested layers may
    # have created variables after this layer was built.
    def named_parameters(self, *args: Any, **kwargs: Any) -> Any:
        self._backend_track_variables(self.variables)
        return torch.nn.Module.named_parameters(self, *args, **kwargs)

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        self._backend_track_variables(self.variables)
        return torch.nn.Module.state_dict(self, *args, **kwargs)

    def load_state_dict(self, *args: Any, **kwargs: Any) -> Any:
        self._backend_track_variables(self.variables)
        return torch.nn.Module.load_state_dict(self, *args, **kwargs)

    def _apply(self, *args: Any, **kwargs: Any) -> Any:
        self._backend_track_variables(self.variables)
        return torch.nn.Module._apply(self, *args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """torch's entry point: the same as calling the layer."""
        return self(*args, **kwargs)
