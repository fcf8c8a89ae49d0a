"""The kinds of gradient the backward scan carries, and what each one does differently.

There is one reverse scan (:func:`tapeflow._core.backprop.walk`): it visits the stored equations from the last to
the first, takes each output's gradient by id (popped, or kept when the output is a source), skips an equation
none of whose outputs has one, computes ``needs`` from ``reach``, and accumulates the input gradients per id.
What a gradient *is* differs from pass to pass, and a :class:`Kind` supplies everything that depends on it:

==============  ===========================================================================================
``call``        ``call(op, g, eq, needs)``: the input gradients of equation ``eq`` for upstream ``g``, one per
                input (a tuple, ``None`` for a symbolic zero), or a :class:`Handover` to another kind
``fit``         ``fit(ig, value, tid)``: an input gradient made ready to store for the input ``tid``, value ``value``
                (summed back to its shape: rules return gradients at the broadcast shape)
``add``         ``add(a, b)``: two gradients of one value, summed
``read``        ``read(g, eq)``: what a variable read makes of its output gradient before it goes to the
                variable, or ``None`` when it passes on as it is (a read is an identity, and nothing is fitted)
``arrays``      whether the scan runs an op's rule on arrays (``Op.raw``) inline, where it has one: the array
                kind's fast path, spelled out in the scan for one and two inputs
``finish``      ``finish(grads)`` once the scan is over, or ``None``
==============  ===========================================================================================

The kinds:

* :data:`TENSORS`: dense tensors; rules run through ``execute``, so a tape that records sees the backward pass
  (higher derivatives). A rule that gives an ``IndexedSlices`` hands over to :class:`Sparse`.
* :data:`ARRAYS`: NumPy arrays, for a pass nothing records; ops with a rule on arrays run it inline in the scan,
  the others run their tensor rule on rebuilt tensors and give back the values. A tensor rule that gives an
  ``IndexedSlices`` hands over to :class:`Sparse` (the gradients held so far become tensors).
* :class:`Sparse`: tensors or ``IndexedSlices``, made per pass at the handover. It keeps slices apart, lets them
  through identities and casts, and combines the several gradients of one value in TensorFlow's order.
* ``jacobian.BATCHED``: a batch of cotangents with a leading batch axis, or the identity seed kept as a
  ``Diagonal`` (``jacobian.py``).
"""

from __future__ import annotations

from operator import add as _add_arrays

from . import primitives as P
from .dispatch import execute
from .equation import as_tensors, tensor_of
from .logs import get_logger
from .state import STATE
from .tensor import wrap

__all__ = ["Kind", "Handover", "TENSORS", "ARRAYS", "Sparse", "call_vjp", "unbroadcast", "unbroadcast_array",
           "is_slices", "RAW_ERRORS"]

#: What a rule on arrays may raise for inputs TF's ops reject (a mismatched ``output_gradients``): the pass then
#: starts again on tensors, whose ops raise TF's error (``backprop.backward``).
RAW_ERRORS = (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError, OverflowError)

# Rules are called only for equations that are not variable reads (the scan passes those on itself), so tensors
# are rebuilt without looking a variable up.
_NO_VARIABLES = {}

_SUM_ATTRS = {}
_UNSEEN = object()


# ------------------------------------------------------------------------------------------ shapes


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
    """Sum the tensor ``g`` down to ``shape``: over leading axes and axes where ``shape`` is 1, then reshape."""
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


def unbroadcast_array(g, shape):
    """:func:`unbroadcast` on a NumPy value, with the same kernels (the ops' own forwards)."""
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


def fit_varying(g, value, tid, tracer):
    """The tensor ``g`` summed down to the input ``tid`` (whose value is ``value``) in a traced loop body whose
    tensors change shape between iterations (``Tracer.shape_dynamic``): by the static shapes, where a ``None``
    dimension is never taken for a 1, and with ``SumLike`` (the shape read when the program runs) where the
    input's own shape varies."""
    want = tracer.static_dims(tid, value.shape)
    have = tracer.static_dims(g._id, g._value.shape)
    if want == have and g._value.shape == value.shape:
        return g
    if want is None or have is None or None in want:
        return execute(P.SUM_LIKE, (g, tensor_of(tid, value)))
    lead = len(have) - len(want)
    axes = list(range(lead))
    axes += [i + lead for i, d in enumerate(want) if d == 1 and have[i + lead] != 1]
    if axes:
        g = execute(P.SUM, (g,), {"axis": tuple(axes), "keepdims": False})
    if g._value.shape != want:
        g = execute(P.RESHAPE, (g,), {"shape": want})
    return g


# ------------------------------------------------------------------------------------------ the interface


