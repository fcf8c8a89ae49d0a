"""The Keras functional API: ``Input``, symbolic ``KerasTensor`` s, graph nodes and the ``Functional`` model.

Calling a layer on ``KerasTensor`` s builds it from the symbolic shapes, takes the output shapes from
``compute_output_shape`` (with Keras's symbolic dtype, the compute dtype for most layers), or where it cannot say,
from probes on zero batches (inference mode; unknown sizes are 1 in one probe and 2 in a second, and output sizes
that change between them stay unknown), and records a ``Node`` linking the input tensors to new output
``KerasTensor`` s. Calling the model converts each input to its ``Input``'s dtype first, as Keras does.
``Model(inputs, outputs)`` walks these nodes back
from the outputs, orders the layers the way Keras does (by depth from the outputs, then by first traversal) and
replays the nodes on real tensors when called. Python operators on ``KerasTensor`` s make operation nodes
(``_symbolic_ops.py``); ``tf.*`` ops refuse them with Keras's ``ValueError``, as in TensorFlow. A layer output whose
probe carries a mask gets a symbolic ``_keras_mask``; at run time masks travel on the real tensors.

``Layer.__call__`` hands calls with ``KerasTensor`` s to :func:`_symbolic_call`, registered here.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._core.dtypes import as_dtype
from ..._core.tensor import EagerTensor, convert_to_tensor
from ...ops.manip_ops import expand_dims, squeeze
from .. import _masks
from .._state import auto_name, name_scope
from ..layers.base import Layer, _flatten, _map, _shape_of, register_symbolic_call
from ..variables import _to_tensor as to_keras_tensor
from ..variables import standardize_dtype, standardize_shape
from ._symbolic_ops import Operation, install_operators
from .model import Model
from .summary import layer_shape_text

__all__ = ["KerasTensor", "InputLayer", "Input", "Functional", "Node"]


class KerasTensor:
    """A symbolic tensor: ``shape`` (a tuple, ``None`` for unknown sizes), ``dtype``, ``name`` and the layer call
    that made it (``_keras_history``: layer, node index, tensor index)."""

    _keras_symbolic = True  # what Layer.__call__ looks for
    _keras_mask = None  # a KerasTensor standing for the mask that real tensors here will carry

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, name=None):
        self.shape = tuple(shape)
        self.dtype = standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.name = name if name is not None else auto_name("keras_tensor")
        self._keras_history = None

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse={self.sparse}, "
                f"ragged={self.ragged}, name={self.name}>")

    __str__ = __repr__

    def _tapeflow_to_tensor(self, dtype=None):
        """What tf ops meet when they convert a ``KerasTensor``: Keras's refusal (TF's ``__tf_tensor__``)."""
        raise ValueError(_TF_FUNCTION_MESSAGE)

    def _tapeflow_refuse_conversion(self):
        """The same refusal, for the converter's error paths (a ``KerasTensor`` inside a list, or as a 2nd operand)."""
        raise ValueError(_TF_FUNCTION_MESSAGE)

    def __array__(self, *args, **kwargs):
        raise ValueError(_SYMBOLIC_VALUE_MESSAGE + "a NumPy array.")

    def __int__(self):
        raise ValueError(_SYMBOLIC_VALUE_MESSAGE + "an int.")

    def __float__(self):
        raise ValueError(_SYMBOLIC_VALUE_MESSAGE + "a float.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")


_SYMBOLIC_VALUE_MESSAGE = ("A KerasTensor is symbolic: it's a placeholder for a shape an a dtype. It doesn't have "
                           "any actual numerical value. You cannot convert it to ")
_TF_FUNCTION_MESSAGE = (
    "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a "
    "shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only use it as "
    "input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and `keras.ops`). You are "
    "likely doing something like:\n\n```\nx = Input(...)\n...\ntf_fn(x)  # Invalid.\n```\n\nWhat you should "
    "do instead is wrap `tf_fn` in a layer:\n\n```\nclass MyLayer(Layer):\n    def call(self, x):\n        "
    "return tf_fn(x)\n\nx = MyLayer()(x)\n```\n")
