"""Layers (``lamina.layers``): the base `Layer`, `Input`, and every built-in layer.

Each family lives in its own subpackage; this namespace flattens them as Keras 3 does.
"""

import lamina.layers.activations as _activations
import lamina.layers.attention as _attention
import lamina.layers.convolutional as _convolutional
import lamina.layers.core as _core
import lamina.layers.interop as _interop
import lamina.layers.merging as _merging
import lamina.layers.normalization as _normalization
import lamina.layers.pooling as _pooling
import lamina.layers.preprocessing as _preprocessing
import lamina.layers.preprocessing.audio as _audio_preprocessing
import lamina.layers.preprocessing.image as _image_preprocessing
import lamina.layers.regularization as _regularization
import lamina.layers.reshaping as _reshaping
import lamina.layers.rnn as _rnn
from lamina.layers.activations import *
from lamina.layers.attention import *
from lamina.layers.convolutional import *
from lamina.layers.core import *
from lamina.layers.core.reversible_embedding import ReversibleEmbedding as ReversibleEmbedding
from lamina.layers.input_layer import Input as Input
from lamina.layers.input_layer import InputLayer as InputLayer
from lamina.layers.input_spec import InputSpec as InputSpec
from lamina.layers.interop import *
from lamina.layers.layer import Layer as Layer
from lamina.layers.merging import *
from lamina.layers.normalization import *
from lamina.layers.pooling import *
from lamina.layers.preprocessing import *
from lamina.layers.preprocessing.audio import *
from lamina.layers.preprocessing.image import *
from lamina.layers.regularization import *
from lamina.layers.reshaping import *
from lamina.layers.rnn import *

# `+=` of each family's literal `__all__`, which mypy follows.
__all__: list[str] = ["Input", "InputLayer", "InputSpec", "Layer", "ReversibleEmbedding"]
__all__ += _activations.__all__
__all__ += _attention.__all__
__all__ += _convolutional.__all__
__all__ += _core.__all__
__all__ += _interop.__all__
__all__ += _merging.__all__
__all__ += _normalization.__all__
__all__ += _pooling.__all__
__all__ += _preprocessing.__all__
__all__ += _audio_preprocessing.__all__
__all__ += _image_preprocessing.__all__
__all__ += _regularization.__all__
__all__ += _reshaping.__all__
__all__ += _rnn.__all__
