"""``tf.saved_model.load``: a SavedModel directory back as objects, without the classes that wrote it.

Each saved object becomes a :class:`LoadedObject` whose attributes are its variables (new ``tf.Variable``\\ s with
the saved values, names and trainability), sub-objects and functions; each saved function a
:class:`RestoredFunction` that calls the concrete function whose traced signature fits the arguments; the
signatures, in ``.signatures``, :class:`SignatureFunction`\\ s that take keyword arguments by input name and return
dicts. The functions run the saved programs: as generated code, or, under a ``GradientTape``, through the same
machinery a ``tf.function`` call uses, so tapes differentiate through them with respect to inputs and variables.
"""

from __future__ import annotations

import inspect
import json
import os
import pprint

from .._core import checkpoint_io as cio
from .._core import errors, nest
from .._core.shape import TensorShape
from .._core.state import STATE
from .._core.tensor import Tensor, convert_to_tensor
from .._core.tensor_spec import TensorSpec
from .._core.variable import Variable, name_scope
from ..compiler import recorded_call
from ..compiler.program import pack, replay
from . import _programs
from ._encoding import decode
from ._save import CONSTANTS_FILE, FORMAT, GRAPH_FILE, VERSION, _digest

__all__ = ["load", "contains_saved_model", "LoadedObject", "RestoredFunction", "LoadedConcreteFunction",
           "SignatureFunction"]

_COUNTER = [0]


def contains_saved_model(export_dir):
    """Whether ``export_dir`` holds a SavedModel (tapeflow's ``saved_model.json``, or TF's ``saved_model.pb``)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, name))
               for name in (GRAPH_FILE, "saved_model.pb", "saved_model.pbtxt"))


# --- running a saved program ------------------------------------------------------------------------------------
class LoadedConcreteFunction:
    """One traced signature of a saved function: call it with arguments of that signature."""

    def __init__(self, name, program, specs, parameters):
        self._name = name
        self._program = program
        self._specs = specs
        self._parameters = parameters
        _COUNTER[0] += 1
        self._graph_name = f"__inference_{name}_{_COUNTER[0]}"
        self._signature = _python_signature(parameters)

    @property
    def name(self):
        return self._name

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` of ``TensorSpec``\\ s and Python values, as traced."""
        return self._specs

    @property
    def structured_outputs(self):
        """The result's structure with a ``TensorSpec`` for each tensor."""
        return self._program.output_specs

    @property
    def variables(self):
        """The variables the function reads or assigns."""
        return tuple(self._program.graph.variables.values())

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    def _bind(self, args, kwargs):
        """The flat input tensors for a call, or ``None`` when the call does not fit this signature."""
        if self._signature is not None:
            try:
                b = self._signature.bind(*args, **kwargs)
            except TypeError:
                return None
            b.apply_defaults()
            args, kwargs = b.args, b.kwargs
        spec_args, spec_kwargs = self._specs
        if len(args) != len(spec_args) or set(kwargs) != set(spec_kwargs):
            return None
        flat = []
        for value, spec in list(zip(args, spec_args)) + [(kwargs[k], spec_kwargs[k]) for k in sorted(kwargs)]:
            if not _fits(value, spec, flat):
                return None
        return flat

    def __call__(self, *args, **kwargs):
        flat = self._bind(args, kwargs)
        if flat is None:
            raise _no_match(self._name, args, kwargs, [self], self._signature)
        return self._run(flat)

    def _run(self, tensors):
        program = self._program
        if STATE.tapes:
            if recorded_call.can_record(program):
                outs = recorded_call.call_recorded(program, tensors, [], {}, self._name, self._graph_name)
                return pack(program, outs, tensors=True)
            return replay(program, tensors, [])
        try:
            out = program.plan.run(*[t._value for t in tensors])
        except Exception as exc:
            err = program.plan.error(exc, self._graph_name, program.graph.stacks)
            if err is None:
                raise
            raise err from None
        return pack(program, out)

    def __repr__(self):
        from ..compiler.specs import type_text

        spec_args, spec_kwargs = self._specs
        names = list(self._signature.parameters) if self._signature is not None else []
        parts = [f"{names[k] if k < len(names) else f'args_{k}'}: {type_text(v, literal=True)}"
                 for k, v in enumerate(spec_args)]
        parts += [f"{k}: {type_text(v, literal=True)}" for k, v in spec_kwargs.items()]
        output = type_text(self._program.output_specs, literal=True)
        return f"<ConcreteFunction ({', '.join(parts)}) -> {output} at {hex(id(self)).upper().replace('X', 'x')}>"