install_operators(KerasTensor)


class Node:
    """One call of ``layer`` on symbolic arguments: the ``KerasTensor`` s it read and the ones it returned."""

    def __init__(self, layer, args=(), kwargs=None, outputs=()):
        self.layer = layer
        self.args = args
        self.kwargs = kwargs or {}
        self.input_tensors = [x for x in _flatten([list(args), list(self.kwargs.values())])
                              if isinstance(x, KerasTensor)]
        self.outputs = outputs
        self.output_tensors = [x for x in _flatten(outputs) if isinstance(x, KerasTensor)]
        nodes = _inbound_nodes(layer)
        self.index = len(nodes)
        nodes.append(self)
        for i, x in enumerate(self.output_tensors):
            x._keras_history = (layer, self.index, i)

    @property
    def is_input(self):
        return isinstance(self.layer, InputLayer)

    @property
    def parent_nodes(self):
        return [_inbound_nodes(x._keras_history[0])[x._keras_history[1]] for x in self.input_tensors
                if x._keras_history is not None]


def _inbound_nodes(layer):
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes is None:
        nodes = []
        object.__setattr__(layer, "_inbound_nodes", nodes)
    return nodes


class InputLayer(Layer):
    """The layer standing for a model input: no weights, passes its input through; ``output`` is its tensor."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, input_tensor=None,
                 optional=False, name=None, ragged=None, **kwargs):
        if "input_shape" in kwargs:
            warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.", stacklevel=2)
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        # As in Keras, the layer's policy is the global one, while its tensor's dtype is ``dtype`` (float32 by
        # default, also under a mixed policy: the first layer casts).
        super().__init__(name=name, **kwargs)
        self._tensor_dtype = standardize_dtype(dtype)
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        if batch_size is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `batch_size` and `batch_shape` at the same time.")
        if shape is None and batch_shape is None:
            raise ValueError("You must pass a `shape` argument.")
        if shape is not None:
            batch_shape = (batch_size, *standardize_shape(shape))
        self._batch_shape = standardize_shape(batch_shape)
        self._sparse = bool(sparse)
        self._ragged = bool(ragged)
        self.optional = optional
        tensor = KerasTensor(self._batch_shape, dtype=self.dtype, sparse=self._sparse, ragged=self._ragged, name=name)
        Node(self, outputs=tensor)
        self.built = True

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def dtype(self):
        """The dtype of the input tensor, a string (not the policy's)."""
        return self._tensor_dtype

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": self._batch_shape, "dtype": self.dtype, "sparse": self._sparse,
                "ragged": self._ragged, "name": self.name, "optional": self.optional}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None, tensor=None,  # noqa: N802
          optional=False, ragged=None):
    """A symbolic input (``KerasTensor``) of ``shape`` (without the batch axis), to call layers on; ``ragged``
    for a ``tf.RaggedTensor`` input (its ``None`` dimensions ragged)."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, batch_shape=batch_shape,
                       name=name, optional=optional, ragged=ragged)
    return layer.output


# --- symbolic layer calls -------------------------------------------------------------------------------------
def _is_shape(x):
    return isinstance(x, (tuple, list)) and all(d is None or isinstance(d, (int, np.integer)) for d in x)


def _zeros_like(kt, unknown=1):
    """A zero tensor standing for ``kt``: unknown sizes become ``unknown``; a symbolic mask becomes all-true."""
    fill = lambda shape: tuple(unknown if d is None else d for d in shape)  # noqa: E731
    out = convert_to_tensor(np.zeros(fill(kt.shape), dtype=kt.dtype))
    if kt._keras_mask is not None:
        _masks.set_keras_mask(out, convert_to_tensor(np.ones(fill(kt._keras_mask.shape), dtype=bool)))
    return out


def _computed_shapes(layer, first):
    """The flat output shapes ``compute_output_shape`` gives for ``first``'s shapes, or ``None`` when it cannot
    say."""
    if first is None:
        return None
    try:
        computed = layer.compute_output_shape(_shape_of(first))
    except Exception:  # noqa: BLE001 - any failure means "ask the probe"
        return None
    return [tuple(computed)] if _is_shape(computed) else _flatten_shapes(computed)


def _probe(layer, args, kwargs, unknown):
    """Run ``layer`` eagerly on zero tensors standing for the symbolic arguments (inference mode)."""
    concrete = lambda x: _zeros_like(x, unknown) if isinstance(x, KerasTensor) else x  # noqa: E731
    probe_kwargs = {k: _map(concrete, v) for k, v in kwargs.items()}
    probe_kwargs["training"] = False
    try:
        return Layer.__call__(layer, *_map(concrete, args), **probe_kwargs)  # concrete inputs: the eager path
    finally:
        layer._clear_losses()


def _probe_shapes(layer, args, kwargs, first, probe):
    """The probe's output shapes with the batch axis of the first input; where the inputs have other unknown sizes,
    a second probe with other sizes tells which output sizes depend on them (those are unknown, as in Keras's
    symbolic trace)."""
    batch = None
    leaves = [x for x in _flatten(first) if isinstance(x, KerasTensor)]
    if leaves and leaves[0].shape:
        batch = leaves[0].shape[0]
    shapes = [[batch, *p.shape.as_list()[1:]] if p.shape.rank else [] for p in _flatten(probe)]
    symbolic = [x for x in _flatten([list(args), list(kwargs.values())]) if isinstance(x, KerasTensor)]
    if any(None in x.shape[1:] for x in symbolic):
        other = _flatten(_probe(layer, args, kwargs, unknown=2))
        for shape, p in zip(shapes, other):
            for i, d in enumerate(p.shape.as_list()[1:], start=1):
                if i < len(shape) and shape[i] != d:
                    shape[i] = None
    return [tuple(s) for s in shapes]


def _symbolic_outputs(layer, args, kwargs, first):
    """``(outputs, probe)``: output ``KerasTensor`` s as Keras makes them. Where ``compute_output_shape`` answers,
    Keras does not run the layer: the shapes are its answer and the dtype the layer's symbolic dtype (its compute
    dtype for most layers, even where the call itself returns integers); the probe then only finds the masks, and
    may fail (a valid convolution of the sizes standing for unknown ones, integers a convolution refuses) without
    stopping the graph, as in Keras, where the call fails only when the model runs. Otherwise (custom layers) the
    probes give shapes and dtypes, as Keras's trace of ``call`` does."""
    computed = _computed_shapes(layer, first)
    try:
        probe = _probe(layer, args, kwargs, unknown=1)
    except Exception:
        if computed is None:
            raise
        dtype = layer._symbolic_dtype(first)
        outputs = [KerasTensor(shape, dtype=dtype) for shape in computed]
        return (outputs[0] if len(outputs) == 1 else outputs), None
    probe_leaves = _flatten(probe)
    if computed is not None and (len(computed) != len(probe_leaves) or any(
            len(c) != len(p.shape) for c, p in zip(computed, probe_leaves))):
        computed = None
    if computed is None:
        shapes = iter(_probe_shapes(layer, args, kwargs, first, probe))
        return _map(lambda p: KerasTensor(next(shapes), dtype=p.dtype.name), probe), probe
    shapes, dtype = iter(computed), layer._symbolic_dtype(first)
    return _map(lambda p: KerasTensor(next(shapes), dtype=dtype), probe), probe


