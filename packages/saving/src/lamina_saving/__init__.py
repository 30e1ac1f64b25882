"""lamina-saving: model archives, weights files and checkpoints, on h5py.

Users reach it through `lamina.saving` (the core finds this package by its entry point);
import it directly only for the names the core does not forward.
"""

from lamina_saving._version import __version__ as __version__
from lamina_saving.archive import load_model as load_model
from lamina_saving.archive import save_model as save_model
from lamina_saving.checkpoint import Checkpoint as Checkpoint
from lamina_saving.checkpoint import CheckpointManager as CheckpointManager
from lamina_saving.errors import LaminaFileError as LaminaFileError
from lamina_saving.export import ExportArchive as ExportArchive
from lamina_saving.export import export_model as export_model
from lamina_saving.restore import RestoreStatus as RestoreStatus
from lamina_saving.support import support as support
from lamina_saving.weights import load_weights as load_weights
from lamina_saving.weights import save_weights as save_weights

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "LaminaFileError",
    "RestoreStatus",
    "__version__",
    "load_model",
    "load_weights",
    "save_model",
    "save_weights",
    "support",
    "ExportArchive",
    "export_model",
]
