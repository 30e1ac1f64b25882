"""`TrainableStateVariable`: a variable whose native state carries the `trainable` flag."""

from __future__ import annotations

from lamina.variables.variable import Variable


class TrainableStateVariable(Variable):
    """A `Variable` whose native state must follow `trainable` (kit 1.9).

    Some libraries record the flag on the state itself: a `torch.nn.Parameter`'s
    `requires_grad`, a `tf.Variable`'s `trainable`. Such a backend's variable subclasses
    this one and writes only `_follow_trainable`, which runs after every change of the flag
    (also while the base class sets it, before the state exists: check for it first).

    Example:
        >>> from lamina.backend.kit import TrainableStateVariable
        >>> class Flagged(TrainableStateVariable):
        ...     def _follow_trainable(self) -> None:
        ...         state = self.__dict__.get("_state")
        ...         if state is not None:
        ...             state.requires_grad_(self.trainable)
    """

    _trainable: bool

    @property
    def trainable(self) -> bool:
        """Whether optimizers update this variable."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        self._follow_trainable()

    def _follow_trainable(self) -> None:
        """Bring the native state in line with `self.trainable` (each subclass's own)."""
        raise NotImplementedError(f"{type(self).__name__} must define `_follow_trainable`.")
