"""The one backward pass: a reversed scan over a tape's records.

1. Prune: a forward scan keeps only records downstream of a source (``reach`` holds the ids on such paths). When
   every watched value is a source (the usual training step), everything tracked is downstream of one and the
   scan is skipped.
2. Seed each target with its output gradient (ones by default).
3. Walk the kept records in reverse program order (already a topological order, so no recursion and no sort).
   Each record whose output has a gradient calls its op's rule with a ``needs`` mask; the gradients it returns
   are summed back to the input's shape here, once, for every op (``unbroadcast``), and accumulated per id.
   Gradients are popped as soon as their producer is processed, so memory is released along the way.

``None`` is the symbolic zero throughout. Rules run through :func:`execute` like any op, so a tape that is still
recording (an outer tape, or a persistent tape differentiated inside its own block) records the backward pass,
which is how higher derivatives work.

When no tape records (the usual ``gradient()`` of a non-persistent tape), there is nothing to record and the scan
runs on NumPy values instead (:func:`_walk_raw`): ops with a rule on arrays (``Op.defraw``) compute their input
gradients without a tensor or a dispatch per gradient op, the others run their tensor rule on the record's
tensors. The values are the same bit for bit; only the Python work around them shrinks.
"""

from __future__ import annotations

from operator import attrgetter, length_hint

import numpy as np

from . import errors
from . import primitives as P
from .convert import c_name
from .dispatch import EMPTY, READ_VARIABLE, execute
from .dtypes import TRAINABLE_NUMS
from .equation import READ, as_tensors
from .logs import get_logger
from .registry import REGISTRY
from .state import STATE, loud, next_id, quiet
from .tensor import EagerTensor, wrap

_new = object.__new__
_ID = attrgetter("_id")
_VALUE = attrgetter("_value")

__all__ = ["backward", "prune", "tensor_path", "unbroadcast"]

_RAW_ERRORS = (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError, OverflowError)


_SUM_ATTRS = {}
_UNSEEN = object()


def _sum_attrs(gshape, shape):
    """``Sum``'s attrs taking a gradient of ``gshape`` down to ``shape``, ``None`` when no axis is summed.

    Memoised, with the attrs dict itself (shared, never mutated): shapes repeat every training step.
    """
    lead = len(gshape) - len(shape)
    axes = list(range(lead)) if lead > 0 else []
    for i, d in enumerate(shape):
        if d == 1 and i + lead >= 0 and gshape[i + lead] != 1:
            axes.append(i + lead)
    attrs = {"axis": tuple(axes), "keepdims": False} if axes else None
    if len(_SUM_ATTRS) < 4096:
        _SUM_ATTRS[(gshape, shape)] = attrs
    return attrs


def unbroadcast(g, shape):
    """Sum ``g`` down to ``shape``: over leading axes and axes where ``shape`` is 1, then reshape."""
    if not shape:
        return execute(P.SUM, (g,), P.ALL_AXES)  # the common case, to a scalar
    gshape = g._value.shape
    attrs = _SUM_ATTRS.get((gshape, shape), _UNSEEN)
    if attrs is _UNSEEN:
        attrs = _sum_attrs(gshape, shape)
    if attrs is not None:
        g = execute(P.SUM, (g,), attrs)
    if g._value.shape != shape:
        g = execute(P.RESHAPE, (g,), {"shape": shape})
    return g


def _unbroadcast_raw(g, shape):
    """:func:`unbroadcast` on a NumPy value, with the same kernels."""
    if not shape:
        return P.SUM.forward(g, None, False)
    gshape = g.shape
    attrs = _SUM_ATTRS.get((gshape, shape), _UNSEEN)
    if attrs is _UNSEEN:
        attrs = _sum_attrs(gshape, shape)
    if attrs is not None:
        g = P.SUM.forward(g, **attrs)
    if g.shape != shape:
        g = P.RESHAPE.forward(g, shape)
    return g


