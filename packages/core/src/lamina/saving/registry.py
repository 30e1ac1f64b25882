"""The built-in names a file may use: an explicit table, built once, never a namespace walk.

Loading resolves a name from a file through the caller's objects (``custom_objects``,
`CustomObjectScope`, `register_serializable`) and then through this table only. The table
is what makes ``safe_mode`` hold: a getattr walk over ``lamina.layers``, ``lamina`` and the
like reached ``__builtins__``, ``load_model``, ``model_from_json``, ``set_dtype_policy``
and ``save_model``; nothing of that kind is in here.

How the table is built (the choice, and why it is safe):

* Only the namespaces in `NAMESPACES` contribute, each from its own explicit name table
  (``__all__`` or ``ALL_OBJECTS_DICT``/``FUNCTIONS``), never from ``dir()`` or ``vars()``.
* A class enters only when it subclasses its namespace's allowed bases (`Layer` for
  layers, `Model` for models, `Loss`, `Metric`, `Optimizer`, `LearningRateSchedule`,
  `Initializer`, `Regularizer`, `Constraint`, `DTypePolicy`, plus the two mapping
  classes `OptimizerMap` and `DTypePolicyMap`, `SeedGenerator`, and `FeatureSpace` from
  ``utils``) and has
  ``from_config``. Such a class only builds a modeling object from its config.
* Op classes (``ops`` namespace: the nodes of a functional graph that calls ops directly)
  come from `lamina.ops.catalog` — one class per public op function, control flow left
  out — and are found only when a config's module names ``ops``.
* A function enters only from the activation, loss and metric name tables, and only
  when it is a plain function defined in ``lamina.activations``, ``lamina.losses`` or
  ``lamina.metrics``: pure maths on tensors. Helpers that look names up or deserialize
  (``get``, ``serialize``, ``deserialize``) are excluded by name as well.
* No name starting with ``_`` (dunder or private) enters.

Keras module paths in configs (``keras.layers``, ``keras.src.layers.core.dense``,
``keras.src.activations.activations``) only choose which namespace of this table to
search first; they are never imported.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any

# Searched in this order when a config gives no (known) module.
NAMESPACES: tuple[str, ...] = (
    "layers",
    "models",
    "losses",
    "metrics",
    "optimizers",
    "optimizers.schedules",
    "initializers",
    "regularizers",
    "constraints",
    "activations",
    "dtype_policies",
    "random",
    "utils",
    "ops",
)

# Searched only when a config's module names them (an op class is never what a config
# without a module means: ``Add`` there is the layer).
_EXPLICIT_ONLY: frozenset[str] = frozenset({"ops"})

_FUNCTION_MODULES = ("lamina.activations.", "lamina.losses.", "lamina.metrics.")
_NEVER_FUNCTIONS = frozenset({"get", "serialize", "deserialize"})


class BuiltinTable:
    """Name -> object per namespace, and the namespace that is each object's home."""

    def __init__(self, entries: dict[str, dict[str, Any]]) -> None:
        self.entries = entries
        self._home: dict[int, str] = {}
        for namespace in NAMESPACES:
            for name, obj in entries.get(namespace, {}).items():
                if getattr(obj, "__name__", None) == name:
                    self._home.setdefault(id(obj), namespace)

    def find(self, name: str, module: Any = None, kind: str = "any") -> Any:
        """The built-in `name` (a class for kind "class", a function for "function"), or None.

        `module` (``"keras.layers"``, ``"lamina.losses"``...) picks the namespace to search
        first; the others follow in `NAMESPACES` order.
        """
        if not isinstance(name, str) or name.startswith("_"):
            return None
        first = namespace_of_module(module)
        others = tuple(n for n in NAMESPACES if n != first and n not in _EXPLICIT_ONLY)
        order = ((first,) if first else ()) + others
        for namespace in order:
            obj = self.entries.get(namespace, {}).get(name)
            if obj is not None and _is_kind(obj, kind):
                return obj
        return None

    def home(self, obj: Any) -> str | None:
        """``"lamina.<namespace>"`` where `obj` is found under its own name, else None."""
        namespace = self._home.get(id(obj))
        return None if namespace is None else f"lamina.{namespace}"

    def names(self) -> set[str]:
        """Every built-in name (all namespaces)."""
        return {name for table in self.entries.values() for name in table}


