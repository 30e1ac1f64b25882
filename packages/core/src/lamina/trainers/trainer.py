"""`Trainer`: compile, fit, evaluate and predict, with the backend supplying the step."""

from __future__ import annotations


class Trainer:
    """The training half of `Model`."""

    def __init__(self) -> None:
        self.compiled = False
        self.optimizer = None
        self.stop_training = False
