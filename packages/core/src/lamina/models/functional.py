"""`Functional`: a model defined by a graph of layer calls from `Input`s to outputs."""

from __future__ import annotations

import heapq
import inspect
from typing import Any

from lamina import tree
from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer, get_mask
from lamina.layers.preprocessing._adapt_data import holds_text
from lamina.models.graph_inputs import start_graph_at
from lamina.models.model import Model
from lamina.ops.base import Op
from lamina.ops.catalog import op_module
from lamina.ops.core.conversion import is_tensor
from lamina.ops.function import Function
from lamina.ops.node import Node
from lamina.ops.symbolic import SymbolicTensor

_TENSOR_REF = "__lamina_tensor__"


class Functional(Function, Model):
    """``Model(inputs, outputs)``: runs the recorded graph eagerly or symbolically.

    Inputs and outputs may be a tensor, a list, or a dict of tensors. Layers can be
    shared, and models can be nested inside others like any layer.
    """

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any) -> None:
        trainable = kwargs.pop("trainable", True)
        if kwargs:
            raise ValueError(
                f"Unrecognized keyword arguments for a functional model: {sorted(kwargs)}"
            )
        if isinstance(inputs, dict) and any(
            isinstance(v, SymbolicTensor) and v.name != k for k, v in inputs.items()
        ):
            inputs = dict(inputs)
        # Inputs may be intermediate tensors, as in Keras 3: the model then starts there.
        inputs, outputs = start_graph_at(inputs, outputs)
        Function.__init__(self, inputs, outputs, name=name)
        if not trainable:
            self.trainable = False
        self.built = True

    @property
    def layers(self) -> list[Layer]:
        """The layers of the graph in execution order, its `InputLayer`s first (as Keras)."""
        if not hasattr(self, "operations"):
            return []
        sources = [t.history.operation for t in self.inputs if t.history is not None]
        out: list[Layer] = []
        seen: set[int] = set()
        for op in [*sources, *self.operations]:
            if isinstance(op, Layer) and id(op) not in seen:
                seen.add(id(op))
                out.append(op)
        return out

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

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Text inputs (for lookup or vectorization layers) stay as they are: only
        TensorFlow's tensors hold strings."""
        if not args or not any(holds_text(x) for x in tree.flatten(args[0])):
            return super()._convert_inputs(args)

        def convert(x: Any) -> Any:
            return x if holds_text(x) else super(Functional, self)._convert_inputs((x,))[0]

        return (tree.map_structure(convert, args[0]), *args[1:])

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
        if len(self.inputs) == 1 and (is_tensor(inputs) or not tree.is_nested(inputs)):
            # The common case, seen by its type first: a compiled step cannot trace optree.
            return [inputs]
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
        for node, single in self._steps():
            if single:
                self._run_layer_on_one_tensor(node, values, masks)
                continue
            op = node.operation

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
                _pass_argument_masks(op, node, masks, kwargs)
            produced = op(*args, **kwargs)
            out_mask = None
            if isinstance(op, Layer) and op.supports_masking and args:
                out_mask = op.compute_mask(args[0], kwargs.get("mask", in_mask))
            _store_outputs(node, produced, out_mask, values, masks)
        if isinstance(self._outputs_struct, SymbolicTensor):  # one output: nothing to pack
            return values[id(self._outputs_struct)]
        return tree.pack_sequence_as(self._outputs_struct, [values[id(t)] for t in self.outputs])

    def _steps(self) -> list[tuple[Node, bool]]:
        """The graph's nodes to run, in order, each with whether it is a layer called on one
        tensor (`_run_layer_on_one_tensor`). Worked out once: the graph never changes."""
        steps: list[tuple[Node, bool]] | None = self.__dict__.get("_run_steps")
        if steps is None:
            steps = [(n, _single_tensor_layer_call(n)) for n in self.nodes if not n.is_input]
            object.__setattr__(self, "_run_steps", steps)
        return steps

    @staticmethod
    def _run_layer_on_one_tensor(node: Node, values: dict[int, Any], masks: dict[int, Any]) -> None:
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

        # Each node's index among its operation's nodes that belong to this model.
        index_of: dict[int, int] = {}
        counted: set[int] = set()
        for node in [t.history.node for t in self.inputs if t.history is not None] + list(
            self.nodes
        ):
            op = node.operation
            if id(op) not in counted:
                counted.add(id(op))
                own = [n for n in op.inbound_nodes if id(n) in model_nodes]
                index_of.update((id(n), i) for i, n in enumerate(own))

        def node_index(node: Node) -> int:
            return index_of[id(node)]

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
        input_op_ids = {id(op) for op in input_ops}
        for op in input_ops + [o for o in self.operations if id(o) not in input_op_ids]:
            if not isinstance(op, (Layer, Op)):
                raise ValueError(
                    f"Functional model {self.name!r} calls the operation {op.name!r} "
                    f"({type(op).__name__}) directly on symbolic tensors; only layers and "
                    "the ops of `lamina.ops` can be saved in a config. Wrap it in a layer "
                    "(e.g. `lamina.layers.Lambda`)."
                )
            data = serialize_lamina_object(op)
            if isinstance(op, Op):
                data["module"] = op_module(type(op))
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
    if len(node.output_tensors) == 1 and (is_tensor(produced) or not tree.is_nested(produced)):
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
    if (
        isinstance(input_shape, (list, tuple))
        and input_shape
        and all(isinstance(s, (list, tuple)) for s in input_shape)
    ):
        return [tuple(s) for s in input_shape]
    if isinstance(input_shape, dict):
        return [tuple(v) for _, v in sorted(input_shape.items())]
    return [tuple(input_shape)]


