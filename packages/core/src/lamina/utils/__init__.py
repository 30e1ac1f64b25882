"""Utilities (``lamina.utils``)."""

from lamina.utils.progbar import Progbar as Progbar
from lamina.utils.py_dataset import PyDataset as PyDataset
from lamina.utils.session import clear_session as clear_session
from lamina.utils.session import set_random_seed as set_random_seed

__all__ = ["Progbar", "PyDataset", "clear_session", "set_random_seed"]