def _flatten_shapes(x):
    if _is_shape(x):
        return [tuple(x)]
    if isinstance(x, dict):
        return [s for v in x.values() for s in _flatten_shapes(v)]
    return [s for v in x for s in _flatten_shapes(v)]


def _symbolic_call(layer, args, kwargs):
    layer._check_super_called()
    first = args[0] if args else next(iter(kwargs.values()), None)
    layer._check_input_spec(first)
    if not layer.built:
        with name_scope(layer.name, caller=layer):
            layer.build(_shape_of(first) if first is not None else None)
        layer.built = True
    outputs, probe = _symbolic_outputs(layer, args, kwargs, first)
    for kt, real in zip(_flatten(outputs), _flatten(probe) if probe is not None else ()):
        mask = _masks.get_keras_mask(real)
        if mask is not None:
            batch = kt.shape[0] if kt.shape else None
            kt._keras_mask = KerasTensor((batch, *mask.shape.as_list()[1:]), dtype=mask.dtype.name)
    Node(layer, args, dict(kwargs), outputs)
    return outputs


register_symbolic_call(_symbolic_call)


# --- graph ----------------------------------------------------------------------------------------------------
def _paths(struct, prefix=()):
    """``(path, leaf)`` pairs of a nested structure, paths as Keras prints them (``0``, ``a.1``)."""
    if isinstance(struct, (list, tuple)):
        return [p for i, v in enumerate(struct) for p in _paths(v, (*prefix, i))]
    if isinstance(struct, dict):
        return [p for k in sorted(struct) for p in _paths(struct[k], (*prefix, k))]
    return [(".".join(str(p) for p in prefix), struct)]


