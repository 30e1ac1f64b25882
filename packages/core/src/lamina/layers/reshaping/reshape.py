"""`Reshape`, `Permute` and `RepeatVector`: rearrange the non-batch axes."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


class _ShapeOnly(Layer):
    """A layer that moves values around: same dtype out as in, masks dropped."""

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return SymbolicTensor(
            self.compute_output_shape(tuple(inputs.shape)), dtype=dtypes.dtype_of(inputs)
        )


class Reshape(_ShapeOnly):
    """Reshape the inputs to ``(batch, *target_shape)``.

    Args:
        target_shape: the new shape without the batch axis; one entry may be -1, inferred
            from the number of elements.
        **kwargs: base `Layer` arguments.

    Example:
        >>> tuple(lamina.layers.Reshape((3, -1))(np.zeros((2, 12))).shape)
        (2, 3, 4)
    """

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(target_shape, (tuple, list)) or any(
            isinstance(d, bool) or not isinstance(d, int) or (d < 1 and d != -1)
            for d in target_shape
        ):
            raise ValueError(
                "Reshape: argument `target_shape` must be a tuple of positive ints (one may "
                f"be -1). Received: target_shape={target_shape!r}"
            )
        if sum(d == -1 for d in target_shape) > 1:
            raise ValueError(
                "Reshape: argument `target_shape` may contain -1 only once. "
                f"Received: target_shape={target_shape!r}"
            )
        self.target_shape = tuple(int(d) for d in target_shape)
        self.built = True

    def _resolve(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`target_shape` with -1 replaced when the input's element count is known."""
        rest = input_shape[1:]
        known = math.prod(d for d in self.target_shape if d != -1)
        if any(d is None for d in rest):
            return tuple(None if d == -1 else d for d in self.target_shape)
        total = math.prod(rest)
        if -1 in self.target_shape:
            if known == 0 or total % known:
                raise ValueError(
                    f"Reshape: cannot reshape inputs of shape {input_shape} to "
                    f"(batch, {', '.join(map(str, self.target_shape))}). "
                    f"Received: target_shape={self.target_shape}"
                )
            return tuple(total // known if d == -1 else d for d in self.target_shape)
        if total != known:
            raise ValueError(
                f"Reshape: inputs of shape {input_shape} hold {total} elements per sample, "
                f"but target_shape={self.target_shape} holds {known}."
            )
        return self.target_shape

    def call(self, inputs: Any) -> Any:
        target = self._resolve(tuple(inputs.shape))
        if any(d is None for d in target):
            return ops.reshape(inputs, (ops.shape(inputs)[0], *self.target_shape))
        return ops.reshape(inputs, (ops.shape(inputs)[0], *target))

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        return (shape[0], *self._resolve(shape))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["target_shape"] = list(self.target_shape)
        return config


class Permute(_ShapeOnly):
    """Permute the non-batch axes: ``dims=(2, 1)`` swaps the two axes after the batch.

    Args:
        dims: a permutation of ``1..rank-1`` (the batch axis, 0, is not listed).
        **kwargs: base `Layer` arguments.

    Example:
        >>> tuple(lamina.layers.Permute((2, 1))(np.zeros((4, 10, 64))).shape)
        (4, 64, 10)
    """

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(dims, (tuple, list)) or sorted(dims) != list(
            range(1, len(dims) + 1)
        ):
            raise ValueError(
                "Permute: argument `dims` must be a permutation of 1..n (axis 0 is the batch "
                f"and is not listed). Received: dims={dims!r}"
            )
        self.dims = tuple(int(d) for d in dims)
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return ops.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        return (shape[0], *(shape[d] for d in self.dims))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["dims"] = list(self.dims)
        return config


class RepeatVector(_ShapeOnly):
    """Repeat a ``(batch, features)`` input `n` times: ``(batch, n, features)``.

    Args:
        n: the number of repetitions.
        **kwargs: base `Layer` arguments.
    """

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = _args.positive_int("RepeatVector", "n", n)
        self.input_spec = InputSpec(ndim=2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return ops.repeat(ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        return (shape[0], self.n, shape[1])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["n"] = self.n
        return config
