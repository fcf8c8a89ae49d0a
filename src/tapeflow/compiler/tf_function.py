"""``tf.function``: trace a Python function once per input signature and run the traced program after that.

A :class:`Function` binds each call to the Python function's parameters, keys it (``signature.py``) and keeps one
:class:`ConcreteFunction` per key. Tracing runs the Python function on the call's own values while a tracer
observes everything it does (``trace.py``); the graph is optimised (``passes.py``) and lowered to generated Python
over NumPy (``lower.py``). So Python side effects (``print``, appending to a list) happen while tracing only, as
in TensorFlow, and every later call of the same signature runs the generated code.

A call made while one tape records is one equation on it, whose gradient is a compiled backward pass
(``recorded_call.py``); under nested tapes or a forward accumulator the traced program runs op by op through
``execute`` (``program.replay``), so that every tape records it and jacobians and higher derivatives work through
it.

A signature with ``None`` dimensions (an ``input_signature``, ``reduce_retracing``, a concrete function got for
``tf.TensorSpec`` objects) is traced as TF traces it, with those dimensions unknown: shapes the function computes are
ops, and the program serves every size (``shape_generic.py`` checks that no size went in as a number). One that
did is traced again for each new shape it meets, with the Python function's printed output discarded; that does
not count as a trace (``experimental_get_tracing_count``), but other side effects of the body happen again.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import weakref

from .._core import errors, nest
from .._core.convert import c_name
from .._core.state import STATE
from .._core.tensor_spec import TensorSpec
from . import autograph, errors_in_user_code, recorded_call, retracing, signature, trace
from .program import as_outputs, build_program, pack, replay
from .specs import (
    CastError,
    GraphTensor,
    as_spec_tensors,
    checked_signature,
    conform_one,
    holds_tensors,
    numbered,
    parameters_of,
    signature_key,
    specs_of,
    type_text,
    unnamed,
)

__all__ = ["Function", "ConcreteFunction", "function", "run_functions_eagerly", "functions_run_eagerly"]

_new = object.__new__
_RUN_EAGERLY = [False]
_COUNTER = [0]  # numbers the graphs, as TF's __inference_<name>_<n>
_CREATED_VARIABLES = object()  # what a first trace that created variables gives back

_VARIABLE_ON_LATER_CALL = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only "
    "created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables "
    "for more information.")


def run_functions_eagerly(run_eagerly):
    """Run every ``tf.function`` as plain Python from now on (``True``), for debugging, or trace again."""
    _RUN_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether :func:`run_functions_eagerly` is on."""
    return _RUN_EAGERLY[0]