def _seed(target, og):
    """The output gradient for ``target``: ones, or ``og`` fitted to the target's shape as TF's rules would.

    A broadcastable ``og`` is broadcast; one of the same rank goes on as is (the first elementwise rule then
    fails with TF's "Incompatible shapes" error); any other shape fails as TF's gradient reshape does.
    """
    if og is None:
        v = target._value
        return wrap(np.ones_like(v) if type(v) is np.ndarray else v.dtype.type(1))
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
    variables = recording.variables

    grads = {}
    for i, target in enumerate(targets):
        if target._id not in reach and target._id not in source_ids:
            continue
        og = output_gradients[i] if output_gradients is not None and i < len(output_gradients) else None
        seed = _seed(target, og)
        prev = grads.get(target._id)
        grads[target._id] = seed if prev is None else _add(prev, seed)

    raw = False
    if grads:
        token = quiet()  # NaN and inf gradients are results here, as in TF, not warnings
        try:
            if not STATE.tapes:  # nothing observes the rules' ops (no tape, no numerics check)
                seeds = grads
                grads = dict(zip(seeds, map(_VALUE, seeds.values())))
                try:
                    raw = _walk_raw(path, grads, reach, source_ids, targets, variables)
                except _RAW_ERRORS as exc:
                    if getattr(exc, "_tapeflow_tensor_rule", False):
                        raise  # a tensor rule's own error (a custom gradient's, say): it would only happen again
                    # A rule on arrays failed (mismatched output gradients): run the scan again on tensors, whose
                    # ops raise TensorFlow's error for it.
                    grads, raw = seeds, False
                    _walk(tensor_path(path, variables), grads, reach, source_ids, targets)
            else:
                _walk(tensor_path(path, variables), grads, reach, source_ids, targets)
        finally:
            loud(token)
    # Integer targets are seeded too: a source that is itself such a target gets its ones (TF's gradient(i, i)).
    gradients = list(map(grads.get, map(_ID, sources)))
    if raw:
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


def tensor_path(path, variables):
    """The stored equations of ``path`` with tensors (``equation.as_tensors``), for the scans that run rules on
    tensors."""
    return [as_tensors(eq, variables) for eq in path]


def _add(a, b):
    """Sum two gradients of one value (recorded like any op, for higher derivatives)."""
    return execute(P.ADD, (a, b))


def _walk(path, grads, reach, source_ids, targets):
    """The reversed scan: run each record's rule and accumulate input gradients into ``grads``.

    Gradients here are dense tensors. The first ``IndexedSlices`` a rule returns (a gather's) hands the rest of
    the scan to :func:`_walk_sparse`; the check costs nothing until then (no exception is raised before).
    """
    get, pop = grads.get, grads.pop
    records = reversed(path)
    for op, inputs, outputs, attrs, _where in records:
        vjp = op.vjp
        if vjp is None:
            continue
        if not op.multi_output:
            oid = outputs._id
            g = get(oid) if oid in source_ids else pop(oid, None)
            if g is None:
                continue
        else:
            g = tuple([get(o._id) if o._id in source_ids else pop(o._id, None) for o in outputs])
            if all(x is None for x in g):
                continue
        if len(inputs) == 1:
            # A recorded single-input op on the path has a tracked input: it always needs a gradient. A variable
            # read is an identity: its gradient goes straight to the variable.
            t = inputs[0]
            if op is READ_VARIABLE:
                ig = g
            else:
                ig = (vjp(g, outputs, t, **attrs) if attrs else vjp(g, outputs, t))[0]
            if ig is None:
                continue
            # (accumulation spelled out here and below: this loop is the backward pass's hot path)
            shape = t._value.shape
            if ig._value.shape != shape:
                ig = unbroadcast(ig, shape)
            prev = get(t._id)
            grads[t._id] = ig if prev is None else _add(prev, ig)
            continue
        if len(inputs) == 2:
            # Spelled out: a list comprehension is a function call of its own in Python 3.11, and plain
            # positional calls avoid building argument tuples and dicts.
            x, y = inputs
            needs = (x._id in reach, y._id in reach)
            if attrs:
                in_grads = vjp(g, outputs, x, y, needs, **attrs) if op.vjp_needs else vjp(g, outputs, x, y, **attrs)
            else:
                in_grads = vjp(g, outputs, x, y, needs) if op.vjp_needs else vjp(g, outputs, x, y)
        else:
            needs = tuple([t._id in reach for t in inputs])
            if op.vjp_needs:
                in_grads = vjp(g, outputs, *inputs, needs, **attrs)
            else:
                in_grads = vjp(g, outputs, *inputs, **attrs)
        for t, need, ig in zip(inputs, needs, in_grads):
            if need and ig is not None:
                shape = t._value.shape
                try:
                    gshape = ig._value.shape
                except AttributeError:  # an IndexedSlices: this record's remaining inputs and all later records
                    k = [i for i, x in enumerate(in_grads) if x is ig][0]
                    rest = [(t, x) for t, need, x in list(zip(inputs, needs, in_grads))[k:] if need and x is not None]
                    _walk_sparse(path, length_hint(records), rest, grads, reach, source_ids, targets)
                    return
                if gshape != shape:
                    ig = unbroadcast(ig, shape)
                prev = get(t._id)
                grads[t._id] = ig if prev is None else _add(prev, ig)