def _fits(value, spec, flat):
    """Whether ``value`` fits ``spec`` (a ``TensorSpec``, a Python value, or a structure of them); appends the
    tensors it gives to ``flat``."""
    if isinstance(spec, TensorSpec):
        if not isinstance(value, Tensor):
            if getattr(value, "_tapeflow_variable", False) or isinstance(value, (list, tuple, dict)) and not value:
                return False
            try:
                value = convert_to_tensor(value)
            except (TypeError, ValueError):
                return False
        if value.dtype != spec.dtype or not spec.shape.is_compatible_with(value.shape):
            return False
        flat.append(value)
        return True
    if isinstance(spec, (list, tuple)):
        if type(value) is not type(spec) or len(value) != len(spec):
            return False
        return all(_fits(v, s, flat) for v, s in zip(value, spec))
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            return False
        return all(_fits(value[k], spec[k], flat) for k in sorted(spec))
    if isinstance(value, Tensor):
        return False
    try:
        return type(value) is type(spec) and bool(value == spec)
    except Exception:  # noqa: BLE001 - an object without a usable ==: no match
        return False


def _python_signature(parameters):
    if parameters is None:
        return None
    params = []
    for item in parameters:
        name, kind = item[0], inspect.Parameter.__dict__[item[1]]
        default = inspect.Parameter.empty
        if len(item) > 2 and not (isinstance(item[2], dict) and "unsaved_default" in item[2]):
            default = decode(item[2], {})
        params.append(inspect.Parameter(name, kind, default=default))
    return inspect.Signature(params)


class _Placeholder:
    """How TF's message shows an argument tensor: the symbolic input it became."""

    def __init__(self, name, tensor):
        self.text = f"<tf.Tensor '{name}:0' shape={TensorShape(tensor.shape)} dtype={tensor.dtype.name}>"

    def __repr__(self):
        return self.text


def _as_placeholders(value, name, counter):
    if isinstance(value, Tensor):
        k = counter[0]
        counter[0] += 1
        return _Placeholder(name if k == 0 else f"{name}_{k}", value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_as_placeholders(v, name, counter) for v in value)
    if isinstance(value, dict):
        return {k: _as_placeholders(value[k], name, counter) for k in value}
    return value


def _arguments_text(args, kwargs):
    lines = [f"  Positional arguments ({len(args)} total):"]
    lines += [f"    * {pprint.pformat(a)}" for a in args]
    lines.append(f"  Keyword arguments: {pprint.pformat(kwargs)}")
    return "\n".join(lines)


def _no_match(name, args, kwargs, concretes, signature):
    if signature is not None:
        try:
            b = signature.bind(*args, **kwargs)
            b.apply_defaults()
            args, kwargs = b.args, b.kwargs
            names = list(signature.parameters)
            args = tuple(_as_placeholders(a, names[i] if i < len(names) else "args", [0])
                         for i, a in enumerate(args))
            kwargs = {k: _as_placeholders(v, k, [0]) for k, v in kwargs.items()}
        except TypeError:
            pass
    text = ("Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
            f"{_arguments_text(args, kwargs)}\n\n Expected these arguments to match one of the following "
            f"{len(concretes)} option(s):")
    for k, c in enumerate(concretes):
        spec_args, spec_kwargs = c._specs
        text += f"\n\nOption {k + 1}:\n{_arguments_text(spec_args, spec_kwargs)}"
    return ValueError(text)


