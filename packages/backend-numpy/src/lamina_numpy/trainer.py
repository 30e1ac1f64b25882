"""NumPy trains nothing: `evaluate` and `predict` use the core's eager steps."""


class NumpyTrainer:
    """No overrides: the core `Trainer` refuses `fit` on a backend without gradients."""