def call_vjp(op, g, outputs, inputs, needs, attrs):
    """``op``'s rule on tensors, called as every pass calls it: a single input always needs its gradient, so a
    one-input rule gets no ``needs``; a rule declared with ``defvjp(needs=True)`` gets it after its inputs."""
    vjp = op.vjp
    if len(inputs) == 1:
        return vjp(g, outputs, inputs[0], **attrs)
    if op.vjp_needs:
        return vjp(g, outputs, *inputs, needs, **attrs)
    return vjp(g, outputs, *inputs, **attrs)


def is_slices(g):
    """Whether ``g`` is an ``IndexedSlices`` (told by a class attribute: the core never imports the op set)."""
    return getattr(g, "_tapeflow_indexed_slices", False)


class Kind:
    """A kind of gradient: the hooks the scan calls (see the module docstring). ``hooks`` holds them in the order
    the scan unpacks them, bound once, so that starting a pass costs one attribute read."""

    arrays = False
    read = None
    finish = None

    def __init__(self):
        self.hooks = (self.arrays, self.read, self.call, self.fit, self.add)

    def call(self, op, g, eq, needs):
        raise NotImplementedError

    def fit(self, ig, value):
        raise NotImplementedError

    def add(self, a, b):
        raise NotImplementedError


class Handover:
    """What ``call`` returns when its kind cannot hold an equation's input gradients (a rule gave an
    ``IndexedSlices``): the scan goes on from this equation with ``kind(path, grads, source_ids, targets, eq,
    convert)``, which takes over the gradients held so far (each made a tensor by ``convert``, when given), and
    stores ``grads``, this equation's input gradients, with it."""

    __slots__ = ("kind", "grads", "convert")

    def __init__(self, kind, grads, convert=None):
        self.kind, self.grads, self.convert = kind, grads, convert


# ------------------------------------------------------------------------------------------ dense kinds


class _Tensors(Kind):
    """Dense tensors, every rule run as ops (so an outer tape records the pass)."""

    def call(self, op, g, eq, needs):
        _op, inputs, outputs, attrs, _where = as_tensors(eq, _NO_VARIABLES)
        in_grads = call_vjp(op, g, outputs, inputs, needs, attrs)
        for need, ig in zip(needs, in_grads):
            if need and ig is not None and is_slices(ig):  # a gather's: slices from here on
                return Handover(Sparse, in_grads)
        return in_grads

    def fit(self, ig, value, tid):
        if STATE.tracer is not None and STATE.tracer.shape_dynamic:
            return fit_varying(ig, value, tid, STATE.tracer)
        shape = value.shape
        return ig if ig._value.shape == shape else unbroadcast(ig, shape)

    def add(self, a, b):
        """Recorded like any op (for higher derivatives)."""
        return execute(P.ADD, (a, b))


class _Arrays(Kind):
    """NumPy arrays, for a pass nothing records. The scan runs rules on arrays itself (``arrays``); ``call`` is
    for ops without one: their tensor rule on tensors rebuilt from the equation, giving back the values."""

    arrays = True
    add = staticmethod(_add_arrays)

    def call(self, op, g, eq, needs):
        _op, inputs, outputs, attrs, _where = as_tensors(eq, _NO_VARIABLES)
        tg = wrap(g) if not op.multi_output else tuple([None if x is None else wrap(x) for x in g])
        try:
            in_grads = call_vjp(op, tg, outputs, inputs, needs, attrs)
        except RAW_ERRORS as exc:
            exc._tapeflow_tensor_rule = True  # a tensor rule's own error: not to be retried on tensors
            raise
        if any(is_slices(x) for x in in_grads):
            return Handover(Sparse, in_grads, wrap)
        return tuple([None if x is None else x._value for x in in_grads])

    def fit(self, ig, value, tid):
        shape = value.shape
        return ig if ig.shape == shape else unbroadcast_array(ig, shape)


TENSORS = _Tensors()
ARRAYS = _Arrays()


# ------------------------------------------------------------------------------------------ sparse gradients


class _Parts(list):
    """Several gradients of one value, ``(position, gradient)`` each, at least one an ``IndexedSlices``.

    They are combined when the value's gradient is used, as TF does: concatenated slices in the order TF's
    backward pass produced them, or a dense sum as soon as one of them is dense.
    """

    __slots__ = ()


def _dense(g):
    return g._tapeflow_to_tensor() if is_slices(g) else g  # densifying is installed by the op set


def _cast_back(values, x):
    """The values of a sparse gradient cast to the dtype of the cast's input ``x``, as ``tf.cast`` does it."""
    if values._value.dtype.kind == "c" and x._value.dtype.kind != "c":
        get_logger().warning(f"You are casting an input of type {values.dtype.name} to an incompatible dtype "
                             f"{x.dtype.name}.  This will discard the imaginary part and may not be what you "
                             "intended.")
    return execute(P.CAST, (values,), {"dtype": x._value.dtype.type})


