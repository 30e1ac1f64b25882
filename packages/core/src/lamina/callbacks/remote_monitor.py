"""`RemoteMonitor`: post every epoch's logs to an HTTP server."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Any

import numpy as np

from lamina.callbacks.callback import Callback


class RemoteMonitor(Callback):
    """Sends ``{"epoch": ..., <metrics>}`` to `root` + `path` with an HTTP POST per epoch.

    Args:
        root: the server's root URL.
        path: the path appended to `root`.
        field: the form field holding the JSON (when not `send_as_json`).
        headers: extra HTTP headers.
        send_as_json: send the JSON as the request body (``application/json``) instead of
            a form field.
        timeout: seconds to wait for the server.

    Raises:
        ValueError: `root` is not an http(s) URL.
    """

    process_zero_only = True

    def __init__(
        self,
        root: str = "http://localhost:9000",
        path: str = "/publish/epoch/end/",
        field: str = "data",
        headers: dict[str, str] | None = None,
        send_as_json: bool = False,
        timeout: float = 10.0,
    ) -> None:
        super().__init__()
        if urllib.parse.urlparse(root).scheme not in ("http", "https"):
            raise ValueError(
                f"Argument `root` must be an http:// or https:// URL. Received: root={root!r}"
            )
        self.root = root
        self.path = path
        self.field = field
        self.headers = dict(headers or {})
        self.send_as_json = send_as_json
        self.timeout = timeout

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        payload: dict[str, Any] = {"epoch": epoch}
        for key, value in (logs or {}).items():
            if isinstance(value, (np.ndarray, np.generic)):
                value = value.tolist()
            payload[key] = value
        headers = dict(self.headers)
        if self.send_as_json:
            body = json.dumps(payload).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(payload)}).encode("utf-8")
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(
            self.root + self.path, data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()
        except (urllib.error.URLError, OSError) as e:
            warnings.warn(
                f"Could not reach RemoteMonitor root server at {self.root}: {e}", stacklevel=2
            )
