"""Control flow as TF 2.21 runs it eagerly: ``cond``, ``while_loop``, ``case`` and ``switch_case``.

Eagerly these are plain Python: the predicate's value is read with ``bool()`` / ``int()`` on the tensor (so a trace
refuses a predicate that depends on the function's inputs, as ``bool(tensor)`` is refused there), the branch or
body chosen runs, and a tape records the ops it runs, which is all the gradient needs. The checks, their order and
their messages are TF's: ``while_loop`` keeps Python values as they are until it returns (then converts every
leaf to a tensor), compares the structure of each body result with that of the loop variables (TF's
``nest.assert_same_structure`` message), and ignores dtypes and shapes; ``case`` without ``default`` runs the last
branch when no predicate holds, after an assertion that one does; ``switch_case`` sends an index out of range to
``default``, or to the last branch when there is none.
"""

from __future__ import annotations

import numpy as np

from .._core import nest
from .._core.dispatch import execute
from .._core.dtypes import bool_ as _bool
from .._core.dtypes import int32
from .._core.exports import export
from .._core.logs import log_first_n
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor
from .._core.tensor_spec import TensorSpec
from ._convert import to_tensor
from .array_ops import cast, stack
from .assert_ops import Assert
from .math_ops import logical_and
from .reduction_ops import reduce_sum

__all__ = ["cond", "while_loop", "case", "switch_case"]


# ------------------------------------------------------------------------------------------------------- cond


def _check_branches(true_fn, false_fn):
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")


def _cond(pred, true_fn, false_fn, strict):
    _check_branches(true_fn, false_fn)
    if STATE.tracer is not None:  # inside a traced function: one node holding both branches
        if isinstance(pred, bool):
            raise TypeError("pred must not be a Python bool", pred)
        from ..compiler.control_flow import graph_case, refuse_predicate  # noqa: PLC0415 - loaded on first use

        pred = to_tensor(pred)
        if pred.dtype != _bool:
            raise refuse_predicate(pred)
        result = graph_case(pred, [true_fn, false_fn])
    else:
        result = _eager_cond(pred, true_fn, false_fn)
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def _eager_cond(pred, true_fn, false_fn):
    if isinstance(pred, Tensor):
        if pred.shape.num_elements() == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an "
                             "array is not empty.")
        taken = bool(pred)
    else:  # a Python or NumPy constant: checked as TF converts it, decided on its own value (no tensor to trace)
        to_tensor(pred)
        taken = bool(np.asarray(pred))
    return true_fn() if taken else false_fn()