def _map_graph(inputs, outputs):
    """Nodes in execution order and layers in Keras's order (deepest first, then by first traversal).

    Raises:
        ValueError: for a cycle or duplicate layer names (Keras's messages).
    """
    input_ids = {id(x) for x in inputs}
    finished, in_progress, ordered, first_seen = set(), set(), [], {}

    def visit(tensor):
        if tensor._keras_history is None:
            return
        layer, node_index, _ = tensor._keras_history
        node = _inbound_nodes(layer)[node_index]
        if node in finished:
            return
        if not node.is_input and id(tensor) in input_ids:
            finished.add(node)
            return
        if node in in_progress:
            raise ValueError(f"Tensor {tensor} from operation '{layer.name}' is part of a cycle.")
        first_seen.setdefault(layer, len(first_seen))
        in_progress.add(node)
        if not node.is_input:
            for x in node.input_tensors:
                visit(x)
        finished.add(node)
        in_progress.discard(node)
        ordered.append(node)

    for out in outputs:
        visit(out)
    in_graph = set(ordered)
    node_depth, layer_depth = {}, {}
    for node in reversed(ordered):
        depth = max(node_depth.setdefault(node, 0), layer_depth.get(node.layer, 0))
        layer_depth[node.layer] = depth
        node_depth[node] = depth
        for parent in node.parent_nodes:
            if parent in in_graph:
                node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
    for x in inputs:
        layer = x._keras_history[0] if x._keras_history else None
        if isinstance(layer, InputLayer) and layer not in layer_depth:
            layer_depth[layer] = 0
            first_seen[layer] = -1
            node_depth[_inbound_nodes(layer)[0]] = 0
    layers = sorted(layer_depth, key=lambda op: (-layer_depth[op], first_seen[op]))
    nodes = sorted(node_depth, key=lambda n: -node_depth[n])
    names = [layer.name for layer in layers]
    for name in names:
        if names.count(name) != 1:
            raise ValueError(f'The name "{name}" is used {names.count(name)} times in the model. All operation '
                             "names should be unique.")
    return nodes, layers, node_depth


def _check_keras_tensors(struct, what):
    for x in _flatten(struct):
        if not isinstance(x, KerasTensor):
            raise ValueError(f"All `{what}` values must be KerasTensors. Received: {what}={struct} including "
                             f"invalid value {x} of type {type(x)}")


