"""Dtype policies (``lamina.dtype_policies``): compute and variable dtypes per layer."""

from lamina.dtype_policies.policy import DTypePolicy as DTypePolicy
from lamina.dtype_policies.policy import DTypePolicyMap as DTypePolicyMap
from lamina.dtype_policies.policy import FloatDTypePolicy as FloatDTypePolicy
from lamina.dtype_policies.policy import deserialize as deserialize
from lamina.dtype_policies.policy import dtype_policy as dtype_policy
from lamina.dtype_policies.policy import get as get
from lamina.dtype_policies.policy import serialize as serialize
from lamina.dtype_policies.policy import set_dtype_policy as set_dtype_policy

__all__ = [
    "DTypePolicy",
    "DTypePolicyMap",
    "FloatDTypePolicy",
    "deserialize",
    "dtype_policy",
    "get",
    "serialize",
    "set_dtype_policy",
]
