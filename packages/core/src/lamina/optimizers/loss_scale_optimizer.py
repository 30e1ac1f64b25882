"""`LossScaleOptimizer`: dynamic loss scaling for float16 training."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class LossScaleOptimizer(Optimizer):
    """Wrap an optimizer with a loss scale that adapts to float16's range.

    `scale_loss` multiplies the loss by the current scale so small float16 gradients do
    not underflow; `apply` divides the gradients by it. When any gradient is not finite
    the step is skipped (no variable, slot or counter changes) and the scale halves;
    after `dynamic_growth_steps` finite steps in a row it doubles.

    Args:
        inner_optimizer: the optimizer that applies the unscaled gradients.
        initial_scale: the starting scale (> 0).
        dynamic_growth_steps: finite steps between doublings (>= 1).
        name: the optimizer's name.
    """

    def __init__(
        self,
        inner_optimizer: Optimizer,
        initial_scale: float = 2.0**15,
        dynamic_growth_steps: int = 2000,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                "`LossScaleOptimizer`: argument `inner_optimizer` must be an `Optimizer`. "
                f"Received: inner_optimizer={inner_optimizer!r}"
            )
        _state.check_float("LossScaleOptimizer", "initial_scale", initial_scale, 0.0, low_open=True)
        if (
            isinstance(dynamic_growth_steps, bool)
            or not isinstance(dynamic_growth_steps, int)
            or (dynamic_growth_steps < 1)
        ):
            raise ValueError(
                "`LossScaleOptimizer`: argument `dynamic_growth_steps` must be an int >= 1. "
                f"Received: dynamic_growth_steps={dynamic_growth_steps!r}"
            )
        kwargs.pop("learning_rate", None)  # present in configs written by other tools
        super().__init__(learning_rate=0.0, name=name, **kwargs)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = dynamic_growth_steps
        # Only the wrapper's own state: the counter and rate belong to the inner optimizer.
        self._variables = []
        self._iterations = inner_optimizer.iterations
        self.step_counter = self.add_variable(
            (),
            initializer="zeros",
            dtype="int32",
            name="step_counter",
            aggregation="only_first_replica",
        )
        self.dynamic_scale = self.add_variable(
            (),
            initializer=self.initial_scale,
            dtype="float32",
            name="dynamic_scale",
            aggregation="only_first_replica",
        )

    @property
    def variables(self) -> list[Variable]:
        """The wrapper's step counter and scale, then the inner optimizer's variables."""
        return [*self._variables, *self.inner_optimizer.variables]

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self.inner_optimizer.learning_rate = value

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        self.inner_optimizer.build(var_list)
        self._trainable_variables = list(var_list)
        self._index = {id(v): i for i, v in enumerate(self._trainable_variables)}
        self.built = True

    def scale_loss(self, loss: Any) -> Any:
        """`loss` times the current dynamic scale (and the inner optimizer's factor)."""
        scaled = ops.multiply(
            loss, ops.cast(self.dynamic_scale.value, ops.convert_to_tensor(loss).dtype)
        )
        return self.inner_optimizer.scale_loss(scaled)

    def _apply_processed(self, grads: list[Any], variables: list[Variable]) -> None:
        scale = self.dynamic_scale.value
        unscaled = [ops.divide(g, ops.cast(scale, g.dtype)) for g in grads]
        finite = _state.all_finite(unscaled)
        _state.conditional_update(
            finite,
            lambda: self.inner_optimizer.apply(unscaled, variables),
            [*self.inner_optimizer.variables, *variables],
        )
        count = ops.add(self.step_counter.value, 1)
        grow = ops.logical_and(finite, ops.greater_equal(count, self.dynamic_growth_steps))
        new_scale = ops.where(
            finite, ops.where(grow, ops.multiply(scale, 2.0), scale), ops.divide(scale, 2.0)
        )
        self.dynamic_scale.assign(new_scale)
        self.step_counter.assign(
            ops.where(ops.logical_and(finite, ops.logical_not(grow)), count, ops.zeros_like(count))
        )

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "name": self.name,
            "inner_optimizer": serialize_lamina_object(self.inner_optimizer),
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            from lamina import optimizers

            inner = deserialize_lamina_object(
                inner, module_objects=optimizers.ALL_OBJECTS_DICT, custom_objects=custom_objects
            )
        return cls(inner, **config)