def _to_input_dtype(value: Any, dtype: str) -> Any:
    from lamina.ops.dispatch import to_tensor

    if is_tensor(value) or holds_text(value):
        return value
    return to_tensor(value, dtype)


def functional_from_config(config: dict[str, Any], custom_objects: Any = None) -> Functional:
    """Rebuild a functional model from `Functional.get_config`'s output.

    Layers are created through the serialization registry only. Each recorded call is then
    replayed once the tensors it needs exist, in time linear in the number of calls. A call
    from a config passes only tensors from earlier calls and JSON values (never objects
    built from the config), and takes at least one tensor, so replaying a config runs no
    layer on constants.

    Raises:
        ValueError: the config is malformed (the message names the entry), breaks a limit
            of `lamina.saving.limits`, or refers to unknown layers or tensors.
    """
    from lamina.saving import limits
    from lamina.saving.serialization import CustomObjectScope

    if not isinstance(config, dict):
        raise TypeError(
            f"A functional model config must be a dict. Received: {type(config).__name__}"
        )
    with limits.checked(config, "this functional model config"), CustomObjectScope(custom_objects):
        return _Replay(config).model()


class _Replay:
    """Rebuilds one functional config: layers first, then their calls in dependency order."""

    def __init__(self, config: dict[str, Any]) -> None:
        for key in ("layers", "input_layers", "output_layers"):
            if key not in config:
                raise ValueError(
                    f"A functional model config needs {key!r}. Received keys: "
                    f"{sorted(map(str, config))[:20]}"
                )
        if not isinstance(config["layers"], list):
            raise ValueError(
                "The 'layers' of a functional model config must be a list. Received: "
                f"{type(config['layers']).__name__}"
            )
        name = config.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"A functional model's 'name' must be a string. Received: {name!r}")
        self.config = config
        self.layers: dict[str, Layer | Op] = {}
        self.outputs: dict[tuple[str, int], list[Any]] = {}
        # Every recorded call: (layer, its node index, the call's data).
        self.calls: list[tuple[Layer | Op, int, dict[str, Any]]] = []

    def model(self) -> Functional:
        for position, data in enumerate(self.config["layers"]):
            self._add_layer(position, data)
        self._replay_calls()
        inputs = _map_endpoints(self.config["input_layers"], self._endpoint)
        outputs = _map_endpoints(self.config["output_layers"], self._endpoint)
        model = Functional(inputs, outputs, name=self.config.get("name"))
        if self.config.get("trainable") is False:
            model.trainable = False
        return model

    def _add_layer(self, position: int, data: Any) -> None:
        from lamina.saving.serialization import deserialize_lamina_object

        where = f"entry {position} of the functional config's 'layers'"
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError(f"{where} must be a dict with a string 'name'.")
        name = data["name"]
        if name in self.layers:
            raise ValueError(f"{where}: the layer name {name!r} is used twice.")
        calls = data.get("inbound_nodes", [])
        if not isinstance(calls, list):
            raise ValueError(f"{where} ({name!r}): 'inbound_nodes' must be a list.")
        layer = deserialize_lamina_object(data)
        if not isinstance(layer, (Layer, Op)):
            raise ValueError(
                f"{where} ({name!r}) is neither a layer nor an op: {type(layer).__name__}."
            )
        self.layers[name] = layer
        start = 0
        if isinstance(layer, InputLayer):
            self.outputs[(name, 0)] = [layer.output_tensor]
            start = 1
        for i, call in enumerate(calls):
            well_formed = (
                isinstance(call, dict)
                and isinstance(call.get("args", []), (list, tuple))
                and isinstance(call.get("kwargs", {}), dict)
            )
            if not well_formed:
                raise ValueError(
                    f"Call {i} of layer {name!r} in the functional config must be a dict "
                    "with a list 'args' and a dict 'kwargs'."
                )
            self.calls.append((layer, i + start, call))

    def _replay_calls(self) -> None:
        """Kahn's algorithm: each call waits for the calls producing its tensors, and for
        the previous call of its own layer (so node indices come back as saved)."""
        produced = set(self.outputs) | {(layer.name, index) for layer, index, _ in self.calls}
        waiting: dict[tuple[str, int], list[int]] = {}
        missing: list[int] = []
        for c, (layer, index, call) in enumerate(self.calls):
            needs = {ref[:2] for ref in _tensor_refs(call, layer.name, index)}
            if not needs:
                raise ValueError(
                    f"Call {index} of layer {layer.name!r} in the functional config takes no "
                    "tensor from another layer; a recorded call must take at least one."
                )
            if index > 0 and (layer.name, index - 1) in produced:
                needs.add((layer.name, index - 1))
            for key in needs:
                if key not in produced:
                    raise ValueError(
                        f"Call {index} of layer {layer.name!r} needs the output of call "
                        f"{key[1]} of layer {key[0]!r}, which the config does not have."
                    )
                if key not in self.outputs:
                    waiting.setdefault(key, []).append(c)
            missing.append(sum(key not in self.outputs for key in needs))
        ready = [c for c, count in enumerate(missing) if count == 0]  # a heap: config order
        done = 0
        while ready:
            c = heapq.heappop(ready)
            layer, index, call = self.calls[c]
            self.outputs[(layer.name, index)] = self._call(layer, index, call)
            done += 1
            for waiter in waiting.pop((layer.name, index), []):
                missing[waiter] -= 1
                if missing[waiter] == 0:
                    heapq.heappush(ready, waiter)
        if done < len(self.calls):
            stuck = [self.calls[c][0].name for c, n in enumerate(missing) if n > 0][:10]
            raise ValueError(
                "The functional config cannot be rebuilt: its layer calls depend on each "
                f"other in a cycle (among {stuck})."
            )

    def _call(self, layer: Layer | Op, index: int, call: dict[str, Any]) -> list[Any]:
        from lamina.saving.serialization import ConfigError

        def tensor(ref: dict[str, Any]) -> Any:
            name, node, position = _history(ref, layer.name, index)
            found = self.outputs[(name, node)]
            if position >= len(found):
                raise ValueError(
                    f"Call {index} of layer {layer.name!r} needs output {position} of call "
                    f"{node} of layer {name!r}, which has {len(found)} output(s)."
                )
            return found[position]

        args = _resolve_tree(call.get("args", []), tensor)
        kwargs = _resolve_tree(call.get("kwargs", {}), tensor)
        try:
            return tree.flatten(layer(*args, **kwargs))
        except ConfigError:
            raise
        except Exception as err:
            raise ConfigError(
                f"Replaying call {index} of layer {layer.name!r} from the functional config "
                f"failed: {type(err).__name__}: {err}"
            ) from err

    def _endpoint(self, e: list[Any]) -> Any:
        name, node, index = e
        found = self.outputs.get((name, node))
        if found is None or index >= len(found):
            raise ValueError(
                f"The functional config's inputs or outputs name output {index} of call "
                f"{node} of layer {name!r}, which the config does not produce."
            )
        return found[index]