def _walk_raw(path, grads, reach, source_ids, targets, variables):
    """:func:`_walk` on NumPy values, for a backward pass that no tape records; ``grads`` holds arrays.

    It reads the stored equations as they are: ids and values, no tensor. Returns True when it ends with arrays
    in ``grads``; False when a tensor rule gave an ``IndexedSlices`` and the scan went on in :func:`_walk_sparse`,
    which leaves tensors there. Rules on arrays never give slices.
    """
    get, pop = grads.get, grads.pop
    registered = REGISTRY.get
    records = reversed(path)
    for eq in records:
        # The stored form (``equation.py``): key, attrs, code, lasti, outputs, results, then id and value per input.
        n = len(eq)
        if n == 10:
            key, attrs, _code, _lasti, outputs, ans, xid, xv, yid, yv = eq
        elif n == 8:
            key, attrs, _code, _lasti, outputs, ans, xid, xv = eq
            if key is READ:  # an identity to the variable: no rule, no shape to fit (reads store ``READ`` itself)
                g = get(outputs) if outputs in source_ids else pop(outputs, None)
                if g is not None:
                    prev = get(xid)
                    grads[xid] = g if prev is None else prev + g
                continue
        else:
            key, attrs, outputs, ans = eq[0], eq[1], eq[4], eq[5]
        op = registered(key, key)  # an op that is not registered (a custom gradient's) is stored as itself
        if op.multi_output:
            g = tuple([get(o) if o in source_ids else pop(o, None) for o in outputs])
            if op.vjp is None or all(x is None for x in g):
                continue
        else:
            g = get(outputs) if outputs in source_ids else pop(outputs, None)
            if g is None:
                continue
        rule = op.raw
        if rule is None:
            if op.vjp is None:  # a non-differentiable op (its upstream gradient was dropped above)
                continue
            if not _raw_via_tensor_rule(op, g, eq, variables, grads, reach):
                return _to_sparse_walk(path, length_hint(records), grads, reach, source_ids, targets, variables)
            continue
        # Spelled out for one and two inputs, as in ``_walk``: this loop runs on every training step.
        if n == 10:
            xin, yin = xid in reach, yid in reach
            if op.raw_needs:
                gx, gy = rule(g, ans, xv, yv, (xin, yin), **attrs) if attrs else rule(g, ans, xv, yv, (xin, yin))
            else:
                gx, gy = rule(g, ans, xv, yv, **attrs) if attrs else rule(g, ans, xv, yv)
            if xin and gx is not None:
                if gx.shape != xv.shape:
                    gx = _unbroadcast_raw(gx, xv.shape)
                prev = get(xid)
                grads[xid] = gx if prev is None else prev + gx
            if yin and gy is not None:
                if gy.shape != yv.shape:
                    gy = _unbroadcast_raw(gy, yv.shape)
                prev = get(yid)
                grads[yid] = gy if prev is None else prev + gy
            continue
        if n == 8:
            gx = (rule(g, ans, xv, **attrs) if attrs else rule(g, ans, xv))[0]
            if gx is not None:
                if gx.shape != xv.shape:
                    gx = _unbroadcast_raw(gx, xv.shape)
                prev = get(xid)
                grads[xid] = gx if prev is None else prev + gx
            continue
        ids, values = eq[6::2], eq[7::2]
        needs = tuple([i in reach for i in ids])
        attrs = attrs or EMPTY
        in_grads = rule(g, ans, *values, needs, **attrs) if op.raw_needs else rule(g, ans, *values, **attrs)
        _accumulate_raw(ids, values, needs, in_grads, grads)
    return True


def _accumulate_raw(ids, values, needs, in_grads, grads):
    for tid, v, need, ig in zip(ids, values, needs, in_grads):
        if need and ig is not None:
            shape = v.shape
            if ig.shape != shape:
                ig = _unbroadcast_raw(ig, shape)
            prev = grads.get(tid)
            grads[tid] = ig if prev is None else prev + ig


