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
"""

from __future__ import annotations

import numpy as np

from . import errors
from .convert import c_name
from .dispatch import READ_VARIABLE, execute
from .dtypes import TRAINABLE_NUMS
from .state import loud, quiet
from .tensor import wrap

__all__ = ["backward", "unbroadcast"]


_OPS = _ADD = _SUM = _ALL_AXES = None


def _ops():
    """``(math_ops, array_ops, reduction_ops)``, imported on first use: the op modules build on this package."""
    global _OPS, _ADD, _SUM, _ALL_AXES
    if _OPS is None:
        from ..ops import array_ops, math_ops, reduction_ops

        _OPS = (math_ops, array_ops, reduction_ops)
        _ADD, _SUM, _ALL_AXES = math_ops.ADD, reduction_ops.SUM, reduction_ops.ALL_AXES
    return _OPS


_AXES = {}


def _sum_axes(gshape, shape):
    """The axes to sum a gradient of ``gshape`` over to reach ``shape`` (memoised: shapes repeat every step)."""
    key = (gshape, shape)
    axes = _AXES.get(key)
    if axes is None:
        lead = len(gshape) - len(shape)
        axes = list(range(lead)) if lead > 0 else []
        for i, d in enumerate(shape):
            if d == 1 and i + lead >= 0 and gshape[i + lead] != 1:
                axes.append(i + lead)
        axes = tuple(axes)
        if len(_AXES) < 4096:
            _AXES[key] = axes
    return axes


def unbroadcast(g, shape):
    """Sum ``g`` down to ``shape``: over leading axes and axes where ``shape`` is 1, then reshape."""
    _, array_ops, reduction_ops = _OPS or _ops()
    if not shape:
        return execute(_SUM, (g,), _ALL_AXES)  # the common case, to a scalar
    axes = _sum_axes(g._value.shape, shape)
    if axes:
        g = execute(reduction_ops.SUM, (g,), {"axis": axes, "keepdims": False})
    if g._value.shape != shape:
        g = array_ops.reshape(g, shape)
    return g


def _seed(target, og, array_ops):
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
        return array_ops.broadcast_to(og, shape)
    if len(oshape) == len(shape):
        return og
    raise errors.op_error("Reshape", f"Input to reshape is a tensor with {int(np.prod(oshape))} values, but the "
                          f"requested shape has {int(np.prod(shape))}")


def backward(recording, targets, sources, output_gradients=None):
    """Gradients of ``sum(targets)`` with respect to each source (a list with ``None`` where unconnected).

    Args:
        recording: a tape's :class:`~tapeflow._core.dispatch.Recording`.
        targets: tensors, or variables (whose id is the target).
        sources: tensors or variables.
        output_gradients: optional list of tensors (or ``None``) aligned with ``targets``.
    """
    _, array_ops, _ = _ops()
    source_ids = {s._id for s in sources}
    records = recording.records
    if recording.roots <= source_ids:
        # Every watched value is a source (the usual training step): all that is tracked lies downstream of a
        # source, so nothing needs pruning.
        reach, path = recording.tracked, records
    else:
        reach, path = _prune(records, sources)

    grads = {}
    for i, target in enumerate(targets):
        if target._id not in reach and target._id not in source_ids:
            continue
        og = output_gradients[i] if output_gradients is not None and i < len(output_gradients) else None
        seed = _seed(target, og, array_ops)
        prev = grads.get(target._id)
        grads[target._id] = seed if prev is None else _add(prev, seed)

    if grads:
        token = quiet()  # NaN and inf gradients are results here, as in TF, not warnings
        try:
            _walk(path, grads, reach, source_ids)
        finally:
            loud(token)
    # Integer targets are seeded too: a source that is itself such a target gets its ones (TF's gradient(i, i)).
    get = grads.get
    out = []
    for s in sources:
        out.append(get(s._id))
    return out


def _prune(records, sources):
    """``(reach, path)``: ids of floating values downstream of a source, and the records on such paths."""
    # Integer values carry no gradient, so they never enter ``reach``.
    reach = {s._id for s in sources if s._value.dtype.num in TRAINABLE_NUMS}
    path = []
    for rec in records:
        for t in rec[1]:
            if t._id in reach:
                break
        else:
            continue
        path.append(rec)
        out = rec[2]
        if type(out) is tuple:
            reach.update(o._id for o in out if o._value.dtype.num in TRAINABLE_NUMS)
        elif out._value.dtype.num in TRAINABLE_NUMS:
            reach.add(out._id)
    return reach, path


def _add(a, b):
    """Sum two gradients of one value (recorded like any op, for higher derivatives)."""
    return execute(_ADD, (a, b))


def _walk(path, grads, reach, source_ids):
    """The reversed scan: run each record's rule and accumulate input gradients into ``grads``."""
    get, pop = grads.get, grads.pop
    for op, inputs, outputs, attrs, _where in reversed(path):
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
            ig = g if op is READ_VARIABLE else vjp(g, outputs, t, **attrs) if attrs else vjp(g, outputs, t)
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
                if ig._value.shape != shape:
                    ig = unbroadcast(ig, shape)
                prev = get(t._id)
                grads[t._id] = ig if prev is None else _add(prev, ig)
