"""Image preprocessing and augmentation layers (Keras 3's names, arguments and configs).

Random augmentations act only with ``training=True`` (the default of a direct call, as in
Keras 3; `fit` passes it, `predict` and `evaluate` do not) and draw from the layer's
`SeedGenerator`.
"""

from lamina.layers.preprocessing.image.affine import RandomRotation as RandomRotation
from lamina.layers.preprocessing.image.affine import RandomShear as RandomShear
from lamina.layers.preprocessing.image.affine import RandomTranslation as RandomTranslation
from lamina.layers.preprocessing.image.affine import RandomZoom as RandomZoom
from lamina.layers.preprocessing.image.blur import RandomGaussianBlur as RandomGaussianBlur
from lamina.layers.preprocessing.image.boxes import MaxNumBoundingBoxes as MaxNumBoundingBoxes
from lamina.layers.preprocessing.image.color import RandomBrightness as RandomBrightness
from lamina.layers.preprocessing.image.color import RandomContrast as RandomContrast
from lamina.layers.preprocessing.image.erasing import RandomErasing as RandomErasing
from lamina.layers.preprocessing.image.flip_crop import RandomCrop as RandomCrop
from lamina.layers.preprocessing.image.flip_crop import RandomFlip as RandomFlip
from lamina.layers.preprocessing.image.histogram import (
    ContrastLimitedAdaptiveHistogramEqualization as ContrastLimitedAdaptiveHistogramEqualization,
)
from lamina.layers.preprocessing.image.histogram import Equalization as Equalization
from lamina.layers.preprocessing.image.hsv import RandomHue as RandomHue
from lamina.layers.preprocessing.image.hsv import RandomSaturation as RandomSaturation
from lamina.layers.preprocessing.image.hsv import RandomSharpness as RandomSharpness
from lamina.layers.preprocessing.image.intensity import AutoContrast as AutoContrast
from lamina.layers.preprocessing.image.intensity import RandomGrayscale as RandomGrayscale
from lamina.layers.preprocessing.image.intensity import RandomInvert as RandomInvert
from lamina.layers.preprocessing.image.intensity import (
    RandomPosterization as RandomPosterization,
)
from lamina.layers.preprocessing.image.intensity import Solarization as Solarization
from lamina.layers.preprocessing.image.jitter import (
    RandomColorDegeneration as RandomColorDegeneration,
)
from lamina.layers.preprocessing.image.jitter import RandomColorJitter as RandomColorJitter
from lamina.layers.preprocessing.image.mixing import CutMix as CutMix
from lamina.layers.preprocessing.image.mixing import MixUp as MixUp
from lamina.layers.preprocessing.image.pipeline import Pipeline as Pipeline
from lamina.layers.preprocessing.image.policies import AugMix as AugMix
from lamina.layers.preprocessing.image.policies import RandAugment as RandAugment
from lamina.layers.preprocessing.image.resizing import CenterCrop as CenterCrop
from lamina.layers.preprocessing.image.resizing import Resizing as Resizing
from lamina.layers.preprocessing.image.warp import (
    RandomElasticTransform as RandomElasticTransform,
)
from lamina.layers.preprocessing.image.warp import RandomPerspective as RandomPerspective

__all__ = [
    "AugMix",
    "AutoContrast",
    "CenterCrop",
    "ContrastLimitedAdaptiveHistogramEqualization",
    "CutMix",
    "Equalization",
    "MaxNumBoundingBoxes",
    "MixUp",
    "Pipeline",
    "RandAugment",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomElasticTransform",
    "RandomCrop",
    "RandomErasing",
    "RandomFlip",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPerspective",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "Resizing",
    "Solarization",
]
