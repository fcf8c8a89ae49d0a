"""``tf.autodiff.ForwardAccumulator``: forward-mode differentiation (Jacobian-vector products).

How it plugs in, as a recording observer of the hook (``observers.py``): ``execute`` records each op on every entry
of this thread's ``STATE.tapes`` that tracks one of its inputs, by reading ``entry.tracked`` and calling
``entry.records.append(equation)`` with the equation's stored form (``equation.py``). An accumulator pushes an
:class:`_Accumulating` there, an object with that interface whose ``append`` computes the output tangents at once
(keyed by tensor id) instead of storing the equation. Variable reads arrive the same way (``Variable._read``): a
variable primal's tangent passes to every read of it, even after an ``assign`` (as in TF, where the tangent belongs
to the variable's handle). Assignments are not reported to it: they carry no tangent.

Tangents are computed with tapeflow ops, while ``STATE.tapes`` is cut down to the entries *outside* this
accumulator (entered before it). That gives TF's strict nesting:

* an outer ``GradientTape`` (or accumulator) records the JVP computations: reverse-over-forward (and
  forward-over-forward) derivatives;
* tapes and accumulators entered inside this one ignore its JVP computations;
* a ``GradientTape``'s backward pass run while the accumulator is active goes through ``execute`` like any op,
  so its JVP is computed: ``acc.jvp(tape.gradient(y, x))`` is a forward-over-reverse Hessian-vector product.

Each op's JVP comes from its own rule (``Op.jvp``, registered in ``tapeflow/ops/jvp_rules.py``) or, without one,
from its gradient rule by transposition, as TF computes every JVP: with ``u`` a watched dummy cotangent (ones, as
TF uses), ``jvp(v) = d/du <vjp(u), v>``, i.e. the gradient of ``vjp(u)`` with respect to ``u`` taking ``v`` as
output gradients. Gradient rules are linear in ``u`` and written with tapeflow ops, so this is exact and nests.
A rule may return :data:`DERIVE` to hand a case (complex inputs, say) to the transposition.

Tangents are kept while their tensor's array lives (a weak reference drops them with it: a tape keeps the arrays of
what it recorded, and its backward pass rebuilds tensors under the same ids); a rank-0 value is a NumPy scalar,
which cannot be referenced weakly, so its tangent stays until the accumulator exits. Integer and boolean values have
none. Tangent shapes are not validated (as in TF's eager mode): a broadcastable tangent is broadcast to its
primal's shape where an op uses it.
"""

from __future__ import annotations

import weakref

import numpy as np

from . import errors, nest
from . import primitives as P
from .backprop import unbroadcast
from .dispatch import execute
from .dtypes import TRAINABLE_NUMS
from .equation import READ, as_tensors, op_of
from .logs import log_first_n
from .state import STATE
from .tape import GradientTape, UnconnectedGradients
from .tensor import constant_of, convert_to_tensor, zeros_like_value

__all__ = ["ForwardAccumulator", "DERIVE", "derived_jvp"]

#: Returned by an own JVP rule for a case it leaves to the transposed gradient rule.
DERIVE = object()

def _fit(t, shape):
    """``t`` broadcast to ``shape`` when its shape differs (tangents are not validated, as in TF's eager mode)."""
    if t._value.shape != shape:
        # ``tf.broadcast_to(t, shape_tuple)``: TF's fallback path, whose errors carry no `` name:`` suffix.
        return errors.call_on_path(False, execute, P.BROADCAST_TO, (t,), {"shape": tuple(shape)})
    return t


def _trainable(t):
    return t._value.dtype.num in TRAINABLE_NUMS


def _call_vjp(op, g, outputs, inputs, needs, attrs):
    """``op``'s gradient rule for upstream ``g``, as a list aligned with ``inputs`` (the backward pass's calls)."""
    vjp = op.vjp
    if len(inputs) == 1:
        return list(vjp(g, outputs, inputs[0], **attrs))
    if getattr(op, "vjp_needs", False):
        return list(vjp(g, outputs, *inputs, needs, **attrs))
    return list(vjp(g, outputs, *inputs, **attrs))


