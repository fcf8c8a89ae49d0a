"""The backward pass: one reversed scan over a tape's stored equations (:func:`walk`).

1. Prune: a forward scan keeps only equations downstream of a source (``reach`` holds the ids on such paths).
   When every watched value is a source (the usual training step), everything tracked is downstream of one and
   the scan is skipped.
2. Seed each target with its output gradient (ones by default).
3. Walk the kept equations in reverse program order (already a topological order, so no recursion and no sort).
   Each equation whose output has a gradient calls its op's rule with a ``needs`` mask; the gradients it returns
   are summed back to the input's shape here, once, for every op, and accumulated per id. Gradients are popped as
   soon as their producer is processed, so memory is released along the way.

``None`` is the symbolic zero throughout. What a gradient is (a tensor, a NumPy array, an ``IndexedSlices``, a
batch of cotangents for a jacobian) is the scan's *kind* (``gradient_kinds.py``): the kind calls the rules,
fits, adds, and says what a variable read does; the scan is the same for all of them.

When nothing records the backward pass (the usual ``gradient()`` of a non-persistent tape), the scan runs on NumPy
values (:data:`~tapeflow._core.gradient_kinds.ARRAYS`): ops with a rule on arrays (``Op.defraw``) compute their
input gradients without a tensor or a dispatch per gradient op, the others run their tensor rule. The values are
the same bit for bit; only the Python work around them shrinks. Otherwise rules run through :func:`execute` like
any op (:data:`~tapeflow._core.gradient_kinds.TENSORS`), so a tape that is still recording (an outer tape, or a
persistent tape differentiated inside its own block) records the backward pass: higher derivatives.
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from . import errors
from . import primitives as P
from .convert import c_name
from .dispatch import EMPTY, execute
from .dtypes import TRAINABLE_NUMS
from .equation import READ
from .gradient_kinds import ARRAYS, RAW_ERRORS, TENSORS, Handover, unbroadcast, unbroadcast_array
from .registry import REGISTRY
from .state import STATE, loud, next_id, quiet
from .tensor import EagerTensor, constant_of

_new = object.__new__
_ID = attrgetter("_id")
_VALUE = attrgetter("_value")

__all__ = ["backward", "prune", "walk", "unbroadcast"]

_ONE_NEEDED = (True,)


def _seed(target, og):
    """The output gradient for ``target``: ones, or ``og`` fitted to the target's shape as TF's rules would.

    A broadcastable ``og`` is broadcast; one of the same rank goes on as is (the first elementwise rule then
    fails with TF's "Incompatible shapes" error); any other shape fails as TF's gradient reshape does.
    """
    if og is None:
        v = target._value
        return constant_of(np.ones_like(v) if type(v) is np.ndarray else v.dtype.type(1))
    if og._value.dtype != target._value.dtype:
        # TF fails in the first rule's ``grad * y`` (a Mul with the upstream gradient as input #0).
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute Mul as input #1(zero-based) was expected to be a {c_name(og.dtype)} "
            f"tensor but is a {c_name(target.dtype)} tensor [Op:Mul] name: ")
    shape = np.shape(target._value)
    oshape = np.shape(og._value)
    if oshape == shape:
        return og
    try:
        fits = np.broadcast_shapes(oshape, shape) == shape
    except ValueError:
        fits = False
    if fits:
        return execute(P.BROADCAST_TO, (og,), {"shape": shape})
    if len(oshape) == len(shape):
        return og
    raise errors.op_error("Reshape", f"Input to reshape is a tensor with {int(np.prod(oshape))} values, but the "
                          f"requested shape has {int(np.prod(shape))}")


def backward(recording, targets, sources, output_gradients=None):
    """Gradients of ``sum(targets)`` with respect to each source (a list with ``None`` where unconnected).

    Args:
        recording: a tape's :class:`~tapeflow._core.recording.Recording`.
        targets: tensors, or variables (whose id is the target).
        sources: tensors or variables.
        output_gradients: optional list of tensors (or ``None``) aligned with ``targets``.
    """
    source_ids = set(map(_ID, sources))
    stored = recording.stored()
    if recording.roots <= source_ids:
        # Every watched value is a source (the usual training step): all that is tracked lies downstream of a
        # source, so nothing needs pruning.
        reach, path = recording.tracked, stored
    else:
        reach, path = prune(stored, sources)

    grads = {}
    for i, target in enumerate(targets):
        if target._id not in reach and target._id not in source_ids:
            continue
        og = output_gradients[i] if output_gradients is not None and i < len(output_gradients) else None
        seed = _seed(target, og)
        prev = grads.get(target._id)
        grads[target._id] = seed if prev is None else TENSORS.add(prev, seed)

    kind = None
    if grads:
        token = quiet()  # NaN and inf gradients are results here, as in TF, not warnings
        try:
            if not STATE.tapes:  # nothing observes the rules' ops (no tape, no numerics check)
                seeds = grads
                grads = dict(zip(seeds, map(_VALUE, seeds.values())))
                try:
                    kind = walk(path, grads, reach, source_ids, targets, ARRAYS)
                except RAW_ERRORS as exc:
                    if getattr(exc, "_tapeflow_tensor_rule", False):
                        raise  # a tensor rule's own error (a custom gradient's, say): it would only happen again
                    # A rule on arrays failed (mismatched output gradients): run the scan again on tensors, whose
                    # ops raise TensorFlow's error for it.
                    grads = seeds
                    kind = walk(list(path), grads, reach, source_ids, targets, TENSORS)
            else:
                # A copy: the rules' ops may be recorded on this very tape, whose list of equations this can be.
                kind = walk(list(path), grads, reach, source_ids, targets, TENSORS)
        finally:
            loud(token)
    # Integer targets are seeded too: a source that is itself such a target gets its ones (TF's gradient(i, i)).
    gradients = list(map(grads.get, map(_ID, sources)))
    if kind is ARRAYS:
        for k, g in enumerate(gradients):
            if g is not None:
                t = gradients[k] = _new(EagerTensor)  # ``wrap``, inlined: one per variable of a training step
                t._value = g
                t._id = next_id()
    return gradients


def prune(stored, sources):
    """``(reach, path)``: ids of floating values downstream of a source, and the stored equations on such paths."""
    # Integer values carry no gradient, so they never enter ``reach``.
    reach = {s._id for s in sources if s._value.dtype.num in TRAINABLE_NUMS}
    path = []
    for eq in stored:
        for i in eq[6::2]:  # the input ids (``equation.py``)
            if i in reach:
                break
        else:
            continue
        path.append(eq)
        outputs = eq[4]
        if type(outputs) is tuple:
            reach.update(o for o, v in zip(outputs, eq[5]) if v.dtype.num in TRAINABLE_NUMS)
        elif eq[5].dtype.num in TRAINABLE_NUMS:
            reach.add(outputs)
    return reach, path


def walk(path, grads, reach, source_ids, targets, kind):
    """The reversed scan over the stored equations of ``path``: run each one's rule and accumulate the input
    gradients into ``grads`` (keyed by id; the kind's values). Returns the kind it ends with, which differs from
    ``kind`` when a rule's result made it hand over (see ``gradient_kinds.Handover``).

    The stored form is read as it is (``equation.py``): key, attrs, code, lasti, outputs, results, then an id and
    a value per input. The array kind's rules on arrays run inline, spelled out for one and two inputs: this loop
    runs on every training step, a list comprehension is a function call of its own in Python 3.11, and plain
    positional calls avoid building argument tuples and dicts.
    """
    get, pop = grads.get, grads.pop
    registry = REGISTRY
    arrays, read, call, fit, add = kind.hooks
    for eq in reversed(path):
        n = len(eq)
        if n == 10:
            key, attrs, _code, _lasti, outputs, ans, xid, xv, yid, yv = eq
        elif n == 8:
            key, attrs, _code, _lasti, outputs, ans, xid, xv = eq
            if key is READ:
                # An identity to the variable (reads store ``READ`` itself): no rule, and nothing is fitted (a
                # target that is the read passes its output gradient on as it was given).
                g = get(outputs) if outputs in source_ids else pop(outputs, None)
                if g is not None:
                    if read:
                        g = read(g, eq)
                    prev = get(xid)
                    grads[xid] = g if prev is None else add(prev, g)
                continue
        else:
            key, attrs, outputs, ans = eq[0], eq[1], eq[4], eq[5]
        try:
            op = registry[key]
        except KeyError:  # an op that is not registered (a custom gradient's) is stored as itself
            op = key
        if op.multi_output:
            g = tuple([get(o) if o in source_ids else pop(o, None) for o in outputs])
            if all(x is None for x in g):
                continue
        else:
            g = get(outputs) if outputs in source_ids else pop(outputs, None)
            if g is None:
                continue
        if arrays and (rule := op.raw) is not None:
            # The array kind's fast path: the rule on arrays, accumulated with ``+``.
            if n == 10:
                xin, yin = xid in reach, yid in reach
                if op.raw_needs:
                    gx, gy = rule(g, ans, xv, yv, (xin, yin), **attrs) if attrs else rule(g, ans, xv, yv, (xin, yin))
                else:
                    gx, gy = rule(g, ans, xv, yv, **attrs) if attrs else rule(g, ans, xv, yv)
                if xin and gx is not None:
                    if gx.shape != xv.shape:
                        gx = unbroadcast_array(gx, xv.shape)
                    prev = get(xid)
                    grads[xid] = gx if prev is None else prev + gx
                if yin and gy is not None:
                    if gy.shape != yv.shape:
                        gy = unbroadcast_array(gy, yv.shape)
                    prev = get(yid)
                    grads[yid] = gy if prev is None else prev + gy
                continue
            if n == 8:
                # A recorded single-input op on the path has a tracked input: it always needs a gradient.
                gx = (rule(g, ans, xv, **attrs) if attrs else rule(g, ans, xv))[0]
                if gx is not None:
                    if gx.shape != xv.shape:
                        gx = unbroadcast_array(gx, xv.shape)
                    prev = get(xid)
                    grads[xid] = gx if prev is None else prev + gx
                continue
            needs = tuple([i in reach for i in eq[6::2]])
            attrs = attrs or EMPTY
            if op.raw_needs:
                in_grads = rule(g, ans, *eq[7::2], needs, **attrs)
            else:
                in_grads = rule(g, ans, *eq[7::2], **attrs)
        elif op.vjp is None:
            continue  # a non-differentiable op: its upstream gradient stops here
        else:
            needs = (xid in reach, yid in reach) if n == 10 else _ONE_NEEDED if n == 8 else tuple(
                [i in reach for i in eq[6::2]])
            in_grads = call(op, g, eq, needs)
            if in_grads.__class__ is Handover:
                # The kind cannot hold these gradients (a rule gave slices): the next one takes over what is
                # held so far and goes on from this equation's results.
                kind = in_grads.kind(path, grads, source_ids, targets, eq, in_grads.convert)
                arrays, read, call, fit, add = kind.hooks
                in_grads = in_grads.grads
        for tid, v, need, ig in zip(eq[6::2], eq[7::2], needs, in_grads):
            if need and ig is not None:
                ig = fit(ig, v, tid)
                prev = get(tid)
                grads[tid] = ig if prev is None else add(prev, ig)
    if kind.finish is not None:
        kind.finish(grads)
    return kind
