"""`InputLayer` and `Input`: where a functional model's graph starts."""

from __future__ import annotations

from typing import Any

from lamina.backend.config import SETTINGS
from lamina.layers.layer import Layer
from lamina.ops.node import Node
from lamina.ops.symbolic import SymbolicTensor


class InputLayer(Layer):
    """The layer behind `Input`: owns the symbolic tensor a functional model starts from.

    Args:
        shape: the shape of one sample, without the batch dim.
        batch_size: a fixed batch size (default: unknown).
        dtype: default `floatx()`.
        sparse: whether the input is sparse.
        batch_shape: the full shape including the batch dim (instead of `shape`).
        input_tensor: an existing symbolic tensor to use as the input.
        optional: whether the input may be None when the model is called.
        name: a name for the input.
    """

    def __init__(
        self,
        shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        sparse: bool | None = None,
        batch_shape: Any = None,
        input_tensor: SymbolicTensor | None = None,
        optional: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if "input_shape" in kwargs:  # older Keras configs
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name, **kwargs)
        if input_tensor is not None:
            if not isinstance(input_tensor, SymbolicTensor):
                raise ValueError(
                    "Argument `input_tensor` must be a symbolic tensor. "
                    f"Received: input_tensor={input_tensor!r}"
                )
            batch_shape = input_tensor.shape
            dtype = input_tensor.dtype
        if shape is not None and batch_shape is not None:
            raise ValueError(
                "Pass only one of `shape` and `batch_shape`. "
                f"Received: shape={shape!r}, batch_shape={batch_shape!r}"
            )
        if batch_shape is None:
            if shape is None:
                raise ValueError(
                    "Argument `shape` (or `batch_shape`) is required by `Input`. Received: "
                    "shape=None"
                )
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size, *tuple(shape))
        self.batch_shape = tuple(batch_shape)
        self._dtype_name = dtype or SETTINGS.floatx
        self.sparse = bool(sparse)
        self.optional = bool(optional)
        tensor = input_tensor or SymbolicTensor(
            self.batch_shape, dtype=self._dtype_name, sparse=self.sparse, name=self.name
        )
        tensor.optional = self.optional
        self.output_tensor = tensor
        self.built = True
        Node(self, call_args=(), call_kwargs={}, outputs=tensor)

    @property
    def dtype(self) -> str:
        return self.output_tensor.dtype

    def call(self) -> Any:
        return self.output_tensor

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_shape": list(self.batch_shape),
            "dtype": self.output_tensor.dtype,
            "sparse": self.sparse,
            "optional": self.optional,
            "name": self.name,
        }


def Input(
    shape: Any = None,
    batch_size: int | None = None,
    dtype: Any = None,
    sparse: bool | None = None,
    batch_shape: Any = None,
    name: str | None = None,
    tensor: SymbolicTensor | None = None,
    optional: bool = False,
) -> SymbolicTensor:
    """A symbolic tensor to start a functional model from.

    Args:
        shape: the shape of one sample, without the batch dim; None for unknown dims.
        batch_size: a fixed batch size (default: unknown).
        dtype: default `floatx()`.
        sparse: whether the input is sparse.
        batch_shape: the full shape including the batch dim (instead of `shape`).
        name: a name for the input.
        tensor: an existing symbolic tensor to use as the input.
        optional: whether the input may be None when the model is called.

    Example:
        >>> x = lamina.Input(shape=(28, 28, 1))
        >>> x.shape  # (None, 28, 28, 1)
    """
    layer = InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        sparse=sparse,
        batch_shape=batch_shape,
        input_tensor=tensor,
        optional=optional,
        name=name,
    )
    return layer.output_tensor
