"""The data pipeline imports TensorFlow / torch only for objects of theirs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, sys
import numpy as np
import lamina
from lamina.trainers.data_adapters import EpochIterator
from lamina.utils import Progbar, PyDataset
for _ in EpochIterator(np.zeros((4, 1)), np.zeros(4), batch_size=2).enumerate_epoch():
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "tensorflow"))))
"""


def test_no_foreign_framework_imported() -> None:
    backend = os.environ.get("LAMINA_BACKEND", "numpy")
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=dict(os.environ), capture_output=True, text=True,
        check=True,
    )
    loaded = {m.split(".")[0] for m in json.loads(out.stdout.strip().splitlines()[-1])}
    assert loaded <= ({backend} & {"torch", "tensorflow"})