def _is_kind(obj: Any, kind: str) -> bool:
    if kind == "class":
        return inspect.isclass(obj)
    if kind == "function":
        return not inspect.isclass(obj)
    return True


def namespace_of_module(module: Any) -> str | None:
    """The table namespace a config's ``module`` names, or None.

    ``"keras.src.optimizers.schedules.learning_rate_schedule"`` -> ``"optimizers.schedules"``;
    ``"keras.layers"`` -> ``"layers"``; ``"keras"`` or ``"my_package.layers"`` -> None.
    """
    if not isinstance(module, str) or len(module) > 200:
        return None
    parts = module.split(".")
    if parts[0] not in ("keras", "lamina", "tf_keras"):
        return None
    parts = [p for p in parts[1:] if p != "src"]
    for n in (2, 1):
        candidate = ".".join(parts[:n])
        if len(parts) >= n and candidate in NAMESPACES:
            return candidate
    return None


@functools.cache
def builtin_table() -> BuiltinTable:
    """The table (built on first use: the namespaces import this package themselves)."""
    from lamina import (
        activations,
        constraints,
        dtype_policies,
        initializers,
        layers,
        losses,
        metrics,
        models,
        optimizers,
        random,
        regularizers,
        utils,
    )
    from lamina.ops.base import Op
    from lamina.ops.catalog import public_op_classes
    from lamina.optimizers import schedules

    sources: dict[str, tuple[dict[str, Any], tuple[type, ...]]] = {
        "layers": (_by_names(layers, layers.__all__), (layers.Layer,)),
        "models": (_by_names(models, models.__all__), (models.Model,)),
        "losses": (dict(losses.ALL_OBJECTS_DICT), (losses.Loss,)),
        "metrics": (
            {**metrics.ALL_OBJECTS_DICT, **{fn.__name__: fn for fn in metrics.FUNCTIONS}},
            (metrics.Metric,),
        ),
        "optimizers": (
            dict(optimizers.ALL_OBJECTS_DICT),
            (optimizers.Optimizer, optimizers.OptimizerMap),
        ),
        "optimizers.schedules": (
            dict(schedules.ALL_OBJECTS_DICT),
            (schedules.LearningRateSchedule,),
        ),
        "initializers": (dict(initializers.ALL_OBJECTS_DICT), (initializers.Initializer,)),
        "regularizers": (dict(regularizers.ALL_OBJECTS_DICT), (regularizers.Regularizer,)),
        "constraints": (dict(constraints.ALL_OBJECTS_DICT), (constraints.Constraint,)),
        "activations": (dict(activations.ALL_OBJECTS_DICT), ()),
        "dtype_policies": (
            _by_names(dtype_policies, dtype_policies.__all__),
            (dtype_policies.DTypePolicy, dtype_policies.DTypePolicyMap),
        ),
        "random": ({"SeedGenerator": random.SeedGenerator}, (random.SeedGenerator,)),
        # Only FeatureSpace: the one serializable object of `utils` (a Layer).
        "utils": ({"FeatureSpace": utils.FeatureSpace}, (layers.Layer,)),
        "ops": (dict(public_op_classes()), (Op,)),
    }
    entries = {
        namespace: {
            name: obj for name, obj in candidates.items() if _admissible(name, obj, bases)
        }
        for namespace, (candidates, bases) in sources.items()
    }
    return BuiltinTable(entries)


def _by_names(module: types.ModuleType, names: list[str]) -> dict[str, Any]:
    return {name: getattr(module, name) for name in names}


def _admissible(name: str, obj: Any, bases: tuple[type, ...]) -> bool:
    """Whether `obj` may be named by a file as `name` (see the module docstring)."""
    if not isinstance(name, str) or not name or name.startswith("_"):
        return False
    if inspect.isclass(obj):
        return bool(bases) and issubclass(obj, bases) and hasattr(obj, "from_config")
    return (
        isinstance(obj, types.FunctionType)
        and not obj.__name__.startswith("_")
        and obj.__name__ not in _NEVER_FUNCTIONS
        and name not in _NEVER_FUNCTIONS
        and str(obj.__module__).startswith(_FUNCTION_MODULES)
    )
