"""`TorchModuleWrapper`: a ``torch.nn.Module`` used as a Lamina layer (torch backend).

The module's parameters become the layer's trainable variables and its saved buffers (a
BatchNorm's running statistics) its non-trainable ones: each is replaced, inside the
module, by the tensor a new Lamina variable holds (same value), so the module computes
with Lamina's variables and `fit`, optimizers, `get_weights` and weight files see them.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from lamina import tree
from lamina.layers.interop.requirements import require_backend
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor
from lamina.saving.serialization import in_safe_mode


class TorchModuleWrapper(Layer):
    """Wrap a ``torch.nn.Module`` so that a Lamina model can use and train it.

    Only the torch backend can run a torch module; on any other backend construction is
    a `ValueError` that says so.

    Args:
        module: a ``torch.nn.Module``. A lazy module (``torch.nn.LazyLinear``) must have
            run once first, so that its parameters have shapes.
        name: the layer's name.
        output_shape: the output shape (batch dimension included, ``None`` where
            unknown), which spares tracing the module to infer it.
        **kwargs: `Layer` arguments (``dtype``, ``trainable``).

    Example:
        >>> import torch
        >>> layer = lamina.layers.TorchModuleWrapper(torch.nn.Linear(4, 2))
        >>> model = lamina.Sequential([lamina.Input((4,)), layer, lamina.layers.ReLU()])
        >>> model.compile(optimizer="adam", loss="mse")
        >>> x, y = np.ones((8, 4), "float32"), np.ones((8, 2), "float32")
        >>> history = model.fit(x, y, epochs=2, verbose=0)  # trains the module's weights
        >>> len(model.trainable_weights)  # the torch.nn.Linear's weight and bias
        2
    """

    def __init__(
        self, module: Any, name: str | None = None, output_shape: Any = None, **kwargs: Any
    ) -> None:
        require_backend("TorchModuleWrapper", ("torch",), "runs a torch.nn.Module")
        import torch

        if not isinstance(module, torch.nn.Module):
            raise ValueError(
                "Argument `module` of TorchModuleWrapper must be a torch.nn.Module. "
                f"Received: module={module!r} (of type {type(module).__name__})"
            )
        lazy = [
            n
            for n, p in module.named_parameters()
            if isinstance(p, torch.nn.parameter.UninitializedParameter)
        ]
        if lazy:
            raise ValueError(
                "Argument `module` of TorchModuleWrapper has uninitialized (lazy) "
                f"parameters {lazy}: call the module once on an example input first."
            )
        super().__init__(name=name, **kwargs)
        self.module = module
        self._output_shape = output_shape
        self._adopt_state()
        self.built = True

    def _adopt_state(self) -> None:
        """Create a variable per parameter (trainable as the parameter requires grad) and
        per saved buffer (non-trainable), and put each variable's tensor in the module.

        Tied tensors (one tensor under several names) become one variable.
        """
        by_id: dict[int, Any] = {}
        saved = set(self.module.state_dict())
        tensors = [
            (name, tensor, True)
            for name, tensor in self.module.named_parameters(remove_duplicate=False)
        ] + [
            (name, tensor, False)
            for name, tensor in self.module.named_buffers(remove_duplicate=False)
            if name in saved  # non-persistent buffers are scratch space, not state
        ]
        for qualified, tensor, is_parameter in tensors:
            variable = by_id.get(id(tensor))
            if variable is None:
                variable = self.add_weight(
                    shape=tuple(tensor.shape),
                    initializer=_initial_value(tensor),
                    dtype=str(tensor.dtype).removeprefix("torch."),
                    trainable=is_parameter and tensor.requires_grad,
                    autocast=False,
                    name=qualified,
                )
                by_id[id(tensor)] = variable
            owner_name, _, attribute = qualified.rpartition(".")
            owner = self.module.get_submodule(owner_name)
            if is_parameter:
                setattr(owner, attribute, variable.value)  # the variable's own Parameter
            else:
                # A buffer holding the variable's tensor: the module's in-place updates
                # (a BatchNorm's running statistics) land in the variable.
                owner.register_buffer(attribute, variable.value)
        if by_id:
            # Non-persistent buffers follow the variables' device (theirs is unchanged).
            self.module.to(next(iter(by_id.values())).value.device)

    def call(self, *args: Any, training: bool | None = None, **kwargs: Any) -> Any:
        # `training` switches the module's mode (Dropout, BatchNorm); None leaves the mode
        # the module is in, as its user set it.
        if training is not None:
            self.module.train(bool(training))
        return self.module(*args, **kwargs)

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """From `output_shape` when given, else by running the module in eval mode and
        without gradients (so tracing cannot update a BatchNorm's statistics)."""
        if self._output_shape is not None:
            dtype = self.compute_dtype
            return tree.map_shape_structure(
                lambda s: SymbolicTensor(s, dtype=dtype), self._output_shape
            )
        import torch

        was_training = self.module.training
        self.module.eval()
        try:
            with torch.no_grad():
                return super().compute_output_spec(*args, **kwargs)
        finally:
            self.module.train(was_training)

    def get_config(self) -> dict[str, Any]:
        """The config, with the module pickled by ``torch.save`` (base64 text).

        Loading it runs ``torch.load`` on that pickle, which `from_config` refuses in
        safe mode.
        """
        import torch

        buffer = io.BytesIO()
        torch.save(self.module, buffer)
        config = super().get_config()
        config.update(
            {
                "module": base64.b64encode(buffer.getvalue()).decode("ascii"),
                "output_shape": self._output_shape,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> TorchModuleWrapper:
        """Rebuild the layer, unpickling its module (refused in safe mode).

        Raises:
            ValueError: in safe mode, since unpickling a module can run arbitrary code.
        """
        config = dict(config)
        module = config.get("module")
        if isinstance(module, str):
            if in_safe_mode():
                raise ValueError(
                    "Refusing to load the torch module of a TorchModuleWrapper config: it "
                    "is a pickle, and `torch.load` of a pickle can run arbitrary code. If "
                    "you trust the source, pass `safe_mode=False` to the loading call or "
                    "call `lamina.config.enable_unsafe_deserialization()`."
                )
            import torch

            data = io.BytesIO(base64.b64decode(module))
            config["module"] = torch.load(data, weights_only=False)
        return cls(**config)


def _initial_value(parameter: Any) -> Any:
    def initial(shape: Any, dtype: Any = None) -> Any:
        return parameter.detach()

    return initial
