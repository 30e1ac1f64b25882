"""`LoraLayer`: low-rank adaptation (LoRA) of a layer's main weight.

After `enable_lora(rank)` the main weight ``W`` is frozen and two small trainable factors
``A`` (``W.shape[:-1] + (rank,)``) and ``B`` (``(rank, W.shape[-1])``) are added; the layer
then uses ``W + (A @ B) * (alpha / rank)``. ``B`` starts at zero, so enabling LoRA does not
change the outputs, and fine-tuning only updates ``rank * (fan_in + fan_out)`` numbers.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.variables.variable import Variable


class LoraLayer(Layer):
    """A layer whose main weight (`_lora_target`, e.g. ``"kernel"``) can take LoRA factors.

    Subclasses call `_init_lora` in ``__init__``, create the weight as ``self._<target>``
    in `build`, then call `_build_lora`; they read the effective weight with
    `_effective_weight` (the weight plus the scaled low-rank product once enabled).
    """

    _lora_target = "kernel"

    def _init_lora(self, lora_rank: Any, lora_alpha: Any) -> None:
        name = type(self).__name__
        if lora_rank is not None:
            lora_rank = _args.positive_int(name, "lora_rank", lora_rank)
        if lora_alpha is not None and (
            isinstance(lora_alpha, bool)
            or not isinstance(lora_alpha, numbers.Real)
            or lora_alpha <= 0
        ):
            raise ValueError(
                f"{name}: argument `lora_alpha` must be a positive number. "
                f"Received: lora_alpha={lora_alpha!r}"
            )
        self.lora_rank: int | None = lora_rank
        self.lora_alpha: float | None = None if lora_alpha is None else float(lora_alpha)
        self.lora_enabled = False

    def _build_lora(self) -> None:
        if self.lora_rank and not self.lora_enabled:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    def _lora_base(self) -> Variable:
        base: Variable = getattr(self, "_" + self._lora_target)
        return base

    def _lora_constraint(self) -> Any:
        return getattr(self, f"{self._lora_target}_constraint", None)

    def _lora_regularizer(self) -> Any:
        return getattr(self, f"{self._lora_target}_regularizer", None)

    def enable_lora(
        self,
        rank: int,
        lora_alpha: float | None = None,
        a_initializer: Any = "he_uniform",
        b_initializer: Any = "zeros",
    ) -> None:
        """Freeze the main weight and add trainable low-rank factors A and B.

        Args:
            rank: the inner dimension of ``A @ B``.
            lora_alpha: scales the update by ``lora_alpha / rank`` (default: `rank`, so 1).
            a_initializer: initializer of ``A``.
            b_initializer: initializer of ``B`` (zeros keeps the outputs unchanged).

        Raises:
            ValueError: the layer is not built, LoRA is already on, or the weight has a
                constraint (it could not hold for the merged weight).
        """
        name = type(self).__name__
        rank = _args.positive_int(f"{name}.enable_lora", "rank", rank)
        if self._lora_constraint() is not None:
            raise ValueError(
                f"{name}.enable_lora: LoRA cannot be combined with "
                f"`{self._lora_target}_constraint`; remove the constraint first. "
                f"Received: {self._lora_target}_constraint={self._lora_constraint()!r}"
            )
        if not self.built:
            raise ValueError(
                f"{name}.enable_lora: layer {self.name!r} must be built first (call it on "
                "data or call `build(input_shape)`)."
            )
        if self.lora_enabled:
            raise ValueError(
                f"{name}.enable_lora: LoRA is already enabled on layer {self.name!r}; it can "
                "be enabled only once."
            )
        base = self._lora_base()
        prefix = f"lora_{self._lora_target}"
        a = self.add_weight(
            shape=(*base.shape[:-1], rank),
            initializer=_args.get_initializer(a_initializer),
            regularizer=self._lora_regularizer(),
            name=f"{prefix}_a",
        )
        b = self.add_weight(
            shape=(rank, base.shape[-1]),
            initializer=_args.get_initializer(b_initializer),
            regularizer=self._lora_regularizer(),
            name=f"{prefix}_b",
        )
        object.__setattr__(self, f"{prefix}_a", a)
        object.__setattr__(self, f"{prefix}_b", b)
        base.trainable = False
        self.lora_enabled = True
        self.lora_rank = rank
        self.lora_alpha = float(lora_alpha) if lora_alpha is not None else float(rank)
        self._backend_track_variables(self.variables)

    def _lora_factors(self) -> tuple[Variable, Variable]:
        prefix = f"lora_{self._lora_target}"
        return getattr(self, f"{prefix}_a"), getattr(self, f"{prefix}_b")

    def _effective_weight(self) -> Any:
        """The main weight, plus ``(A @ B) * (alpha / rank)`` when LoRA is enabled."""
        base = self._lora_base()
        if not self.lora_enabled:
            return base.value
        a, b = self._lora_factors()
        rank = float(self.lora_rank or 1)
        scale = float(self.lora_alpha if self.lora_alpha is not None else rank) / rank
        return ops.add(base.value, ops.multiply(ops.matmul(a.value, b.value), scale))

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        Layer.trainable.fset(self, value)  # type: ignore[attr-defined]
        if self.__dict__.get("lora_enabled"):
            # The frozen weight stays frozen when the layer is made trainable again.
            self._lora_base().trainable = False
            self._backend_track_variables(self.variables)

    # --- saving: the merged weight is stored, so files load with or without LoRA ------------
    @property
    def own_variables(self) -> list[Variable]:
        """The saved variables: the LoRA factors are merged into the main weight."""
        lora = {id(v) for v in self._lora_factors()} if self.lora_enabled else set()
        own = self._trainable_variables + self._non_trainable_variables
        return [v for v in own if id(v) not in lora]

    def save_own_variables(self, store: Any) -> None:
        """Store the variables, with the LoRA update merged into the main weight."""
        base = self._lora_base() if self.built and self.lora_enabled else None
        for i, variable in enumerate(self.own_variables):
            if variable is base:  # without LoRA the weight is stored as it is
                store[str(i)] = ops.convert_to_numpy(self._effective_weight())
            else:
                store[str(i)] = variable.numpy()

    def load_own_variables(self, store: Any) -> None:
        """Load merged weights; with LoRA on, B is zeroed so the loaded weight is used as is."""
        own = self.own_variables
        if len(store) != len(own):
            raise ValueError(
                f"Layer {self.name!r} expects {len(own)} variables "
                f"({[v.name for v in own]}), but the saved state has {len(store)}."
            )
        for i, variable in enumerate(own):
            value = np.asarray(store[str(i)])
            if tuple(value.shape) != variable.shape:
                raise ValueError(
                    f"Layer {self.name!r}, variable {variable.name!r}: expected shape "
                    f"{variable.shape}, got {tuple(value.shape)} in the saved state."
                )
            variable.assign(value)
        if self.lora_enabled:
            _, b = self._lora_factors()
            b.assign(np.zeros(b.shape, dtype=b.dtype))

    def _lora_config(self) -> dict[str, Any]:
        if not self.lora_rank:
            return {}
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha}
