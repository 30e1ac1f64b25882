"""Activation layers: `ReLU`, `LeakyReLU`, `PReLU`, `ELU`, `Softmax`."""

from lamina.layers.activations.activations import ELU as ELU
from lamina.layers.activations.activations import LeakyReLU as LeakyReLU
from lamina.layers.activations.activations import PReLU as PReLU
from lamina.layers.activations.activations import ReLU as ReLU
from lamina.layers.activations.activations import Softmax as Softmax

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax"]
