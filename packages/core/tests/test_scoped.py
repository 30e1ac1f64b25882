"""`ScopedVar`: the ContextVar interface (get, set returning a token, reset) per thread."""

from __future__ import annotations

import threading

import pytest

from lamina.backend.scoped import ScopedVar


def test_set_and_reset_nest_and_restore_the_default():
    var = ScopedVar("v", default=0)
    outer = var.set(1)
    inner = var.set(2)
    assert var.get() == 2
    var.reset(inner)
    assert var.get() == 1
    var.reset(outer)
    assert var.get() == 0


def test_each_thread_starts_at_the_default_and_keeps_its_own_value():
    var = ScopedVar("v", default="default")
    var.set("main")
    seen = []

    def worker():
        seen.append(var.get())
        var.set("worker")
        seen.append(var.get())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == ["default", "worker"]
    assert var.get() == "main"


def test_two_vars_keep_separate_values_and_tokens():
    a, b = ScopedVar("a", default=None), ScopedVar("b", default=None)
    token = a.set(1)
    assert b.get() is None
    with pytest.raises(ValueError, match=r"ScopedVar 'b'.*token of 'a'"):
        b.reset(token)
    a.reset(token)
    assert a.get() is None
