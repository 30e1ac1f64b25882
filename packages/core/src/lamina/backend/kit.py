"""`lamina.backend.kit`: everything a backend adapter (or `lamina-saving`) takes from the core.

An adapter released against one core release must keep working with the next, so it imports
from the core only this module and the public namespaces (``lamina``, ``lamina.layers``,
``lamina.models``, ``lamina.optimizers``, ``lamina.metrics``, ``lamina.saving``,
``lamina.tree``, ``lamina.backend``). Names here change only with `KIT_VERSION`: a new
name raises the minor number, a removed or changed one the major number (and
`lamina.backend.BACKEND_API` with it).

What is here, by use:

* Types and dtypes: `Tensor`, `DType`, `Shape`, `Axis`, `Pytrees`; `standardize_dtype`,
  `to_numpy_dtype`.
* Assembling a backend: `Backend`, `Capability`, `ModuleBackend` (with
  `ModuleBackend.assemble`, taking the op modules as one `Namespaces`), `OptimizerRule`,
  `LayerMixin`, `Variable` (the base of the backend's variable class; `ArrayVariable`, one
  for arrays replaced on assignment; `TrainableStateVariable`, one whose native state
  carries the trainable flag), `RuntimeOps` (seeds,
  counters, profiler, determinism; `ModuleBackend` defaults to a generic one), `ExportOps`
  (the optional SavedModel export namespace; `ModuleBackend(export=...)`).
* Tracing and scopes: `SymbolicTensor`, `trace_with_arrays`, `symbolic_inputs`,
  `StatelessScope`, `SeedStateScope`, `global_seed_generator`, `tree`.
* Training steps: `unpack_x_y_sample_weight`, `batch_size_of`, `track_loss`, `loss_sums`,
  `clear_losses` (the hooks a step needs besides the model's public methods).
* Kernels' shared arithmetic: `patch_positions` (im2col gather indices), `clamped_block`
  (the basic-indexing key of an eager `slice_update`); window arguments `Ints`, `Pads`,
  `Pair`, `grow_and_crop` (pads a library cannot take negative, as pad widths and crop
  slices) and `patch_grid` (a `PatchGrid`: positions, pad widths and crop of unfold/fold);
  `InLayout` (1.10), which makes the layout-taking conv and pool members from kernels
  written for one layout; `NumpyStyleLinalg`, the `linalg` namespace forwarded to a
  NumPy-style library; `fused_attention` (1.11), a fused attention kernel taking one
  `AttentionCall` as the `dot_product_attention` override;
  `correlation_window` (the slice of a full correlation a NumPy mode keeps);
  `LoopedKernels` (1.12), the fused LSTM/GRU namespace of a backend that loops with its
  own primitive, built from its loop (`Loop`, taking `Step`, `States`, `LoopFlags`, giving
  `Scanned`) and its `GateMath`.
* Backends that never differentiate: `no_gradient` and `forward_only` (their
  `stop_gradient` and `custom_gradient`).
* Distribution: `variable_layout`, the `lamina.distribution.TensorLayout` a variable
  being created takes from the strategy in effect (None without one).
* Saving (`lamina-saving`): `DeferredRestore`, the hook a weights reader attaches to a
  model that is not built yet, with `attach_restore` and `attached_restore`;
  `initializers_skipped` for loaders that overwrite every weight anyway; `numpy_views`
  (1.14), inside which a backend's `convert_to_numpy` may give a read-only view of a
  host tensor's memory instead of a copy (`numpy_views_allowed` tells a backend so);
  `arrays_offered` (1.15), inside which a variable assigned one of the arrays a reader
  just filled may keep that memory as its value (`take_offered` tells a backend so);
  `aligned_empty` (1.16), the 64-byte-aligned arrays readers fill and offer, which a
  backend whose kernels assume aligned memory can keep.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol

from lamina import tree as tree
from lamina.backend.array_variable import ArrayVariable as ArrayVariable
from lamina.backend.attention import AttentionCall as AttentionCall
from lamina.backend.attention import fused_attention as fused_attention
from lamina.backend.capabilities import Capability as Capability
from lamina.backend.layer_mixin import LayerMixin as LayerMixin
from lamina.backend.layouts import InLayout as InLayout
from lamina.backend.linalg_forward import NumpyStyleLinalg as NumpyStyleLinalg
from lamina.backend.looped_kernels import GateMath as GateMath
from lamina.backend.looped_kernels import Loop as Loop
from lamina.backend.looped_kernels import LoopedKernels as LoopedKernels
from lamina.backend.looped_kernels import LoopFlags as LoopFlags
from lamina.backend.looped_kernels import Scanned as Scanned
from lamina.backend.looped_kernels import States as States
from lamina.backend.looped_kernels import Step as Step
from lamina.backend.module_backend import ModuleBackend as ModuleBackend
from lamina.backend.module_backend import Namespaces as Namespaces
from lamina.backend.module_backend import OptimizerRule as OptimizerRule
from lamina.backend.protocol import Backend as Backend
from lamina.backend.protocols._types import Axis as Axis
from lamina.backend.protocols._types import DType as DType
from lamina.backend.protocols._types import Pytrees as Pytrees
from lamina.backend.protocols._types import Shape as Shape
from lamina.backend.protocols._types import Tensor as Tensor
from lamina.backend.protocols.export import ExportOps as ExportOps
from lamina.backend.protocols.runtime import RuntimeOps as RuntimeOps
from lamina.backend.tracing import symbolic_inputs as symbolic_inputs
from lamina.backend.tracing import trace_with_arrays as trace_with_arrays
from lamina.backend.trainable_state import TrainableStateVariable as TrainableStateVariable
from lamina.backend.windows import Ints as Ints
from lamina.backend.windows import Pads as Pads
from lamina.backend.windows import Pair as Pair
from lamina.backend.windows import PatchGrid as PatchGrid
from lamina.backend.windows import correlation_window as correlation_window
from lamina.backend.windows import grow_and_crop as grow_and_crop
from lamina.backend.windows import patch_grid as patch_grid
from lamina.distribution.strategies import variable_layout as variable_layout
from lamina.ops.dtypes import standardize_dtype as standardize_dtype
from lamina.ops.dtypes import to_numpy_dtype as to_numpy_dtype
from lamina.ops.eager_memo import unmemoized as unmemoized
from lamina.ops.nn.conv.patches import patch_positions as patch_positions
from lamina.ops.symbolic import SymbolicTensor as SymbolicTensor
from lamina.random.seed_generator import SeedStateScope as SeedStateScope
from lamina.random.seed_generator import global_seed_generator as global_seed_generator
from lamina.trainers.auto_compile import auto_train_function as auto_train_function
from lamina.variables.offers import aligned_empty as aligned_empty
from lamina.variables.offers import arrays_offered as arrays_offered
from lamina.variables.offers import take_offered as take_offered
from lamina.variables.scopes import StatelessScope as StatelessScope
from lamina.variables.variable import Variable as Variable

KIT_VERSION: tuple[int, int] = (1, 17)
"""(major, minor): minor grows with new names, major when a name changes or goes."""


def clamped_block(
    start_indices: tuple[Any, ...], block: tuple[int, ...], shape: tuple[int, ...]
) -> tuple[slice, ...]:
    """The key selecting a `block`-sized region of an array of `shape` at `start_indices`.

    Starts count from the end when negative and are clamped so the block fits, as
    ``jax.lax.dynamic_slice`` does: what ``control_flow.slice_update`` promises. For
    eager backends, whose starts are concrete (ints or 0-d tensors).

    Example:
        >>> from lamina.backend.kit import clamped_block
        >>> clamped_block((-1, 5), (2, 2), (4, 4))
        (slice(2, 4, None), slice(2, 4, None))
    """
    key = []
    for start, size, dim in zip(start_indices, block, shape, strict=True):
        first = int(start)
        first = min(max(first + dim if first < 0 else first, 0), dim - size)
        key.append(slice(first, first + size))
    return tuple(key)


def no_gradient(x: Tensor) -> Tensor:
    """`control_flow.stop_gradient` of a backend that never differentiates: `x` itself."""
    return x


def forward_only(f: Callable[..., Any]) -> Callable[..., Any]:
    """`control_flow.custom_gradient` of a backend that never differentiates.

    `f` returns ``(value, grad_fn)``; the result returns the value alone.
    """

    def forward(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)[0]

    return forward


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """A batch as ``(x, y, sample_weight)`` (missing parts are None), as `fit` reads it."""
    # Imported on use: the kit loads with the backend, before the trainers can.
    from lamina.trainers.data_adapters import unpack_x_y_sample_weight as unpack

    return unpack(data)


def batch_size_of(x: Any) -> Any:
    """The batch size of `x`: an int, or a scalar tensor inside a graph with a None batch."""
    from lamina.trainers.trainer import batch_size_of as size

    return size(x)


def initializers_skipped(
    check_allocation: Callable[[str, tuple[int, ...], str], None] | None = None,
) -> AbstractContextManager[None]:
    """Float weights created inside start as zeros instead of running their initializers.

    `check_allocation(path, shape, dtype)`, when given, runs before each such variable
    allocates its value and raises to refuse it (sizes read from a file must not allocate
    more than the file's weights can fill).
    """
    from lamina.layers.layer import initializers_skipped as skipped

    return skipped(check_allocation)


_NUMPY_VIEWS: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "lamina_numpy_views", default=False
)


@contextlib.contextmanager
def numpy_views() -> Iterator[None]:
    """Inside, `convert_to_numpy` (and `Variable.numpy`) may return a read-only view of a
    tensor's own host memory instead of a copy.

    For callers that only read the values, and are done with them before the tensors
    change (a weights writer): the copy a caller could otherwise modify is not made.
    Backends without such a view, or whose tensor lives on an accelerator, copy as usual.
    """
    token = _NUMPY_VIEWS.set(True)
    try:
        yield
    finally:
        _NUMPY_VIEWS.reset(token)


def numpy_views_allowed() -> bool:
    """Whether a backend's `convert_to_numpy` may return a read-only view (`numpy_views`)."""
    return _NUMPY_VIEWS.get()


def track_loss(model: Any, loss: Any, x: Any) -> None:
    """Add one batch's loss, weighted by the batch size of `x`, to the "loss" `fit` logs."""
    model._loss_tracker.update_state(loss, sample_weight=batch_size_of(x))


def loss_sums(model: Any) -> tuple[Variable, Variable] | None:
    """The (weighted sum, total weight) variables behind the logged "loss", or None.

    A backend whose variables update in place may add to them directly (the mean is
    ``sum / weight``); None means the tracker is not the plain mean, and `track_loss` must
    be used.
    """
    from lamina.metrics.reduction import Mean

    tracker = model._loss_tracker
    if type(tracker) is not Mean:
        return None
    return tracker.total, tracker.count


def clear_losses(model: Any) -> None:
    """Forget the losses the model's layers added in the last call (`add_loss`).

    A traced step calls this when its trace ends: the losses hold the trace's tensors.
    """
    for layer in model._flatten_layers():
        layer._losses.clear()


class DeferredRestore(Protocol):
    """Weights read before the variables exist, handed over as the model builds.

    The core calls these hooks on the object attached to a layer (`attach_restore`).
    """

    def layer_tracked(self, parent: Any, name: str | None, layer: Any) -> None:
        """`layer` was assigned to `parent` (as attribute `name`, or into a tracked list)."""

    def saved_value(self, layer: Any, name: str, shape: tuple[int, ...]) -> Any:
        """The value for the variable `layer` is creating, or None to initialize it."""

    def optimizer_built(self, optimizer: Any) -> None:
        """The model's optimizer created its variables."""


def attach_restore(layer: Any, hook: DeferredRestore | None) -> None:
    """Make `layer` call `hook` as it tracks layers and creates variables (None detaches)."""
    object.__setattr__(layer, "_deferred_restore", hook)


def attached_restore(layer: Any) -> DeferredRestore | None:
    """The hook attached to `layer`, or None."""
    hook: DeferredRestore | None = layer.__dict__.get("_deferred_restore")
    return hook
