"""`Functional`: a model defined by a graph of layer calls from `Input`s to outputs."""

from __future__ import annotations

from typing import Any

from lamina import tree
from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer, get_mask
from lamina.models.model import Model
from lamina.ops import dtypes
from lamina.ops.function import Function
from lamina.ops.node import Node
from lamina.ops.symbolic import SymbolicTensor

_TENSOR_REF = "__lamina_tensor__"


class Functional(Function, Model):
    """``Model(inputs, outputs)``: runs the recorded graph eagerly or symbolically.

    Inputs and outputs may be a tensor, a list, or a dict of tensors. Layers can be
    shared, and models can be nested inside others like any layer.
    """

    def __init__(
        self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any
    ) -> None:
        trainable = kwargs.pop("trainable", True)
        if kwargs:
            raise ValueError(
                f"Unrecognized keyword arguments for a functional model: {sorted(kwargs)}"
            )
        if isinstance(inputs, dict) and any(
            isinstance(v, SymbolicTensor) and v.name != k for k, v in inputs.items()
        ):
            inputs = dict(inputs)
        Function.__init__(self, inputs, outputs, name=name)
        for t in self.inputs:
            history = t.history
            if history is None or not isinstance(history.operation, InputLayer):
                raise ValueError(
                    "Every input of a functional model must come from `lamina.Input`. "
                    f"Received: {t!r}"
                )
        if not trainable:
            self.trainable = False
        self.built = True

    @property
    def layers(self) -> list[Layer]:
        """The layers of the graph in execution order, `InputLayer`s included."""
        return [op for op in self.operations if isinstance(op, Layer)] if hasattr(
            self, "operations"
        ) else []

    @property
    def input_names(self) -> list[str]:
        return [t.history.operation.name for t in self.inputs if t.history is not None]

    @property
    def output_names(self) -> list[str]:
        return [t.history.operation.name for t in self.outputs if t.history is not None]

    @property
    def input_shape(self) -> Any:
        return tree.map_structure(lambda t: t.shape, self._inputs_struct)

    @property
    def output_shape(self) -> Any:
        return tree.map_structure(lambda t: t.shape, self._outputs_struct)

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        return self._run_graph(inputs, mask)

    def compute_output_spec(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        return Function.compute_output_spec(self, self._flat_inputs(inputs))

    def compute_output_shape(self, input_shape: Any) -> Any:
        flat = [
            SymbolicTensor(s, dtype=t.dtype) for s, t in zip(_flat_shapes(input_shape), self.inputs)
        ]
        specs = Function.compute_output_spec(self, flat)
        return tree.map_structure(lambda t: t.shape, specs)

    def _flat_inputs(self, inputs: Any) -> list[Any]:
        """The inputs in the order of `self.inputs`, whatever structure they came in."""
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            names = self.input_names
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(
                    f"Model {self.name!r} expects inputs named {names}. Missing: {missing}; "
                    f"received keys {sorted(inputs)}"
                )
            return [inputs[n] for n in names]
        flat = tree.flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(
                f"Model {self.name!r} expects {len(self.inputs)} input(s) structured like "
                f"{tree.map_structure(lambda t: t.shape, self._inputs_struct)}. "
                f"Received {len(flat)} input(s)."
            )
        return flat

    def _run_graph(self, inputs: Any, mask: Any) -> Any:
        flat = self._flat_inputs(inputs)
        values: dict[int, Any] = {}
        masks: dict[int, Any] = {}
        flat_masks = tree.flatten(mask) if mask is not None else [None] * len(flat)
        if len(flat_masks) != len(flat):
            flat_masks = [None] * len(flat)
        for t, v, m in zip(self.inputs, flat, flat_masks):
            if v is not None and not isinstance(v, SymbolicTensor):
                v = _to_input_dtype(v, t.dtype)
            values[id(t)] = v
            masks[id(t)] = m if m is not None else (get_mask(v) if v is not None else None)
        for node in self.nodes:
            if node.is_input:
                continue
            op = node.operation
            if _single_tensor_layer_call(node):
                self._run_layer_on_one_tensor(node, values, masks)
                continue

            def resolve(x: Any) -> Any:
                return values[id(x)] if isinstance(x, SymbolicTensor) else x

            args = tree.map_structure(resolve, node.call_args)
            kwargs = tree.map_structure(resolve, node.call_kwargs)
            in_mask = None
            if isinstance(op, Layer) and node.call_args:
                in_mask = tree.map_structure(
                    lambda x: masks.get(id(x)) if isinstance(x, SymbolicTensor) else None,
                    node.call_args[0],
                )
                if all(m is None for m in tree.flatten(in_mask)):
                    in_mask = None
                if op._has_mask and "mask" not in kwargs and in_mask is not None:
                    kwargs["mask"] = in_mask
            produced = op(*args, **kwargs)
            out_mask = None
            if isinstance(op, Layer) and op.supports_masking and args:
                out_mask = op.compute_mask(args[0], kwargs.get("mask", in_mask))
            _store_outputs(node, produced, out_mask, values, masks)
        return tree.pack_sequence_as(
            self._outputs_struct, [values[id(t)] for t in self.outputs]
        )

    @staticmethod
    def _run_layer_on_one_tensor(
        node: Node, values: dict[int, Any], masks: dict[int, Any]
    ) -> None:
        """`_run_graph`'s step for the common node: a layer called on one tensor."""
        op: Any = node.operation
        key = id(node.call_args[0])
        value, mask = values[key], masks.get(key)
        produced = op(value, mask=mask) if op._has_mask and mask is not None else op(value)
        out_mask = op.compute_mask(value, mask) if op.supports_masking else None
        _store_outputs(node, produced, out_mask, values, masks)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return None

    # --- config --------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The graph as layer configs plus, per layer, the calls that connect them."""
        from lamina.saving.serialization import serialize_lamina_object

        # The graph's own nodes and operations start after the inputs: add the InputLayers.
        input_ops = [t.history.operation for t in self.inputs if t.history is not None]
        model_nodes = {id(n) for n in self.nodes} | {
            id(t.history.node) for t in self.inputs if t.history is not None
        }

        def node_index(node: Node) -> int:
            own = [n for n in node.operation.inbound_nodes if id(n) in model_nodes]
            return next(i for i, n in enumerate(own) if n is node)

        def ref(t: Any) -> Any:
            if not isinstance(t, SymbolicTensor) or t.history is None:
                return t
            h = t.history
            return {
                "class_name": _TENSOR_REF,
                "config": {
                    "shape": list(t.shape),
                    "dtype": t.dtype,
                    "history": [h.operation.name, node_index(h.node), h.tensor_index],
                },
            }

        layers = []
        for op in input_ops + [o for o in self.operations if o not in input_ops]:
            if not isinstance(op, Layer):
                raise ValueError(
                    f"Functional model {self.name!r} calls the operation {op.name!r} "
                    f"({type(op).__name__}) directly on symbolic tensors; only layers can be "
                    "saved in a config. Wrap it in a layer (e.g. `lamina.layers.Lambda`)."
                )
            data = serialize_lamina_object(op)
            data["name"] = op.name
            data["inbound_nodes"] = [
                {
                    "args": tree.map_structure(ref, n.call_args),
                    "kwargs": tree.map_structure(ref, n.call_kwargs),
                }
                for n in op.inbound_nodes
                if id(n) in model_nodes and not n.is_input
            ]
            layers.append(data)

        def endpoint(t: SymbolicTensor) -> list[Any]:
            assert t.history is not None
            return [t.history.operation.name, node_index(t.history.node), t.history.tensor_index]

        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": layers,
            "input_layers": tree.map_structure(endpoint, self._inputs_struct),
            "output_layers": tree.map_structure(endpoint, self._outputs_struct),
        }


