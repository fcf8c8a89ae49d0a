"""What code converted by AutoGraph (``autograph.py``) calls, as ``ag__``: each statement decides when it runs
whether it is Python or graph control flow.

A condition or iterable that is a tensor, inside a trace, makes a ``tf.cond`` or ``tf.while_loop`` node
(``control_flow.py``) whose branches or body run the statement's local functions; the variables the statement
assigns travel in and out through its ``get_state``/``set_state`` functions. Anything else runs as the Python
statement would. The rules are TensorFlow's AutoGraph's:

- a variable assigned in one branch of a tensor ``if`` and used after it must be assigned in the other too
  (``ValueError: 'y' must also be initialized in the else branch``), with the same dtype; one used only inside the
  branch needs not be;
- the loop variables of a tensor loop are the variables its body assigns that exist before it (a variable first
  made in the body and used after the loop starts at zeros of the type the body gives it);
- a ``return`` inside a tensor branch leaves a value of the other branch's type where that branch returns nothing
  (zeros, never seen, as the function's flag says which value is its result).
"""

from __future__ import annotations

import numpy as np

from .._core import nest
from .._core.state import STATE
from .._core.tensor import Tensor
from ..ops.tensor_array import TensorArray
from . import autograph, control_flow, trace

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "retval", "not_", "and_", "or_", "if_stmt", "while_stmt",
           "for_stmt", "converted_call"]


class Undefined:
    """A variable that has no value yet (a branch or loop may give it one)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Undefined({self.name!r})"


class UndefinedReturnValue:
    """The function's result before a ``return`` ran."""

    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue()"


def ld(frame_locals, name):
    """The variable ``name`` of the frame whose ``locals()`` are given, or an :class:`Undefined` marker."""
    return frame_locals.get(name, Undefined(name))


def retval(value):
    return None if isinstance(value, UndefinedReturnValue) else value


def _graph(value):
    return STATE.tracer is not None and isinstance(value, Tensor)


# ------------------------------------------------------------------------------------------------ operators


def not_(x):
    if _graph(x):
        from ..ops.math_ops import logical_not  # noqa: PLC0415

        return logical_not(x)
    return not x


def and_(a, b):
    """``a() and b()``: Python's on Python values; on a tensor, ``logical_and`` (both sides computed)."""
    left = a()
    if _graph(left):
        from ..ops.math_ops import logical_and  # noqa: PLC0415

        return logical_and(left, b())
    return left and b()


def or_(a, b):
    left = a()
    if _graph(left):
        from ..ops.math_ops import logical_or  # noqa: PLC0415

        return logical_or(left, b())
    return left or b()


# ---------------------------------------------------------------------------------------------------- if


def if_stmt(test, body, orelse, get_state, set_state, names, live):
    """``if test: body() else: orelse()``; a tensor ``test`` in a trace makes a ``tf.cond`` over the variables
    ``names`` the branches assign (``live``: those used after the statement)."""
    if not _graph(test):
        if test:
            body()
        else:
            orelse()
        return
    initial = get_state()

    def branch(fn):
        def run():
            set_state(initial)
            fn()
            return tuple(get_state())

        return run

    def reconcile(subs):
        main, other = subs
        a, b = list(main.structure), list(other.structure)
        for k, name in enumerate(names):
            if name not in live:
                a[k] = b[k] = Undefined(name)  # used only inside the branches: not an output of the node
                continue
            va, vb = a[k], b[k]
            ua, ub = _undefined(va), _undefined(vb)
            if ua and ub:
                continue
            if ua or ub:
                if isinstance(va if ua else vb, UndefinedReturnValue):
                    if ua:
                        a[k] = _zeros_like(vb)
                    else:
                        b[k] = _zeros_like(va)
                else:
                    raise ValueError(f"'{name}' must also be initialized in the {'else' if ub else 'main'} branch")
                continue
            for x, y in zip(_leaves(va), _leaves(vb)):
                if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype:
                    raise TypeError(f"'{name}' has dtype {x.dtype.name} in the main branch, but dtype {y.dtype.name} "
                                    "in the else branch")
        main.set_structure(tuple(a))
        other.set_structure(tuple(b))

    values = control_flow.graph_case(test, [branch(body), branch(orelse)], reconcile=reconcile)
    set_state(tuple(values))


