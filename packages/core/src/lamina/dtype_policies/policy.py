"""`DTypePolicy`: the dtype a layer computes in and the dtype its variables are stored in."""

from __future__ import annotations

from typing import Any

from lamina.backend.config import SETTINGS
from lamina.ops import dtypes

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


class DTypePolicy:
    """A layer's dtypes: ``"float32"``, ``"mixed_float16"``, ``"mixed_bfloat16"``...

    A plain dtype name computes and stores in that dtype. A ``mixed_*`` policy stores
    variables in float32 (so small updates are not lost) and computes in the half dtype.

    Args:
        name: a dtype name or ``mixed_float16`` / ``mixed_bfloat16``; None means floatx.

    Example:
        >>> policy = DTypePolicy("mixed_bfloat16")
        >>> policy.compute_dtype, policy.variable_dtype  # ('bfloat16', 'float32')
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = SETTINGS.floatx
        if not isinstance(name, str):
            raise ValueError(
                "Argument `name` must be a string such as 'float32' or 'mixed_float16'. "
                f"Received: name={name!r}"
            )
        if name in _MIXED:
            self._compute_dtype = _MIXED[name]
            self._variable_dtype = "float32"
        else:
            try:
                dtype = dtypes.standardize_dtype(name)
            except (ValueError, TypeError):
                raise ValueError(
                    "Argument `name` must be a dtype or one of 'mixed_float16', "
                    f"'mixed_bfloat16'. Received: name={name!r}"
                ) from None
            self._compute_dtype = self._variable_dtype = dtype
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layer computations (and autocast inputs) use."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype variables are created in."""
        return self._variable_dtype

    @property
    def quantization_mode(self) -> None:
        """No quantization: Lamina's float policies only."""
        return None

    def convert_input(self, x: Any, autocast: bool, dtype: str) -> Any:
        """Cast a floating tensor `x` to `dtype` when `autocast` is on."""
        from lamina.ops.core.conversion import cast

        if autocast and dtypes.dtype_of(x) in dtypes.FLOATS and dtypes.dtype_of(x) != dtype:
            return cast(x, dtype)
        return x

    def get_config(self) -> dict[str, Any]:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DTypePolicy:
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


FloatDTypePolicy = DTypePolicy


class DTypePolicyMap(dict[str, DTypePolicy]):
    """Policies by layer path, for models whose layers differ (``"dense/*": policy``)."""

    def __init__(self, default_policy: Any = None, policy_map: dict[str, Any] | None = None):
        super().__init__({k: get(v) for k, v in (policy_map or {}).items()})
        self.default_policy = get(default_policy) if default_policy is not None else None

    def __missing__(self, key: str) -> DTypePolicy:
        return self.default_policy or dtype_policy()

    def get_config(self) -> dict[str, Any]:
        return {
            "default_policy": None if self.default_policy is None else self.default_policy.name,
            "policy_map": {k: v.name for k, v in self.items()},
        }


def get(identifier: Any) -> DTypePolicy:
    """A `DTypePolicy` from a policy, a name, a config dict, or None (the global policy).

    Raises:
        ValueError: `identifier` is none of these.
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    if isinstance(identifier, dict) and "config" in identifier:
        return DTypePolicy.from_config(identifier["config"])
    if isinstance(identifier, dict) and "name" in identifier:
        return DTypePolicy.from_config(identifier)
    try:
        return DTypePolicy(dtypes.standardize_dtype(identifier))
    except (ValueError, TypeError):
        raise ValueError(
            "Argument `dtype` must be a DTypePolicy, a dtype name or a policy config. "
            f"Received: dtype={identifier!r}"
        ) from None


def serialize(policy: DTypePolicy) -> dict[str, Any]:
    """A JSON-able config of `policy`."""
    return {"module": "lamina", "class_name": "DTypePolicy", "config": policy.get_config()}


def deserialize(config: Any) -> DTypePolicy:
    """The inverse of `serialize` (names and bare configs are accepted too)."""
    return get(config)


def set_dtype_policy(policy: Any) -> None:
    """Set the global policy new layers take when given no `dtype`."""
    SETTINGS.dtype_policy = get(policy) if policy is not None else None


def dtype_policy() -> DTypePolicy:
    """The global policy (floatx when none was set)."""
    policy = SETTINGS.dtype_policy
    if isinstance(policy, DTypePolicy):
        return policy
    return DTypePolicy(SETTINGS.floatx)
