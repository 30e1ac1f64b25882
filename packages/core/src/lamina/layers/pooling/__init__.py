"""Pooling layers: windowed, global and adaptive max/average pooling in 1D to 3D."""

from lamina.layers.pooling.adaptive_pooling import (
    AdaptiveAveragePooling1D as AdaptiveAveragePooling1D,
)
from lamina.layers.pooling.adaptive_pooling import (
    AdaptiveAveragePooling2D as AdaptiveAveragePooling2D,
)
from lamina.layers.pooling.adaptive_pooling import (
    AdaptiveAveragePooling3D as AdaptiveAveragePooling3D,
)
from lamina.layers.pooling.adaptive_pooling import AdaptiveMaxPooling1D as AdaptiveMaxPooling1D
from lamina.layers.pooling.adaptive_pooling import AdaptiveMaxPooling2D as AdaptiveMaxPooling2D
from lamina.layers.pooling.adaptive_pooling import AdaptiveMaxPooling3D as AdaptiveMaxPooling3D
from lamina.layers.pooling.adaptive_pooling import BaseAdaptivePooling as BaseAdaptivePooling
from lamina.layers.pooling.average_pooling import AveragePooling1D as AveragePooling1D
from lamina.layers.pooling.average_pooling import AveragePooling2D as AveragePooling2D
from lamina.layers.pooling.average_pooling import AveragePooling3D as AveragePooling3D
from lamina.layers.pooling.base_pooling import BasePooling as BasePooling
from lamina.layers.pooling.global_pooling import BaseGlobalPooling as BaseGlobalPooling
from lamina.layers.pooling.global_pooling import (
    GlobalAveragePooling1D as GlobalAveragePooling1D,
)
from lamina.layers.pooling.global_pooling import (
    GlobalAveragePooling2D as GlobalAveragePooling2D,
)
from lamina.layers.pooling.global_pooling import (
    GlobalAveragePooling3D as GlobalAveragePooling3D,
)
from lamina.layers.pooling.global_pooling import GlobalMaxPooling1D as GlobalMaxPooling1D
from lamina.layers.pooling.global_pooling import GlobalMaxPooling2D as GlobalMaxPooling2D
from lamina.layers.pooling.global_pooling import GlobalMaxPooling3D as GlobalMaxPooling3D
from lamina.layers.pooling.max_pooling import MaxPooling1D as MaxPooling1D
from lamina.layers.pooling.max_pooling import MaxPooling2D as MaxPooling2D
from lamina.layers.pooling.max_pooling import MaxPooling3D as MaxPooling3D

# Keras' short aliases.
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
]
