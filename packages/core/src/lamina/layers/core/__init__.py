"""Core layers: Dense, EinsumDense, Embedding, Activation, Identity, Masking, Lambda."""

from lamina.layers.core.dense import Dense as Dense
from lamina.layers.core.einsum_dense import EinsumDense as EinsumDense
from lamina.layers.core.embedding import Embedding as Embedding
from lamina.layers.core.lambda_layer import Lambda as Lambda
from lamina.layers.core.simple import Activation as Activation
from lamina.layers.core.simple import Identity as Identity
from lamina.layers.core.simple import Masking as Masking

__all__ = ["Activation", "Dense", "EinsumDense", "Embedding", "Identity", "Lambda", "Masking"]
