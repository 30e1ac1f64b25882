"""Each optimizer's update rule against a NumPy reference written from its formula.

A few steps on the quadratic ``0.5 * sum(a * w^2) - sum(b * w)``: the gradient
``a * w - b`` is computed in NumPy from the variable's current value, fed to `apply`, and
the same steps are run by the float64 reference. Tolerance: rtol 1e-4, atol 1e-6 (float32
arithmetic against float64 over five steps).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import lamina
from lamina import optimizers

RTOL, ATOL = 1e-4, 1e-6
A = np.array([[1.0, 2.0, 0.5], [3.0, 0.25, 1.5]])
B = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
W0 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
STEPS = 5


def grad(w):
    return A * w - B


def run(opt, steps=STEPS, w0=W0, name="kernel"):
    v = lamina.Variable(w0.astype("float32"), name=name)
    history = []
    for _ in range(steps):
        opt.apply([grad(v.numpy().astype("float64")).astype("float32")], [v])
        history.append(v.numpy().copy())
    return v, history


def reference(step_fn, state, steps=STEPS, w0=W0):
    w = w0.copy()
    history = []
    for t in range(1, steps + 1):
        w = step_fn(w, grad(w), t, state)
        history.append(w.copy())
    return history


def check(opt, step_fn, state=None, w0=W0, name="kernel"):
    _, got = run(opt, w0=w0, name=name)
    want = reference(step_fn, {} if state is None else state, w0=w0)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)
    assert int(opt.iterations.numpy()) == STEPS


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd(momentum, nesterov):
    lr = 0.1

    def step(w, g, t, s):
        if momentum == 0:
            return w - lr * g
        s["m"] = momentum * s.get("m", 0.0) - lr * g
        return w + (momentum * s["m"] - lr * g if nesterov else s["m"])

    check(optimizers.SGD(learning_rate=lr, momentum=momentum, nesterov=nesterov), step)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam(amsgrad):
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-7

    def step(w, g, t, s):
        s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        s["v"] = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        v = s["v"]
        if amsgrad:
            s["vh"] = np.maximum(s.get("vh", 0.0), v)
            v = s["vh"]
        alpha = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        return w - s["m"] * alpha / (np.sqrt(v) + eps)

    check(optimizers.Adam(learning_rate=lr, amsgrad=amsgrad), step)


def test_adamw_decays_then_steps():
    lr, wd, b1, b2, eps = 0.05, 0.1, 0.9, 0.999, 1e-7

    def step(w, g, t, s):
        w = w - w * wd * lr
        s["m"] = s.get("m", 0.0) * b1 + g * (1 - b1)
        s["v"] = s.get("v", 0.0) * b2 + g * g * (1 - b2)
        alpha = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        return w - s["m"] * alpha / (np.sqrt(s["v"]) + eps)

    check(optimizers.AdamW(learning_rate=lr, weight_decay=wd), step)


def test_adamax():
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-7

    def step(w, g, t, s):
        s["m"] = s.get("m", 0.0) * b1 + g * (1 - b1)
        s["u"] = np.maximum(s.get("u", 0.0) * b2, np.abs(g))
        return w - lr * s["m"] / ((1 - b1**t) * (s["u"] + eps))

    check(optimizers.Adamax(learning_rate=lr), step)


def test_nadam():
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-7

    def mu(t):
        return b1 * (1 - 0.5 * 0.96**t)

    def step(w, g, t, s):
        s["p"] = s.get("p", 1.0) * mu(t)
        p_next = s["p"] * mu(t + 1)
        s["m"] = s.get("m", 0.0) * b1 + g * (1 - b1)
        s["v"] = s.get("v", 0.0) * b2 + g * g * (1 - b2)
        m_hat = mu(t + 1) * s["m"] / (1 - p_next) + (1 - mu(t)) * g / (1 - s["p"])
        v_hat = s["v"] / (1 - b2**t)
        return w - lr * m_hat / (np.sqrt(v_hat) + eps)

    check(optimizers.Nadam(learning_rate=lr), step)


@pytest.mark.parametrize("centered,momentum", [(False, 0.0), (True, 0.0), (True, 0.5)])
def test_rmsprop(centered, momentum):
    lr, rho, eps = 0.01, 0.9, 1e-7

    def step(w, g, t, s):
        s["v"] = rho * s.get("v", 0.0) + (1 - rho) * g * g
        denom = s["v"]
        if centered:
            s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g
            denom = denom - s["a"] ** 2
        inc = lr * g / np.sqrt(denom + eps)
        if momentum:
            s["m"] = momentum * s.get("m", 0.0) + inc
            inc = s["m"]
        return w - inc

    check(optimizers.RMSprop(learning_rate=lr, centered=centered, momentum=momentum), step)


def test_adagrad():
    lr, init, eps = 0.1, 0.1, 1e-7

    def step(w, g, t, s):
        s["acc"] = s.get("acc", init) + g * g
        return w - lr * g / np.sqrt(s["acc"] + eps)

    check(optimizers.Adagrad(learning_rate=lr, initial_accumulator_value=init), step)


def test_adadelta():
    lr, rho, eps = 1.0, 0.95, 1e-6

    def step(w, g, t, s):
        s["g"] = rho * s.get("g", 0.0) + (1 - rho) * g * g
        d = -g * np.sqrt(s.get("d", 0.0) + eps) / np.sqrt(s["g"] + eps)
        s["d"] = rho * s.get("d", 0.0) + (1 - rho) * d * d
        return w + lr * d

    check(optimizers.Adadelta(learning_rate=lr, rho=rho, epsilon=eps), step)


@pytest.mark.parametrize("l1,l2,shrink,beta", [(0.0, 0.0, 0.0, 0.0), (0.01, 0.1, 0.05, 0.5)])
def test_ftrl(l1, l2, shrink, beta):
    lr, power, init = 0.1, -0.5, 0.1

    def step(w, g, t, s):
        acc = s.get("n", np.full_like(w, init))
        l2_total = l2 + beta / (2 * lr)
        g2 = g + 2 * shrink * w
        n = acc + g * g
        s["z"] = s.get("z", 0.0) + g2 - (n**-power - acc**-power) / lr * w
        q = n**-power / lr + 2 * l2_total
        s["n"] = n
        return (np.clip(s["z"], -l1, l1) - s["z"]) / q

    opt = optimizers.Ftrl(
        learning_rate=lr,
        l1_regularization_strength=l1,
        l2_regularization_strength=l2,
        l2_shrinkage_regularization_strength=shrink,
        beta=beta,
    )
    check(opt, step)


def test_lion():
    lr, b1, b2 = 0.01, 0.9, 0.99

    def step(w, g, t, s):
        m = s.get("m", 0.0)
        w = w - lr * np.sign(b1 * m + (1 - b1) * g)
        s["m"] = b2 * m + (1 - b2) * g
        return w

    check(optimizers.Lion(learning_rate=lr), step)


def test_lamb():
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-7

    def step(w, g, t, s):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        r = (s["m"] / (1 - b1**t)) / (np.sqrt(s["v"] / (1 - b2**t)) + eps)
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        ratio = wn / rn if wn > 0 and rn > 0 else 1.0
        return w - lr * ratio * r

    check(optimizers.Lamb(learning_rate=lr), step)


@pytest.mark.parametrize("shape", [(2, 3), (3,)])
@pytest.mark.parametrize("lr,relative_step", [(0.05, True), (0.6, False)])
def test_adafactor(shape, lr, relative_step):
    """At 0.6 the rate is capped at 1 / sqrt(t) from the third step on, `relative_step`
    or not, as in Keras 3."""
    decay, e1, e2, clip = -0.8, 1e-30, 1e-3, 1.0
    w0 = W0.reshape(-1)[:3] if shape == (3,) else W0

    def rms(x):
        return np.sqrt(np.mean(x * x))

    def step(w, g, t, s):
        g = g.reshape(w.shape)
        rho = min(lr, 1 / math.sqrt(t))
        alpha = max(e2, rms(w)) * rho
        sq = g * g + e1
        b2t = 1 - t**decay
        if w.ndim >= 2:
            s["r"] = b2t * s.get("r", 0.0) + (1 - b2t) * sq.mean(-1)
            s["c"] = b2t * s.get("c", 0.0) + (1 - b2t) * sq.mean(-2)
            v = (s["r"] / s["r"].mean(-1, keepdims=True))[..., None] * s["c"][..., None, :]
        else:
            s["v"] = b2t * s.get("v", 0.0) + (1 - b2t) * sq
            v = s["v"]
        u = g / np.sqrt(v)
        u = u / max(1.0, rms(u) / clip)
        return w - alpha * u

    global A, B
    a, b = A, B
    if shape == (3,):
        A, B = A.reshape(-1)[:3], B.reshape(-1)[:3]
    try:
        check(optimizers.Adafactor(learning_rate=lr, relative_step=relative_step), step, w0=w0)
    finally:
        A, B = a, b


def test_adafactor_keeps_factored_averages_only_for_matrices():
    opt = optimizers.Adafactor()
    opt.build([lamina.Variable(np.zeros((2, 4, 3), "float32"), name="k"),
               lamina.Variable(np.zeros((3,), "float32"), name="b")])
    assert [(v.name, tuple(v.shape)) for v in opt.variables[2:]] == [
        ("k_r", (2, 4)), ("k_c", (2, 3)), ("b_velocity", (3,))
    ]


def _newton_schulz(g, steps, a, b, c):
    x = g.astype("float64")
    tall = x.shape[0] > x.shape[1]
    if tall:
        x = x.T
    x = x / (np.linalg.norm(x) + 1e-7)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


@pytest.mark.parametrize("rms_rate,nesterov", [(0.2, True), (None, False)])
def test_muon_matrix_branch(rms_rate, nesterov):
    lr, mom, steps = 0.02, 0.95, 5
    a, b, c = 3.4445, -4.7750, 2.0315

    def step(w, g, t, s):
        s["m"] = mom * s.get("m", 0.0) + g
        d = g + mom * s["m"] if nesterov else s["m"]
        ortho = _newton_schulz(d, steps, a, b, c)
        scale = 1.0 if rms_rate is None else rms_rate * math.sqrt(max(w.shape))
        return w - lr * scale * ortho

    opt = optimizers.Muon(
        learning_rate=lr, weight_decay=None, ns_steps=steps, rms_rate=rms_rate, nesterov=nesterov
    )
    _, got = run(opt)
    want = reference(step, {})
    for g_, e in zip(got, want):
        np.testing.assert_allclose(g_, e, rtol=1e-3, atol=1e-5)  # float32 matmuls


def _adam_reference(lr, b1=0.9, b2=0.999, eps=1e-7, decay=None):
    def step(w, g, t, s):
        if decay:
            w = w - w * decay * s["full_lr"]
        s["m"] = s.get("m", 0.0) * b1 + g * (1 - b1)
        s["v"] = s.get("v", 0.0) * b2 + g * g * (1 - b2)
        alpha = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        return w - s["m"] * alpha / (np.sqrt(s["v"]) + eps)

    return step


def test_muon_sends_vectors_and_embeddings_to_adam():
    lr, ratio = 0.05, 0.1
    opt = optimizers.Muon(
        learning_rate=lr, weight_decay=None, adam_weight_decay=None, adam_lr_ratio=ratio
    )
    check(opt, _adam_reference(lr * ratio), name="embeddings")
    other = optimizers.Muon(
        learning_rate=lr,
        weight_decay=None,
        adam_lr_ratio=ratio,
        exclude_layers=["dense"],
        exclude_embeddings=False,
    )
    assert other._uses_adam(lamina.Variable(np.zeros((2, 2), "float32"), name="dense"))
    assert not other._uses_adam(lamina.Variable(np.zeros((2, 2), "float32"), name="embeddings"))
    assert other._uses_adam(lamina.Variable(np.zeros((3,), "float32"), name="bias"))
    assert other._uses_adam(lamina.Variable(np.zeros((2, 2, 2), "float32"), name="conv"))


def test_muon_decays_each_branch_by_its_own_rate():
    """`weight_decay` for the matrices, `adam_weight_decay` for Adam's weights, both with
    the full rate (Adam's step itself uses ``lr * adam_lr_ratio``)."""
    lr, ratio, wd, adam_wd, steps = 0.05, 0.5, 0.2, 0.01, 5
    a, b, c = 3.4445, -4.7750, 2.0315
    opt = optimizers.Muon(learning_rate=lr, weight_decay=wd, adam_weight_decay=adam_wd,
                          adam_lr_ratio=ratio, ns_steps=steps)
    check(opt, _adam_reference(lr * ratio, decay=adam_wd), {"full_lr": lr}, name="embeddings")

    def step(w, g, t, s):
        w = w - w * wd * lr
        s["m"] = 0.95 * s.get("m", 0.0) + g
        ortho = _newton_schulz(g + 0.95 * s["m"], steps, a, b, c)
        return w - lr * 0.2 * math.sqrt(max(w.shape)) * ortho

    matrix = optimizers.Muon(learning_rate=lr, weight_decay=wd, adam_weight_decay=adam_wd)
    _, got = run(matrix)
    for g_, e in zip(got, reference(step, {})):
        np.testing.assert_allclose(g_, e, rtol=1e-3, atol=1e-5)  # float32 matmuls


def test_muon_slots_go_variable_by_variable():
    opt = optimizers.Muon()
    opt.build([lamina.Variable(np.zeros((4, 3), "float32"), name="k"),
               lamina.Variable(np.zeros((3,), "float32"), name="b"),
               lamina.Variable(np.zeros((3, 2), "float32"), name="k2")])
    assert [v.name for v in opt.variables[2:]] == [
        "k_momentum", "b_momentum", "b_velocity", "k2_momentum"
    ]


@pytest.mark.parametrize("warmup,wd", [(0, None), (3, 0.01)])
def test_schedule_free_adamw(warmup, wd):
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8

    def step(w, g, t, s):
        z = s.setdefault("z", W0.copy())
        lr_t = lr * (min(1.0, t / warmup) if warmup else 1.0) * math.sqrt(1 - b2**t)
        s["lr_max"] = max(s.get("lr_max", 0.0), lr_t)
        weight = s["lr_max"] ** 2
        s["ws"] = s.get("ws", 0.0) + weight
        ckp1 = weight / s["ws"]
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        d = g / (np.sqrt(s["v"]) + eps) + (wd or 0.0) * w
        y = (1 - ckp1) * w + ckp1 * z + lr_t * (b1 * (1 - ckp1) - 1) * d
        s["z"] = z - lr_t * d
        s["x"] = (y - (1 - b1) * s["z"]) / b1
        return y

    state: dict = {}
    opt = optimizers.ScheduleFreeAdamW(learning_rate=lr, warmup_steps=warmup, weight_decay=wd)
    v, got = run(opt)
    want = reference(step, state)
    for g_, e in zip(got, want):
        np.testing.assert_allclose(g_, e, rtol=RTOL, atol=ATOL)
    opt.finalize_variable_values([v])
    np.testing.assert_allclose(v.numpy(), state["x"], rtol=RTOL, atol=1e-5)


def test_slot_paths_derive_from_the_variable_path():
    opt = optimizers.Adam(name="opt")
    with lamina.name_scope("dense"):
        v = lamina.Variable(np.zeros((2,), "float32"), name="kernel")
    opt.build([v])
    paths = [x.path for x in opt.variables]
    assert paths == [
        "opt/iteration",
        "opt/learning_rate",
        "opt/dense_kernel_momentum",
        "opt/dense_kernel_velocity",
    ]