class RestoredFunction:
    """A saved ``tf.function``: calls the concrete function whose traced signature fits the arguments."""

    def __init__(self, name, concretes, input_signature):
        self._name = name
        self.concrete_functions = list(concretes)
        self._input_signature = input_signature

    @property
    def name(self):
        return self._name

    @property
    def input_signature(self):
        return self._input_signature

    def _signature(self):
        return self.concrete_functions[0]._signature if self.concrete_functions else None

    def __call__(self, *args, **kwargs):
        signature = self._signature()
        if signature is not None:
            try:
                signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"Binding inputs to tf.function failed due to `{exc}`. Received args: {args!r} and "
                                f"kwargs: {kwargs!r} for signature: {signature}.") from None
        if self._input_signature is not None:
            args = self._conform(args, kwargs)
        # The first concrete function (in the order they were traced) whose signature fits the call.
        for concrete in self.concrete_functions:
            flat = concrete._bind(args, kwargs)
            if flat is not None:
                return concrete._run(flat)
        raise _no_match(self._name, args, kwargs, self.concrete_functions, signature)

    def _conform(self, args, kwargs):
        """``args`` converted to the input signature, or TF's binding error (as the saved ``tf.function``)."""
        from ..compiler.specs import CastError, conform_one, type_text

        out = []
        signature = self._signature()
        names = list(signature.parameters) if signature is not None else []
        for k, (value, spec) in enumerate(zip(args, self._input_signature)):
            try:
                out.append(conform_one(value, spec))
            except CastError as exc:
                reason = str(exc)
                if isinstance(value, Tensor) and k < len(names):
                    # TF shows the argument as the parameter's placeholder, named after it.
                    reason = reason.replace(repr(TensorSpec(value.shape, value.dtype)),
                                            repr(TensorSpec(value.shape, value.dtype, names[k])), 1)
                params = ", ".join(f"{n}: {type_text(s)}" for n, s in zip(names, self._input_signature))
                raise TypeError(f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} "
                                f"and kwargs: {kwargs!r} for signature: ({params}).") from None
        return tuple(out) + tuple(args[len(out):])

    def get_concrete_function(self, *args, **kwargs):
        """The concrete function traced for these arguments (tensors or ``tf.TensorSpec``\\ s)."""
        args = nest.map_structure(_spec_stand_in, args)
        kwargs = nest.map_structure(_spec_stand_in, kwargs)
        if self._input_signature is not None and not args and not kwargs:
            args = tuple(_spec_stand_in(s) for s in self._input_signature)
        for concrete in self.concrete_functions:
            if concrete._bind(args, kwargs) is not None:
                return concrete
        raise _no_match(self._name, args, kwargs, self.concrete_functions, self._signature())



class _SpecTensor(Tensor):
    """A stand-in tensor for a ``TensorSpec`` passed to ``get_concrete_function``: its dtype and shape only."""

    def __init__(self, spec):
        self._spec = spec

    @property
    def dtype(self):
        return self._spec.dtype

    @property
    def shape(self):
        return self._spec.shape

    def __repr__(self):
        return repr(self._spec)


def _spec_stand_in(value):
    return _SpecTensor(value) if isinstance(value, TensorSpec) else value


