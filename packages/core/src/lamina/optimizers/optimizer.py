"""`Optimizer`: the base of every optimizer, its state in `lamina.Variable`s.

An optimizer's state (the step counter, the learning rate, per-variable slots) lives in
variables, and every update is written with `lamina.ops` and `Variable.assign`. So one
implementation runs eagerly on NumPy and PyTorch, inside `tf.function`, and inside a
jitted JAX step through `stateless_apply`, which runs `apply` in a `StatelessScope` and
returns the new values instead of mutating anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from lamina import ops
from lamina.backend.config import name_scope, unique_name
from lamina.ops import dtypes
from lamina.ops.dispatch import backend
from lamina.ops.operation import _snake_case
from lamina.optimizers import _state
from lamina.optimizers.schedules.learning_rate_schedule import LearningRateSchedule
from lamina.variables.scopes import StatelessScope, in_stateless_scope
from lamina.variables.variable import Variable

_RENAMED = {"lr": "learning_rate", "decay": "a `learning_rate` schedule"}


_RULE_OWNERS: dict[type, type] = {}


def _rule_owner(cls: type) -> type:
    """The class whose `update_step` `cls` uses: the key of a backend's fused rule, which
    a subclass with its own rule never matches."""
    owner = _RULE_OWNERS.get(cls)
    if owner is None:
        owner = _RULE_OWNERS[cls] = next(c for c in cls.__mro__ if "update_step" in c.__dict__)
    return owner


def _gradient_tensor(grad: Any, dtype: str) -> Any:
    """`grad` as a tensor of its variable's `dtype`; autograd's usually already is one."""
    if ops.is_tensor(grad) and dtypes.dtype_of(grad) == dtype:
        return grad
    return ops.cast(ops.convert_to_tensor(grad), dtype)


def _initializer(value: Any) -> Callable[..., Any]:
    """A ``(shape, dtype)`` callable from "zeros", "ones", an initializer or a callable."""
    if isinstance(value, str):
        if value in ("zeros", "ones"):
            fill = np.zeros if value == "zeros" else np.ones
            return lambda shape, dtype=None: fill(shape, dtypes.to_numpy_dtype(dtype))
        from lamina import initializers

        resolved: Callable[..., Any] = initializers.get(value)
        return resolved
    if callable(value):
        return value
    array = np.asarray(value)
    return lambda shape, dtype=None: np.broadcast_to(
        array.astype(dtypes.to_numpy_dtype(dtype)), shape
    ).copy()


class Optimizer:
    """The base optimizer: gradient processing, state, and the update loop.

    Subclasses create their slots in `build` (after ``super().build(var_list)``) and
    implement `update_step(gradient, variable, learning_rate)` with `assign`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` evaluated at `iterations`, or a
            callable of no arguments returning the rate.
        weight_decay: decoupled weight decay: each step multiplies variables by
            ``1 - weight_decay * learning_rate`` before the update.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip all gradients together to this global L2 norm.
        use_ema: keep an exponential moving average of the variables.
        ema_momentum: the EMA's momentum, in [0, 1].
        ema_overwrite_frequency: every this many steps, copy the EMA into the variables.
        loss_scale_factor: `scale_loss` multiplies by it and gradients are divided by it.
        gradient_accumulation_steps: average gradients over this many calls (>= 2) and
            update the variables on every such call only.
        name: the optimizer's name; its variables' paths start with it.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        where = type(self).__name__
        for key in kwargs:
            if key in _RENAMED:
                raise ValueError(
                    f"`{where}`: argument `{key}` is not supported; use {_RENAMED[key]} "
                    f"instead. Received: {key}={kwargs[key]!r}"
                )
        if kwargs:
            raise TypeError(f"`{where}`: unrecognized arguments {sorted(kwargs)}.")
        if name is not None and (not isinstance(name, str) or "/" in name or not name):
            raise ValueError(
                f"`{where}`: argument `name` must be a non-empty string without '/'. "
                f"Received: name={name!r}"
            )
        clips = (
            ("clipnorm", clipnorm),
            ("clipvalue", clipvalue),
            ("global_clipnorm", global_clipnorm),
        )
        set_clips = [f"{k}={v!r}" for k, v in clips if v is not None]
        if len(set_clips) > 1:
            raise ValueError(
                f"`{where}`: only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                f"be set. Received: {', '.join(set_clips)}"
            )
        check = _state.check_float
        self.weight_decay = check(where, "weight_decay", weight_decay, 0.0, allow_none=True)
        self.clipnorm = check(where, "clipnorm", clipnorm, 0.0, allow_none=True, low_open=True)
        self.clipvalue = check(where, "clipvalue", clipvalue, 0.0, allow_none=True, low_open=True)
        self.global_clipnorm = check(
            where, "global_clipnorm", global_clipnorm, 0.0, allow_none=True, low_open=True
        )
        self.use_ema = _state.check_bool(where, "use_ema", use_ema)
        self.ema_momentum = check(where, "ema_momentum", ema_momentum, 0.0, 1.0)
        self.ema_overwrite_frequency = _check_count(
            where, "ema_overwrite_frequency", ema_overwrite_frequency, 1
        )
        self.loss_scale_factor = check(
            where, "loss_scale_factor", loss_scale_factor, 0.0, allow_none=True, low_open=True
        )
        self.gradient_accumulation_steps = _check_count(
            where, "gradient_accumulation_steps", gradient_accumulation_steps, 2
        )
        self.name = name or unique_name(_snake_case(where))
        self.built = False
        self._variables: list[Variable] = []
        self._slots: dict[str, list[Variable]] = {}
        self._trainable_variables: list[Variable] = []
        self._index: dict[int, int] = {}
        self._exclude_ids: set[int] = set()
        self._exclude_names: list[str] = []
        self._ema: list[Variable] = []
        self._accumulators: list[Variable] = []
        self._iterations = self.add_variable(
            (),
            initializer="zeros",
            dtype=backend().runtime.iteration_dtype(),
            name="iteration",
            aggregation="only_first_replica",
        )
        self._learning_rate: Any = self._make_learning_rate(learning_rate)

    # --- learning rate ------------------------------------------------------------------
    def _make_learning_rate(self, value: Any) -> Any:
        if isinstance(value, LearningRateSchedule) or (
            callable(value) and not isinstance(value, Variable)
        ):
            return value
        if isinstance(value, Variable):
            value = value.numpy()
        try:
            rate = float(
                np.asarray(
                    ops.convert_to_numpy(value) if not isinstance(value, (int, float)) else value
                )
            )
        except Exception as exc:
            raise ValueError(
                f"`{type(self).__name__}`: argument `learning_rate` must be a float, a "
                f"`LearningRateSchedule` or a callable. Received: learning_rate={value!r}"
            ) from exc
        if isinstance(value, bool) or rate < 0 or rate != rate:
            raise ValueError(
                f"`{type(self).__name__}`: argument `learning_rate` must be a float >= 0. "
                f"Received: learning_rate={value!r}"
            )
        return self.add_variable(
            (),
            initializer=rate,
            dtype="float32",
            name="learning_rate",
            aggregation="only_first_replica",
        )

    @property
    def learning_rate(self) -> Any:
        """The current rate: the variable, or the schedule's value at `iterations`."""
        return self._get_current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if isinstance(value, LearningRateSchedule) or (
            callable(value) and not isinstance(value, Variable)
        ):
            self._learning_rate = value
            return
        if not isinstance(self._learning_rate, Variable):
            raise TypeError(
                f"{type(self).__name__} {self.name!r} was created with a learning-rate "
                "schedule or callable, so its rate cannot be set to a number. "
                f"Received: learning_rate={value!r}"
            )
        self._learning_rate.assign(ops.convert_to_tensor(value, "float32"))

    def _get_current_learning_rate(self) -> Any:
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations.value)
        if isinstance(lr, Variable):
            return lr
        return lr()

    def _learning_rate_value(self) -> Any:
        lr = self._get_current_learning_rate()
        return lr.value if isinstance(lr, Variable) else ops.convert_to_tensor(lr)

    # --- state --------------------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        """The number of `apply` calls so far (an integer variable)."""
        return self._iterations

    @property
    def variables(self) -> list[Variable]:
        """Every state variable, in creation order (the order `stateless_apply` uses)."""
        return list(self._variables)

    def add_variable(
        self,
        shape: Any,
        initializer: Any = "zeros",
        dtype: Any = None,
        aggregation: str = "none",
        name: str | None = None,
    ) -> Variable:
        """Create a non-trainable state variable whose path starts with the optimizer's name.

        Args:
            shape: the variable's shape.
            initializer: "zeros", "ones", an initializer name, a ``(shape, dtype)``
                callable or a constant.
            dtype: its dtype (default `floatx()`).
            aggregation: how replicas combine it.
            name: its name.

        Returns:
            The new variable, appended to `variables`.
        """
        from lamina.backend.config import SETTINGS

        with name_scope(self.name):
            variable = Variable(
                initializer=_initializer(initializer),
                shape=tuple(shape),
                dtype=dtype or SETTINGS.floatx,
                trainable=False,
                autocast=False,
                aggregation=aggregation,
                name=name,
            )
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(
        self, reference_variable: Variable, name: str | None = None, initializer: Any = "zeros"
    ) -> Variable:
        """A slot shaped like `reference_variable`, named after its path.

        Args:
            reference_variable: the model variable the slot belongs to.
            name: the slot's kind ("momentum", "velocity"...).
            initializer: as in `add_variable`.
        """
        from lamina.distribution.strategies import layout_like

        base = reference_variable.path.replace("/", "_")
        with layout_like(reference_variable):  # a slot is split as its weight is
            return self.add_variable(
                reference_variable.shape,
                initializer=initializer,
                dtype=reference_variable.dtype,
                name=f"{base}_{name}" if name else base,
            )

    def add_optimizer_variables(
        self, trainable_variables: Sequence[Variable], name: str, initializer: Any = "zeros"
    ) -> list[Variable]:
        """One slot per variable (see `add_variable_from_reference`), kept as `slots(name)`."""
        made = [self.add_variable_from_reference(v, name, initializer) for v in trainable_variables]
        self._slots[name] = made
        return made

    def slots(self, kind: str) -> list[Variable]:
        """The slots of one kind ("momentum", "velocity"...), in `variable_index` order.

        This is how a backend's fused update rule reads the optimizer's state.

        Raises:
            KeyError: the optimizer has no slots of that kind (the message lists its kinds).
        """
        if kind not in self._slots:
            raise KeyError(
                f"Optimizer {self.name!r} has no slots of kind {kind!r}. "
                f"It has: {sorted(self._slots)}"
            )
        return self._slots[kind]

    def build(self, var_list: Sequence[Variable]) -> None:
        """Create the state for `var_list` (called once, before the first update).

        Subclasses call ``super().build(var_list)`` and then create their slots.

        Raises:
            ValueError: `var_list` holds something that is not a `Variable`, or repeats one.
        """
        var_list = list(var_list)
        for i, v in enumerate(var_list):
            if not isinstance(v, Variable):
                raise ValueError(
                    f"Argument `var_list` must hold `lamina.Variable`s. Received at index "
                    f"{i}: {v!r} (of type {type(v).__name__})"
                )
        self._trainable_variables = var_list
        self._index = {id(v): i for i, v in enumerate(var_list)}
        if len(self._index) != len(var_list):
            raise ValueError(f"Argument `var_list` holds a variable twice: {var_list!r}")
        if self.use_ema:
            self._ema = self.add_optimizer_variables(var_list, "average")
        if self.gradient_accumulation_steps:
            self._accumulators = self.add_optimizer_variables(var_list, "gradient_accumulator")
        self.built = True

    def _get_variable_index(self, variable: Variable) -> int:
        """`variable_index`, under the name Keras 3's custom optimizers call."""
        return self.variable_index(variable)

    def variable_index(self, variable: Variable) -> int:
        """The position of `variable` in the list the optimizer was built with.

        Raises:
            ValueError: the optimizer was not built with `variable`.
        """
        index = self._index.get(id(variable))
        if index is None:
            raise ValueError(
                f"Variable {variable.path!r} is not one of the variables optimizer "
                f"{self.name!r} was built with; build a new optimizer for a new set."
            )
        return index

    # --- helpers subclasses use ---------------------------------------------------------
    def assign(self, variable: Variable, value: Any) -> None:
        """Set `variable` to `value` (works in stateless scopes)."""
        variable.assign(value)

    def assign_add(self, variable: Variable, value: Any) -> None:
        """Add `value` to `variable`."""
        variable.assign_add(value)

    def assign_sub(self, variable: Variable, value: Any) -> None:
        """Subtract `value` from `variable`."""
        variable.assign_sub(value)

    def _step_count(self, dtype: str) -> Any:
        """The 1-based number of the update being computed, as `dtype`."""
        return ops.cast(ops.add(self._iterations.value, 1), dtype)

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """Update `variable` (and its slots) for one gradient; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement `update_step`.")

    # --- applying gradients -------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]]) -> Variable:
        """Apply ``(gradient, variable)`` pairs; returns `iterations`."""
        pairs = list(grads_and_vars)
        grads = [g for g, _ in pairs]
        variables = [v for _, v in pairs]
        self.apply(grads, variables)
        return self._iterations

    def apply(
        self, grads: Sequence[Any], trainable_variables: Sequence[Variable] | None = None
    ) -> None:
        """Update `trainable_variables` with `grads` (None gradients are skipped).

        Args:
            grads: one gradient (or None) per variable.
            trainable_variables: the variables; default: those the optimizer was built with.

        Raises:
            ValueError: lengths differ, or no variables are given to an unbuilt optimizer.
        """
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    f"Optimizer {self.name!r} is not built: pass `trainable_variables` to "
                    "`apply` or call `build(variables)` first."
                )
            trainable_variables = self._trainable_variables
        variables = list(trainable_variables)
        grads = list(grads)
        if len(grads) != len(variables):
            raise ValueError(
                "Arguments `grads` and `trainable_variables` must have the same length. "
                f"Received: len(grads)={len(grads)}, len(trainable_variables)={len(variables)}"
            )
        if not self.built:
            self.build(variables)
        pairs = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not pairs:
            return
        for _, v in pairs:
            self._get_variable_index(v)
        kept = [v for _, v in pairs]
        tensors = [_gradient_tensor(g, v.dtype) for g, v in pairs]
        self._apply_processed(tensors, kept)

    def _apply_processed(self, grads: list[Any], variables: list[Variable]) -> None:
        """Unscale, accumulate, update, count, then maintain the EMA."""
        if self.loss_scale_factor is not None:
            grads = [ops.divide(g, ops.cast(self.loss_scale_factor, g.dtype)) for g in grads]
        steps = self.gradient_accumulation_steps
        if steps:
            accs = [self._accumulators[self._get_variable_index(v)] for v in variables]
            is_update = ops.equal(ops.mod(ops.add(self._iterations.value, 1), steps), 0)
            summed = [ops.add(a.value, g) for a, g in zip(accs, grads)]
            averaged = [ops.divide(s, ops.cast(steps, s.dtype)) for s in summed]
            _state.conditional_update(
                is_update,
                lambda: self._update(averaged, variables),
                [*self._update_targets(), *variables],
            )
            for a, s in zip(accs, summed):
                a.assign(ops.where(is_update, ops.zeros_like(s), s))
        else:
            self._update(grads, variables)
        self._iterations.assign_add(1)
        if self.use_ema:
            self._update_ema(variables)

    def _update_targets(self) -> list[Variable]:
        """State an update may assign (all of it but the counter and EMA/accumulators)."""
        skip = {id(v) for v in (self._iterations, *self._ema, *self._accumulators)}
        return [v for v in self._variables if id(v) not in skip]

    def _update(self, grads: list[Any], variables: list[Variable]) -> None:
        """Clip, decay, apply the rule, then the variables' constraints."""
        grads = self._clip_gradients(grads)
        lr = self._learning_rate_value()
        self._apply_weight_decay(variables, lr)
        self._update_all(grads, variables, lr)
        for v in variables:
            if v.constraint is not None:
                v.assign(v.constraint(v.value))

    def _update_all(self, grads: list[Any], variables: list[Variable], lr: Any) -> None:
        """`update_step` for each variable, or the backend's fused rule for all of them.

        A rule updates variables in place, so none runs inside a `StatelessScope` (JAX's
        `stateless_apply`, or the trial update of gradient accumulation).
        """
        rule = backend().optimizer_rules.get(_rule_owner(type(self)))
        if rule is not None and not in_stateless_scope() and rule(self, grads, variables, lr):
            return
        for g, v in zip(grads, variables):
            self.update_step(g, v, ops.cast(lr, v.dtype))

    def _clip_gradients(self, grads: list[Any]) -> list[Any]:
        if self.clipnorm is not None:
            return [_state.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None:
            return _state.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue is not None:
            return [ops.clip(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    # --- weight decay -------------------------------------------------------------------
    def exclude_from_weight_decay(
        self, var_list: Sequence[Variable] | None = None, var_names: Sequence[str] | None = None
    ) -> None:
        """Exempt variables from weight decay, by identity or by name pattern.

        Args:
            var_list: variables to exempt.
            var_names: regular expressions; a variable whose name matches one is exempt.

        Raises:
            ValueError: the optimizer is already built.
        """
        if self.built:
            raise ValueError(
                f"`exclude_from_weight_decay()` must be called before optimizer {self.name!r} "
                "is built (before the first update)."
            )
        self._exclude_ids |= {id(v) for v in var_list or ()}
        self._exclude_names.extend(var_names or ())

    def _use_weight_decay(self, variable: Variable) -> bool:
        if id(variable) in self._exclude_ids:
            return False
        return not any(re.search(name, variable.name) for name in self._exclude_names)

    def _apply_weight_decay(self, variables: list[Variable], lr: Any) -> None:
        if not self.weight_decay:
            return
        for v in variables:
            if self._use_weight_decay(v):
                decay = ops.cast(ops.multiply(lr, self.weight_decay), v.dtype)
                v.assign(ops.subtract(v.value, ops.multiply(v.value, decay)))

    # --- EMA ----------------------------------------------------------------------------
    def _update_ema(self, variables: list[Variable]) -> None:
        # The counter was just incremented: the first update copies the variable.
        first = ops.equal(self._iterations.value, 1)
        for v in variables:
            ema = self._ema[self._get_variable_index(v)]
            m = ops.where(first, 0.0, self.ema_momentum)
            m = ops.cast(m, v.dtype)
            keep = ops.multiply(m, ema.value)
            ema.assign(ops.add(keep, ops.multiply(ops.subtract(1.0, m), v.value)))
        freq = self.ema_overwrite_frequency
        if freq:
            overwrite = ops.equal(ops.mod(self._iterations.value, freq), 0)
            for v in variables:
                ema = self._ema[self._get_variable_index(v)]
                v.assign(ops.where(overwrite, ema.value, v.value))

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        """With `use_ema`, set the variables to their moving averages (end of training)."""
        if self.use_ema and self.built:
            for v in var_list:
                index = self._index.get(id(v))
                if index is not None:
                    v.assign(self._ema[index].value)

    # --- loss scaling -------------------------------------------------------------------
    def scale_loss(self, loss: Any) -> Any:
        """`loss` times `loss_scale_factor` (unchanged without one)."""
        if self.loss_scale_factor is None:
            return loss
        return ops.multiply(loss, self.loss_scale_factor)

    # --- stateless form -----------------------------------------------------------------
    def stateless_apply(
        self,
        optimizer_variables_values: Sequence[Any],
        grads: Sequence[Any],
        trainable_variables_values: Sequence[Any],
    ) -> tuple[list[Any], list[Any]]:
        """`apply` as a pure function of values (what a jitted JAX step calls).

        Args:
            optimizer_variables_values: values in the order of `variables`.
            grads: one gradient per variable the optimizer was built with.
            trainable_variables_values: those variables' values, in the same order.

        Returns:
            ``(new_trainable_values, new_optimizer_values)``.

        Raises:
            ValueError: the optimizer is not built, or a list has the wrong length.
        """
        if not self.built:
            raise ValueError(
                f"Optimizer {self.name!r} must be built (`build(variables)`) before "
                "`stateless_apply`."
            )
        opt_values = list(optimizer_variables_values)
        tv_values = list(trainable_variables_values)
        own = self.variables
        if len(opt_values) != len(own):
            raise ValueError(
                "Argument `optimizer_variables_values` must hold one value per optimizer "
                f"variable ({len(own)}). Received {len(opt_values)} values."
            )
        if len(tv_values) != len(self._trainable_variables):
            raise ValueError(
                "Argument `trainable_variables_values` must hold one value per variable the "
                f"optimizer was built with ({len(self._trainable_variables)}). "
                f"Received {len(tv_values)} values."
            )
        mapping = list(zip(self._trainable_variables, tv_values)) + list(zip(own, opt_values))
        with StatelessScope(state_mapping=mapping) as scope:
            self.apply(grads)
        new_tv = [scope.get_current_value(v) for v in self._trainable_variables]
        new_opt = [scope.get_current_value(v) for v in own]
        return new_tv, new_opt

    # --- saving -------------------------------------------------------------------------
    def save_own_variables(self, store: dict[str, Any]) -> None:
        """Write every state variable into `store` as ``"0"``, ``"1"``, ... NumPy arrays."""
        for i, v in enumerate(self.variables):
            store[str(i)] = v.numpy()

    def load_own_variables(self, store: Any) -> None:
        """Read the state written by `save_own_variables`.

        Raises:
            ValueError: `store` holds a different number of variables (build the
                optimizer for the same model first).
        """
        own = self.variables
        if len(store) != len(own):
            raise ValueError(
                f"Optimizer {self.name!r} has {len(own)} variables but the store holds "
                f"{len(store)}. Build it (`build(model.trainable_variables)`) for the same "
                "model before loading."
            )
        for i, v in enumerate(own):
            v.assign(np.asarray(store[str(i)]))

    # --- configs ------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this optimizer (not its state)."""
        lr = self._learning_rate
        if isinstance(lr, Variable):
            learning_rate: Any = float(lr.numpy())
        elif isinstance(lr, LearningRateSchedule):
            from lamina.saving.serialization import serialize_lamina_object

            learning_rate = serialize_lamina_object(lr)
        else:
            learning_rate = lr
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        """Rebuild an optimizer from `get_config()`'s output."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            from lamina.optimizers import schedules

            config["learning_rate"] = schedules.deserialize(
                config["learning_rate"], custom_objects=custom_objects
            )
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name} built={self.built}>"


def _check_count(where: str, arg: str, value: Any, low: int) -> int | None:
    """None, or an int >= `low`; else a ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(
            f"`{where}`: argument `{arg}` must be an int >= {low} or None. "
            f"Received: {arg}={value!r}"
        )
    return int(value)
