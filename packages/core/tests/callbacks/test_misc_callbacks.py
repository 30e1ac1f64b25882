"""`SwapEMAWeights`, `RemoteMonitor` and `ProgbarLogger`."""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

import lamina
from lamina import callbacks

from .conftest import FakeOptimizer


class EMAOptimizer(FakeOptimizer):
    def __init__(self, model):
        super().__init__()
        self.use_ema = True
        self._trainable_variables = model.trainable_variables
        self._ema = [lamina.Variable(np.full(v.shape, 9.0, "float32")) for v in model.weights]


def kernel(model):
    return model.kernel.numpy().tolist()


def test_swap_ema_for_evaluation_only(fake_model):
    fake_model.optimizer = EMAOptimizer(fake_model)
    cbl = callbacks.CallbackList([callbacks.SwapEMAWeights()], model=fake_model)
    cbl.on_epoch_end(0, {})
    assert kernel(fake_model) == [0.0, 0.0, 0.0]
    cbl.on_test_begin()
    assert kernel(fake_model) == [9.0, 9.0, 9.0]
    assert fake_model.optimizer._ema[0].numpy().tolist() == [0.0, 0.0, 0.0]
    cbl.on_test_end()
    assert kernel(fake_model) == [0.0, 0.0, 0.0]
    cbl.on_predict_begin()
    assert kernel(fake_model) == [9.0, 9.0, 9.0]
    cbl.on_predict_end()
    assert kernel(fake_model) == [0.0, 0.0, 0.0]


def test_swap_ema_on_epoch(fake_model):
    fake_model.optimizer = EMAOptimizer(fake_model)
    cbl = callbacks.CallbackList([callbacks.SwapEMAWeights(swap_on_epoch=True)],
                                 model=fake_model)
    cbl.on_epoch_begin(0)
    assert kernel(fake_model) == [0.0, 0.0, 0.0]
    cbl.on_epoch_end(0, {})
    assert kernel(fake_model) == [9.0, 9.0, 9.0]  # later callbacks save the averages
    cbl.on_epoch_begin(1)
    assert kernel(fake_model) == [0.0, 0.0, 0.0]


def test_swap_ema_needs_use_ema(fake_model):
    cbl = callbacks.CallbackList([callbacks.SwapEMAWeights()], model=fake_model)
    with pytest.raises(ValueError, match="use_ema=True"):
        cbl.on_test_begin()


@pytest.fixture
def server():
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()
    httpd.server_close()


def test_remote_monitor_posts_form_and_json(server):
    root, received = server
    callbacks.RemoteMonitor(root=root).on_epoch_end(2, {"loss": np.float32(0.5)})
    path, kind, body = received[0]
    assert path == "/publish/epoch/end/" and kind == "application/x-www-form-urlencoded"
    assert json.loads(urllib.parse.parse_qs(body.decode())["data"][0]) == {"epoch": 2,
                                                                           "loss": 0.5}
    monitor = callbacks.RemoteMonitor(root=root, path="/x", send_as_json=True,
                                      headers={"X-Run": "a"})
    monitor.on_epoch_end(0, {"acc": np.array([1, 2])})
    path, kind, body = received[1]
    assert path == "/x" and kind == "application/json"
    assert json.loads(body) == {"epoch": 0, "acc": [1, 2]}


def test_remote_monitor_warns_when_unreachable():
    monitor = callbacks.RemoteMonitor(root="http://127.0.0.1:9", timeout=2)
    with pytest.warns(UserWarning, match="Could not reach"):
        monitor.on_epoch_end(0, {"loss": 1.0})
    with pytest.raises(ValueError, match="root='ftp://x'"):
        callbacks.RemoteMonitor(root="ftp://x")


def test_progbar_logger_prints_epochs_and_metrics(capsys):
    cbl = callbacks.CallbackList(None, add_progbar=True, verbose=1, epochs=2, steps=2)
    cbl.on_train_begin()
    for epoch in range(2):
        cbl.on_epoch_begin(epoch)
        for step in range(2):
            cbl.on_train_batch_begin(step)
            cbl.on_train_batch_end(step, {"loss": 1.0 / (step + 1)})
        cbl.on_epoch_end(epoch, {"loss": 0.75, "val_loss": 0.5})
    cbl.on_train_end()
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    assert "2/2" in out and "loss: 0.75" in out and "val_loss: 0.5" in out


def test_progbar_logger_evaluate_and_unknown_target(capsys):
    cbl = callbacks.CallbackList(None, add_progbar=True, verbose=2, epochs=1, steps=None)
    cbl.on_test_begin()
    for step in range(3):
        cbl.on_test_batch_end(step, {"loss": 2.0})
    cbl.on_test_end({"loss": 2.0})
    out = capsys.readouterr().out
    assert "3/3" in out and "loss: 2" in out
    cbl.on_predict_begin()
    cbl.on_predict_batch_end(0, {"outputs": np.zeros(2)})
    cbl.on_predict_end()
    assert "outputs" not in capsys.readouterr().out


def test_progbar_logger_silent_when_verbose_zero(capsys):
    cbl = callbacks.CallbackList([callbacks.ProgbarLogger()], verbose=0, epochs=2, steps=1)
    cbl.on_epoch_begin(0)
    cbl.on_train_batch_end(0, {"loss": 1.0})
    cbl.on_epoch_end(0, {"loss": 1.0})
    assert capsys.readouterr().out == ""