def derived_jvp(op, tangents, outputs, inputs, attrs):
    """The JVP of ``op`` through its gradient rule: ``d/du <vjp(u), tangents>`` at ``u = ones``.

    Returns the output tangent (a list for multi-output ops, entries ``None`` where unconnected), or ``None``.
    """

    multi = op.multi_output
    outs = outputs if multi else (outputs,)
    aids = []
    for o in outs:
        if _trainable(o):
            v = o._value
            aids.append(constant_of(np.ones_like(v) if type(v) is np.ndarray else v.dtype.type(1)))
        else:
            aids.append(None)
    watched = [a for a in aids if a is not None]
    needs = tuple(t is not None for t in tangents)
    with GradientTape() as tape:
        tape.watch(watched)
        grads = _call_vjp(op, tuple(aids) if multi else aids[0], outputs, inputs, needs, attrs)
        pairs = []
        for x, t, ig in zip(inputs, tangents, grads):
            if t is None or ig is None:
                continue
            if getattr(ig, "_tapeflow_indexed_slices", False):
                ig = convert_to_tensor(ig)
            shape = x._value.shape
            if ig._value.shape != shape:
                ig = unbroadcast(ig, shape)
            pairs.append((ig, t))
    if not pairs:
        return None
    found = tape.gradient([ig for ig, _ in pairs], watched, output_gradients=[t for _, t in pairs])
    # A gather in the gradient rule transposes to sparse slices: tangents are dense.
    found = [convert_to_tensor(t) if getattr(t, "_tapeflow_indexed_slices", False) else t for t in found]
    if not multi:
        return found[0]
    it = iter(found)
    return [None if a is None else next(it) for a in aids]


def _tangent_of(op, tangents, outputs, inputs, attrs):
    """Output tangent(s) of one op, each fitted to its output (``None`` for integer outputs)."""
    multi = op.multi_output
    outs = outputs if multi else (outputs,)
    for o in outs:
        if _trainable(o):
            break
    else:
        return None
    tangents = tuple([t if t is None else _fit(t, x._value.shape) for t, x in zip(tangents, inputs)])
    rule = getattr(op, "jvp", None)
    result = DERIVE if rule is None else rule(tangents, outputs, *inputs, **attrs)
    if result is DERIVE:
        result = derived_jvp(op, tangents, outputs, inputs, attrs)
    if result is None:
        return None
    if not multi:
        return _fit(result, outputs._value.shape)
    return [None if t is None or not _trainable(o) else _fit(t, o._value.shape) for t, o in zip(result, outs)]


class _Accumulating:
    """What an active accumulator puts in ``STATE.tapes``: the interface ``execute`` records through.

    ``tracked`` holds the ids of values with a tangent (or an op may give them one); ``records`` is the object
    itself, whose :meth:`append` computes tangents. It never auto-watches variables (``watch_accessed``).
    """

    __slots__ = ("tracked", "tangents", "refs", "records", "variables", "watch_accessed", "__weakref__")


    def __init__(self):
        self.tracked = set()
        self.tangents = {}  # tensor or variable id -> tangent tensor
        self.refs = {}  # tensor id -> weak reference that drops the tangent with its tensor
        self.records = self
        self.variables = {}
        self.watch_accessed = False

    def watch_variable(self, var):  # part of the interface; unused since ``watch_accessed`` is False
        pass

    def keep(self, tid, value, tangent):
        """Keep ``tangent`` for tensor ``tid`` while its array ``value`` lives.

        A tape keeps the arrays of what it recorded (not the tensor objects) and its backward pass rebuilds tensors
        under the same ids, whose tangents must be found: so the array, not the tensor, bounds the tangent's life.
        """
        tangents, refs, tracked = self.tangents, self.refs, self.tracked
        tangents[tid] = tangent
        if type(value) is not np.ndarray:
            return  # a NumPy scalar cannot be referenced weakly: its (scalar) tangent stays until the exit

        def drop(_, tid=tid):
            tangents.pop(tid, None)
            refs.pop(tid, None)
            tracked.discard(tid)

        refs[tid] = weakref.ref(value, drop)

    def append(self, eq):
        """``execute`` recorded an op with a tracked input (``eq``, stored): compute the tangents of its outputs."""
        key, outputs, results = eq[0], eq[4], eq[5]
        get = self.tangents.get
        if key is READ:
            t = get(eq[6])
            if t is not None:
                self.keep(outputs, results, t)
            return
        tangents = tuple([get(i) for i in eq[6::2]])
        for t in tangents:
            if t is not None:
                break
        else:
            return
        op = op_of(key)
        if op.vjp is None:
            return  # non-differentiable (Round, StopGradient, ...): no tangent, as in TF
        tapes = STATE.tapes
        i = len(tapes)
        for k, entry in enumerate(tapes):
            if entry is self:
                i = k
                break
        _op, inputs, outs, attrs, _where = as_tensors(eq, self.variables)
        # Only what is outside this accumulator sees its JVP computations (TF's strict nesting). The per-thread
        # list is narrowed in place and restored whole (it also holds the listeners: ``state.Observers``); a loop
        # over it that called this method goes on over the same entries.
        saved = tapes[:]
        del tapes[i:]
        try:
            result = _tangent_of(op, tangents, outs, inputs, attrs)
        finally:
            tapes[:] = saved
        if result is None:
            return
        if not op.multi_output:
            self.keep(outputs, results, result)
        else:
            for o, v, t in zip(outputs, results, result):
                if t is not None:
                    self.keep(o, v, t)


