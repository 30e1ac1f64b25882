"""The op classes a saved functional graph may name: one per public op function.

A functional model can call ops directly on symbolic tensors (``ops.add(x, 1.0)``), and
Keras 3 files record such calls as graph nodes. Loading resolves those names through this
catalog only: the op classes defined under ``lamina.ops`` whose name is a public op
function (``__all__`` of ``lamina.ops.numpy``, ``nn``, ``linalg``, ``math``, ``image``,
``core``). Control-flow ops are left out: they take functions, and a file cannot hold one.
"""

from __future__ import annotations

import functools

from lamina.ops.base import Op

_CONTROL_FLOW = "lamina.ops.core.control_flow."


@functools.cache
def public_op_classes() -> dict[str, type[Op]]:
    """Class name -> op class, for every op a config may name."""
    from lamina import ops

    public = {
        name
        for namespace in (ops.core, ops.image, ops.linalg, ops.math, ops.nn, ops.numpy)
        for name in namespace.__all__
    }
    found: dict[str, type[Op]] = {}
    stack: list[type[Op]] = [Op]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        module = cls.__module__
        if (
            module.startswith("lamina.ops.")
            and not module.startswith(_CONTROL_FLOW)
            and not cls.__name__.startswith("_")
            and cls.op_name in public
        ):
            found[cls.__name__] = cls
    return found


def op_module(cls: type[Op]) -> str:
    """The namespace a saved config names for an op: ``lamina.ops.<numpy|nn|linalg|...>``.

    The sub-namespace is kept (Keras 3 writes ``keras.src.ops.numpy`` and the like) so that
    files map onto each other's module names one for one.
    """
    return ".".join(cls.__module__.split(".")[:3])