def _raw_via_tensor_rule(op, g, eq, variables, grads, reach):
    """Run ``op``'s tensor rule inside the raw scan and accumulate the values of its dense results.

    Returns False, having accumulated nothing, when a result is an ``IndexedSlices``: the caller then hands the
    scan over to :func:`_walk_sparse`, which redoes this equation with tensors.
    """
    _op, inputs, outputs, attrs, _where = as_tensors(eq, variables)
    ids, values = eq[6::2], eq[7::2]
    needs = tuple([i in reach for i in ids])
    tg = wrap(g) if not op.multi_output else tuple([None if x is None else wrap(x) for x in g])
    try:
        if len(inputs) == 1:
            in_grads = op.vjp(tg, outputs, inputs[0], **attrs)
        elif op.vjp_needs:
            in_grads = op.vjp(tg, outputs, *inputs, needs, **attrs)
        else:
            in_grads = op.vjp(tg, outputs, *inputs, **attrs)
    except _RAW_ERRORS as exc:
        exc._tapeflow_tensor_rule = True  # not to be retried on tensors (see ``backward``)
        raise
    if any(_is_slices(x) for x in in_grads):
        # Put the upstream gradient back for the sparse scan, which starts again at this equation.
        if not op.multi_output:
            grads[eq[4]] = g
        else:
            for o, x in zip(eq[4], g):
                if x is not None:
                    grads[o] = x
        return False
    _accumulate_raw(ids, values, needs, [None if x is None else x._value for x in in_grads], grads)
    return True


def _to_sparse_walk(path, index, grads, reach, source_ids, targets, variables):
    """Hand the raw scan over to :func:`_walk_sparse` from equation ``index`` on: gradients become tensors again."""
    for k, g in grads.items():
        grads[k] = wrap(g)
    _walk_sparse(tensor_path(path, variables), index + 1, [], grads, reach, source_ids, targets)
    return False


# ------------------------------------------------------------------------------------------ sparse gradients


class _Parts(list):
    """Several gradients of one tensor, ``(record index, gradient)`` each, at least one an ``IndexedSlices``.

    They are combined when the tensor's gradient is used, as TF does: concatenated slices in the order TF's
    backward pass produced them, or a dense sum as soon as one of them is dense.
    """

    __slots__ = ()


def _is_slices(g):
    return getattr(g, "_tapeflow_indexed_slices", False)


def _walk_sparse(path, start, rest, grads, reach, source_ids, targets):
    """The reversed scan from record ``start`` on, once gradients may be ``IndexedSlices``.

    ``rest`` holds the ``(input, gradient)`` pairs of record ``start`` still to accumulate. Identities (a variable
    read, ``tf.identity``) pass slices through, a cast casts their values; every other rule gets them densified.
    """
    state = _SparseState(path, targets, source_ids)
    for t, ig in rest:
        state.accumulate(grads, t, ig, start)
    identity, cast = P.IDENTITY, P.CAST
    for index in range(start - 1, -1, -1):
        op, inputs, outputs, attrs, _where = path[index]
        vjp = op.vjp
        if vjp is None:
            continue
        if not op.multi_output:
            g = state.take(grads, outputs._id)
            if g is None:
                continue
        else:
            g = tuple([state.take(grads, o._id) for o in outputs])
            if all(x is None for x in g):
                continue
            g = tuple([state.dense(x) for x in g])
        if op is READ_VARIABLE:
            state.accumulate(grads, inputs[0], g, index)
            continue
        if _is_slices(g):
            if op is identity:
                state.accumulate(grads, inputs[0], g, index)
                continue
            if op is cast:
                x = inputs[0]
                values = g.values
                if x._value.dtype.kind in "fc" and values._value.dtype.kind in "fc":
                    if values._value.dtype != x._value.dtype:
                        values = _cast_back(values, x)
                    state.accumulate(grads, x, type(g)(values, g.indices, g.dense_shape), index)
                continue
            g = state.dense(g)
        needs = tuple([t._id in reach for t in inputs])
        if len(inputs) == 1:
            in_grads = vjp(g, outputs, inputs[0], **attrs)
        elif op.vjp_needs:
            in_grads = vjp(g, outputs, *inputs, needs, **attrs)
        else:
            in_grads = vjp(g, outputs, *inputs, **attrs)
        for t, need, ig in zip(inputs, needs, in_grads):
            if need and ig is not None:
                state.accumulate(grads, t, ig, index)
    for sid in source_ids:
        g = grads.get(sid)
        if type(g) is _Parts:
            grads[sid] = state.combine(g)