def _store_outputs(
    node: Node, produced: Any, out_mask: Any, values: dict[int, Any], masks: dict[int, Any]
) -> None:
    """Record what `node`'s call produced (and its masks) under its output tensors."""
    if len(node.output_tensors) == 1 and not tree.is_nested(produced):
        out = node.output_tensors[0]
        values[id(out)] = produced
        masks[id(out)] = out_mask
        return
    flat_out = tree.flatten(produced)
    flat_mask = (
        tree.flatten(out_mask)
        if out_mask is not None and tree.is_nested(out_mask)
        else [out_mask] * len(flat_out)
    )
    for tensor, value, mask in zip(node.output_tensors, flat_out, flat_mask):
        values[id(tensor)] = value
        masks[id(tensor)] = mask


def _single_tensor_layer_call(node: Node) -> bool:
    """Whether `node` calls a layer on one symbolic tensor with no other arguments."""
    args = node.call_args
    return (
        len(args) == 1
        and not node.call_kwargs
        and isinstance(args[0], SymbolicTensor)
        and isinstance(node.operation, Layer)
    )


def _flat_shapes(input_shape: Any) -> list[Any]:
    if isinstance(input_shape, (list, tuple)) and input_shape and all(
        isinstance(s, (list, tuple)) for s in input_shape
    ):
        return [tuple(s) for s in input_shape]
    if isinstance(input_shape, dict):
        return [tuple(v) for _, v in sorted(input_shape.items())]
    return [tuple(input_shape)]


