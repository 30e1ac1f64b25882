"""Models (``lamina.models``): functional, Sequential and subclassed."""

from lamina.models.cloning import clone_model as clone_model
from lamina.models.functional import Functional as Functional
from lamina.models.model import Model as Model
from lamina.models.model import model_from_json as model_from_json
from lamina.models.sequential import Sequential as Sequential
from lamina.saving.facade import load_model as load_model
from lamina.saving.facade import save_model as save_model

__all__ = [
    "Functional",
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_json",
    "save_model",
]
