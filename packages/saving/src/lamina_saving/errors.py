"""The one error type every failed load or save raises, whatever went wrong underneath."""

from __future__ import annotations

import os
from typing import Any


class LaminaFileError(ValueError):
    """A file could not be read or written as a Lamina archive, weights file or checkpoint.

    It names the file and what is wrong with it. Corrupt, truncated, foreign or unsafe
    files all raise it, never a raw error from zipfile or h5py.
    """

    def __init__(self, path: Any, problem: str) -> None:
        self.path = os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