class Functional(Model):
    """A model given by its symbolic ``inputs`` and ``outputs`` (single tensors, lists or dicts of them).

    Calling it converts each input to its ``Input``'s dtype (integer and ``uint8`` data become float32 for a float32
    input, floats are truncated for an int32 one) and adjusts its rank by a trailing axis of size 1, as Keras does;
    the layers then see what they would see in Keras.

    Raises:
        ValueError: for non-``KerasTensor`` inputs/outputs, an output not computable from the inputs, duplicate
            layer names (Keras's messages).
    """

    # Inputs are converted to the dtypes of the model's inputs (not to the compute dtype), by ``call``.
    _convert_input_args = False
    _allow_non_tensor_positional_args = True

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        # Keras hands only the name on to the layer: other keywords (``dtype`` included: the model's policy is the
        # global one) are ignored.
        Model.__init__(self, name=name, trainable=trainable)
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        _check_keras_tensors(inputs, "inputs")
        if isinstance(inputs, dict):
            for key, x in inputs.items():
                if key != x.name:
                    warnings.warn("When providing `inputs` as a dict, all keys in the dict must match the names of "
                                  f"the corresponding tensors. Received key '{key}' mapping to value {x} which has "
                                  f"name '{x.name}'. Change the tensor name to '{key}' (via `Input(..., "
                                  f"name='{key}')`)", stacklevel=3)
        _check_keras_tensors(outputs, "outputs")
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        flat_in = [x for _, x in _paths(inputs)]
        out_paths = _paths(outputs)
        nodes, layers, node_depth = _map_graph(flat_in, [x for _, x in out_paths])
        object.__setattr__(self, "_graph_nodes", nodes)
        object.__setattr__(self, "_node_depth", node_depth)
        object.__setattr__(self, "_flat_inputs", flat_in)
        object.__setattr__(self, "_input_dtypes", [as_dtype(x.dtype) for x in flat_in])
        object.__setattr__(self, "_output_paths", out_paths)
        available = {id(x) for x in flat_in}
        for node in nodes:
            if not node.is_input and all(id(x) in available for x in node.input_tensors):
                available.update(id(x) for x in node.output_tensors)
        for path, x in out_paths:
            if id(x) not in available:
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")
        object.__setattr__(self, "_operations", list(layers))
        object.__setattr__(self, "_layers", [op for op in layers if not isinstance(op, Operation)])
        # the names compile() matches per-output losses and metrics against
        object.__setattr__(self, "output_names", [x._keras_history[0].name for x in self.outputs])
        self.built = True

    # --- structure -------------------------------------------------------------------------------------------
    @property
    def inputs(self):
        """The input ``KerasTensor`` s, as a flat list."""
        return list(self._flat_inputs)

    @property
    def outputs(self):
        """The output ``KerasTensor`` s, as a flat list."""
        return [x for _, x in self._output_paths]

    @property
    def operations(self):
        """The layers and the operator nodes (``add``, ``get_item``...), in the order ``summary()`` lists them."""
        return list(self._operations)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_shape(self):
        return _map(lambda x: x.shape, self._inputs_struct)

    @property
    def output_shape(self):
        return _map(lambda x: x.shape, self._outputs_struct)

    # --- running ---------------------------------------------------------------------------------------------
    def _flatten_call_inputs(self, inputs):
        struct = self._inputs_struct
        if isinstance(struct, dict):
            if not isinstance(inputs, dict):
                raise ValueError(f"Expected input structure: {struct}\nReceived input structure: {inputs}")
            return [inputs[k] for k, _ in sorted(struct.items())]
        if isinstance(struct, list):
            if isinstance(inputs, dict):
                return [inputs[x.name] for x in self._flat_inputs]
            flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
            if len(flat) != len(self._flat_inputs):
                raise ValueError(f"Functional model '{self.name}' expects {len(self._flat_inputs)} input(s), but "
                                 f"it received {len(flat)} input tensors.")
            return flat
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
            return list(inputs)
        return [inputs]

    def _check_input_spec(self, first):
        """``None`` in place of a required input is refused before the call, as Keras refuses it."""
        flat = _flatten(first) if isinstance(first, (list, tuple, dict)) else [first]
        for x, ref in zip(flat, self._flat_inputs):
            if x is None:
                layer = ref._keras_history[0] if ref._keras_history else None
                if isinstance(layer, InputLayer) and not layer.optional:
                    raise ValueError(f"The input '{ref.name}' is not optional, but None was passed. Please provide "
                                     "a valid tensor.")
        super()._check_input_spec(first)

    def _standardize_inputs(self, flat):
        """Keras's conversion of the flat call inputs: each to its ``Input``'s dtype, then a trailing axis of size 1
        dropped or added where the rank is one off.

        Raises:
            ValueError: for ``None`` in place of a required input, or a rank that does not fit (Keras's messages).
        """
        out = []
        for x, ref, dtype in zip(flat, self._flat_inputs, self._input_dtypes):
            if x is None:
                layer = ref._keras_history[0] if ref._keras_history else None
                if isinstance(layer, InputLayer) and not layer.optional:
                    raise ValueError(f"The input '{ref.name}' is not optional, but None was passed. Please provide "
                                     "a valid tensor.")
            elif not (x.__class__ is EagerTensor and x.dtype is dtype):  # one identity test for the usual input
                x = to_keras_tensor(x, dtype.name)
            out.append(x)
        for i, (x, ref) in enumerate(zip(out, self._flat_inputs)):
            if x is None or x.shape.rank == len(ref.shape):
                continue
            if x.shape.rank == len(ref.shape) + 1 and x.shape[-1] == 1:
                out[i] = squeeze(x, axis=-1)
            elif x.shape.rank == len(ref.shape) - 1 and ref.shape[-1] == 1:
                out[i] = expand_dims(x, axis=-1)
            else:
                path = _paths(self._inputs_struct)[i][0]
                raise ValueError(f"Invalid input shape for input {x} with name '{ref.name}' and path '{path}'. "
                                 f"Expected shape {ref.shape}, but input has incompatible shape {x.shape}")
        return out

    def call(self, inputs, training=None, mask=None, **kwargs):
        flat = self._standardize_inputs(self._flatten_call_inputs(inputs))
        values = {id(x): v for x, v in zip(self._flat_inputs, flat)}
        fill = lambda x: values[id(x)] if isinstance(x, KerasTensor) else x  # noqa: E731
        for node in self._graph_nodes:
            if node.is_input or any(id(x) not in values for x in node.input_tensors):
                continue
            args = _map(fill, list(node.args))
            kwargs = {k: _map(fill, v) for k, v in node.kwargs.items()}
            outputs = node.layer(*args, **kwargs)
            for x, y in zip(node.output_tensors, _flatten(outputs)):
                values[id(x)] = y
        return _map(lambda x: values[id(x)], self._outputs_struct)

    # --- configs ---------------------------------------------------------------------------------------------
    def get_config(self):
        """Keras's config of the graph (layers, their calls, ``input_layers``, ``output_layers``); a subclass with
        its own constructor gets ``Model``'s config instead, as in Keras."""
        from .model_config import functional_config, functional_like_constructor

        if not functional_like_constructor(type(self)):
            return Model.get_config(self)
        return functional_config(self)

    def get_build_config(self):
        """What Keras stores for a functional model (built from its graph, not from shapes)."""
        return {"input_shape": None}

    # --- summary ---------------------------------------------------------------------------------------------
    def _summary_layout(self):
        """``(sequential_like, rows)``: whether Keras prints the 3-column table, and ``(layer, output shape text,
        connections text)`` per layer."""
        by_depth = {}
        for node, depth in self._node_depth.items():
            by_depth.setdefault(depth, []).append(node)
        sequential_like = all(len(v) == 1 and len(v[0].input_tensors) <= 1 for v in by_depth.values())
        relevant = set(self._node_depth)
        if sequential_like:
            for layer in self._operations:
                if sum(node in relevant for node in _inbound_nodes(layer)) > 1:
                    sequential_like = False
                    break
        rows = []
        for layer in self._operations:
            nodes = _inbound_nodes(layer)
            shape = layer_shape_text(layer)
            links = []
            for node in nodes:
                if node not in relevant:
                    continue
                for x in node.input_tensors:
                    source, node_index, tensor_index = x._keras_history
                    links.append(f"{source.name}[{node_index}][{tensor_index}]")
            rows.append((layer, shape, ", ".join(links) or "-"))
        return sequential_like, rows
