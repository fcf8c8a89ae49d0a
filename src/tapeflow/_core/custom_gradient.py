"""``tf.custom_gradient``, ``tf.recompute_grad`` and ``tf.grad_pass_through``.

A call of a custom-gradient function is reported through the hook (``observers.report_custom_gradient``): it
becomes one record on each active recording that tracks one of its inputs, ``(op, inputs, outputs, {"call": call},
where)``, like any op's: the backward pass calls ``op.vjp``, which hands the upstream gradients to the user's
``grad_fn``. Nothing in the dispatch or the backward pass knows about it.

As in TensorFlow's eager mode, the function itself runs with the tapes still recording: the outputs it returns
are replaced by fresh tensors (TF's identities) whose only recorded producer is the custom record, so gradients
of them flow through ``grad_fn`` alone, while the ops inside stay on the tape. That is what makes second
derivatives right when ``grad_fn`` closes over values computed inside the function (``e = tf.exp(x)``): an outer
tape sees how they depend on the inputs. ``recompute_grad`` is the one that stops recording, to save memory.

The per-call state (``grad_fn``, the variables) lives in the record's ``attrs``, not in the :class:`Op`, so a
skeleton of the tape that keeps the ops (``debug.explain``) keeps no arrays alive.
"""

from __future__ import annotations

import functools

from . import nest
from . import primitives as P
from .dispatch import execute
from .exports import export
from .observers import report_custom_gradient
from .registry import Op
from .state import STATE, next_id
from .tensor import EagerTensor, Tensor, convert_to_tensor, zeros_like_value

__all__ = ["custom_gradient", "recompute_grad", "grad_pass_through"]

_new = object.__new__


class _VariableWatcher:
    """A recording observer (``observers.py``) in ``STATE.tapes`` while a custom-gradient function runs, to learn
    which trainable variables it reads.

    It tracks nothing, so ops never record on it; a variable read calls :meth:`watch_variable` (only for trainable
    variables, TF's rule) whether or not a tape is active.
    """

    __slots__ = ("records", "tracked", "roots", "variables", "watch_accessed")

    def __init__(self):
        self.records = []
        self.tracked = frozenset()  # immutable: nothing may ever be recorded here
        self.roots = frozenset()
        self.variables = {}  # id -> variable, in first-read order
        self.watch_accessed = True

    def watch_variable(self, var):
        self.variables.setdefault(var._id, var)


def _run_watching_variables(f, args, kwargs):
    """``(f(*args, **kwargs), trainable variables it read)``."""
    watcher = _VariableWatcher()
    STATE.tapes.append(watcher)
    try:
        out = f(*args, **kwargs)
    finally:
        tapes = STATE.tapes
        for i in range(len(tapes) - 1, -1, -1):
            if tapes[i] is watcher:
                del tapes[i]
                break
    return out, list(watcher.variables.values())


def _accepts_variables(grad_fn):
    import inspect  # noqa: PLC0415 - only needed when variables were read; keeps ``import tapeflow`` fast

    try:
        spec = inspect.getfullargspec(grad_fn)
    except TypeError:  # not introspectable: let the call itself decide
        return True
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _fresh(value):
    """A new tensor with ``value``'s contents and its own identity (TF's ``identity`` of each output)."""
    t = convert_to_tensor(value)
    out = _new(EagerTensor)
    out._value = t._value
    out._id = next_id()
    return out