def _undefined(value):
    return isinstance(value, (Undefined, UndefinedReturnValue))


def _leaves(value):
    return nest.flatten(value) if nest.is_nested(value) else [value]


def _zeros_like(value):
    from ..ops.array_ops import zeros_like  # noqa: PLC0415

    return nest.map_structure(lambda v: zeros_like(v) if isinstance(v, Tensor) else v, value)


# -------------------------------------------------------------------------------------------------- loops


def _loopable(value):
    """Whether ``value`` can be a loop variable: tensors and what converts to one, in any nesting."""
    for leaf in _leaves(value):
        if not (isinstance(leaf, (Tensor, bool, int, float, complex, np.ndarray, np.generic, TensorArray)) or
                getattr(leaf, "_tapeflow_variable", False)):
            return False
    return True


def _graph_loop(names, live, get_state, set_state, cond, step, extra=(), first_made=True):
    """A ``tf.while_loop`` over the variables of ``names`` that exist (or are used after the loop), started with
    ``extra`` loop variables of the caller's own (an iteration counter); ``cond(extra)``/``step(extra)`` run
    with the state set, ``step`` returning the new ``extra``. Returns the final ``extra``. ``first_made``: whether
    a variable may be made in the body first (and used after the loop)."""
    state = list(get_state())
    positions = [k for k, (name, v) in enumerate(zip(names, state)) if not _undefined(v) and _loopable(v)]
    missing = [k for k, (name, v) in enumerate(zip(names, state)) if _undefined(v) and name in live]
    if any(names[k] == "ag__retval" for k in missing):
        raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may happen "
                                  "if a return statement depends on a static Python condition such as a "
                                  "hyperparameter")
    if missing and not first_made:  # (a loop over a dataset: TF wants them made before)
        raise ValueError(f"'{names[missing[0]]}' must be defined before the loop")
    if missing:
        # Variables first made in the body: started at zeros of the type one run of the body gives them.
        probe = control_flow.trace_sub(lambda *a: _first_run(step, state, set_state, get_state, missing, a),
                                       list(extra), "loop_probe")
        for k, value in zip(missing, probe.structure if isinstance(probe.structure, list) else [probe.structure]):
            if _undefined(value) or not _loopable(value):
                continue  # (a value only the body uses, a tape, a layer: not carried from one iteration on)
            state[k] = _zeros_from(value)
            positions.append(k)
        positions.sort()
        set_state(tuple(state))
    n_extra = len(extra)

    def put(values):
        full = list(get_state())
        for k, v in zip(positions, values[n_extra:]):
            full[k] = v
        set_state(tuple(full))

    def loop_cond(*values):
        put(values)
        return cond(values[:n_extra])

    def loop_body(*values):
        put(values)
        new_extra = step(values[:n_extra])
        full = get_state()
        return [*new_extra, *[full[k] for k in positions]]

    from ..ops.control_flow_ops import while_loop  # noqa: PLC0415

    result = while_loop(loop_cond, loop_body, [*extra, *[state[k] for k in positions]])
    put(result)
    return result[:n_extra]


def _first_run(step, state, set_state, get_state, missing, args):
    set_state(tuple(state))
    step(tuple(args))
    full = get_state()
    return [full[k] for k in missing]


def _zeros_from(value):
    from ..ops.array_ops import zeros  # noqa: PLC0415

    return nest.map_structure(lambda v: zeros(v.shape, v.dtype) if isinstance(v, Tensor) else v, value)


def while_stmt(test, body, get_state, set_state, names, live):
    """``while test(): body()``; a tensor condition in a trace makes a ``tf.while_loop`` over the variables
    ``names`` the body assigns."""
    first = test()
    if not _graph(first):
        while first:
            body()
            first = test()
        return

    def cond(_):
        return test()

    def step(_):
        body()
        return ()

    _graph_loop(names, live, get_state, set_state, cond, step)


