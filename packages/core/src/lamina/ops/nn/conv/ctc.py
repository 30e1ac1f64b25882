"""Connectionist temporal classification: ctc_loss and ctc_decode."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.nn.conv._args import float_result
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["ctc_decode", "ctc_loss"]


def _rank(op: str, arg: str, shape: Shape, rank: int, layout: str) -> None:
    if len(shape) != rank:
        raise ValueError(
            f"`{op}`: argument `{arg}` must have rank {rank} {layout}. "
            f"Received: {arg}.shape={shape}"
        )


def _batch(op: str, shapes: dict[str, Shape]) -> None:
    known = {d[0] for d in shapes.values() if d and d[0] is not None}
    if len(known) > 1:
        got = ", ".join(f"{k}.shape={v}" for k, v in shapes.items())
        raise ValueError(f"`{op}`: all arguments must have the same batch size. Received: {got}")


def _mask_index(op: str, mask_index: Any, classes: int | None) -> int:
    try:
        if isinstance(mask_index, bool):
            raise TypeError
        index = operator.index(mask_index)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `mask_index` must be an int. Received: mask_index={mask_index!r}"
        ) from None
    if index < 0 or (classes is not None and index >= classes):
        raise ValueError(
            f"`{op}`: argument `mask_index` must be in [0, num_classes={classes}). "
            f"Received: mask_index={mask_index!r}"
        )
    return index


def _int_dtype(op: str, arg: str, x: Any) -> None:
    d = dtypes.dtype_of(x)
    if d not in dtypes.INTS:
        raise TypeError(f"`{op}`: argument `{arg}` must be an integer tensor. Received dtype {d}")


class CtcLoss(Op):
    def __init__(self, mask_index: int = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.mask_index = mask_index

    def _plan(self, target: Any, output: Any, tlen: Any, olen: Any) -> Shape:
        op = self.op_name
        shapes = {
            "target": static_shape(target),
            "output": static_shape(output),
            "target_length": static_shape(tlen),
            "output_length": static_shape(olen),
        }
        _rank(op, "target", shapes["target"], 2, "(batch, max_label_length)")
        _rank(op, "output", shapes["output"], 3, "(batch, max_time, num_classes)")
        _rank(op, "target_length", shapes["target_length"], 1, "(batch,)")
        _rank(op, "output_length", shapes["output_length"], 1, "(batch,)")
        _batch(op, shapes)
        _int_dtype(op, "target", target)
        _mask_index(op, self.mask_index, shapes["output"][2])
        return (shapes["output"][0],)

    def compute_output_spec(self, target: Any, output: Any, tlen: Any, olen: Any) -> SymbolicTensor:
        shape = self._plan(target, output, tlen, olen)
        return SymbolicTensor(shape, float_result(self.op_name, output))

    def call(self, target: Any, output: Any, tlen: Any, olen: Any) -> Any:
        self._plan(target, output, tlen, olen)
        logits = to_tensor(output, float_result(self.op_name, output))
        t, tl, ol = (to_tensor(a, "int32") for a in (target, tlen, olen))
        return backend().nn.ctc_loss(t, logits, tl, ol, int(self.mask_index))


def _log_softmax(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    m = x.max(axis=-1, keepdims=True)
    return np.asarray(x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))


def _beam_search(
    logits: np.ndarray[Any, Any], length: int, beam_width: int, top_paths: int, blank: int
) -> list[tuple[tuple[int, ...], float]]:
    """CTC prefix beam search over one sequence; (labels, log-probability) best first."""
    logp = _log_softmax(logits[:length].astype(np.float64))
    # Each prefix keeps two log-probabilities: ending in blank, ending in its last label.
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (0.0, -np.inf)}
    for t in range(length):
        nxt: dict[tuple[int, ...], tuple[float, float]] = {}

        def add(prefix: tuple[int, ...], pb: float, pn: float, nxt: dict[Any, Any] = nxt) -> None:
            ob, on = nxt.get(prefix, (-np.inf, -np.inf))
            nxt[prefix] = (np.logaddexp(ob, pb), np.logaddexp(on, pn))

        for prefix, (pb, pn) in beams.items():
            total = np.logaddexp(pb, pn)
            add(prefix, total + logp[t, blank], -np.inf)
            for c in range(logp.shape[1]):
                if c == blank:
                    continue
                p = logp[t, c]
                if prefix and prefix[-1] == c:
                    add(prefix, -np.inf, pn + p)  # the same label continues
                    add((*prefix, c), -np.inf, pb + p)  # a new label after a blank
                else:
                    add((*prefix, c), -np.inf, total + p)
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))
    return [(p, float(np.logaddexp(*s))) for p, s in ranked[:top_paths]]


class CtcDecode(Op):
    def __init__(
        self,
        strategy: str = "greedy",
        beam_width: int = 100,
        top_paths: int = 1,
        merge_repeated: bool = True,
        mask_index: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        op = self.op_name
        if strategy not in ("greedy", "beam_search"):
            raise ValueError(
                f"`{op}`: argument `strategy` must be 'greedy' or 'beam_search'. "
                f"Received: strategy={strategy!r}"
            )
        for arg, value in (("beam_width", beam_width), ("top_paths", top_paths)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"`{op}`: argument `{arg}` must be a positive int. Received: {arg}={value!r}"
                )
        if strategy == "beam_search" and top_paths > beam_width:
            raise ValueError(
                f"`{op}`: `top_paths` must be <= `beam_width`. "
                f"Received: top_paths={top_paths}, beam_width={beam_width}"
            )
        self.strategy = strategy
        self.beam_width = beam_width
        self.top_paths = top_paths if strategy == "beam_search" else 1
        self.merge_repeated = bool(merge_repeated)
        self.mask_index = mask_index

    def _plan(self, inputs: Any, lengths: Any) -> tuple[tuple[Shape, Shape], str]:
        op = self.op_name
        x, n = static_shape(inputs), static_shape(lengths)
        _rank(op, "inputs", x, 3, "(batch, max_time, num_classes)")
        _rank(op, "sequence_lengths", n, 1, "(batch,)")
        _batch(op, {"inputs": x, "sequence_lengths": n})
        _mask_index(op, self.mask_index, x[2])
        dtype = dtypes.result_type(float_result(op, inputs), "float32")
        return ((self.top_paths, x[0], x[1]), (x[0], self.top_paths)), dtype

    def compute_output_spec(self, inputs: Any, lengths: Any) -> tuple[SymbolicTensor, ...]:
        (decoded, scores), dtype = self._plan(inputs, lengths)
        return SymbolicTensor(decoded, "int32"), SymbolicTensor(scores, dtype)

    def call(self, inputs: Any, lengths: Any) -> tuple[Any, Any]:
        _, dtype = self._plan(inputs, lengths)
        x = to_tensor(inputs, dtype)
        n = to_tensor(lengths, "int32")
        b = backend()
        if self.strategy == "greedy":
            return composite("nn", "ctc_greedy_decode")(
                x, n, self.merge_repeated, int(self.mask_index)
            )
        # Beam search is a data-dependent host loop (eager only), shared by every backend.
        logits, lens = b.core.convert_to_numpy(x), b.core.convert_to_numpy(n)
        batch, time = logits.shape[:2]
        decoded = np.full((self.top_paths, batch, time), -1, dtype="int32")
        scores = np.full((batch, self.top_paths), -np.inf, dtype=dtype)
        for i in range(batch):
            best = _beam_search(
                logits[i], int(lens[i]), self.beam_width, self.top_paths, int(self.mask_index)
            )
            for p, (labels, score) in enumerate(best):
                decoded[p, i, : len(labels)] = labels
                scores[i, p] = score
        return b.core.convert_to_tensor(decoded, "int32"), b.core.convert_to_tensor(scores, dtype)


def ctc_loss(
    target: Any, output: Any, target_length: Any, output_length: Any, mask_index: int = 0
) -> Any:
    """CTC negative log-likelihood per batch entry.

    Args:
        target: int ``(batch, max_label_length)``, padded past `target_length`.
        output: logits ``(batch, max_time, num_classes)`` (log-softmax is applied inside).
        target_length: int ``(batch,)`` label lengths.
        output_length: int ``(batch,)`` frame counts.
        mask_index: the blank class.

    Returns:
        ``(batch,)`` losses.

    Example:
        >>> lamina.ops.ctc_loss(np.array([[1, 2]]), np.zeros((1, 5, 4)), [2], [5]).shape
    """
    return CtcLoss(mask_index)(target, output, target_length, output_length)


def ctc_decode(
    inputs: Any,
    sequence_lengths: Any,
    strategy: str = "greedy",
    beam_width: int = 100,
    top_paths: int = 1,
    merge_repeated: bool = True,
    mask_index: int = 0,
) -> Any:
    """Decode CTC logits into label sequences.

    ``"greedy"`` takes the best class per frame, merges repeats (if `merge_repeated`) and
    drops blanks; its score is minus the sum of the per-frame max logits. ``"beam_search"``
    runs a CTC prefix beam search (eager only) and scores each path by its log-probability
    under ``log_softmax(inputs)``; `merge_repeated` does not apply to it.

    Returns:
        ``(decoded, scores)``: int32 ``(top_paths, batch, max_time)`` labels left-aligned and
        padded with -1, and ``(batch, top_paths)`` scores (greedy: ``top_paths`` is 1).

    Example:
        >>> decoded, scores = lamina.ops.ctc_decode(np.zeros((1, 5, 4)), [5])
    """
    op = CtcDecode(strategy, beam_width, top_paths, merge_repeated, mask_index)
    return op(inputs, sequence_lengths)
