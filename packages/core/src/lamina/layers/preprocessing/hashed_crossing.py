"""`HashedCrossing`: cross categorical features into `num_bins` buckets, as Keras 3 does."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import to_numpy
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.category_encoding import (
    check_mode_and_dense,
    encode_categories,
    encoded_shape,
)
from lamina.layers.preprocessing.farmhash import fingerprint64
from lamina.layers.preprocessing.index_lookup import index_dtype
from lamina.ops.symbolic import SymbolicTensor

_MODES = ("int", "one_hot")
# TensorFlow's `sparse.cross_hashed` starts every cross from this key and folds each
# feature's hash in with FingerprintCat64; reproducing both gives Keras 3's bins.
_HASH_KEY = 0xDECAFCAFFE
_CAT_MUL = np.uint64(0xC6A4A7935BD1E995)
_SHIFT = np.uint64(47)


def _shift_mix(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return v ^ (v >> _SHIFT)


def _fingerprint_cat(fp1: np.ndarray[Any, Any], fp2: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """FingerprintCat64 on uint64 arrays (NumPy's uint64 arithmetic wraps modulo 2**64)."""
    result = fp1 ^ _CAT_MUL
    result = result ^ (_shift_mix(fp2 * _CAT_MUL) * _CAT_MUL)
    result = result * _CAT_MUL
    result = _shift_mix(result) * _CAT_MUL
    return _shift_mix(result)


def _feature_hash(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Strings hash to their Fingerprint64; integers enter as their own 64 bits."""
    flat = values.reshape(-1)
    if values.dtype.kind == "O":
        unique, inverse = np.unique(flat.astype(str), return_inverse=True)
        hashed = [fingerprint64(str(v).encode("utf-8")) for v in unique.tolist()]
        return np.asarray(hashed, dtype=np.uint64)[inverse]
    return flat.astype(np.int64).view(np.uint64)


class HashedCrossing(TFGraphCallMixin, Layer):
    """Cross categorical features with the hashing trick: ``hash(features) % num_bins``.

    Each input holds one feature per sample, all with the same shape: ``()``,
    ``(batch_size,)`` or ``(batch_size, 1)``, of integers or strings. The bins are the
    ones TensorFlow's `sparse.cross_hashed` gives (Keras 3's), on every backend. Crossing
    runs on the host, eagerly.

    Args:
        num_bins: the number of hash bins.
        output_mode: ``"int"`` (the bin indices) or ``"one_hot"``.
        sparse: sparse outputs; only ``False`` is supported.
        **kwargs: base `Layer` arguments.

    Example:
        >>> layer = lamina.layers.HashedCrossing(num_bins=5)
        >>> out = layer((np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102])))
        >>> lamina.ops.convert_to_numpy(out).tolist()
        [1, 4, 1, 1, 3]
    """

    _host_only = True  # hashes with NumPy (FarmHash, SipHash), even on TensorFlow

    def __init__(
        self,
        num_bins: int,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not isinstance(num_bins, int) or isinstance(num_bins, bool) or num_bins <= 0:
            raise ValueError(
                "HashedCrossing: argument `num_bins` must be an integer > 0. "
                f"Received: num_bins={num_bins!r}"
            )
        check_mode_and_dense("HashedCrossing", output_mode, _MODES, sparse)
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = False
        self.built = True

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The features stay as given: they are crossed on the host, strings included."""
        return args

    def _check_inputs(self, inputs: Any) -> list[np.ndarray[Any, Any]]:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                "HashedCrossing: the layer must be called on a list or tuple of inputs. "
                f"Received: inputs of type {type(inputs).__name__}"
            )
        if len(inputs) < 2:
            raise ValueError(
                "HashedCrossing: the layer must be called on at least two inputs. "
                f"Received: {len(inputs)} input(s)"
            )
        arrays = [to_numpy(x) for x in inputs]
        shape = arrays[0].shape
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError(
                "HashedCrossing: every input must have shape (), (batch_size,) or "
                f"(batch_size, 1). Received: shapes {[a.shape for a in arrays]}"
            )
        if any(a.shape != shape for a in arrays[1:]):
            raise ValueError(
                "HashedCrossing: all inputs must have the same shape. "
                f"Received: shapes {[a.shape for a in arrays]}"
            )
        for a in arrays:
            text = a.dtype.kind == "O" and all(isinstance(v, str) for v in a.reshape(-1))
            if not (text or a.dtype.kind in ("i", "u")):
                raise ValueError(
                    "HashedCrossing: all inputs must hold integers or strings. "
                    f"Received: an input of dtype {a.dtype}"
                )
        return arrays

    def _bins(self, inputs: Any) -> np.ndarray[Any, Any]:
        arrays = self._check_inputs(inputs)
        crossed = np.full(arrays[0].size, _HASH_KEY, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for a in arrays:
                crossed = _fingerprint_cat(crossed, _feature_hash(a))
        bins = crossed % np.uint64(self.num_bins)
        return bins.astype(np.int64).reshape(arrays[0].shape)

    def call(self, inputs: Any) -> Any:
        bins = self._bins(inputs)
        if self.output_mode == "int":
            return ops.convert_to_tensor(bins.astype(index_dtype()))
        tensor = ops.convert_to_tensor(bins.astype("int32"))
        if bins.ndim == 0:  # one sample: a single one-hot vector, as Keras 3 gives
            return ops.one_hot(tensor, self.num_bins, dtype=self.compute_dtype)
        return encode_categories(tensor, "one_hot", self.num_bins, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = list(input_shape)
        if len(shapes) < 2 or not all(isinstance(s, (tuple, list)) for s in shapes):
            raise ValueError(
                "HashedCrossing: expected the shapes of a list or tuple of at least two "
                f"inputs. Received: input_shape={input_shape!r}"
            )
        first = tuple(shapes[0])
        if any(tuple(s) != first for s in shapes[1:]):
            raise ValueError(
                "HashedCrossing: all inputs must have the same shape. "
                f"Received: input_shape={input_shape!r}"
            )
        if self.output_mode == "int":
            return first
        return encoded_shape(first, "one_hot", self.num_bins)

    def compute_output_spec(self, inputs: Any) -> Any:
        shape = self.compute_output_shape([tuple(x.shape) for x in inputs])
        dtype = index_dtype() if self.output_mode == "int" else self.compute_dtype
        return SymbolicTensor(shape, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": False})
        return config
