"""`TensorBoard`: event files parsed back with an independent CRC and proto check."""

from __future__ import annotations

import glob
import os
import struct
import zlib

import numpy as np
import pytest

from lamina import callbacks
from lamina.callbacks import _tfevents as tfevents


def test_crc32c_known_vectors():
    # RFC 3720 (iSCSI) test vectors for CRC-32C
    assert tfevents.crc32c(b"123456789") == 0xE3069283
    assert tfevents.crc32c(bytes(32)) == 0x8A9136AA
    assert tfevents.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert tfevents.crc32c(bytes(range(32))) == 0x46DD794E


def test_record_framing_byte_layout():
    payload = b"hello"
    record = tfevents.frame_record(payload)
    assert len(record) == 8 + 4 + 5 + 4
    assert struct.unpack("<Q", record[:8]) == (5,)
    crc = tfevents.crc32c(payload)
    masked = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    assert struct.unpack("<I", record[-4:]) == (masked,)
    assert record[12:17] == payload


def test_reader_detects_corruption(tmp_path):
    writer = tfevents.EventFileWriter(str(tmp_path))
    writer.add_values(1, [tfevents.scalar_value("a", 1.0)])
    writer.close()
    data = bytearray((tmp_path / os.path.basename(writer.path)).read_bytes())
    data[-6] ^= 0xFF
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        tfevents.read_records(str(bad))


def test_proto_field_encoding():
    # Event{step: 300} -> key 0x10, varint 300 = ac 02
    payload = tfevents.event(300, wall_time=1.5)
    assert payload == b"\x09" + struct.pack("<d", 1.5) + b"\x10\xac\x02"
    # negative int64 varints take ten bytes
    assert len(tfevents._varint(-1)) == 10


def run_epochs(cb, model, epochs, steps=2, val=True):
    cbl = callbacks.CallbackList([cb], model=model, epochs=len(epochs), steps=steps)
    cbl.on_train_begin()
    for epoch, loss in enumerate(epochs):
        cbl.on_epoch_begin(epoch)
        for step in range(steps):
            cbl.on_train_batch_begin(step)
            cbl.on_train_batch_end(step, {"loss": loss + step})
        logs = {"loss": loss}
        if val:
            logs["val_loss"] = loss * 2
        cbl.on_epoch_end(epoch, logs)
    cbl.on_train_end()


def events_in(folder):
    files = sorted(glob.glob(os.path.join(folder, "events.out.tfevents.*")))
    assert files, f"no event file in {folder}"
    out = []
    for path in files:
        out.extend(tfevents.read_events(path))
    return out


def scalars(events):
    return [
        (e["step"], v["tag"], v["simple_value"])
        for e in events for v in e["values"] if "simple_value" in v
    ]


def test_epoch_scalars_train_and_validation(fake_model, tmp_path):
    cb = callbacks.TensorBoard(tmp_path, write_graph=False)
    run_epochs(cb, fake_model, [1.0, 0.5])
    train = events_in(tmp_path / "train")
    assert train[0]["file_version"] == "brain.Event:2"
    got = scalars(train)
    assert (0, "epoch_loss", 1.0) in got and (1, "epoch_loss", 0.5) in got
    assert (0, "epoch_learning_rate", pytest.approx(0.1)) in got
    assert scalars(events_in(tmp_path / "validation")) == [
        (0, "epoch_loss", 2.0), (1, "epoch_loss", 1.0)
    ]


def test_batch_scalars_with_update_freq(fake_model, tmp_path):
    cb = callbacks.TensorBoard(tmp_path, write_graph=False, update_freq=3)
    run_epochs(cb, fake_model, [1.0, 0.5, 0.25], val=False)
    batch = [s for s in scalars(events_in(tmp_path / "train")) if s[1] == "batch_loss"]
    # six global batches; every third is written: batch 3 (epoch 1 step 0), batch 6
    assert batch == [(3, "batch_loss", 0.5), (6, "batch_loss", 1.25)]
    assert not os.path.exists(tmp_path / "validation")