def _cast_back(values, x):
    """The values of a sparse gradient cast to the dtype of the cast's input ``x``, as ``tf.cast`` does it."""
    if values._value.dtype.kind == "c" and x._value.dtype.kind != "c":
        get_logger().warning(f"You are casting an input of type {values.dtype.name} to an incompatible dtype "
                             f"{x.dtype.name}.  This will discard the imaginary part and may not be what you "
                             "intended.")
    return execute(P.CAST, (values,), {"dtype": x._value.dtype.type})


class _SparseState:
    """What the sparse scan needs besides ``grads``: TF's processing order of the records (computed once, when
    several slices of one tensor first meet)."""

    def __init__(self, path, targets, source_ids):
        self.path, self.targets, self.source_ids = path, targets, source_ids
        self.origin = {}  # tensor id -> index of the record whose rule gave its first gradient
        self.order = None

    def take(self, grads, tid):
        """The gradient of ``tid`` for its producer's rule, combined (kept in ``grads`` for sources)."""
        if tid in self.source_ids:
            g = grads.get(tid)
            if type(g) is _Parts:
                g = grads[tid] = self.combine(g)
            return g
        g = grads.pop(tid, None)
        return self.combine(g) if type(g) is _Parts else g

    def dense(self, g):
        return g._tapeflow_to_tensor() if _is_slices(g) else g  # densifying is installed by the op set

    def accumulate(self, grads, t, ig, index):
        tid = t._id
        if not _is_slices(ig):
            shape = t._value.shape
            if ig._value.shape != shape:
                ig = unbroadcast(ig, shape)
        prev = grads.get(tid)
        if prev is None:
            grads[tid] = ig
            self.origin[tid] = index
        elif type(prev) is _Parts:
            prev.append((index, ig))
        elif _is_slices(prev) or _is_slices(ig):
            grads[tid] = _Parts([(self.origin.get(tid, -1), prev), (index, ig)])
        else:
            grads[tid] = _add(prev, ig)

    def combine(self, parts):
        if self.order is None:
            self.order = _tf_order(self.path, self.targets, self.source_ids)
        order = self.order
        parts = sorted(parts, key=lambda p: order.get(p[0], -1))
        grads = [g for _, g in parts]
        if all(_is_slices(g) for g in grads):
            return type(grads[0])._concat(grads)
        total = None
        for g in grads:
            g = self.dense(g)
            total = g if total is None else _add(total, g)
        return total


def _tf_order(path, targets, source_ids):
    """``{record index: position}`` in TensorFlow's backward pass over the same records.

    TF (``tape.h``) counts each tensor's uses by the ops between the targets and the sources, then processes an op
    once every use of its outputs is done, queueing newly ready ops at the front of a vector it pops from the
    back: a breadth-first order. The slices a tensor receives are concatenated in that order, so it is what
    ``tape.gradient`` shows for a variable gathered several times.
    """
    producer = {}
    for i, rec in enumerate(path):
        out = rec[2]
        for o in out if type(out) is tuple else (out,):
            producer[o._id] = i
    usage, ops, visited = {}, set(), []
    stack = [t._id for t in targets]
    while stack:
        i = producer.get(stack.pop())
        if i is None or i in ops:
            continue
        ops.add(i)
        visited.append(i)
        for t in path[i][1]:
            tid = t._id
            if tid in usage:
                usage[tid] += 1
            else:
                usage[tid] = 1
                if tid not in source_ids and tid in producer:
                    stack.append(tid)
    missing = {}
    for tid in usage:
        i = producer.get(tid)
        if i is not None:
            missing[i] = missing.get(i, 0) + 1
    # TF starts from the ready ops in the reverse of the order it found them (its hash map's iteration order for
    # small tapes) and pops from the back: the op it found first, the last target's, goes first.
    queue = [i for i in reversed(visited) if i not in missing]
    order = {}
    while queue:
        i = queue.pop()
        if i not in ops or i in order:
            continue
        order[i] = len(order)
        for t in path[i][1]:
            tid = t._id
            if tid not in usage:
                continue
            usage[tid] -= 1
            if usage[tid] == 0 and tid in producer:
                p = producer[tid]
                missing[p] -= 1
                if missing[p] == 0:
                    queue.insert(0, p)
    return order