_MASK_PARAMETERS: dict[type, tuple[tuple[int | None, str], ...]] = {}


def _mask_parameters(cls: type) -> tuple[tuple[int | None, str], ...]:
    """``(position, name)`` of each `call` argument that has a ``<name>_mask`` argument too
    (``query`` / ``query_mask``): position among the positional arguments, or None."""
    found = _MASK_PARAMETERS.get(cls)
    if found is None:
        call = cls.call  # type: ignore[attr-defined]
        params = list(inspect.signature(call).parameters.values())[1:]
        names = {p.name for p in params}
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        positional = [p.name for p in params if p.kind in kinds]
        found = _MASK_PARAMETERS[cls] = tuple(
            (positional.index(p.name) if p.name in positional else None, p.name)
            for p in params
            if f"{p.name}_mask" in names
        )
    return found


def _pass_argument_masks(
    op: Layer, node: Node, masks: dict[int, Any], kwargs: dict[str, Any]
) -> None:
    """Give a layer's ``<name>_mask`` arguments the masks of its ``<name>`` tensors, as
    Keras 3 does (cross-attention's ``value_mask``): inside a traced step the masks live
    here, not on the tensors."""
    for position, name in _mask_parameters(type(op)):
        if kwargs.get(f"{name}_mask") is not None:
            continue
        if position is not None and position < len(node.call_args):
            tensor = node.call_args[position]
        else:
            tensor = node.call_kwargs.get(name)
        mask = masks.get(id(tensor)) if isinstance(tensor, SymbolicTensor) else None
        if mask is not None:
            kwargs[f"{name}_mask"] = mask


