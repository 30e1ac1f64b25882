"""`MultiOptimizer` and `OptimizerMap`: different optimizers for different variables."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import Any

from lamina import ops
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


def _check_optimizer(arg: str, value: Any) -> Optimizer:
    if not isinstance(value, Optimizer):
        raise TypeError(f"Argument `{arg}` must be an `Optimizer`. Received: {arg}={value!r}")
    return value


class OptimizerMap(MutableMapping[str, Optimizer]):
    """Variable-path patterns to optimizers, with a default for unmatched variables.

    Lookup (`get`) tries the exact path first, then every key as a regular expression
    searched in the path; two matching keys are an error.

    Args:
        default_optimizer: the optimizer of variables no key matches.
        optimizer_map: initial ``{pattern: optimizer}`` entries.
    """

    def __init__(
        self, default_optimizer: Optimizer, optimizer_map: dict[str, Optimizer] | None = None
    ) -> None:
        self.default_optimizer = _check_optimizer("default_optimizer", default_optimizer)
        self._map: dict[str, Optimizer] = {}
        for key, value in (optimizer_map or {}).items():
            self[key] = value

    def __getitem__(self, key: str) -> Optimizer:
        return self._map[key]

    def __setitem__(self, key: str, value: Optimizer) -> None:
        if not isinstance(key, str):
            raise TypeError(f"OptimizerMap keys must be strings. Received: key={key!r}")
        self._map[key] = _check_optimizer(f"optimizer_map[{key!r}]", value)

    def __delitem__(self, key: str) -> None:
        del self._map[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def get(self, key: str, default: Any = None) -> Any:
        """The optimizer for path `key`: exact match, else the single matching pattern.

        Raises:
            ValueError: more than one pattern matches `key`.
        """
        if key in self._map:
            return self._map[key]
        matches = [k for k in self._map if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(
                f"Variable path {key!r} matches several OptimizerMap keys: {matches}. "
                "Make the patterns exclusive."
            )
        return self._map[matches[0]] if matches else default

    def optimizer_for(self, variable: Variable) -> Optimizer:
        """The optimizer `variable` belongs to (the default when no key matches)."""
        found: Optimizer = self.get(variable.path, self.default_optimizer)
        return found

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "default_optimizer": serialize_lamina_object(self.default_optimizer),
            "optimizer_map": {k: serialize_lamina_object(v) for k, v in self._map.items()},
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> OptimizerMap:
        from lamina import optimizers

        return cls(
            optimizers.deserialize(config["default_optimizer"], custom_objects),
            {
                k: optimizers.deserialize(v, custom_objects)
                for k, v in config.get("optimizer_map", {}).items()
            },
        )


class MultiOptimizer(Optimizer):
    """Delegate each variable to the optimizer an `OptimizerMap` or a function picks.

    The sub-optimizers are built with their own variables and each applies its own
    rule, clipping and decay. `learning_rate` is not defined here (it can differ per
    sub-optimizer): read it from `optimizers`.

    Args:
        optimizer_map: an `OptimizerMap`, or a callable ``variable -> Optimizer``.
        loss_scale_factor: see `Optimizer`.
        name: the optimizer's name.

    Example:
        >>> from lamina.optimizers import SGD, Adam
        >>> opt = MultiOptimizer(OptimizerMap(SGD(), {"encoder/.*": Adam()}))
    """

    def __init__(
        self,
        optimizer_map: OptimizerMap | Callable[[Variable], Optimizer],
        loss_scale_factor: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(optimizer_map, OptimizerMap) and not callable(optimizer_map):
            raise TypeError(
                "`MultiOptimizer`: argument `optimizer_map` must be an `OptimizerMap` or a "
                f"callable. Received: optimizer_map={optimizer_map!r}"
            )
        super().__init__(
            learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name, **kwargs
        )
        self.optimizer_map = optimizer_map
        # Keep only the step counter: the rates live in the sub-optimizers.
        self._variables = [self._iterations]
        self._learning_rate = None
        self._assigned: list[Optimizer] = []
        self._optimizers: list[Optimizer] = []
        if isinstance(optimizer_map, OptimizerMap):
            self._add_optimizer(optimizer_map.default_optimizer)
            for opt in optimizer_map.values():
                self._add_optimizer(opt)

    def _add_optimizer(self, opt: Optimizer) -> None:
        if all(o is not opt for o in self._optimizers):
            self._optimizers.append(opt)

    @property
    def optimizers(self) -> list[Optimizer]:
        """The distinct sub-optimizers, in order of first use."""
        return list(self._optimizers)

    @property
    def learning_rate(self) -> Any:
        raise AttributeError(
            "MultiOptimizer has no single `learning_rate`; read it from each optimizer in "
            "`.optimizers`."
        )

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        raise AttributeError(
            "MultiOptimizer has no single `learning_rate`; set it on each optimizer in "
            f"`.optimizers`. Received: learning_rate={value!r}"
        )

    @property
    def variables(self) -> list[Variable]:
        """The step counter, then each sub-optimizer's variables."""
        out = list(self._variables)
        for opt in self._optimizers:
            out.extend(opt.variables)
        return out

    def _select(self, variable: Variable) -> Optimizer:
        if isinstance(self.optimizer_map, OptimizerMap):
            return self.optimizer_map.optimizer_for(variable)
        opt = self.optimizer_map(variable)
        return _check_optimizer(f"optimizer_map({variable.path!r})", opt)

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        var_list = list(var_list)
        self._assigned = [self._select(v) for v in var_list]
        for opt in self._assigned:
            self._add_optimizer(opt)
        for opt in self._optimizers:
            group = [v for v, o in zip(var_list, self._assigned) if o is opt]
            if group and not opt.built:
                opt.build(group)
        self._trainable_variables = var_list
        self._index = {id(v): i for i, v in enumerate(var_list)}
        self.built = True

    def _apply_processed(self, grads: list[Any], variables: list[Variable]) -> None:
        if self.loss_scale_factor is not None:
            grads = [ops.divide(g, ops.cast(self.loss_scale_factor, g.dtype)) for g in grads]
        for opt in self._optimizers:
            pairs = [
                (g, v)
                for g, v in zip(grads, variables)
                if self._assigned[self._get_variable_index(v)] is opt
            ]
            if pairs:
                opt.apply([g for g, _ in pairs], [v for _, v in pairs])
        self._iterations.assign_add(1)

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        for opt in self._optimizers:
            opt.finalize_variable_values(var_list)

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "name": self.name,
            "loss_scale_factor": self.loss_scale_factor,
            "optimizer_map": serialize_lamina_object(self.optimizer_map),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        config = dict(config)
        mapping = config.pop("optimizer_map")
        if isinstance(mapping, dict) and mapping.get("class_name") == "OptimizerMap":
            mapping = OptimizerMap.from_config(mapping["config"], custom_objects)
        else:
            from lamina.saving.serialization import deserialize_lamina_object

            mapping = deserialize_lamina_object(mapping, custom_objects=custom_objects)
        return cls(mapping, **config)