def test_histograms_and_images(fake_model, tmp_path):
    fake_model.kernel.assign(np.array([0.0, 1.0, 3.0], "float32"))
    cb = callbacks.TensorBoard(tmp_path, histogram_freq=2, write_images=True, write_graph=False,
                               write_steps_per_second=True)
    run_epochs(cb, fake_model, [1.0, 0.9, 0.8], val=False)
    events = events_in(tmp_path / "train")
    histos = [(e["step"], v) for e in events for v in e["values"] if "histo" in v]
    assert sorted({step for step, _ in histos}) == [0, 2]
    kernel = next(v["histo"] for step, v in histos if v["tag"].startswith("kernel"))
    assert kernel["min"] == 0.0 and kernel["max"] == 3.0 and kernel["num"] == 3
    assert kernel["sum"] == 4.0 and kernel["sum_squares"] == 10.0
    assert sum(kernel["bucket"]) == 3 and kernel["bucket_limit"][-1] == 3.0
    images = [v for e in events for v in e["values"] if "image" in v]
    image = next(v["image"] for v in images if v["tag"].startswith("kernel"))
    assert (image["height"], image["width"]) == (1, 3)
    png = image["png"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    idat = png.index(b"IDAT")
    (length,) = struct.unpack(">I", png[idat - 4 : idat])
    rows = zlib.decompress(png[idat + 4 : idat + 4 + length])
    assert list(rows) == [0, 0, 85, 255]  # filter byte, then 0..3 scaled to 0..255
    assert any(s[1] == "epoch_steps_per_second" and s[2] > 0 for s in scalars(events))


def test_graph_written_from_model_json(fake_model, tmp_path):
    fake_model.to_json = lambda: '{"class_name": "Sequential"}'
    run_epochs(callbacks.TensorBoard(tmp_path), fake_model, [1.0], val=False)
    graph = [v for e in events_in(tmp_path / "train") for v in e["values"] if v["tag"] == "keras"]
    assert graph[0]["plugin_name"] == "graph_keras_model"
    assert graph[0]["tensor_string"] == [b'{"class_name": "Sequential"}']


def test_graph_failure_warns(fake_model, tmp_path):
    with pytest.warns(UserWarning, match="write_graph=False"):
        run_epochs(callbacks.TensorBoard(tmp_path), fake_model, [1.0], val=False)


def test_evaluation_scalars_use_optimizer_iterations(fake_model, tmp_path):
    fake_model.optimizer.iterations.assign(7)
    cb = callbacks.TensorBoard(tmp_path, write_graph=False)
    cbl = callbacks.CallbackList([cb], model=fake_model)
    cbl.on_test_begin()
    cbl.on_test_end({"loss": 0.5})
    cbl.on_train_end()
    assert scalars(events_in(tmp_path / "validation")) == [
        (7, "evaluation_loss_vs_iterations", 0.5)
    ]


def test_embeddings_projector_files(fake_model, tmp_path):
    class Emb:
        name = "emb"
        embeddings = fake_model.kernel

    fake_model.kernel.assign(np.array([1.0, 2.0, 3.0], "float32"))
    fake_model._flatten_layers = lambda: [Emb()]
    fake_model.kernel = type(fake_model.kernel)(np.ones((2, 3), "float32"), name="table")
    Emb.embeddings = fake_model.kernel
    cb = callbacks.TensorBoard(tmp_path, write_graph=False, embeddings_freq=1,
                               embeddings_metadata={"emb": "labels.tsv"})
    run_epochs(cb, fake_model, [1.0], val=False)
    config = (tmp_path / "train" / "projector_config.pbtxt").read_text()
    assert 'tensor_path: "embeddings/emb.tsv"' in config and "labels.tsv" in config
    table = np.loadtxt(tmp_path / "train" / "embeddings" / "emb.tsv", delimiter="\t")
    np.testing.assert_array_equal(table, np.ones((2, 3)))


def test_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="update_freq='often'"):
        callbacks.TensorBoard(tmp_path, update_freq="often")
    with pytest.raises(ValueError, match="histogram_freq=-1"):
        callbacks.TensorBoard(tmp_path, histogram_freq=-1)
    with pytest.raises(ValueError, match="profile_batch=\\(5, 2\\)"):
        callbacks.TensorBoard(tmp_path, profile_batch=(5, 2))
    assert callbacks.TensorBoard(tmp_path, profile_batch="2,4")._stop_batch == 4


def test_tensorboard_package_reads_our_files(fake_model, tmp_path):
    loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    run_epochs(callbacks.TensorBoard(tmp_path, histogram_freq=1, write_graph=False),
               fake_model, [1.0], val=False)
    path = glob.glob(str(tmp_path / "train" / "events.out.tfevents.*"))[0]
    events = list(loader.LegacyEventFileLoader(path).Load())
    tags = {v.tag for e in events for v in e.summary.value}
    assert "epoch_loss" in tags and any(t.endswith("/histogram") for t in tags)


def test_profile_batch_writes_a_trace_or_warns(fake_model, tmp_path):
    from lamina.backend import backend

    cb = callbacks.TensorBoard(tmp_path, write_graph=False, profile_batch=(2, 3))
    if backend() == "numpy":
        with pytest.warns(UserWarning, match="no profiler"):
            run_epochs(cb, fake_model, [1.0, 0.5], val=False)
        return
    run_epochs(cb, fake_model, [1.0, 0.5], val=False)
    traces = [p for p in glob.glob(str(tmp_path / "plugins" / "profile" / "**"), recursive=True)
              if os.path.isfile(p)]
    assert traces, "the backend profiler wrote no trace under plugins/profile"


def test_weight_images_by_rank():
    from lamina.callbacks.tensorboard import _weight_images

    def shapes(array):
        out = []
        for raw in _weight_images("w", np.asarray(array, "float32")):
            fields = dict(tfevents.parse_message(raw))
            image = dict(tfevents.parse_message(fields[4]))
            out.append((fields[1].decode(), image[1], image[2]))
        return out

    assert shapes(np.ones((5, 2))) == [("w/image", 2, 5)]  # tall matrices are transposed
    assert shapes(np.ones((2, 3, 4))) == [(f"w/image/{i}", 2, 3) for i in range(3)]
    assert shapes(np.ones((2, 2, 2, 2))) == []
