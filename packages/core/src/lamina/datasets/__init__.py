"""`lamina.datasets`: Keras 3's small datasets, downloaded once through `get_file`.

Files are read without unpickling objects: ``.npz`` arrays with ``allow_pickle=False``,
and the pickles inside CIFAR batches and object arrays by a restricted reader.
"""

from lamina.datasets import boston_housing as boston_housing
from lamina.datasets import california_housing as california_housing
from lamina.datasets import cifar10 as cifar10
from lamina.datasets import cifar100 as cifar100
from lamina.datasets import fashion_mnist as fashion_mnist
from lamina.datasets import imdb as imdb
from lamina.datasets import mnist as mnist
from lamina.datasets import reuters as reuters
from lamina.datasets._safe_pickle import UnsafeDatasetFileError as UnsafeDatasetFileError

__all__ = [
    "UnsafeDatasetFileError",
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]
