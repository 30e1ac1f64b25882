"""`FeatureSpace`: one object that preprocesses and encodes every column of a table."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from lamina import layers, ops, tree
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import to_numpy
from lamina.layers.preprocessing._tf_graph import holds_graph_tensor, host_graph_call
from lamina.ops.symbolic import SymbolicTensor
from lamina.saving.serialization import deserialize_lamina_object, serialize_lamina_object

_FEATURE_MODES = ("int", "one_hot", "float")
_CROSS_MODES = ("int", "one_hot")


class Cross:
    """A crossing of features, hashed into `crossing_dim` bins by `HashedCrossing`."""

    def __init__(self, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot") -> None:
        if output_mode not in _CROSS_MODES:
            raise ValueError(
                f"Cross: argument `output_mode` must be one of {_CROSS_MODES}. "
                f"Received: output_mode={output_mode!r}"
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict[str, Any]:
        return {
            "feature_names": list(self.feature_names),
            "crossing_dim": self.crossing_dim,
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Cross:
        return cls(**config)


class Feature:
    """One input column: its dtype, the layer that preprocesses it, how it is encoded."""

    def __init__(self, dtype: str, preprocessor: Any, output_mode: str) -> None:
        if output_mode not in _FEATURE_MODES:
            raise ValueError(
                f"Feature: argument `output_mode` must be one of {_FEATURE_MODES}. "
                f"Received: output_mode={output_mode!r}"
            )
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = deserialize_lamina_object(preprocessor)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "preprocessor": serialize_lamina_object(self.preprocessor),
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Feature:
        return cls(**config)


def _cardinality(name: str, layer: Any) -> int:
    """How many ids an integer-valued preprocessor gives (the one-hot depth)."""
    if isinstance(layer, (layers.IntegerLookup, layers.StringLookup)):
        return int(layer.vocabulary_size())
    if isinstance(layer, layers.Discretization):
        if layer.bin_boundaries:
            return len(layer.bin_boundaries) + 1
        return int(layer.num_bins or 0)
    if isinstance(layer, (layers.Hashing, layers.HashedCrossing)):
        return int(layer.num_bins)
    if isinstance(layer, layers.CategoryEncoding):
        return int(layer.num_tokens)
    raise ValueError(
        f"FeatureSpace: feature {name!r} has output_mode='one_hot' but its preprocessor "
        f"({type(layer).__name__}) has no known number of ids. Use output_mode='int'."
    )


def _preprocessor_name(name: str | None) -> str | None:
    """A feature's preprocessor is named after it, with a suffix (as in Keras 3) so that
    it never takes the name of the feature's `Input` in a model built on the space."""
    return None if name is None else f"{name}_preprocessor"


def _needs_adapt(layer: Any) -> bool:
    """Whether a preprocessor still lacks the state it learns from data."""
    if isinstance(layer, layers.Normalization):
        return not layer.is_adapted
    if isinstance(layer, (layers.IntegerLookup, layers.StringLookup, layers.TextVectorization)):
        return not layer.get_vocabulary(include_special_tokens=False)
    if isinstance(layer, layers.Discretization):
        return not layer.bin_boundaries
    return False


def _adaptable(layer: Any) -> bool:
    """What `adapt` (re)learns: vocabularies always, means and bins unless given."""
    if isinstance(layer, (layers.IntegerLookup, layers.StringLookup, layers.TextVectorization)):
        return True
    return _needs_adapt(layer)


