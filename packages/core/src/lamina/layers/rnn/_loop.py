"""The generic recurrent loop: any cell's step over time with `ops.scan` (or unrolled).

This is the path every configuration can take. Masked steps keep the states and repeat
the previous output (or output zeros), so a padded step changes nothing downstream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina import ops, tree

Step = Callable[[Any, Any], tuple[Any, Any]]
"""``step(x_t, states) -> (output_t, new_states)``; `states` is any nested structure."""


def _expand(mask_t: Any, like: Any) -> Any:
    """A ``(batch,)`` bool mask reshaped to broadcast against `like`."""
    rank = len(like.shape)
    return mask_t if rank == 1 else ops.reshape(mask_t, (-1,) + (1,) * (rank - 1))


def _masked(mask_t: Any, new: Any, old: Any) -> Any:
    return tree.map_structure(lambda n, o: ops.where(_expand(mask_t, n), n, o), new, old)


def run(
    step: Step,
    sequences: Any,
    initial_states: Any,
    mask: Any = None,
    *,
    go_backwards: bool = False,
    unroll: bool = False,
    zero_output_for_mask: bool = False,
    initial_output: Any = None,
) -> tuple[Any, Any, Any]:
    """Loop `step` over axis 1 of `sequences`.

    Args:
        step: the cell step.
        sequences: ``(batch, steps, ...)``.
        initial_states: the states before the first step (a nested structure).
        mask: None or ``(batch, steps)``; masked steps keep the states.
        go_backwards: read the steps last to first; outputs come in that order.
        unroll: a Python loop over the (static) steps instead of `ops.scan`.
        zero_output_for_mask: masked steps output zeros instead of the previous output.
        initial_output: the "previous output" before the first step (zeros, shaped like an
            output); required with a mask.

    Returns:
        ``(last_output, outputs, final_states)``; `outputs` is batch-major.
    """
    if mask is not None and initial_output is None:
        raise ValueError(
            "The recurrent loop needs `initial_output` (zeros shaped like one output) to run "
            "over a masked sequence. Received: initial_output=None"
        )
    xs = ops.moveaxis(sequences, 1, 0)
    ms = None if mask is None else ops.moveaxis(ops.cast(mask, "bool"), 1, 0)
    if go_backwards:
        xs = ops.flip(xs, axis=0)
        ms = None if ms is None else ops.flip(ms, axis=0)

    def masked_step(carry: Any, x_t: Any, m_t: Any) -> tuple[Any, Any]:
        states, previous = carry
        output, new_states = step(x_t, states)
        fallback = ops.zeros_like(output) if zero_output_for_mask else previous
        output = ops.where(_expand(m_t, output), output, fallback)
        return (_masked(m_t, new_states, states), output), output

    if unroll:
        outputs = []
        states = initial_states
        previous = initial_output
        for t in range(int(xs.shape[0])):
            if ms is None:
                output, states = step(xs[t, ...], states)
            else:
                (states, previous), output = masked_step((states, previous), xs[t, ...], ms[t, ...])
            outputs.append(output)
        stacked = ops.stack(outputs, axis=1)
        return outputs[-1], stacked, states

    if ms is None:

        def plain(states: Any, x_t: Any) -> tuple[Any, Any]:
            output, new_states = step(x_t, states)
            return new_states, output

        states, ys = ops.scan(plain, initial_states, xs)
    else:

        def with_mask(carry: Any, x: Any) -> tuple[Any, Any]:
            return masked_step(carry, x[0], x[1])

        (states, _), ys = ops.scan(with_mask, (initial_states, initial_output), (xs, ms))
    return ys[-1, ...], ops.moveaxis(ys, 0, 1), states