class _Call:
    """What the backward pass needs of one call: the user's ``grad_fn``, the variables read, the input count."""

    __slots__ = ("grad_fn", "variables", "arg_count", "result_ids", "again")

    def __init__(self, grad_fn, variables, arg_count, result_ids=(), again=None):
        self.grad_fn = grad_fn
        self.variables = variables
        self.arg_count = arg_count
        # The ids of what the function returned (``None`` for a non-tensor): a traced call's outputs are these.
        self.result_ids = result_ids
        # ``again(tensors)``: the same call made anew on other argument tensors (a traced program recomputing it
        # under a tape needs a ``grad_fn`` bound to the values it recomputed); returns the flat results.
        self.again = again

    def gradients(self, upstream):
        """Run ``grad_fn`` on the flat upstream gradients; return one gradient per recorded input."""
        variables = self.variables
        if variables:
            input_grads, variable_grads = self.grad_fn(*upstream, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads = self.grad_fn(*upstream)
            variable_grads = []
        flat = nest.flatten(input_grads)
        if len(flat) != self.arg_count:
            raise ValueError(f"custom_gradient function expected to return {self.arg_count} gradients, but "
                             f"returned {len(flat)} instead.")
        # A list plus a tuple of variable gradients fails here as it does in TF.
        return [_as_gradient(g) for g in flat + variable_grads]


def _as_gradient(g):
    # The backward pass reads ``._value`` of dense gradients: Python and NumPy values become tensors.
    if g is None or isinstance(g, Tensor) or getattr(g, "_tapeflow_indexed_slices", False):
        return g
    return convert_to_tensor(g)


def _custom_vjp(g, ans, *inputs, call):
    """The gradient rule of every custom record: upstream of unused outputs is zeros (TF's tape), not ``None``."""
    if type(ans) is tuple:
        upstream = [zeros_like_value(o) if x is None else x for x, o in zip(g, ans)]
    else:
        upstream = [g]
    grads = call.gradients(upstream)
    return tuple(grads)


def _replay(*values, call):
    """Custom records are never executed from values: their outputs came from the user's function."""
    raise TypeError("a custom-gradient record cannot be re-executed from its input values")


def _make_op(name, multi_output, num_outputs):
    op = Op("CustomGradient", _replay, num_outputs=num_outputs, same_dtype=False)
    # TF records the call under the function's bare name; tables keyed by op name (the jacobian's batching rules)
    # must never mistake a user's function called ``Identity`` for the op.
    op.name = f"CustomGradient({name})"
    op.multi_output = multi_output
    op.vjp = _custom_vjp
    op.doc = None
    return op


def _call_with_custom_gradient(f, name, args, kwargs):
    """Run ``f``, check ``grad_fn``'s signature, and record the call with its fresh outputs (TF's eager path)."""
    (result, grad_fn), read = _run_watching_variables(f, args, kwargs)
    flat_args = nest.flatten(args)
    all_inputs = flat_args + nest.flatten(kwargs)
    # A variable passed in is an input like any other, not one of the ``variables``.
    variables = [v for v in read if all(v is not i for i in all_inputs)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")
    flat_result = [_fresh(r) for r in nest.flatten(result)]
    # Variables (passed or read) enter as reads, recorded on the tapes that watch them: that is the path from
    # the record back to the variable.
    inputs = tuple([convert_to_tensor(a) for a in flat_args] + [v.read_value() for v in variables])
    def again(tensors):
        new_args = nest.pack_sequence_as(args, list(tensors[:len(flat_args)])) if flat_args else args
        return nest.flatten(_call_with_custom_gradient(f, name, new_args, kwargs))

    call = _Call(grad_fn, variables, len(flat_args), tuple([getattr(r, "_id", None) for r in nest.flatten(result)]),
                 again)
    result_is_tuple = nest.is_nested(result)
    op = _make_op(name, result_is_tuple, len(flat_result) if result_is_tuple else 1)
    report_custom_gradient(op, inputs, flat_result, {"call": call}, nest.flatten(result))
    return nest.pack_sequence_as(result, flat_result)


class _CustomGradient:
    """The function returned by ``tf.custom_gradient``; binds like a function when used on a method."""

    def __init__(self, f, wraps=None):
        # ``wraps``: the user's function when ``f`` is an internal wrapper around it (recompute_grad).
        wraps = f if wraps is None else wraps
        self._cg_f = f
        self._cg_name = getattr(wraps, "__name__", "CustomGradient")
        # Not ``__dict__``: a Keras layer's attributes would land on the wrapper.
        functools.update_wrapper(self, wraps, updated=())

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = _CustomGradient(self._cg_f.__get__(instance, owner))
        bound._cg_name = self._cg_name
        return bound

    def __call__(self, *args, **kwargs):
        return _call_with_custom_gradient(self._cg_f, self._cg_name, args, kwargs)

    def __repr__(self):
        return f"<custom_gradient {self._cg_name}>"


@export("custom_gradient")
def custom_gradient(f=None):
    """Decorate ``f(*x) -> (y, grad_fn)`` so that gradients of ``y`` come from ``grad_fn`` (``tf.custom_gradient``).

    ``grad_fn(*dy)`` gets one upstream gradient per (flattened) output, zeros for outputs that were not used,
    and returns one gradient per (flattened) positional argument, ``None`` for none. If ``f`` reads trainable
    variables it was not given, ``grad_fn`` must take a ``variables`` keyword and return
    ``(input_grads, variable_grads)``. Keyword arguments of ``f`` are passed through and not differentiated.
    Second derivatives work when ``grad_fn`` is written with tapeflow ops.
    """
    if f is None:
        return lambda f: custom_gradient(f=f)
    return _CustomGradient(f)


def _pause_recording(f, args, kwargs):
    """``f(*args, **kwargs)`` with every tape stopped (variable watchers keep listening), as ``stop_recording``."""
    tapes = STATE.tapes
    saved = tapes[:]
    # Recording stops; what watches variables or checks every op (the numerics mode) goes on. The per-thread list
    # is narrowed in place and restored whole (it also holds the listeners, which go on hearing: ``state.Observers``).
    tapes[:] = [w for w in saved if type(w) is _VariableWatcher or getattr(w, "sees_every_op", False)]
    try:
        return f(*args, **kwargs)
    finally:
        tapes[:] = saved


def _copy(x):
    """TF's ``identity`` of an argument: a tensor of its own (a variable is read)."""
    return execute(P.IDENTITY, (convert_to_tensor(x),))


def _recomputed_gradients(f, args, kwargs, upstream, variables):
    """Run ``f`` again under a tape of its own and return the gradients of its outputs, weighted by ``upstream``.

    The inputs are copied first (TF's identities) so that one tensor passed twice gets a gradient per position;
    when an outer tape records the backward pass (higher order) it records the copies and the re-run too.
    """
    from .tape import GradientTape, UnconnectedGradients  # noqa: PLC0415 - tape.py imports the backward pass

    with GradientTape() as tape:
        copies = nest.map_structure(_copy, args)
        tape.watch(copies)
        if variables is not None:
            tape.watch(variables)
        result = f(*copies, **kwargs)
    sources = nest.flatten(copies)
    extra = list(variables) if variables is not None else []
    grads = tape.gradient(result, sources + extra, output_gradients=list(upstream),
                          unconnected_gradients=UnconnectedGradients.ZERO)
    n = len(sources)
    if variables is None:
        return grads[:n]
    return grads[:n], grads[n:]


@export("recompute_grad")
def recompute_grad(f):
    """Wrap ``f`` so that its gradient is computed by running it again (``tf.recompute_grad``).

    The forward pass records nothing inside ``f``: only the call, its inputs and outputs, so the tape holds no
    intermediate values. The backward pass re-runs ``f`` (its side effects happen again) under a tape of its own.
    Values and gradients, including those of variables read inside ``f``, are those of ``f``; keyword arguments
    are passed through and not differentiated. Unlike TensorFlow (which raises ``NotImplementedError``), second
    derivatives through a recomputed function work.
    """

    def recompute(*args, **kwargs):
        result = _pause_recording(f, args, kwargs)

        def grad_fn(*upstream, variables=None):
            return _recomputed_gradients(f, args, kwargs, upstream, variables)

        return result, grad_fn

    return _CustomGradient(recompute, wraps=f)


@export("grad_pass_through")
def grad_pass_through(f):
    """Wrap ``f`` so that it computes its value but passes gradients straight through (``tf.grad_pass_through``).

    The gradient of each output goes to the corresponding positional argument, as through an identity; variables
    read inside ``f`` get none.
    """

    def passing(*args, **kwargs):
        def grad_fn(*upstream, variables=None):
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        return f(*args, **kwargs), grad_fn

    return _CustomGradient(passing, wraps=f)