def _to_input_dtype(value: Any, dtype: str) -> Any:
    from lamina.ops.dispatch import backend, to_tensor

    if backend().core.is_tensor(value) or dtypes.dtype_of(value) == "string":
        return value
    return to_tensor(value, dtype)


def functional_from_config(config: dict[str, Any], custom_objects: Any = None) -> Functional:
    """Rebuild a functional model from `Functional.get_config`'s output.

    Layers are created through the serialization registry only; each recorded call is then
    replayed once the tensors it needs exist.

    Raises:
        ValueError: the config is malformed or refers to unknown layers or tensors.
    """
    from lamina.saving.serialization import deserialize_lamina_object

    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"A functional model config needs {key!r}. Received keys: "
                             f"{sorted(config)}")
    layers: dict[str, Layer] = {}
    outputs: dict[tuple[str, int], list[Any]] = {}
    pending: list[tuple[Layer, int, dict[str, Any]]] = []
    for data in config["layers"]:
        layer = deserialize_lamina_object(data, custom_objects=custom_objects)
        if not isinstance(layer, Layer):
            raise ValueError(f"Config entry {data.get('name')!r} is not a layer.")
        layers[data["name"]] = layer
        if isinstance(layer, InputLayer):
            outputs[(data["name"], 0)] = [layer.output_tensor]
        start = 1 if isinstance(layer, InputLayer) else 0
        for i, call in enumerate(data.get("inbound_nodes", [])):
            pending.append((layer, i + start, call))

    def resolve(x: dict[str, Any]) -> Any:
        name, node, index = x["config"]["history"]
        if (name, node) not in outputs:
            raise KeyError((name, node))
        return outputs[(name, node)][index]

    while pending:
        progressed = False
        for item in list(pending):
            layer, index, call = item
            try:
                args = _resolve_tree(call["args"], resolve)
                kwargs = _resolve_tree(call.get("kwargs", {}), resolve)
            except KeyError:
                continue
            out = layer(*args, **kwargs)
            outputs[(layer.name, index)] = tree.flatten(out)
            pending.remove(item)
            progressed = True
        if not progressed:
            raise ValueError(
                "The functional config cannot be rebuilt: some layer calls need tensors "
                f"that no layer produces ({[p[0].name for p in pending]})."
            )

    def endpoint(e: Any) -> Any:
        name, node, index = e
        return outputs[(name, node)][index]

    inputs = _map_endpoints(config["input_layers"], endpoint)
    outs = _map_endpoints(config["output_layers"], endpoint)
    model = Functional(inputs, outs, name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model


def _is_endpoint(x: Any) -> bool:
    return (
        isinstance(x, list)
        and len(x) == 3
        and isinstance(x[0], str)
        and isinstance(x[1], int)
        and isinstance(x[2], int)
    )


def _map_endpoints(structure: Any, fn: Any) -> Any:
    if _is_endpoint(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_endpoints(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_map_endpoints(v, fn) for v in structure]
    return structure


def _resolve_tree(structure: Any, fn: Any) -> Any:
    if isinstance(structure, dict) and structure.get("class_name") == _TENSOR_REF:
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _resolve_tree(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_resolve_tree(v, fn) for v in structure)
    return structure