_DUPLICATE = ("Tensor {} was specified as a primal multiple times. This may indicate an error. If it was intended, "
              "please sum the corresponding tangents.")


class ForwardAccumulator:
    """Compute Jacobian-vector products with forward-mode autodiff (``tf.autodiff.ForwardAccumulator``).

    Ops run while the accumulator is active (its ``with`` block) carry tangents forward from ``primals``;
    :meth:`jvp` looks them up. Variables may be primals: every read of one carries its tangent.

    Args:
        primals: a tensor or variable, or a nested structure of them, to watch.
        tangents: the same structure: each primal's tangent (the vector in the Jacobian-vector product).

    Raises:
        ValueError: if one tensor or variable is listed twice in ``primals``.

    Example::

        x = tf.constant([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant([1.0, 0.0])) as acc:
            y = x * x
        acc.jvp(y)  # [2., 0.]
    """

    def __init__(self, primals, tangents):
        P.load("jvp")  # the op set's own JVP rules, registered on first use
        self._state = _Accumulating()
        self._plain = {}  # tangents of integer (and other non-differentiable) primals: fetched, never propagated
        self._recording = False
        seen = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError(_DUPLICATE)
            seen.add(id(primal))
        nest.map_structure(self._watch, primals, tangents)

    def __enter__(self):
        self._push_accumulator()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_accumulator()

    def _push_accumulator(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        STATE.tapes.append(self._state)
        self._recording = True

    def _pop_accumulator(self):
        if not self._recording:
            raise ValueError("Accumulator is not recording.")
        tapes = STATE.tapes
        for i in range(len(tapes) - 1, -1, -1):
            if tapes[i] is self._state:
                del tapes[i]
                break
        self._recording = False

    def _watch(self, primal, tangent):
        dtype = primal.dtype
        if not dtype.is_floating:
            # TF logs from one line of its own: five times per process in all.
            log_first_n("WARNING", "The dtype of the watched primal must be floating (e.g. tf.float32), got "
                        f"{dtype!r}", 5, key=("forwardprop_primal_dtype",))
        tangent = convert_to_tensor(tangent, dtype=dtype)
        state = self._state
        if not _trainable(primal):
            self._plain[primal._id] = tangent
        elif getattr(primal, "_tapeflow_variable", False):
            state.tangents[primal._id] = tangent
            state.tracked.add(primal._id)
        else:
            state.keep(primal._id, primal._value, tangent)
            state.tracked.add(primal._id)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The Jacobian-vector products computed for ``primals`` (a tensor or nested structure of them).

        This only looks up tangents computed while the accumulator was active; a value computed otherwise (or
        unrelated to the watched primals) gives ``None``, or zeros with ``unconnected_gradients="zero"``.
        """
        unconnected = UnconnectedGradients(unconnected_gradients)
        tangents, plain = self._state.tangents, self._plain

        def fetch(tensor):
            tid = tensor._id
            result = tangents.get(tid)
            if result is None:
                result = plain.get(tid)
            if result is None and unconnected is UnconnectedGradients.ZERO:
                result = zeros_like_value(tensor)
            return result

        return nest.map_structure(fetch, primals)
