"""`CategoryEncoding`: integer category ids to one-hot, multi-hot or count vectors."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin

_MODES = ("one_hot", "multi_hot", "count")


def check_mode_and_dense(
    layer: str, output_mode: str, modes: tuple[str, ...], sparse: bool
) -> None:
    """The `output_mode` and `sparse` checks the categorical layers share."""
    if output_mode not in modes:
        raise ValueError(
            f"{layer}: argument `output_mode` must be one of {modes}. "
            f"Received: output_mode={output_mode!r}"
        )
    if sparse:
        raise ValueError(
            f"{layer}: argument `sparse` must be False (no sparse outputs). "
            f"Received: sparse={sparse!r}"
        )


def encode_categories(
    inputs: Any, output_mode: str, depth: int, dtype: Any, count_weights: Any = None
) -> Any:
    """Encode integer ids as Keras 3 does; shared by the lookup and discretization layers.

    A scalar is one sample; `one_hot` drops a trailing dim of size 1; `multi_hot` and
    `count` reduce over axis 1 (axis 0 for a rank-1 input, which is one sample).
    """
    x = ops.convert_to_tensor(inputs)
    if len(x.shape) == 0:
        x = ops.expand_dims(x, -1)
    x = ops.cast(x, "int32")
    if output_mode == "one_hot":
        if len(x.shape) > 1 and x.shape[-1] == 1:
            x = ops.squeeze(x, -1)
        return ops.one_hot(x, depth, dtype=dtype)
    if output_mode == "multi_hot":
        return ops.multi_hot(x, depth, dtype=dtype)
    axis = 1 if len(x.shape) > 1 else 0
    if count_weights is None:
        return ops.sum(ops.one_hot(x, depth, dtype=dtype), axis=axis)
    weights = ops.convert_to_tensor(count_weights)
    encoded = ops.one_hot(x, depth, dtype=weights.dtype)
    return ops.sum(encoded * ops.expand_dims(weights, -1), axis=axis)


def encoded_shape(input_shape: Any, output_mode: str, depth: int) -> tuple[Any, ...]:
    """The output shape `encode_categories` gives for inputs of `input_shape`."""
    shape = tuple(input_shape)
    if not shape:
        return (depth,)
    if output_mode == "one_hot":
        if shape[-1] != 1 or len(shape) == 1:
            return shape + (depth,)
        return shape[:-1] + (depth,)
    return (shape[0],) + shape[2:] + (depth,) if len(shape) > 1 else (depth,)


class CategoryEncoding(TFGraphCallMixin, Layer):
    """Encode integer category ids in ``[0, num_tokens)`` as dense vectors.

    Args:
        num_tokens: how many categories there are (the output's last dim).
        output_mode: ``"multi_hot"`` (default; ``"binary"`` is a legacy alias),
            ``"one_hot"`` or ``"count"``.
        sparse: sparse outputs; only ``False`` is supported.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.CategoryEncoding(4, "count")(np.array([[0, 1, 1], [3, 3, 2]]))
        # [[1, 2, 0, 0], [0, 0, 1, 2]]
    """

    def __init__(
        self,
        num_tokens: int | None = None,
        output_mode: str = "multi_hot",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if num_tokens is None or isinstance(num_tokens, bool) or int(num_tokens) < 1:
            raise ValueError(
                "CategoryEncoding: argument `num_tokens` must be an integer >= 1 (use "
                f"IntegerLookup when it is unknown). Received: num_tokens={num_tokens!r}"
            )
        check_mode_and_dense("CategoryEncoding", output_mode, _MODES, sparse)
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = False
        self.built = True

    def call(self, inputs: Any, count_weights: Any = None) -> Any:
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(
                    "CategoryEncoding: argument `count_weights` is only used with "
                    f"output_mode='count'. Received: output_mode={self.output_mode!r}"
                )
            count_weights = ops.cast(count_weights, self.compute_dtype)
        return encode_categories(
            inputs, self.output_mode, self.num_tokens, self.compute_dtype, count_weights
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {"num_tokens": self.num_tokens, "output_mode": self.output_mode, "sparse": False}
        )
        return config