def for_stmt(iterable, extra_test, body, get_state, set_state, names, live, targets):
    """``for item in iterable: body(item)`` (stopping early when ``extra_test()`` fails: a ``break`` or
    ``return``); in a trace, a tensor iterable makes a ``tf.while_loop`` over its first dimension, and a
    ``tf.data.Dataset`` a loop that takes its elements one by one each time the program runs."""
    from ..data.dataset import Dataset  # noqa: PLC0415

    dataset = STATE.tracer is not None and isinstance(iterable, Dataset)
    if not dataset and not _graph(iterable):
        for item in iterable:
            if extra_test is not None and not extra_test():
                break
            body(item)
        return
    # A loop target is a loop variable only where it exists before the loop (as Python keeps it after).
    state = get_state()
    live = tuple(name for name in live if not (name in targets and _undefined(state[names.index(name)])))

    def going(test):
        if extra_test is None:
            return test
        from ..ops.math_ops import logical_and  # noqa: PLC0415

        return logical_and(test, extra_test())

    if dataset:
        _dataset_loop(iterable, going, body, get_state, set_state, names, live)
        return
    from .._core.tensor import constant  # noqa: PLC0415
    from ..ops.array_ops import shape  # noqa: PLC0415
    from ..ops.gather_ops import gather  # noqa: PLC0415

    n = iterable.shape[0] if iterable.shape.rank and iterable.shape[0] is not None else shape(iterable)[0]

    def step(extra):
        (i,) = extra
        body(gather(iterable, i))
        return (i + 1,)

    _graph_loop(names, live, get_state, set_state, lambda extra: going(extra[0] < n), step, extra=(constant(0),))


def _dataset_loop(dataset, going, body, get_state, set_state, names, live):
    """``for element in dataset`` in a trace: a ``tf.while_loop`` whose loop variables start with whether an
    element came and the element's tensors, taken from an iterator the program makes each time it runs."""
    from .._core.dispatch import execute  # noqa: PLC0415
    from .._core.registry import Op  # noqa: PLC0415
    from .._core.tensor import constant  # noqa: PLC0415

    spec = dataset.element_spec
    specs = nest.flatten(spec)
    def make_iterator(_):
        handle = np.empty((), dtype=object)
        with trace.init_scope():
            handle[()] = iter(dataset)
        return handle

    iterate = Op("AnonymousIteratorV3", make_iterator, num_outputs=1, same_dtype=False)
    iterate.stateful = True

    def get_next(handle):
        try:
            with trace.init_scope():  # the pipeline runs eagerly, also while the loop is traced
                element = next(handle[()])
        except StopIteration:
            return (np.array(False),) + tuple(np.zeros([d or 0 for d in s.shape.as_list()], s.dtype.as_numpy_dtype)
                                              for s in specs)
        flat = nest.flatten(element)
        return (np.array(True),) + tuple(t._value for t in flat)

    take = Op("IteratorGetNext", get_next, num_outputs=1 + len(specs), same_dtype=False)
    take.multi_output = True
    take.stateful = True
    tracer = STATE.tracer
    # (An op without inputs would be a constant of the program: a dummy input makes it an op that runs each time.)
    handle = execute(iterate, (constant(0),))
    tracer.dynamic.add(handle._id)

    def next_element():
        out = execute(take, (handle,))
        for t, s in zip(out[1:], specs):  # the element's shape as the dataset gives it (a last batch may be short)
            STATE.tracer.static_shapes[t._id] = None if s.shape.rank is None else tuple(s.shape.as_list())
        return out

    def step(extra):
        body(nest.pack_sequence_as(spec, list(extra[1:])) if nest.is_nested(spec) else extra[1])
        return tuple(next_element())

    _graph_loop(names, live, get_state, set_state, lambda extra: going(extra[0]), step, extra=next_element(),
                first_made=False)


# -------------------------------------------------------------------------------------------------- calls


def converted_call(f, args, kwargs):
    """``f(*args, **kwargs)``, with ``f`` converted first when it is a user's function (as TF converts what the
    traced function calls); ``range`` and ``len`` of tensors give tensors."""
    if f is range and any(isinstance(a, Tensor) for a in args) and STATE.tracer is not None:
        from ..ops.array_ops import range as tf_range  # noqa: PLC0415

        return tf_range(*args, **kwargs)
    if f is len and len(args) == 1 and isinstance(args[0], Tensor) and STATE.tracer is not None:
        x = args[0]
        if x.shape.rank and x.shape[0] is None:
            from ..ops.array_ops import shape  # noqa: PLC0415

            return shape(x)[0]
    return autograph.convert(f)(*args, **kwargs) if autograph.is_convertible(getattr(f, "__func__", f)) else \
        f(*args, **kwargs)
