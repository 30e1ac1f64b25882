"""Variables holding a torch.nn.Parameter, so torch.optim and state_dict see them."""

from __future__ import annotations

from typing import Any

import torch

from lamina.backend.kit import TrainableStateVariable, Variable, take_offered
from lamina_torch import model_parallel
from lamina_torch.core import _on_device, convert_to_tensor, meta_tracing, storage_device


class TorchVariable(TrainableStateVariable):
    """A `lamina.Variable` whose state is a `torch.nn.Parameter`.

    `requires_grad` follows `trainable` (only float and complex values can require grad).
    Under `lamina.distribution.ModelParallel` the Parameter holds a DTensor, split as the
    layout map says.
    """

    _parameter: torch.nn.Parameter

    def __init__(self, initializer: Any, *args: Any, **kwargs: Any) -> None:
        initializer = model_parallel.under_layout(self, initializer)
        if meta_tracing():
            # Created while compute_output_spec runs on meta tensors: keep real data anyway.
            with _on_device(storage_device()):
                super().__init__(initializer, *args, **kwargs)
        else:
            super().__init__(initializer, *args, **kwargs)

    def _follow_trainable(self) -> None:
        parameter = self.__dict__.get("_parameter")
        if parameter is not None:
            parameter.requires_grad_(self._trainable and _differentiable(parameter))

    def _initialize(self, value: Any) -> None:
        # Copy: torch.as_tensor shares a NumPy initial value's memory, and assignments
        # must not write through to the caller's array; unless the array is offered.
        value = model_parallel.place(self, value)
        value = value.detach()
        if not _offered(value):
            value = value.clone()
        self._parameter = torch.nn.Parameter(
            value, requires_grad=self.trainable and _differentiable(value)
        )

    def _direct_assign(self, value: Any) -> None:
        with torch.no_grad():
            if self._adopts(value):
                self._parameter.data = value  # the loader's fresh buffer: no copy
                return
            self._parameter.copy_(model_parallel.assignable(self._parameter, value))

    def _direct_add(self, value: Any, sign: int) -> bool:
        # In place, as torch's optimizers update: the sum's conversions and new tensor cost
        # more than the addition for the scalars and small tensors of counters and metrics.
        parameter = self._parameter
        if type(parameter.data) is not torch.Tensor:  # a DTensor (ModelParallel)
            return False
        if isinstance(value, torch.Tensor):
            fits = (
                value.dtype == parameter.dtype
                and value.device == parameter.device
                and (value.shape == parameter.shape or value.dim() == 0)
            )
        else:
            fits = type(value) in _SCALARS_ADDED_IN_PLACE.get(parameter.dtype, ()) and (
                type(value) is float or -(2**31) <= value < 2**31
            )
        if fits:
            with torch.no_grad():
                parameter.add_(value, alpha=sign)
        return fits

    def _adopts(self, value: torch.Tensor) -> bool:
        """Whether `value` wraps an array a weights reader offers (`kit.arrays_offered`)
        and can be the parameter's storage as it is."""
        current = self._parameter.data
        return (
            type(current) is torch.Tensor  # not a DTensor (ModelParallel)
            and value.device == current.device
            and value.dtype == current.dtype
            and _offered(value)
        )

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        return convert_to_tensor(value, dtype)

    @property
    def parameter(self) -> torch.nn.Parameter:
        """The torch Parameter holding the value (what the owning layer's Module lists)."""
        return self._parameter

    def _stored_value(self) -> Any:
        if meta_tracing():
            # compute_output_spec runs on meta tensors: read a data-less copy of the value.
            return self._parameter.detach().to("meta")
        return self._parameter


_SCALARS_ADDED_IN_PLACE: dict[torch.dtype, tuple[type, ...]] = {
    torch.float32: (int, float),
    torch.float64: (int, float),
    torch.int32: (int,),
    torch.int64: (int,),
}
"""The Python scalars that `assign_add` adds in place to a variable of each dtype, giving
what the generic sum would (it computes in the variable's dtype there too)."""


def _offered(value: torch.Tensor) -> bool:
    """Whether `value` is a plain CPU tensor over an array offered to variables
    (`kit.take_offered`), which it may then keep without a copy."""
    return (
        type(value) is torch.Tensor
        and value.device.type == "cpu"
        and value.is_contiguous()
        and take_offered(value.data_ptr(), value.nbytes)
    )


def _differentiable(value: torch.Tensor) -> bool:
    return value.dtype.is_floating_point or value.dtype.is_complex
