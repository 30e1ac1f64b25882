"""Learning-rate schedules against NumPy formulas (rtol 1e-5), configs and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import ops
from lamina.optimizers import schedules

STEPS = [0, 1, 5, 10, 17, 25, 60, 100, 250]


def values(schedule):
    return np.array([float(ops.convert_to_numpy(schedule(s))) for s in STEPS])


def cosine_np(step, decay_steps, alpha, rate):
    frac = min(step, decay_steps) / decay_steps
    return rate * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * frac)) + alpha)


CASES = [
    (schedules.ExponentialDecay(0.1, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10)),
    (
        schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True),
        lambda s: 0.1 * 0.5 ** math.floor(s / 10),
    ),
    (
        schedules.PiecewiseConstantDecay([5, 25], [1.0, 0.5, 0.1]),
        lambda s: 1.0 if s <= 5 else 0.5 if s <= 25 else 0.1,
    ),
    (
        schedules.PolynomialDecay(0.1, 50, end_learning_rate=0.01, power=2.0),
        lambda s: (0.1 - 0.01) * (1 - min(s, 50) / 50) ** 2 + 0.01,
    ),
    (
        schedules.PolynomialDecay(0.1, 50, end_learning_rate=0.01, cycle=True),
        lambda s: (0.1 - 0.01) * (1 - s / (50 * max(math.ceil(s / 50), 1))) + 0.01,
    ),
    (schedules.InverseTimeDecay(0.1, 10, 0.5), lambda s: 0.1 / (1 + 0.5 * s / 10)),
    (
        schedules.InverseTimeDecay(0.1, 10, 0.5, staircase=True),
        lambda s: 0.1 / (1 + 0.5 * math.floor(s / 10)),
    ),
    (schedules.CosineDecay(0.1, 100, alpha=0.1), lambda s: cosine_np(s, 100, 0.1, 0.1)),
    (
        schedules.CosineDecay(0.0, 100, warmup_target=0.2, warmup_steps=10),
        lambda s: 0.2 * s / 10 if s < 10 else cosine_np(s - 10, 100, 0.0, 0.2),
    ),
]


def restarts_np(step, first, t_mul, m_mul, alpha, rate):
    frac = step / first
    if t_mul == 1.0:
        i = math.floor(frac)
        frac -= i
    else:
        i = math.floor(math.log(1 - frac * (1 - t_mul)) / math.log(t_mul))
        frac = (frac - (1 - t_mul**i) / (1 - t_mul)) / t_mul**i
    return rate * ((1 - alpha) * m_mul**i * 0.5 * (1 + math.cos(math.pi * frac)) + alpha)


CASES += [
    (
        schedules.CosineDecayRestarts(0.1, 10, t_mul=2.0, m_mul=0.5, alpha=0.05),
        lambda s: restarts_np(s, 10, 2.0, 0.5, 0.05, 0.1),
    ),
    (
        schedules.CosineDecayRestarts(0.1, 10, t_mul=1.0),
        lambda s: restarts_np(s, 10, 1.0, 1.0, 0.0, 0.1),
    ),
]


@pytest.mark.parametrize("schedule,formula", CASES, ids=lambda c: type(c).__name__)
def test_schedule_values(schedule, formula):
    want = np.array([formula(s) for s in STEPS])
    np.testing.assert_allclose(values(schedule), want, rtol=1e-5, atol=1e-7)
    out = schedule(ops.convert_to_tensor(7, "int32"))
    assert ops.convert_to_numpy(out).dtype == np.float32


@pytest.mark.parametrize("schedule,formula", CASES, ids=lambda c: type(c).__name__)
def test_config_and_serialize_round_trip(schedule, formula):
    clone = type(schedule).from_config(schedule.get_config())
    np.testing.assert_allclose(values(clone), values(schedule))
    restored = schedules.deserialize(schedules.serialize(schedule))
    assert type(restored) is type(schedule)
    assert restored.get_config() == schedule.get_config()


def test_bad_arguments():
    with pytest.raises(ValueError, match="decay_steps"):
        schedules.ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match="initial_learning_rate"):
        schedules.CosineDecay("fast", 10)
    with pytest.raises(ValueError, match="one more"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0])
    with pytest.raises(ValueError, match="increasing"):
        schedules.PiecewiseConstantDecay([5, 2], [1.0, 0.5, 0.1])
    with pytest.raises(ValueError, match="warmup_steps"):
        schedules.CosineDecay(0.1, 10, warmup_target=0.2, warmup_steps=-1)
    with pytest.raises(TypeError, match="learning_rate_schedule"):
        schedules.serialize(0.1)
    with pytest.raises(NotImplementedError):
        schedules.LearningRateSchedule()(0)
