"""Arrays offered to variables (`kit.arrays_offered`): each goes to one variable at most,
and a variable that keeps one is still a variable of its own."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.backend.kit import Capability, arrays_offered, take_offered
from lamina.layers.layer import _zeros, initializers_skipped
from lamina.variables.offers import ALIGNMENT, aligned_empty, offer


def test_an_offer_is_taken_once_and_only_inside():
    a = np.arange(4, dtype="float32")
    assert not take_offered(a.ctypes.data, a.nbytes)  # nothing is offered outside
    with arrays_offered([a]):
        assert not take_offered(a.ctypes.data, a.nbytes - 4)  # a view of part of it
        assert take_offered(a.ctypes.data, a.nbytes)
        assert not take_offered(a.ctypes.data, a.nbytes)  # gone to the first taker
    with arrays_offered([a]):
        pass
    assert not take_offered(a.ctypes.data, a.nbytes)


def test_read_only_and_strided_arrays_are_never_offered():
    frozen = np.ones(4, "float32")
    frozen.flags.writeable = False
    strided = np.ones(8, "float32")[::2]
    with arrays_offered([frozen, strided]):
        assert not take_offered(frozen.ctypes.data, frozen.nbytes)
        assert not take_offered(strided.ctypes.data, strided.nbytes)


def test_offer_adds_to_the_innermost_offers_and_nothing_outside():
    a = np.ones(3, "float32")
    offer(a)
    assert not take_offered(a.ctypes.data, a.nbytes)
    with arrays_offered():
        offer(a)
        with arrays_offered():
            assert not take_offered(a.ctypes.data, a.nbytes)  # the outer offers wait
        assert take_offered(a.ctypes.data, a.nbytes)


def test_one_offered_array_given_to_two_variables_leaves_them_apart():
    shared = np.arange(3, dtype="float32")
    first, second = lamina.Variable(np.zeros(3, "float32")), lamina.Variable(np.zeros(3, "float32"))
    with arrays_offered([shared]):
        first.assign(shared)
        second.assign(shared)
    first.assign_add(np.ones(3, "float32"))
    np.testing.assert_array_equal(first.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(second.numpy(), [0.0, 1.0, 2.0])


@pytest.mark.requires(Capability.TRAINING)
def test_weights_created_while_initializers_are_skipped_start_as_zeros_and_train():
    with initializers_skipped():
        model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    for w in model.weights:
        np.testing.assert_array_equal(w.numpy(), np.zeros(w.shape, "float32"))
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 3), "float32"), np.ones((4, 2), "float32")
    model.fit(x, y, epochs=1, verbose=0)
    assert np.abs(model.weights[0].numpy()).sum() > 0


@pytest.mark.parametrize("shape", [(3, 5), (7,), (), (0, 4)])
@pytest.mark.parametrize("zeroed", [False, True])
def test_aligned_empty_starts_on_the_boundary(shape, zeroed):
    array = aligned_empty(shape, "float16", zeroed=zeroed)
    assert array.shape == shape and array.dtype == np.float16
    assert array.flags.c_contiguous and array.flags.writeable
    assert array.size == 0 or array.ctypes.data % ALIGNMENT == 0
    if zeroed:
        assert not array.any()


def test_the_zeros_standing_in_for_weights_are_aligned_offers():
    with arrays_offered():
        zeros = _zeros((64, 3), "float32")
        assert zeros.ctypes.data % ALIGNMENT == 0 and not zeros.any()
        assert take_offered(zeros.ctypes.data, zeros.nbytes)
