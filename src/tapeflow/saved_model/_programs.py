"""A concrete function written as JSON, and read back into a runnable :class:`~tapeflow.compiler.program.Program`.

A function record holds its graph (see :mod:`._graphs` for the nodes and control-flow bodies) and how calls reach
it::

    {"name": "two", "inputs": [3, 4], "outputs": [9, 12], "nodes": [...], "constants": {"5": <array>, ...},
     "bodies": [...],
     "signature": <encoded structured_input_signature>, "parameters": [[name, kind, default?], ...],
     "structure": <the result, each tensor as {"output": k}>, "output_specs": <encoded>}

Ids are the trace's own tensor ids (they only need to be distinct within the function). Attributes, constants and
Python values go through :mod:`._encoding`. Variables are objects of the SavedModel, by index.

A program holding what has no such spelling (custom gradients, ops that are not registered, attributes that are
Python objects, variables passed as arguments) cannot be written: :class:`Unsavable` names the function and why.
A function traced for unknown dimensions is written as a program that serves every size of them (traced again on
other stand-in sizes when the first trace is tied to its own).
"""

from __future__ import annotations

import inspect

import numpy as np

from .._core import nest
from ..compiler import lower
from ..compiler.program import Program, _Leaf, _WeakLeaf
from ._encoding import Unsavable, decode
from ._graphs import GraphDecoder, GraphEncoder

__all__ = ["encode_function", "decode_function", "Unsavable"]


class _Output:
    """A tensor of the result in a decoded structure: the index of its value among the outputs."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _generic_program(concrete):
    """A program of ``concrete`` that serves every size of its signature's ``None`` dimensions, or ``None``.

    A trace on stand-ins of size 1 (what ``get_concrete_function`` of a spec traces with) is often taken for tied
    to its sizes because a constant ``1`` is in it; traced again on other sizes, the test can tell."""
    from .._core.tensor_spec import TensorSpec
    from ..compiler import signature as keys

    def stand_in(spec, size):
        if not isinstance(spec, TensorSpec):
            return spec
        from .._core.tensor import constant_of

        dims = [size if d is None else d for d in spec.shape.as_list()]
        return constant_of(np.zeros(dims, dtype=spec.dtype.as_numpy_dtype))

    owner = concrete._owner
    for size in (7, 13):
        args, kwargs = nest.map_structure(lambda s, size=size: stand_in(s, size), concrete.structured_input_signature)
        bound = (tuple(args), dict(kwargs))
        _, tensors, variables = keys.key_of(*bound)
        program = owner._program(bound, tensors, variables, concrete._key, allow_variables=False, quiet=True)
        if program.generic:
            return program
    return None


def encode_function(concrete, encode, variable_index):
    """The record of ``concrete`` (a ``ConcreteFunction``); ``encode`` is an :class:`~._encoding.Encoder`,
    ``variable_index(variable)`` the object index of a variable the program reads or assigns."""
    program = concrete._first
    if not program.generic and _has_unknown_dims(concrete.structured_input_signature):
        program = _generic_program(concrete) or program
    graph = program.graph
    where = f"function {concrete.name!r}"
    if graph.variable_inputs:
        raise Unsavable(f"{where} takes variables as arguments; a SavedModel's functions take tensors")
    graphs = GraphEncoder(encode, variable_index, where)
    record = graphs.graph(graph)
    if not program.generic and _has_unknown_dims(concrete.structured_input_signature):
        raise Unsavable(f"{where} was traced for unknown dimensions, but its program is tied to the sizes it was "
                        "traced with; give it an input_signature with fully defined shapes to save it")
    try:
        structure = _structure(program, encode)
        signature = encode(concrete.structured_input_signature)
        output_specs = encode(program.output_specs)
        parameters = _parameters(concrete, encode)
    except Unsavable as exc:
        raise Unsavable(f"{where} was traced with or returns a {exc}, which has no file spelling") from None
    return {"name": concrete.name, **record, "bodies": graphs.bodies, "signature": signature,
            "parameters": parameters, "structure": structure, "output_specs": output_specs}


def _has_unknown_dims(specs):
    from .._core.tensor_spec import TensorSpec

    return any(isinstance(s, TensorSpec) and (s.shape.rank is None or None in s.shape.as_list())
               for s in nest.flatten(specs))


def _structure(program, encode):
    """The result structure, encoded, with ``{"output": k}`` where a tensor goes."""
    def walk(value):
        if type(value) in (_Leaf, _WeakLeaf):
            return {"output": value.index}
        if type(value) is list:
            return [walk(v) for v in value]
        if type(value) is tuple:
            return {"tuple": [walk(v) for v in value]}
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            cls = type(value)
            return {"namedtuple": [cls.__module__, cls.__qualname__, [walk(v) for v in value]]}
        if type(value) is dict:
            try:  # a loaded function returns a dict in key order, as TF's do
                keys = sorted(value)
            except TypeError:
                keys = list(value)
            return {"dict": [[encode(k), walk(value[k])] for k in keys]}
        if nest.is_composite(value):
            raise Unsavable(f"composite tensor {type(value).__name__}")
        return encode(value)

    return walk(program.leaves[0] if program.structure is None else program.structure)


def _parameters(concrete, encode):
    """``[[name, kind, default], ...]`` of the Python signature calls bind to (``kind``: inspect's name)."""
    params = concrete._owner._parameters
    if params is None or params.signature is None:
        return None
    out = []
    for p in params.signature.parameters.values():
        item = [p.name, p.kind.name]
        if p.default is not inspect.Parameter.empty:
            try:
                item.append(encode(p.default))
            except Unsavable:
                item.append({"unsaved_default": repr(p.default)})
        out.append(item)
    return out


# --- reading ----------------------------------------------------------------------------------------------------
def decode_function(record, arrays, objects, name):
    """``(Program, structured_input_signature, parameters)`` of a function record; ``objects`` maps object
    indices to the loaded variables."""
    graph = GraphDecoder(arrays, objects, record["bodies"], name).graph(record)
    plan = lower.lower(graph, name)
    structure = _decode_structure(record["structure"], arrays)
    flat = nest.flatten(structure) if nest.is_nested(structure) else [structure]
    leaves = [_Leaf(v.index) if isinstance(v, _Output) else v for v in flat]
    packed = nest.pack_sequence_as(structure, leaves) if nest.is_nested(structure) else None
    program = Program(graph, plan, packed, leaves, [], decode(record["output_specs"], arrays))
    program.generic = True  # (a program tied to its trace's sizes is saved only for fully defined shapes)
    return program, decode(record["signature"], arrays), record["parameters"]


def _decode_structure(data, arrays):
    if isinstance(data, dict) and set(data) == {"output"}:
        return _Output(data["output"])
    if isinstance(data, list):
        return [_decode_structure(v, arrays) for v in data]
    if isinstance(data, dict) and len(data) == 1:
        (kind, body), = data.items()
        if kind == "tuple":
            return tuple(_decode_structure(v, arrays) for v in body)
        if kind == "dict":
            return {decode(k, arrays): _decode_structure(v, arrays) for k, v in body}
        if kind == "namedtuple":
            from ._encoding import _namedtuple

            return _namedtuple(body[0], body[1])(*[_decode_structure(v, arrays) for v in body[2]])
    return decode(data, arrays)
