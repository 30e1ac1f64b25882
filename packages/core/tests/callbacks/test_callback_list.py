"""`Callback` base and `CallbackList`: dispatch, defaults, params, resume override."""

from __future__ import annotations

import pytest

from lamina import callbacks

HOOK_ARGS = {
    "on_train_begin": (),
    "on_train_end": (),
    "on_test_begin": (),
    "on_test_end": (),
    "on_predict_begin": (),
    "on_predict_end": (),
    "on_epoch_begin": (3,),
    "on_epoch_end": (3,),
    "on_train_batch_begin": (5,),
    "on_train_batch_end": (5,),
    "on_test_batch_begin": (5,),
    "on_test_batch_end": (5,),
    "on_predict_batch_begin": (5,),
    "on_predict_batch_end": (5,),
}


class AllHooks(callbacks.Callback):
    """Overrides every hook (so the batch fast path dispatches to it)."""

    def __init__(self, log):
        super().__init__()
        self.log = log


for _name in HOOK_ARGS:
    def _make(name):
        def hook(self, *args, **kwargs):
            self.log.append((name, args, kwargs.get("logs", args[-1] if args else None)))
        return hook
    setattr(AllHooks, _name, _make(_name))


def test_every_hook_reaches_every_callback_in_order():
    log = []
    first, second = AllHooks(log), AllHooks(log)
    cbl = callbacks.CallbackList([first, [second]])
    for name, args in HOOK_ARGS.items():
        getattr(cbl, name)(*args, {"loss": 1.0})
    assert [entry[0] for entry in log] == [n for n in HOOK_ARGS for _ in range(2)]
    assert all(entry[2] == {"loss": 1.0} for entry in log)


def test_missing_logs_become_empty_dicts():
    log = []
    cbl = callbacks.CallbackList(AllHooks(log))
    cbl.on_epoch_end(0)
    cbl.on_train_batch_end(1)
    assert log[0][2] == {} and log[1][2] == {}


def test_base_train_batch_hooks_delegate_to_legacy_aliases():
    seen = []

    class Legacy(callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            seen.append(("end", batch, logs))

    cbl = callbacks.CallbackList([Legacy()])
    cbl.on_train_batch_begin(0)
    cbl.on_train_batch_end(0, {"loss": 2.0})
    cbl.on_batch_end(1, {"loss": 3.0})
    assert seen == [("begin", 0), ("end", 0, {"loss": 2.0}), ("end", 1, {"loss": 3.0})]


def test_history_and_progbar_added_once(fake_model):
    cbl = callbacks.CallbackList(
        None, add_history=True, add_progbar=True, model=fake_model, verbose=0, epochs=2, steps=3
    )
    kinds = [type(c) for c in cbl.callbacks]
    assert kinds == [callbacks.History, callbacks.ProgbarLogger]
    history = callbacks.History()
    cbl = callbacks.CallbackList([history], add_history=True, add_progbar=False)
    assert cbl.callbacks == [history]


def test_params_and_model_reach_every_callback(fake_model):
    cb = callbacks.Callback()
    cbl = callbacks.CallbackList([cb], model=fake_model, verbose=1, epochs=4, steps=7)
    assert cb.params == {"verbose": 1, "epochs": 4, "steps": 7}
    assert cb.model is fake_model
    assert fake_model.synced >= 1  # reading `model` writes loop state back first
    assert len(cbl) == 1 and list(cbl) == [cb]


def test_model_setter_and_defaults():
    cb = callbacks.Callback()
    assert cb.model is None and cb.params == {}
    cb.model = "m"
    assert cb.model == "m"


def test_rejects_non_callbacks():
    with pytest.raises(TypeError, match="Received: callbacks=3"):
        callbacks.CallbackList([callbacks.History(), 3])
    with pytest.raises(TypeError, match="callbacks='x'"):
        callbacks.CallbackList("x")


def test_initial_epoch_override_defaults_to_none():
    cbl = callbacks.CallbackList([callbacks.History(), callbacks.Callback()])
    assert cbl.initial_epoch_override() is None

    class Resumes(callbacks.Callback):
        def _resume_epoch(self):
            return 4

    cbl.append(Resumes())
    assert cbl.initial_epoch_override() == 4


def test_batch_fast_path_skips_callbacks_without_batch_hooks():
    calls = []

    class EpochOnly(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            calls.append(epoch)

    log = []
    epoch_only = EpochOnly()
    cbl = callbacks.CallbackList([epoch_only, AllHooks(log)])
    cbl.on_train_batch_end(0, {})
    cbl.on_epoch_end(1, {})
    assert calls == [1]
    assert [entry[0] for entry in log] == ["on_train_batch_end", "on_epoch_end"]
    assert epoch_only not in cbl._targets("on_train_batch_end")


def test_history_records_epochs_and_sets_model_history(fake_model):
    history = callbacks.History()
    cbl = callbacks.CallbackList([history], model=fake_model)
    cbl.on_train_begin()
    assert fake_model.history is history
    cbl.on_epoch_end(0, {"loss": 2.0, "val_loss": 3.0})
    cbl.on_epoch_end(1, {"loss": 1.0, "val_loss": 2.5})
    assert history.epoch == [0, 1]
    assert history.history == {"loss": [2.0, 1.0], "val_loss": [3.0, 2.5]}


def test_lambda_callback_runs_given_functions():
    seen = []
    cb = callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append(("epoch", epoch, logs["loss"])),
        on_train_begin=lambda logs: seen.append(("begin",)),
        on_batch_end=lambda batch, logs: seen.append(("batch", batch)),
        on_test_end=lambda logs: seen.append(("test_end", logs)),
    )
    cbl = callbacks.CallbackList([cb])
    cbl.on_train_begin()
    cbl.on_train_batch_end(2, {"loss": 1.0})
    cbl.on_epoch_end(0, {"loss": 0.5})
    cbl.on_test_end({"loss": 0.25})
    cbl.on_epoch_begin(1)  # not given: does nothing
    assert seen == [("begin",), ("batch", 2), ("epoch", 0, 0.5), ("test_end", {"loss": 0.25})]


def test_lambda_callback_validates_arguments():
    with pytest.raises(ValueError, match="on_epoch_finish"):
        callbacks.LambdaCallback(on_epoch_finish=lambda e, l: None)
    with pytest.raises(TypeError, match="on_epoch_end=3"):
        callbacks.LambdaCallback(on_epoch_end=3)


def test_public_names_match_keras():
    import json
    import pathlib

    path = pathlib.Path("/work/shared/api/keras-3.15-public-names.json")
    if not path.exists():
        pytest.skip("the Keras name list is not available here")
    names = set(json.loads(path.read_text())["callbacks"])
    missing = names - set(callbacks.__all__) - {"OrbaxCheckpoint"}
    assert not missing