def _history(ref: Any, layer: str, index: int) -> tuple[str, int, int]:
    """A tensor reference's ``[layer name, node index, tensor index]``, checked."""
    config = ref.get("config") if isinstance(ref, dict) else None
    history: Any = config.get("history") if isinstance(config, dict) else None
    if not _is_endpoint(history):
        raise ValueError(
            f"Call {index} of layer {layer!r} in the functional config holds a malformed "
            f"tensor reference: {str(ref)[:200]} (expected a 'history' of "
            "[layer name, node index, tensor index])."
        )
    return history[0], history[1], history[2]


def _tensor_refs(call: dict[str, Any], layer: str, index: int) -> list[tuple[str, int, int]]:
    """Every tensor reference in a call's arguments (checked), without recursion."""
    refs: list[tuple[str, int, int]] = []
    stack: list[Any] = [call.get("args", []), call.get("kwargs", {})]
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and item.get("class_name") == _TENSOR_REF:
            refs.append(_history(item, layer, index))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return refs


def _is_endpoint(x: Any) -> bool:
    return (
        isinstance(x, list)
        and len(x) == 3
        and isinstance(x[0], str)
        and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in x[1:])
    )


def _map_endpoints(structure: Any, fn: Any) -> Any:
    if _is_endpoint(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_endpoints(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_map_endpoints(v, fn) for v in structure]
    raise ValueError(
        "The 'input_layers' and 'output_layers' of a functional config must hold "
        f"[layer name, node index, tensor index] entries. Received: {str(structure)[:200]}"
    )


def _resolve_tree(structure: Any, fn: Any) -> Any:
    if isinstance(structure, dict) and structure.get("class_name") == _TENSOR_REF:
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _resolve_tree(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_resolve_tree(v, fn) for v in structure)
    return structure