class FeatureSpace(Layer):
    """Preprocess and encode a dict of features (a table's columns) in one step.

    Each feature is named by a type string (``"float"``, ``"float_rescaled"``,
    ``"float_normalized"``, ``"float_discretized"``, ``"integer_categorical"``,
    ``"string_categorical"``, ``"integer_hashed"``, ``"string_hashed"``) or built with the
    class methods of the same names, which take the preprocessing arguments. `adapt`
    learns vocabularies, means and bins from data; calling the space on a dict of
    columns gives one concatenated float matrix (``output_mode="concat"``) or a dict of
    encoded features (``"dict"``).

    Args:
        features: feature name -> type string or `Feature`.
        output_mode: ``"concat"`` or ``"dict"``.
        crosses: tuples of feature names (or `Cross` objects) to cross by hashing.
        crossing_dim: the bins of a cross given as a tuple.
        hashing_dim: the bins of ``"integer_hashed"`` / ``"string_hashed"``.
        num_discretization_bins: the bins of ``"float_discretized"``.
        name: the layer's name.
        **kwargs: base `Layer` arguments.

    Example:
        >>> space = lamina.utils.FeatureSpace(
        ...     {"age": "float_normalized", "city": "string_categorical"})
        >>> space.adapt({"age": [20.0, 40.0, 60.0], "city": ["a", "b", "a"]})
        >>> tuple(space({"age": [30.0], "city": ["b"]}).shape)
        (1, 4)
    """

    @classmethod
    def cross(cls, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot") -> Cross:
        return Cross(feature_names, crossing_dim, output_mode)

    @classmethod
    def feature(cls, dtype: str, preprocessor: Any, output_mode: str) -> Feature:
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name: str | None = None) -> Feature:
        return Feature(
            "float32", layers.Identity(dtype="float32", name=_preprocessor_name(name)), "float"
        )

    @classmethod
    def float_rescaled(
        cls, scale: builtins.float = 1.0, offset: builtins.float = 0.0, name: str | None = None
    ) -> Feature:
        return Feature(
            "float32", layers.Rescaling(scale, offset, name=_preprocessor_name(name)), "float"
        )

    @classmethod
    def float_normalized(cls, name: str | None = None) -> Feature:
        return Feature(
            "float32", layers.Normalization(axis=-1, name=_preprocessor_name(name)), "float"
        )

    @classmethod
    def float_discretized(
        cls,
        num_bins: int,
        bin_boundaries: Any = None,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        if bin_boundaries is not None:
            layer = layers.Discretization(
                bin_boundaries=bin_boundaries, name=_preprocessor_name(name)
            )
        else:
            layer = layers.Discretization(num_bins=num_bins, name=_preprocessor_name(name))
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(
        cls,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        layer = layers.IntegerLookup(
            max_tokens=max_tokens, num_oov_indices=num_oov_indices, name=_preprocessor_name(name)
        )
        return Feature("int32", layer, output_mode)

    @classmethod
    def string_categorical(
        cls,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        layer = layers.StringLookup(
            max_tokens=max_tokens, num_oov_indices=num_oov_indices, name=_preprocessor_name(name)
        )
        return Feature("string", layer, output_mode)

    @classmethod
    def string_hashed(
        cls, num_bins: int, output_mode: str = "one_hot", name: str | None = None
    ) -> Feature:
        return Feature(
            "string", layers.Hashing(num_bins=num_bins, name=_preprocessor_name(name)), output_mode
        )

    @classmethod
    def integer_hashed(
        cls, num_bins: int, output_mode: str = "one_hot", name: str | None = None
    ) -> Feature:
        return Feature(
            "int32", layers.Hashing(num_bins=num_bins, name=_preprocessor_name(name)), output_mode
        )

    def __init__(
        self,
        features: dict[str, Any],
        output_mode: str = "concat",
        crosses: Any = None,
        crossing_dim: int = 32,
        hashing_dim: int = 32,
        num_discretization_bins: int = 32,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        if not features or not isinstance(features, dict):
            raise ValueError(
                "FeatureSpace: argument `features` must be a non-empty dict of feature name "
                f"-> type or Feature. Received: features={features!r}"
            )
        if output_mode not in ("concat", "dict"):
            raise ValueError(
                "FeatureSpace: argument `output_mode` must be 'concat' or 'dict'. "
                f"Received: output_mode={output_mode!r}"
            )
        self.output_mode = output_mode
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {key: self._standardize(key, value) for key, value in features.items()}
        self.crosses = [self._standardize_cross(c) for c in crosses or []]
        self.preprocessors = {key: f.preprocessor for key, f in self.features.items()}
        self.crossers = {
            c.name: layers.HashedCrossing(num_bins=c.crossing_dim, name=f"cross_{c.name}")
            for c in self.crosses
        }
        self.one_hot_encoders: dict[str, Any] = {}
        self.concat = layers.Concatenate(axis=-1)
        self.inputs = {
            key: layers.Input(shape=(1,), dtype=f.dtype, name=key)
            for key, f in self.features.items()
        }
        self.encoded_features: Any = None
        # Built once adapted (or rebuilt from an archive's build config).

    def _standardize(self, key: str, value: Any) -> Feature:
        if isinstance(value, Feature):
            return value
        if isinstance(value, dict):
            return Feature.from_config(value)
        makers = {
            "float": lambda: self.float(name=key),
            "float_rescaled": lambda: self.float_rescaled(name=key),
            "float_normalized": lambda: self.float_normalized(name=key),
            "float_discretized": lambda: self.float_discretized(
                self.num_discretization_bins, name=key
            ),
            "integer_categorical": lambda: self.integer_categorical(name=key),
            "string_categorical": lambda: self.string_categorical(name=key),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=key),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=key),
        }
        if value not in makers:
            raise ValueError(
                f"FeatureSpace: feature {key!r} must be a Feature or one of {sorted(makers)}. "
                f"Received: {value!r}"
            )
        return makers[value]()

    def _standardize_cross(self, cross: Any) -> Cross:
        if isinstance(cross, dict):
            cross = Cross.from_config(cross)
        if not isinstance(cross, Cross):
            if not self.crossing_dim:
                raise ValueError(
                    "FeatureSpace: crosses given as names need `crossing_dim`. "
                    f"Received: crossing_dim={self.crossing_dim!r}"
                )
            cross = Cross(cross, self.crossing_dim)
        unknown = [n for n in cross.feature_names if n not in self.features]
        if unknown:
            raise ValueError(
                f"FeatureSpace: cross {cross.feature_names} names features that are not in "
                f"`features`: {unknown}"
            )
        return cross

    # -- adapting ---------------------------------------------------------------------
    def _columns(self, dataset: Any) -> dict[str, np.ndarray[Any, Any]]:
        """Every feature's values from a dict of arrays or a dataset of dict batches."""
        if isinstance(dataset, dict):
            return {k: to_numpy(v) for k, v in dataset.items()}
        if hasattr(dataset, "as_numpy_iterator"):
            parts: dict[str, list[Any]] = {}
            for batch in dataset.as_numpy_iterator():
                if not isinstance(batch, dict):
                    raise ValueError(
                        "FeatureSpace.adapt: the dataset must give dicts of features. "
                        f"Received: elements of type {type(batch).__name__}"
                    )
                for key, value in batch.items():
                    parts.setdefault(key, []).append(np.atleast_1d(to_numpy(value)))
            return {k: np.concatenate(v) for k, v in parts.items()}
        raise ValueError(
            "FeatureSpace.adapt: argument `dataset` must be a dict of arrays/lists or a "
            f"tf.data.Dataset of dicts. Received: dataset of type {type(dataset).__name__}"
        )

    def adapt(self, dataset: Any) -> None:
        """Learn each adaptable preprocessor's state (vocabulary, mean, bins) from data.

        Args:
            dataset: a dict of arrays/lists, or a `tf.data.Dataset` of feature dicts.
        """
        columns = self._columns(dataset)
        for key, layer in self.preprocessors.items():
            if not _adaptable(layer):
                continue
            if key not in columns:
                raise ValueError(f"FeatureSpace.adapt: no values were given for feature {key!r}.")
            layer.adapt(columns[key].reshape(-1, 1))
        self.one_hot_encoders = {}
        self.encoded_features = None
        self.get_encoded_features()

    def _check_adapted(self) -> None:
        waiting = [k for k, layer in self.preprocessors.items() if _needs_adapt(layer)]
        if waiting:
            raise ValueError(
                "FeatureSpace: call `adapt(dataset)` before using the feature space "
                f"(features {waiting} learn their state from data)."
            )

    # -- encoding ---------------------------------------------------------------------
    def _encode(self, inputs: dict[str, Any]) -> Any:
        """The pipeline, on symbolic inputs or eager arrays of shape (batch, 1)."""
        preprocessed = {key: self.preprocessors[key](inputs[key]) for key in self.features}
        crossed = {
            c.name: self.crossers[c.name]([preprocessed[n] for n in c.feature_names])
            for c in self.crosses
        }
        specs: dict[str, Any] = {**self.features, **{c.name: c for c in self.crosses}}
        values = {**preprocessed, **crossed}
        names = sorted(preprocessed) + sorted(crossed)
        encoded: dict[str, Any] = {}
        for key in names:
            value = values[key]
            if specs[key].output_mode == "one_hot":
                encoder = self.one_hot_encoders.get(key)
                if encoder is None:
                    layer = self.preprocessors.get(key) or self.crossers[key]
                    encoder = layers.CategoryEncoding(
                        num_tokens=_cardinality(key, layer), output_mode="multi_hot"
                    )
                    self.one_hot_encoders[key] = encoder
                value = encoder(value)
            encoded[key] = value
        if self.output_mode == "dict":
            return encoded
        for key, value in encoded.items():
            dtype = str(getattr(value, "dtype", ""))
            if "int" in dtype or "string" in dtype:
                raise ValueError(
                    f"FeatureSpace: feature {key!r} is not encoded as floats (dtype "
                    f"{dtype}), so it cannot be concatenated. Use output_mode='dict'."
                )
        return self.concat([ops.cast(v, "float32") for v in encoded.values()])

    def get_inputs(self) -> dict[str, Any]:
        """The symbolic input of each feature (shape ``(None, 1)``)."""
        return self.inputs

    def get_encoded_features(self) -> Any:
        """The symbolic encoded output (a tensor, or a dict with ``output_mode="dict"``),
        computed from `get_inputs`: the input of a model trained on encoded features."""
        self._check_adapted()
        if self.encoded_features is None:
            self.encoded_features = self._encode(self.inputs)
        self.built = True
        return self.encoded_features

    def __call__(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError(
                "FeatureSpace: call it with a dict of features. "
                f"Received: data of type {type(data).__name__}"
            )
        self._check_adapted()
        missing = [k for k in self.features if k not in data]
        if missing:
            raise ValueError(f"FeatureSpace: the data lacks features {missing}.")
        if holds_graph_tensor(data):
            return self._graph_call({k: data[k] for k in self.features})
        columns: dict[str, Any] = {}
        single = False
        for key, feature in self.features.items():
            value = to_numpy(data[key])
            single = single or value.ndim == 0
            value = value.reshape(-1, 1) if value.ndim <= 1 else value
            if feature.dtype != "string" and value.dtype.kind != "O":
                value = value.astype(feature.dtype)
            columns[key] = value
        out = self._encode(columns)
        if not single:
            return out
        if self.output_mode == "concat":
            return ops.squeeze(out, 0)
        return {k: ops.squeeze(v, 0) for k, v in out.items()}

    def _graph_call(self, data: dict[str, Any]) -> Any:
        """The space inside a `tf.data` pipeline (``dataset.map(space)``): one host node
        that encodes each element or batch with the active backend."""
        spec = self.get_encoded_features()
        if all(value.shape.rank == 0 for value in data.values()):  # unbatched elements
            spec = tree.map_structure(lambda t: SymbolicTensor(t.shape[1:], t.dtype), spec)
        return host_graph_call(self.__call__, data, spec)

    def call(self, data: Any) -> Any:
        """The same as calling the space (it runs eagerly on the host)."""
        return self.__call__(data)

    # -- saving -----------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "features": {k: f.get_config() for k, f in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [c.get_config() for c in self.crosses],
                "crossing_dim": self.crossing_dim,
                "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins,
            }
        )
        return config

    def get_build_config(self) -> dict[str, Any] | None:
        """Whether the space was adapted: its means and variances are then weights."""
        return {"adapted": not any(_needs_adapt(p) for p in self.preprocessors.values())}

    def build_from_config(self, config: dict[str, Any] | None) -> None:
        """Rebuild an adapted space so that the archive's weights load into it."""
        if not config or not config.get("adapted"):
            return
        for layer in self.preprocessors.values():
            if isinstance(layer, layers.Normalization):
                layer.is_adapted = True  # the mean and variance load right after this
        self.encoded_features = None
        self.get_encoded_features()

    def save(self, filepath: str, *args: Any, **kwargs: Any) -> None:
        """Save the feature space (with every adapted state) to a ``.lamina`` archive."""
        from lamina import saving

        saving.save_model(self, filepath, *args, **kwargs)