class Sparse(Kind):
    """Tensors or ``IndexedSlices``, from the first rule that gives slices to the end of the pass.

    A stored gradient carries the position of the equation whose rule gave it: ``(position, gradient)``, or a
    :class:`_Parts` of such pairs once slices meet another gradient of the same value. The position is the
    equation's ``id`` (the scan holds every equation), ``-1`` for gradients held before the handover; TF's order
    over positions (:func:`_tf_order`) is computed when parts are first combined.
    """

    def __init__(self, path, grads, source_ids, targets, eq, convert=None):
        self.path, self.grads, self.source_ids, self.targets = path, grads, source_ids, targets
        self.order = None
        self.current = id(eq)  # the position of the equation whose gradients are being stored
        for k, g in grads.items():
            grads[k] = (-1, g if convert is None else convert(g))
        super().__init__()

    def _take(self, tid, g):
        """The gradient ``g`` (as stored for ``tid``) combined, for its producer's rule; a source keeps it
        combined."""
        if type(g) is not _Parts:
            return g[1]
        combined = self.combine(g)
        if tid in self.source_ids:
            self.grads[tid] = (g[0][0], combined)
        return combined

    def read(self, g, eq):
        self.current = id(eq)
        return (self.current, self._take(eq[4], g))

    def call(self, op, g, eq, needs):
        self.current = id(eq)
        outputs = eq[4]
        if op.multi_output:
            g = tuple([None if x is None else _dense(self._take(o, x)) for o, x in zip(outputs, g)])
        else:
            g = self._take(outputs, g)
        _op, inputs, out, attrs, _where = as_tensors(eq, _NO_VARIABLES)
        if is_slices(g):
            # Identities pass slices through and a cast casts their values; every other rule gets them dense.
            if op is P.IDENTITY:
                return (g,)
            if op is P.CAST:
                x = inputs[0]
                values = g.values
                if x._value.dtype.kind not in "fc" or values._value.dtype.kind not in "fc":
                    return (None,)
                if values._value.dtype != x._value.dtype:
                    values = _cast_back(values, x)
                return (type(g)(values, g.indices, g.dense_shape),)
            g = _dense(g)
        return call_vjp(op, g, out, inputs, needs, attrs)

    def fit(self, ig, value, tid):
        if not is_slices(ig):
            if STATE.tracer is not None and STATE.tracer.shape_dynamic:
                ig = fit_varying(ig, value, tid, STATE.tracer)
            elif ig._value.shape != value.shape:
                ig = unbroadcast(ig, value.shape)
        return (self.current, ig)

    def add(self, prev, new):
        if type(prev) is _Parts:
            prev.append(new)
            return prev
        if is_slices(prev[1]) or is_slices(new[1]):
            return _Parts([prev, new])
        return (prev[0], execute(P.ADD, (prev[1], new[1])))

    def finish(self, grads):
        """Combine and unwrap the sources' gradients (the pass reads no other)."""
        for sid in self.source_ids:
            g = grads.get(sid)
            if g is not None:
                grads[sid] = self.combine(g) if type(g) is _Parts else g[1]

    def combine(self, parts):
        if self.order is None:
            self.order = _tf_order(self.path, self.targets, self.source_ids)
        order = self.order
        parts = sorted(parts, key=lambda p: order.get(p[0], -1))
        grads = [g for _, g in parts]
        if all(is_slices(g) for g in grads):
            return type(grads[0])._concat(grads)
        total = None
        for g in grads:
            g = _dense(g)
            total = g if total is None else execute(P.ADD, (total, g))
        return total


def _tf_order(path, targets, source_ids):
    """``{position: rank}`` in TensorFlow's backward pass over the same equations (position: the equation's id).

    TF (``tape.h``) counts each tensor's uses by the ops between the targets and the sources, then processes an op
    once every use of its outputs is done, queueing newly ready ops at the front of a vector it pops from the
    back: a breadth-first order. The slices a tensor receives are concatenated in that order, so it is what
    ``tape.gradient`` shows for a variable gathered several times.
    """
    producer = {}
    for i, eq in enumerate(path):
        out = eq[4]
        for o in out if type(out) is tuple else (out,):
            producer[o] = i
    usage, ops, visited = {}, set(), []
    stack = [t._id for t in targets]
    while stack:
        i = producer.get(stack.pop())
        if i is None or i in ops:
            continue
        ops.add(i)
        visited.append(i)
        for tid in path[i][6::2]:
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
        for tid in path[i][6::2]:
            if tid not in usage:
                continue
            usage[tid] -= 1
            if usage[tid] == 0 and tid in producer:
                p = producer[tid]
                missing[p] -= 1
                if missing[p] == 0:
                    queue.insert(0, p)
    return {id(path[i]): rank for i, rank in order.items()}