class ConcreteFunction:
    """One trace of a :class:`Function`: a graph for one input signature, lowered to generated Python.

    Call it with arguments of the signature it was traced for. ``graph`` and :meth:`pretty_printed_source` show
    what it runs; ``structured_input_signature`` and ``inputs`` describe what it takes.
    """

    def __init__(self, owner, key, program, specs, python_key):
        self._owner = owner
        self._key = key
        self._programs = {python_key: program}
        self._first = program
        self._specs = specs
        _COUNTER[0] += 1
        self._graph_name = f"__inference_{owner._name}_{_COUNTER[0]}"
        self._prepare_binding()

    @property
    def name(self):
        return self._owner._name

    @property
    def graph(self):
        return self._first.graph

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` of ``TensorSpec``\\ s (named after the parameters) and Python values."""
        return self._specs

    @property
    def inputs(self):
        """The graph's tensor inputs (name, static shape and dtype), in order."""
        names = self._owner._input_names(self._specs)
        specs = [s for s in nest.flatten(self._specs) if isinstance(s, TensorSpec)]
        return [GraphTensor(f"{n}:0", s.shape, s.dtype) for n, s in zip(names, specs)]

    @property
    def structured_outputs(self):
        """The result's structure with a ``TensorSpec`` (static shape and dtype) for each tensor."""
        return self._first.output_specs

    @property
    def outputs(self):
        """The graph's tensor outputs (name, static shape and dtype), in order."""
        specs = [s for s in nest.flatten(self._first.output_specs) if isinstance(s, TensorSpec)]
        return [GraphTensor("Identity:0" if k == 0 else f"Identity_{k}:0", s.shape, s.dtype)
                for k, s in enumerate(specs)]

    def _parameters_text(self, verbose):
        params = self._owner._parameters
        args_specs, kwargs_specs = self._specs
        if params is None or params.signature is None:
            return []
        values = dict(zip(params.signature.parameters, args_specs))
        values.update(kwargs_specs)
        out = []
        for name, p in params.signature.parameters.items():
            if name not in values:
                continue
            text = type_text(unnamed(values[name]), literal=True)
            out.append((name, p.kind, text))
        return out

    def pretty_printed_signature(self, verbose=True):
        """TF's text of this function's signature: parameters, output type and captured variables (``verbose``),
        or one line ``(x: TensorSpec(...), n: Literal[3]) -> TensorSpec(...)``."""
        params = self._parameters_text(verbose)
        output = type_text(unnamed(self._first.output_specs), literal=True)
        if not verbose:
            parts, star = [], False
            for name, kind, text in params:
                if kind == inspect.Parameter.KEYWORD_ONLY and not star:
                    parts.append("*")
                    star = True
                parts.append(f"{name}: {text}")
            return f"({', '.join(parts)}) -> {output}"
        lines = ["Input Parameters:"]
        lines += [f"  {name} ({kind.name}): {text}" for name, kind, text in params]
        lines += ["Output Type:", f"  {output}", "Captures:"]
        graph = self._first.graph
        captured = [v for v in graph.variables.values() if v._id not in graph.variable_inputs]
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for v in captured] or ["  None"]
        return "\n".join(lines)

    def pretty_printed_source(self):
        """The generated Python this function runs (for the shapes it was first traced with)."""
        return self._first.plan.source

    def _prepare_binding(self):
        """What calls bind to: the Python signature, where parameters traced with a Python value default to it."""
        params = self._owner._parameters
        self._literals = {}
        self._tensor_params = []
        self._call_signature = None
        if params is None or params.signature is None:
            return
        args_specs, kwargs_specs = self._specs
        values = dict(zip(params.signature.parameters, args_specs))
        values.update(kwargs_specs)
        for name in params.signature.parameters:
            if name in values:
                (self._tensor_params.append(name) if holds_tensors(values[name])
                 else self._literals.__setitem__(name, values[name]))
        self._call_signature = params.signature

    def _signature_text(self):
        params = self._owner._parameters
        if params is None or params.signature is None:
            return "(*args, **kwargs)"
        args_specs, kwargs_specs = self._specs
        values = dict(zip(params.signature.parameters, args_specs))
        values.update(kwargs_specs)
        parts = []
        for name in params.signature.parameters:
            if name in self._literals:
                parts.append(f"{name}: Literal[{self._literals[name]!r}]")
            elif name in values:
                parts.append(f"{name}: {type_text(unnamed(values[name]))}")
        return f"({', '.join(parts)}) -> {type_text(unnamed(self._first.output_specs))}"

    def _flat_failure(self, args, kwargs):
        """TF's second complaint: the call against the tensor parameters alone."""
        flat = self._tensor_params
        head = f"{self._owner._name}({', '.join(flat)})"
        if len(args) > len(flat):
            return f"{head} takes {len(flat)} positional arguments, got {len(args)}."
        for k in kwargs:
            if k in flat[:len(args)]:
                return f"{head} got two values for '{k}'."
        missing = [p for p in flat[len(args):] if p not in kwargs]
        return f"{head} missing required arguments: {', '.join(missing)}."

    def _flat_bind(self, args, kwargs):
        """The call bound against the tensor parameters alone (the Python values the trace had fill the rest), or
        ``None`` when it does not fit them either."""
        flat = self._tensor_params
        if len(args) > len(flat) or any(k not in flat for k in kwargs):
            return None
        values = dict(zip(flat, args))
        if any(k in values for k in kwargs):
            return None
        values.update(kwargs)
        if any(p not in values for p in flat):
            return None
        for name, traced in self._literals.items():
            values[name] = traced() if type(traced) is weakref.ref else traced
        try:
            return self._call_signature.bind(**{k: v for k, v in values.items()
                                                 if self._call_signature.parameters[k].kind !=
                                                 inspect.Parameter.POSITIONAL_ONLY})
        except TypeError:
            return None

    def _binding_error(self, reason, args, kwargs):
        return TypeError(f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} and "
                         f"kwargs: {kwargs!r} for signature: {self._signature_text()}.\nFallback to flat "
                         f"signature also failed due to: {self._flat_failure(args, kwargs)}")

    def __call__(self, *args, **kwargs):
        sig = self._call_signature
        if sig is None:
            bound = (args, kwargs)
        else:
            try:
                b = sig.bind_partial(*args, **kwargs)
                for name, traced in self._literals.items():
                    b.arguments.setdefault(name, traced() if type(traced) is weakref.ref else traced)
                b = sig.bind(*b.args, **b.kwargs)  # what is still missing is missing
            except TypeError as exc:
                b = self._flat_bind(args, kwargs)  # TF's fallback: the tensor parameters alone, in order
                if b is None:
                    reason = str(exc)
                    try:  # Python's own binding says what it finds first (a missing argument before an unknown one)
                        sig.bind(*args, **kwargs)
                    except TypeError as first:
                        reason = str(first)
                    raise self._binding_error(reason, args, kwargs) from None
            b.apply_defaults()
            bound = (b.args, b.kwargs)
            for name, traced in self._literals.items():
                value = b.arguments.get(name, traced)
                if type(traced) is weakref.ref:
                    if traced() is not value and traced() != value:
                        raise self._binding_error(f"Can not cast {value!r} to {traced!r}", args, kwargs)
                elif value != traced or type(value) is not type(traced) and not isinstance(value, (int, float)):
                    raise self._binding_error(f"Can not cast {value!r} to Literal[{traced!r}]", args, kwargs)
        bound = (as_spec_tensors(bound[0], self._specs[0]), bound[1])
        key, tensors, variables = signature.key_of(*bound)
        want = [s for s in nest.flatten(self._specs) if isinstance(s, TensorSpec)]
        for i, (t, spec) in enumerate(zip(tensors, want)):
            if t.dtype != spec.dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {self._graph_name} as input #{i}(zero-based) was expected to be a "
                    f"{c_name(spec.dtype)} tensor but is a {c_name(t.dtype)} tensor [Op:{self._graph_name}]")
        return self._call(bound, key, tensors, variables)

    def _call_checked(self, *args):
        """Call with positional ``args`` the caller has already checked against the input signature (a dataset's
        elements against its element spec): no binding, one key lookup."""
        bound = (args, {})
        key, tensors, variables = signature.key_of(*bound)
        return self._call(bound, key, tensors, variables)

    def _call(self, bound, key, tensors, variables):
        program = self._programs.get(key)
        if program is None:
            # Other sizes of the signature's None dimensions: the traced program itself when nothing in it is tied
            # to the sizes it was traced with, else a trace for these shapes.
            program = self._programs[key] = self._first if self._first.generic else self._owner._specialise(
                bound, tensors)
        if program.sized is not None:
            shapes = tuple([t._value.shape for t in tensors])
            if shapes != program.sized:
                program = self._programs.get((key, shapes))
                if program is None:
                    program = self._programs[(key, shapes)] = self._owner._specialise(bound, tensors)
        if STATE.tapes:
            if recorded_call.can_record(program):
                swap = dict(zip(program.variable_ids, variables))
                outs = recorded_call.call_recorded(program, tensors, variables, swap, self._owner._name,
                                                   self._graph_name)
                return pack(program, outs, tensors=True)
            return replay(program, tensors, variables)
        values = [t._value for t in tensors]
        if variables:
            values += variables
        try:
            out = program.plan.run(*values)
        except Exception as exc:
            err = program.plan.error(exc, self._graph_name, program.graph.stacks)
            if err is None:
                raise
            raise err from None
        return pack(program, out)

    def __repr__(self):
        return f"<ConcreteFunction {self.pretty_printed_signature(verbose=False)} at 0x{id(self):X}>"

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"


class Function:
    """A Python function traced per input signature (``tf.function``); call it as the function itself."""

    def __init__(self, python_function, input_signature=None, autograph=True, jit_compile=None,
                 reduce_retracing=False):
        if not callable(python_function):
            raise TypeError(f"{python_function!r} is not a callable object")
        self._python_function = python_function
        self._name = getattr(python_function, "__name__", type(python_function).__name__)
        self._input_signature = checked_signature(input_signature)
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = bool(reduce_retracing)
        self._cache = {}  # key -> ConcreteFunction (exact keys; relaxed ones too, looked up by ``fits``)
        self.trace_history = []  # (key the call had, key traced, parameter names) per trace, for explain_retracing
        self._tracing_count = 0
        self._variables_created = None  # whether the first trace created variables (None: not traced yet)
        self._signature_error = None  # raised at the first call, as TF does
        self._parameters = parameters_of(python_function)
        if self._input_signature is not None and self._parameters is not None:
            kinds = [p.kind for p in self._parameters.signature.parameters.values()]
            positional = [k for k in kinds if k in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            extra = len(self._input_signature) - len(positional)
            if extra > 0 and inspect.Parameter.VAR_POSITIONAL not in kinds:
                self._signature_error = TypeError(f"input_signature contains {extra} extra type constraints.")
        self._detector = retracing.detector_of(python_function)
        functools.update_wrapper(self, python_function, updated=())

    # --- what TF shows -----------------------------------------------------------------------------------
    @property
    def python_function(self):
        """The Python function this traces."""
        return self._python_function

    @property
    def name(self):
        return self._name

    @property
    def input_signature(self):
        return None if self._input_signature is None else tuple(self._input_signature)

    def experimental_get_tracing_count(self):
        """How many times this function has been traced."""
        return self._tracing_count

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Every concrete function's signature, as TF prints them (``ConcreteFunction.pretty_printed_signature``)."""
        return ("\n\n" if verbose else "\n").join(c.pretty_printed_signature(verbose) for c in self._cache.values())

    def __set_name__(self, owner, name):
        self._attribute = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # One cache per instance, as TF keeps one per bound method. It is kept in the instance's own dict, where
        # attribute lookups find it first: the instance and its bound function refer to each other, a cycle the
        # collector frees with the instance (a cache held by this descriptor would keep every instance alive).
        name = getattr(self, "_attribute", None)
        instance_dict = getattr(instance, "__dict__", None)
        if name is not None and instance_dict is not None:
            bound = instance_dict.get(name)  # special methods (``__call__``) are looked up here every time
            if type(bound) is Function:
                return bound
        bound = Function(self._python_function.__get__(instance, owner), self._input_signature, self._autograph,
                         self._jit_compile, self._reduce_retracing)
        bound._detector = self._detector
        if name is not None and instance_dict is not None:
            instance_dict[name] = bound
        return bound

    def __repr__(self):
        return f"<tapeflow.Function {self._name}>"

    # --- calling -----------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _RUN_EAGERLY[0]:
            return self._python_function(*args, **kwargs)  # eager debugging: plain Python, nothing checked
        bound = self._bind(args, kwargs)
        key, tensors, variables = signature.key_of(*bound)
        concrete = self._lookup(key)
        traced = concrete is None
        if traced:
            concrete = self._trace(bound, key, tensors, variables, args, kwargs)
        if STATE.tracer is None and self._detector is not None:  # eager calls count towards the warning
            retracing.note_call(self._detector, traced, self._python_function)
        # Inside another function's trace, the call runs op by op and that trace records it (inlined).
        return concrete._call(bound, key, tensors, variables)

    def get_concrete_function(self, *args, **kwargs):
        """The concrete function for these arguments (tensors, or ``tf.TensorSpec``\\ s standing for them)."""
        if self._input_signature is not None and not args and not kwargs:
            args = tuple(self._input_signature)
        bound = self._bind(args, kwargs, specs=True)
        key, tensors, variables = signature.key_of(*bound)
        concrete = self._lookup(key)
        if concrete is None:
            concrete = self._trace(bound, key, tensors, variables, args, kwargs)
        return concrete

    def _lookup(self, key):
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete
        best = None
        for traced, c in self._cache.items():
            if signature.fits(key, traced) and (best is None or signature.vagueness(traced) <
                                                 signature.vagueness(best[0])):
                best = (traced, c)
        return None if best is None else best[1]

    def _general_key(self, key):
        """With ``reduce_retracing``, the key to trace a new call under: relaxed against what is traced."""
        if not self._reduce_retracing:
            return key
        best = None
        for traced in self._cache:
            relaxed = signature.relax(key, traced)
            if relaxed is not None and (best is None or signature.vagueness(relaxed) < signature.vagueness(best)):
                best = relaxed
        return key if best is None else best

    # --- binding -----------------------------------------------------------------------------------------
    def _bind(self, args, kwargs, concrete=None, specs=False):
        r"""``(args, kwargs)`` bound to the parameters, defaults filled in; with an input signature, converted
        (``TensorSpec``\ s, with ``specs``, stand for tensors of their type)."""
        if self._signature_error is not None:
            raise self._signature_error
        params = self._parameters
        if params is not None and params.simple and not kwargs and len(args) == params.count:
            bound = (args, {})
        else:
            try:
                sig = params.signature if params is not None else None
                if sig is None:
                    bound = (args, kwargs)
                else:
                    b = sig.bind(*args, **kwargs)
                    b.apply_defaults()
                    bound = (b.args, b.kwargs)
            except TypeError as exc:
                raise TypeError(self._binding_text(str(exc), args, kwargs, concrete)) from None
        if self._input_signature is not None and not specs:
            bound = self._conform(bound, args, kwargs, concrete)
        return bound

    def _signature_text(self):
        params = self._parameters
        if params is None or params.signature is None:
            return "(*args, **kwargs)"
        names = [p for p in params.signature.parameters.values()]
        if self._input_signature is None:
            return "(" + ", ".join(str(p) for p in names) + ")"
        parts = []
        for p, spec in zip(names, self._input_signature):
            parts.append(f"{p.name}: {type_text(spec)}")
        return "(" + ", ".join(parts) + ")"

    def _binding_text(self, reason, args, kwargs, concrete=None):
        text = (f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} and kwargs: "
                f"{kwargs!r} for signature: {self._signature_text()}.")
        return text

    def _conform(self, bound, args, kwargs, concrete):
        """Arguments converted to the input signature's specs, or TF's binding error."""
        args_b, kwargs_b = bound
        specs = self._input_signature
        values = list(args_b)
        out = []
        for value, spec in zip(values, specs):
            try:
                out.append(conform_one(value, spec))
            except CastError as exc:
                raise TypeError(self._binding_text(str(exc), args, kwargs, concrete)) from None
        return tuple(out) + tuple(values[len(specs):]), kwargs_b

    # --- tracing -----------------------------------------------------------------------------------------
    def _trace(self, bound, key, tensors, variables, args, kwargs):
        """Trace for ``key`` (relaxed with ``reduce_retracing``), count it, cache and return the concrete one."""
        general = self._general_key(key)
        if self._input_signature is not None:
            general = signature_key(self._input_signature, key)
        first = self._variables_created is None
        program = self._program(bound, tensors, variables, general, allow_variables=first)
        if first and program is _CREATED_VARIABLES:
            # TF's first call: the trace that created the variables is set aside, and the function is traced
            # again, this time with the variables in place (the Python body runs twice on this call).
            self._tracing_count += 1
            self._variables_created = True
            self._note_trace(key, general)
            program = self._program(bound, tensors, variables, general, allow_variables=False)
        elif first:
            self._variables_created = False
        self._tracing_count += 1
        self._note_trace(key, general)
        _tie_sizes(program, general, tensors)
        concrete = ConcreteFunction(self, general, program, specs_of(bound, general, self._parameters,
                                                                      self._input_signature), key)
        self._cache[general] = concrete
        return concrete

    def _program(self, bound, tensors, variables, general, allow_variables, quiet=False):
        tracer = trace.Tracer()
        tracer.autograph = bool(self._autograph)
        placeholders = [trace.placeholder(t._value) for t in tensors]
        tracer.dynamic.update(p._id for p in placeholders)
        shapes, _ = signature.leaf_shapes(general)
        for p, shape, name in zip(placeholders, shapes, self._input_names(bound)):
            tracer.static_shapes[p._id] = shape
            tracer.names[p._id] = f"{name}:0"
            if shape is None or None in shape:
                tracer.generalised = tracer.shape_dynamic = True
        t_args, t_kwargs = signature.substitute(bound[0], bound[1], placeholders)
        fn = autograph.convert(self._python_function) if self._autograph else self._python_function
        try:
            if quiet:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    result = trace.run(tracer, fn, t_args, t_kwargs, as_outputs)
            else:
                result = trace.run(tracer, fn, t_args, t_kwargs, as_outputs)
        except Exception as exc:
            if not self._autograph:
                raise
            raise errors_in_user_code.wrap(exc, fn) from None
        if tracer.created:
            if allow_variables:
                return _CREATED_VARIABLES
            error = ValueError(_VARIABLE_ON_LATER_CALL)
            raise errors_in_user_code.wrap(error, fn, tracer.created_at) if self._autograph else error
        return build_program(self._name, tracer, placeholders, variables, result)

    def _note_trace(self, key, general):
        params = self._parameters
        names = list(params.signature.parameters) if params is not None and params.signature is not None else []
        self.trace_history.append((key, general, names))

    def _input_names(self, bound):
        """TF's names of the tensor inputs: the parameter's name, numbered after the first within a structure."""
        params = self._parameters
        names = list(params.signature.parameters) if params is not None and params.signature is not None else []
        out = []
        specs = self._input_signature or ()
        for i, value in enumerate(bound[0]):
            base = names[i] if i < len(names) else "args"
            named = value if isinstance(value, TensorSpec) else specs[i] if i < len(specs) else None
            if isinstance(named, TensorSpec) and named.name:
                base = named.name
            out.extend(numbered(base, value))
        for k in sorted(bound[1]):
            out.extend(numbered(k, bound[1][k]))
        return out

    def _specialise(self, bound, tensors):
        """A program for shapes this concrete function was not traced with: traced again, output discarded."""
        key, _, variables = signature.key_of(*bound)
        program = self._program(bound, tensors, variables, key, allow_variables=False, quiet=True)
        return _tie_sizes(program, key, tensors)


def _tie_sizes(program, key, tensors):
    """``program``, marked as tied to the shapes of ``tensors`` when it is not generic and its key (one holding a
    composite tensor's spec) does not fix them."""
    if not program.generic and signature.holds_composite(key):
        program.sized = tuple([t._value.shape for t in tensors])
    return program


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Trace ``func`` per input signature and run the traced program after that (``tf.function``).

    Used as ``@tf.function``, ``@tf.function(...)`` or ``tf.function(f, ...)``. ``input_signature`` fixes the
    signature to a list of ``tf.TensorSpec``; ``reduce_retracing`` (or the older ``experimental_relax_shapes``)
    lets shapes generalise; ``jit_compile`` and the ``experimental_*`` options are accepted as TensorFlow accepts
    them.
    """
    relax = bool(reduce_retracing or experimental_relax_shapes)
    if func is None:
        return lambda f: Function(f, input_signature, autograph, jit_compile, relax)
    return Function(func, input_signature, autograph, jit_compile, relax)