class SignatureFunction(LoadedConcreteFunction):
    """A serving signature: keyword arguments by input name (or the inputs in order), a dict of outputs."""

    def __init__(self, name, concrete, input_names):
        self.__dict__.update(concrete.__dict__)
        self._concrete = concrete
        self._input_names = list(input_names)
        flat_specs = [s for s in nest.flatten(concrete._specs) if isinstance(s, TensorSpec)]
        self._input_specs = {n: TensorSpec(s.shape, s.dtype, n) for n, s in zip(self._input_names, flat_specs)}
        self._output_names = _output_names(concrete._program.output_specs)
        outputs = nest.flatten(concrete._program.output_specs)
        self._output_specs = {n: TensorSpec(s.shape, s.dtype, n) for n, s in zip(self._output_names, outputs)}
        self._graph_name = f"__inference_signature_wrapper_{concrete._name}_{_COUNTER[0]}"

    @property
    def structured_input_signature(self):
        return ((), dict(self._input_specs))

    @property
    def structured_outputs(self):
        return dict(self._output_specs)

    def _text(self):
        inputs = ", ".join(f"{n}: {s!r}" for n, s in self._input_specs.items())
        outputs = ", ".join(f"[{n!r}, {s!r}]" for n, s in self._output_specs.items())
        return f"(*, {inputs}) -> Dict[{outputs}]"

    def __call__(self, *args, **kwargs):
        names = self._input_names
        if args:
            problem = None
            if kwargs or len(args) != len(names):
                problem = (f"signature_wrapper_{self._concrete._name}({', '.join(names)}) takes {len(names)} "
                           f"positional arguments, got {len(args)}.")
            else:
                bad = next((i for i, a in enumerate(args) if not isinstance(a, Tensor)), None)
                if bad is not None:
                    problem = (f"signature_wrapper_{self._concrete._name}({', '.join(names)}): expected argument "
                               f"#{bad}(zero-based) to be a Tensor; got {type(args[bad]).__name__} "
                               f"({args[bad]!r}).")
            if problem is not None:
                raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. "
                                f"Received args: {args!r} and kwargs: {kwargs!r} for signature: {self._text()}.\n"
                                f"Fallback to flat signature also failed due to: {problem}")
            values = list(args)
        else:
            missing = [n for n in names if n not in kwargs]
            unknown = [k for k in kwargs if k not in names]
            if missing or unknown:
                reason = (f"missing a required argument: {missing[0]!r}" if missing
                          else f"got an unexpected keyword argument {unknown[0]!r}")
                flat = (f"signature_wrapper_{self._concrete._name}({', '.join(names)}) missing required arguments: "
                        f"{', '.join(missing)}." if missing else
                        f"signature_wrapper_{self._concrete._name}({', '.join(names)}) got unexpected keyword "
                        f"arguments: {', '.join(unknown)}.")
                raise TypeError(f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} "
                                f"and kwargs: {kwargs!r} for signature: {self._text()}.\nFallback to flat "
                                f"signature also failed due to: {flat}")
            values = [kwargs[n] for n in names]
        tensors = []
        for i, (value, name) in enumerate(zip(values, names)):
            spec = self._input_specs[name]
            t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=spec.dtype)
            if t.dtype != spec.dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {self._graph_name} as input #{i}(zero-based) was expected to be a "
                    f"{_c_name(spec.dtype)} tensor but is a {_c_name(t.dtype)} tensor [Op:{self._graph_name}]")
            tensors.append(t)
        result = self._concrete._run(tensors)
        flat = nest.flatten(result)
        return dict(zip(self._output_names, flat))

    def __repr__(self):
        return f"<ConcreteFunction {self._text()} at {hex(id(self)).upper().replace('X', 'x')}>"


def _c_name(dtype):
    from .._core.convert import c_name

    return c_name(dtype)


def _output_names(specs):
    if isinstance(specs, dict):
        return [str(k) for k in sorted(specs)]
    return [f"output_{k}" for k in range(len(nest.flatten(specs)))]


class _SignatureMap(dict):
    """The ``signatures`` of a loaded object: name -> :class:`SignatureFunction`."""

    def __repr__(self):
        return f"_SignatureMap({dict.__repr__(self)})"


class LoadedObject:
    """A saved object, rebuilt from the SavedModel: its saved attributes, and ``signatures`` on the root.

    ``variables`` and ``trainable_variables`` list the variables under it (a tapeflow convenience: TF's loaded
    objects have no such attributes)."""

    def __init__(self):
        self._all_variables = []

    @property
    def variables(self):
        return tuple(self._all_variables)

    @property
    def trainable_variables(self):
        return tuple(v for v in self._all_variables if v.trainable)

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return call(*args, **kwargs)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _variables_under(records, start):
    """The variable objects reachable from object ``start``, breadth-first, each once."""
    seen, order, queue = {start}, [], [start]
    while queue:
        record = records[queue.pop(0)]
        kind = record["kind"]
        if kind == "user_object":
            children = list(record["children"].values())
        elif kind in ("list", "tuple"):
            children = [i for i in record["items"] if i is not None]
        elif kind == "dict":
            children = list(record["items"].values())
        else:
            children = []
        for i in children:
            if i in seen:
                continue
            seen.add(i)
            if records[i]["kind"] == "variable":
                order.append(i)
            else:
                queue.append(i)
    return order


# --- load --------------------------------------------------------------------------------------------------------
def _missing(export_dir):
    return OSError(f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|saved_model.pb}}")


