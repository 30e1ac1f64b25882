"""Normalization layers: batch, layer, group, unit, RMS and spectral normalization."""

from lamina.layers.normalization.batch_normalization import (
    BatchNormalization as BatchNormalization,
)
from lamina.layers.normalization.group_normalization import (
    GroupNormalization as GroupNormalization,
)
from lamina.layers.normalization.layer_normalization import (
    LayerNormalization as LayerNormalization,
)
from lamina.layers.normalization.rms_normalization import RMSNormalization as RMSNormalization
from lamina.layers.normalization.spectral_normalization import (
    SpectralNormalization as SpectralNormalization,
)
from lamina.layers.normalization.unit_normalization import (
    UnitNormalization as UnitNormalization,
)

__all__ = [
    "BatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
    "RMSNormalization",
    "SpectralNormalization",
    "UnitNormalization",
]
