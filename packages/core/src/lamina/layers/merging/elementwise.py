"""Element-wise merging layers and their functional forms (`add`, `subtract`, ...)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.merging.base_merge import Merge


class Add(Merge):
    """Sum a list of tensors (of the same shape, or broadcastable ones).

    Example:
        >>> lamina.layers.Add()([np.ones((2, 3)), np.ones((2, 3))])
    """

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = ops.add(out, x)
        return out


class Subtract(Merge):
    """Subtract the second of exactly two tensors from the first."""

    _min_inputs = 2

    def _check_inputs(self, inputs: Any) -> list[Any]:
        tensors = super()._check_inputs(inputs)
        if len(tensors) != 2:
            raise ValueError(
                "Subtract: a Subtract layer must be called on exactly 2 inputs. "
                f"Received: {len(tensors)} inputs"
            )
        return tensors

    def _merge_function(self, inputs: list[Any]) -> Any:
        return ops.subtract(inputs[0], inputs[1])


class Multiply(Merge):
    """Multiply a list of tensors element-wise."""

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = ops.multiply(out, x)
        return out


class Average(Merge):
    """Average a list of tensors element-wise."""

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = ops.add(out, x)
        return ops.divide(out, len(inputs))


class Maximum(Merge):
    """The element-wise maximum of a list of tensors."""

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = ops.maximum(out, x)
        return out


class Minimum(Merge):
    """The element-wise minimum of a list of tensors."""

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = ops.minimum(out, x)
        return out


def add(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Add`: ``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Subtract`: ``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Multiply`: ``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Average`: ``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Maximum`: ``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list[Any], **kwargs: Any) -> Any:
    """Functional form of `Minimum`: ``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)
