"""`Hashing`: strings or integers to `num_bins` buckets with TensorFlow's hashes."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import holds_text, to_numpy
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.category_encoding import (
    check_mode_and_dense,
    encode_categories,
    encoded_shape,
)
from lamina.layers.preprocessing.farmhash import fingerprint64, siphash24
from lamina.layers.preprocessing.index_lookup import index_dtype
from lamina.ops.symbolic import SymbolicTensor

_MODES = ("int", "one_hot", "multi_hot", "count")


def _text(value: Any) -> bytes:
    """The bytes TensorFlow hashes: UTF-8 for strings, the decimal form for numbers
    (floats are truncated to integers first)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return str(int(value)).encode()


class Hashing(TFGraphCallMixin, Layer):
    """Hash each value to a bin in ``[0, num_bins)``, matching Keras 3's bins.

    Without `salt` a value goes to ``Fingerprint64(text) % bins`` (FarmHash, as
    `tf.strings.to_hash_bucket_fast`); with `salt`, to ``SipHash-2-4(salt, text) % bins``
    (as `tf.strings.to_hash_bucket_strong`). Integers hash as their decimal strings.
    Hashing runs on the host, eagerly.

    Args:
        num_bins: the number of bins (mask bin included when `mask_value` is set).
        mask_value: a value sent to bin 0; the others then use bins 1 to num_bins - 1.
        salt: an integer or a pair of integers keying the hash.
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        sparse: only ``False`` is supported.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.Hashing(num_bins=3)([["A"], ["B"], ["C"], ["D"], ["E"]])
    """

    _host_only = True  # hashes with NumPy (FarmHash, SipHash), even on TensorFlow

    def __init__(
        self,
        num_bins: int,
        mask_value: Any = None,
        salt: Any = None,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if num_bins is None or isinstance(num_bins, bool) or int(num_bins) <= 0:
            raise ValueError(
                "Hashing: argument `num_bins` must be an integer > 0. "
                f"Received: num_bins={num_bins!r}"
            )
        check_mode_and_dense("Hashing", output_mode, _MODES, sparse)
        if salt is not None:
            if isinstance(salt, int) and not isinstance(salt, bool):
                salt = [salt, salt]
            elif not (
                isinstance(salt, (list, tuple))
                and len(salt) == 2
                and all(isinstance(s, int) and not isinstance(s, bool) for s in salt)
            ):
                raise ValueError(
                    "Hashing: argument `salt` must be an integer or a pair of integers. "
                    f"Received: salt={salt!r}"
                )
            salt = [int(s) for s in salt]
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = False
        self.built = True

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """String inputs stay as they are (no backend tensor holds strings, except TF's)."""
        if args and holds_text(args[0]):
            return args
        return super()._convert_inputs(args)

    def _bins(self, inputs: Any) -> np.ndarray[Any, Any]:
        values = to_numpy(inputs)
        bins = self.num_bins
        masked = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            masked = values == self.mask_value
        unique, inverse = np.unique(values.reshape(-1), return_inverse=True)
        if self.salt is not None:
            key = (self.salt[0], self.salt[1])
            hashed = [siphash24(key, _text(v)) % bins for v in unique.tolist()]
        else:
            hashed = [fingerprint64(_text(v)) % bins for v in unique.tolist()]
        out = np.asarray(hashed, "int64")[inverse].reshape(values.shape)
        if masked is not None:
            out = np.where(masked, 0, out + 1)
        return out

    def call(self, inputs: Any) -> Any:
        if self.output_mode == "int":
            return ops.convert_to_tensor(self._bins(inputs).astype(index_dtype()))
        bins = ops.convert_to_tensor(self._bins(inputs).astype("int32"))
        return encode_categories(bins, self.output_mode, self.num_bins, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return tuple(input_shape)
        return encoded_shape(input_shape, self.output_mode, self.num_bins)

    def compute_output_spec(self, inputs: Any) -> Any:
        dtype = index_dtype() if self.output_mode == "int" else self.compute_dtype
        return SymbolicTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "num_bins": self.num_bins,
                "salt": self.salt,
                "mask_value": self.mask_value,
                "output_mode": self.output_mode,
                "sparse": False,
            }
        )
        return config
