"""No gradients in the array API standard: `evaluate` and `predict` use the core's steps."""


class ArrayApiTrainer:
    """No overrides: the core `Trainer` refuses `fit` on a backend without TRAINING."""
