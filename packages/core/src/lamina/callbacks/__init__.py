"""Callbacks (``lamina.callbacks``): hooks that `fit`, `evaluate` and `predict` call.

Matches ``keras.callbacks``: the `Callback` base, `CallbackList`, and the built-in
callbacks for history, progress, early stopping, checkpoints, learning-rate control,
logging (CSV, TensorBoard, HTTP) and backup/restore of interrupted training.
"""

from lamina.callbacks.backup_and_restore import BackupAndRestore as BackupAndRestore
from lamina.callbacks.callback import Callback as Callback
from lamina.callbacks.callback_list import CallbackList as CallbackList
from lamina.callbacks.csv_logger import CSVLogger as CSVLogger
from lamina.callbacks.early_stopping import EarlyStopping as EarlyStopping
from lamina.callbacks.history import History as History
from lamina.callbacks.lambda_callback import LambdaCallback as LambdaCallback
from lamina.callbacks.learning_rate import LearningRateScheduler as LearningRateScheduler
from lamina.callbacks.learning_rate import ReduceLROnPlateau as ReduceLROnPlateau
from lamina.callbacks.model_checkpoint import ModelCheckpoint as ModelCheckpoint
from lamina.callbacks.progbar_logger import ProgbarLogger as ProgbarLogger
from lamina.callbacks.remote_monitor import RemoteMonitor as RemoteMonitor
from lamina.callbacks.swap_ema_weights import SwapEMAWeights as SwapEMAWeights
from lamina.callbacks.tensorboard import TensorBoard as TensorBoard
from lamina.callbacks.terminate_on_nan import TerminateOnNaN as TerminateOnNaN

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "SwapEMAWeights",
    "TensorBoard",
    "TerminateOnNaN",
]