def _read_document(export_dir):
    path = os.path.join(export_dir, GRAPH_FILE)
    if not os.path.isfile(path):
        if os.path.isfile(os.path.join(export_dir, "saved_model.pb")):
            raise ValueError(f"{export_dir} holds a SavedModel written by TensorFlow (saved_model.pb); tapeflow "
                             f"loads the SavedModels it writes ({GRAPH_FILE})")
        raise _missing(export_dir)
    with cio.reading(path):
        with open(path, "rb") as f:
            document = json.loads(f.read().decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise cio.Corrupt("it is not a tapeflow SavedModel")
        if document.get("version") != VERSION:
            raise cio.Corrupt(f"it has format version {document.get('version')!r}; this tapeflow reads version "
                              f"{VERSION}")
        for field in ("objects", "functions", "signatures"):
            if field not in document:
                raise cio.Corrupt(f"it has no {field!r}")
    return document


def load(export_dir, tags=None, options=None):
    """Load the SavedModel at ``export_dir``: the root object, with its variables, functions and ``signatures``.

    Raises:
        OSError: if ``export_dir`` holds no SavedModel (TF's message).
        DataLossError: if a file of it is damaged (naming the file).
        NotFoundError: if its variables file is missing.
    """
    export_dir = os.fspath(export_dir)
    if not os.path.isdir(export_dir):
        raise _missing(export_dir)
    document = _read_document(export_dir)
    for name, digest in document.get("files", {}).items():
        path = os.path.join(export_dir, *name.split("/"))
        if os.path.isfile(path) and _digest(path) != digest:
            raise errors.DataLossError(None, None, f"Unable to read file ({path}). It is not the file the SavedModel "
                                                   f"at {export_dir} was saved with (its digest differs): the "
                                                   "directory mixes files of two saves, or the file is damaged")
    constants_path = os.path.join(export_dir, CONSTANTS_FILE)
    with cio.reading(constants_path):
        arrays = cio.read_npy_members(constants_path)
    _entries, values = cio.read_checkpoint(os.path.join(export_dir, "variables", "variables"))
    path = os.path.join(export_dir, GRAPH_FILE)
    with cio.reading(path):
        try:
            return _build(document, arrays, values)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise cio.Corrupt(f"{type(exc).__name__}: {exc}") from None


def _build(document, arrays, values):
    records = document["objects"]
    objects = [None] * len(records)
    for k, record in enumerate(records):  # variables first: functions read them
        if record["kind"] == "variable":
            value = values[record["key"]]
            with name_scope("/"):
                objects[k] = Variable(value, name=record["name"].rsplit(":", 1)[0], trainable=record["trainable"],
                                      dtype=record["dtype"])
    functions = {}

    def concrete(index):
        made = functions.get(index)
        if made is None:
            rec = document["functions"][index]
            program, specs, parameters = _programs.decode_function(rec, arrays, objects, rec["name"])
            made = functions[index] = LoadedConcreteFunction(rec["name"], program, specs, parameters)
        return made

    def get(k):
        if objects[k] is not None:
            return objects[k]
        record = records[k]
        kind = record["kind"]
        if kind == "function":
            signature = record.get("input_signature")
            made = RestoredFunction(record["name"], [concrete(i) for i in record["concrete_functions"]],
                                    None if signature is None else decode(signature, arrays))
        elif kind == "user_object":
            made = LoadedObject()
        elif kind in ("list", "tuple"):
            items = [get(i) for i in record["items"] if i is not None]
            made = items if kind == "list" else tuple(items)
        elif kind == "dict":
            made = {name: get(i) for name, i in record["items"].items()}
        else:
            raise ValueError(f"unknown object kind {kind!r}")
        objects[k] = made
        return made

    for k in range(len(records)):
        get(k)
    for k, record in enumerate(records):
        if record["kind"] == "user_object":
            for name, child in record["children"].items():
                object.__setattr__(objects[k], name, objects[child])
            objects[k]._all_variables = [objects[i] for i in _variables_under(records, k)]
    root = objects[0]
    if not isinstance(root, LoadedObject):
        raise ValueError("the root object is not a user object")
    if k_variables := [o for o, r in zip(objects, records) if r["kind"] == "variable"]:
        # The root's: every variable of the SavedModel (a Keras model's are not attributes).
        root._all_variables = k_variables
    root.signatures = _SignatureMap({name: SignatureFunction(name, concrete(sig["function"]), sig["inputs"])
                                     for name, sig in document["signatures"].items()})
    return root