@export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` holds, else ``false_fn()`` (``tf.cond``, run eagerly).

    ``pred`` is anything convertible to a tensor whose truth is that of its NumPy value (a Python or NumPy bool, a
    scalar tensor of any dtype, a one-element tensor). Only the branch chosen runs, and what it returns comes back
    unchanged: nested structures, Python values and ``None`` included; the two branches need not agree.

    Raises:
        TypeError: a branch missing or not callable.
        ValueError: ``pred`` has more than one element (NumPy's message), none, or is ``None``.
    """
    return _cond(pred, true_fn, false_fn, strict=True)


# ------------------------------------------------------------------------------------------------- while_loop


class _Dot:
    def __repr__(self):
        return "."


def _dots(s):
    if isinstance(s, dict):
        return {k: _dots(v) for k, v in s.items()}
    if isinstance(s, (list, tuple)) and not hasattr(s, "_fields"):
        return type(s)(_dots(v) for v in s)
    return _Dot()


def _desc(x):
    return f"type={type(x).__name__} str={x}"


def _mismatch(a, b):
    """``(error class, detail)`` for the first place where ``a`` and ``b`` nest differently, or ``None``."""
    sa, sb = nest.is_nested(a), nest.is_nested(b)
    if sa != sb:
        seq, other = (a, b) if sa else (b, a)
        return ValueError, f'Substructure "{_desc(seq)}" is a sequence, while substructure "{_desc(other)}" is not'
    if not sa:
        return None
    if type(a) is not type(b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First structure {_desc(a)} has "
                           f"type {type(a).__name__}, while second structure {_desc(b)} has type {type(b).__name__}")
    if isinstance(a, dict):
        if set(a) != set(b):
            return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                                f"{_desc(list(a))}, while second structure has keys {_desc(list(b))}")
        pairs = [(a[k], b[k]) for k in a]
    else:
        if len(a) != len(b):
            return ValueError, (f"The two structures don't have the same number of elements. First structure: "
                                f"{_desc(a)}. Second structure: {_desc(b)}")
        pairs = list(zip(a, b))
    for x, y in pairs:
        if (found := _mismatch(x, y)) is not None:
            return found
    return None


def _assert_same_structure(first, second):
    found = _mismatch(first, second)
    if found is not None:
        cls, detail = found
        raise cls(f"The two structures don't have the same nested structure.\n\nFirst structure: {_desc(first)}\n\n"
                  f"Second structure: {_desc(second)}\n\nMore specifically: {detail}\nEntire first structure:\n"
                  f"{_dots(first)}\nEntire second structure:\n{_dots(second)}")


def _spec_of(value):
    if isinstance(value, TensorSpec) or _is_tensor_array(value):
        return value
    t = to_tensor(value)
    return TensorSpec(t.shape, t.dtype)


def _is_tensor_array(value):
    return type(value).__name__ == "TensorArray" and hasattr(value, "_graph_buffer")


def _loop_result(value):
    """A loop variable as the loop returns it: a tensor, or a TensorArray as it is."""
    return value if _is_tensor_array(value) else to_tensor(value)


def _read_variables(value):
    return to_tensor(value) if getattr(value, "_tapeflow_variable", False) else value


_BACK_PROP_NOTE = ("back_prop=False is deprecated. Consider using tf.stop_gradient instead.\nInstead of:\n"
                   "results = tf.while_loop(c, b, vars, back_prop=False)\nUse:\n"
                   "results = tf.nest.map_structure(tf.stop_gradient, tf.while_loop(c, b, vars))")


@export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds (``tf.while_loop``, run eagerly).

    ``loop_vars`` is a list or tuple (a single tensor is not accepted: TF tests its truth and takes its ``len``);
    ``body`` must return a list or tuple of the same nesting, its leaves of any dtype and shape (eagerly TF checks
    neither, nor ``shape_invariants``). Python values stay Python values inside the loop; what comes back is the
    last structure ``body`` returned (``loop_vars`` when it never ran) with every leaf converted to a tensor.
    ``maximum_iterations`` (a scalar) stops the loop after that many runs of ``body``. ``back_prop=False`` logs TF's
    deprecation warning and changes nothing: gradients flow through the iterations that ran, to any order.

    Raises:
        TypeError: ``cond`` or ``body`` not callable, ``parallel_iterations`` below 1, a body result nesting with
            other sequence types (TF's message).
        ValueError: empty ``loop_vars``, a non-scalar ``maximum_iterations``, a body result with another nesting.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if back_prop is False:
        import sys  # noqa: PLC0415

        caller = sys._getframe(1)
        log_first_n("WARNING", f"From {caller.f_code.co_filename}:{caller.f_lineno}: calling while_loop_v2 (from "
                               "tensorflow.python.ops.while_loop) with back_prop=False is deprecated and will be "
                               f"removed in a future version.\nInstructions for updating:\n{_BACK_PROP_NOTE}", 1,
                    ("while_loop", "back_prop"))
    loop_vars = nest.map_structure(_read_variables, loop_vars)
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    len(loop_vars)  # TF asks for it (a Python scalar or a scalar tensor fails here with TypeError)
    if maximum_iterations is not None:
        limit = to_tensor(maximum_iterations)
        if limit.shape.rank != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {limit.shape}")
        limit = int(limit)
        user_cond, user_body = cond, body

        def cond(i, lv):
            going = user_cond(*lv)
            if isinstance(i, int) and type(going) is bool:  # both Python: no tensor (a trace keeps working)
                return i < limit and going
            return logical_and(i < limit, going)

        def body(i, lv):
            return i + 1, user_body(*lv)

        loop_vars = (0, loop_vars)
    if STATE.tracer is not None:  # inside a traced function: one node holding the condition and the body
        from ..compiler.control_flow import graph_while  # noqa: PLC0415 - the compiler loads on first use

        loop_vars = graph_while(cond, body, loop_vars, shape_invariants)
        return loop_vars[1] if maximum_iterations is not None else loop_vars
    specs = nest.map_structure(_spec_of, list(loop_vars))
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        _assert_same_structure(specs, list(loop_vars))
    loop_vars = nest.map_structure(_loop_result, loop_vars)
    return loop_vars[1] if maximum_iterations is not None else loop_vars


# ------------------------------------------------------------------------------- the history of a traced loop
# A traced loop's gradient runs the loop again keeping every iteration's loop variables, each stacked into one
# array padded to the largest shape, with the true shapes beside it (``compiler/control_flow.py``). These two ops
# read one iteration's value out of such a stack and put a gradient back in: each is the other's adjoint.


def _region(shapes, k):
    return (int(np.asarray(k)),) + tuple(slice(0, int(d)) for d in shapes[int(np.asarray(k))])


@defop("LoopHistoryRead", same_dtype=False)
def LOOP_HISTORY_READ(stack, shapes, k):
    """Iteration ``k``'s value of a padded history stack."""
    return stack[_region(shapes, k)].copy()


@LOOP_HISTORY_READ.defvjp
def _loop_history_read_grad(g, ans, stack, shapes, k):
    return execute(LOOP_HISTORY_WRITE, (g, stack, shapes, k)), None, None


@defop("LoopHistoryWrite", same_dtype=False)
def LOOP_HISTORY_WRITE(value, like, shapes, k):
    """Zeros shaped like the history stack ``like`` with ``value`` as iteration ``k``'s value."""
    out = np.zeros(like.shape, value.dtype)
    out[_region(shapes, k)] = value
    return out


@LOOP_HISTORY_WRITE.defvjp
def _loop_history_write_grad(g, ans, value, like, shapes, k):
    return execute(LOOP_HISTORY_READ, (g, shapes, k)), None, None, None


# ------------------------------------------------------------------------------------------------------- case


def _case_pairs(pred_fn_pairs, exclusive):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:  # (tensor keys are refused before this: a tensor is unhashable)
            raise ValueError("Unordered dictionaries are not supported for the 'pred_fn_pairs' argument when "
                             "`exclusive=False` and eager mode is enabled.")
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != _bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def _assert_at_most(predicates, n, message):
    stacked = stack(predicates)
    count = reduce_sum(cast(stacked, int32))
    marks = ", ".join("?" * len(predicates))
    Assert(count <= n, [f"{message}: more than {n} conditions ({marks}) evaluated as True:", stacked])


@export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first ``fn`` of ``pred_fn_pairs`` whose predicate holds, else ``default()``
    (``tf.case``, run eagerly).

    Predicates are bool tensors, tested in order; only the chosen function runs. Without ``default`` the last pair
    stands in for it: its function runs when no earlier predicate holds, after asserting that its own predicate
    does (``InvalidArgumentError`` when none holds). ``exclusive=True`` first asserts that at most one predicate
    holds, and allows a dict of pairs. Unless ``strict``, a one-element list or tuple result is unpacked.

    Raises:
        TypeError: ``pred_fn_pairs`` not a list, tuple or dict, a pair not a 2-tuple, a Python predicate, a
            function not callable.
        InvalidArgumentError: no predicate holds without ``default``, or several hold with ``exclusive``.
    """
    predicates, actions = _case_pairs(pred_fn_pairs, exclusive)
    if default is None:
        last_pred, last_action = predicates[-1], actions[-1]
        all_preds = list(predicates)

        def default():
            Assert(last_pred, ["Input error: None of conditions evaluated as True:", stack(all_preds)])
            return last_action()

        predicates, actions = predicates[:-1], actions[:-1]
    fn = default
    for pred, action in reversed(list(zip(predicates, actions))):
        fn = (lambda p, a, f: lambda: _cond(p, a, f, strict))(pred, action, fn)
    if exclusive:
        _assert_at_most(predicates, 1, "Input error: exclusive=True")
    return fn()


@export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()`` (``tf.switch_case``, run eagerly).

    ``branch_index`` is an integer tensor; ``branch_fns`` a list or tuple of callables, of ``(int, callable)`` pairs,
    or a dict from int to callable, whose keys must be exactly ``0 .. n-1``. An index out of range calls
    ``default``, or the last branch when there is no ``default``.

    Raises:
        TypeError: ``branch_index`` not an integer tensor, ``branch_fns`` of the wrong kind, a key not an ``int``, a
            branch not callable.
        ValueError: no branches, or keys that are not ``0 .. n-1``.
    """
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got <dtype: '{branch_index.dtype.name}'>")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = branch_fns.items()
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        found = ",".join(map(str, sorted(keys)))
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                         f"{{{found}}}")
    fns = [fn for _, fn in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        fns.append(default)
    if branch_index.shape.rank != 0:
        from .manip_ops import kernel_error  # noqa: PLC0415

        raise kernel_error("Select", "'then' must be at least a vector, but saw shape: []", "")
    if STATE.tracer is not None:  # inside a traced function: one node holding every branch
        from ..compiler.control_flow import graph_case, pick_index  # noqa: PLC0415

        return graph_case(branch_index, fns, pick_index(len(fns)), "switch_case")
    index = int(branch_index)
    if index < 0 or index >= len(fns):
        index = len(fns) - 1
    return fns[index]()
