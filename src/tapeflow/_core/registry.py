"""The op registry: every primitive's forward and gradient rule, side by side.

Two typing rules hold for every op (and are what makes higher derivatives free):

* ``forward(*values, **attrs)`` receives NumPy values and returns a NumPy value (or a tuple of them when the
  op has several outputs). It never sees a tensor.
* ``vjp(g, ans, *inputs, **attrs)`` receives tensors (the upstream gradient ``g``, the op's output ``ans`` and
  its inputs) and returns a tuple of one gradient per input (a 1-tuple for a one-input op), written with
  tapeflow's own ops. Because they are ordinary
  ops, an outer ``GradientTape`` records them, and nested tapes give second and higher derivatives.

A rule may return ``None`` for an input: the symbolic zero. It may also take a ``needs`` parameter right after the
inputs, a tuple of bools saying which inputs want a gradient, to skip work (matmul computes only the side that is
asked for); it says so where it is registered, ``@OP.defvjp(needs=True)``.
Gradients are summed back to each input's shape by the backward pass (``backprop.py``), so rules for
broadcasting ops return the gradient at the broadcast shape and never unbroadcast themselves.

Ops with ``vjp = None`` are declared non-differentiable: gradients through them are ``None``, never zeros.

Forward mode (``tf.autodiff.ForwardAccumulator``) may use an op's own JVP rule,
``jvp(tangents, ans, *inputs, **attrs)``: ``tangents`` is a tuple aligned with the inputs (``None`` = zero tangent,
at least one is not), and the rule returns the output's tangent (a tuple for multi-output ops), written with
tapeflow ops like the gradient rules. An op without one gets its JVP from its gradient rule (transposing the
linear map ``g -> vjp(g)``), so every differentiable op has a JVP; own rules are for speed. They are registered
with ``@OP.defjvp`` in ``tapeflow/ops/jvp_rules.py``.

Defining an op::

    @defop("Exp", dtypes=FLOAT_COMPLEX)
    def EXP(x):
        return np.exp(x)

    @EXP.defvjp
    def _exp_grad(g, y, x):
        return (g * conj(y),)
"""

from __future__ import annotations

import numpy as np

from .opdefs import OPDEFS

__all__ = ["Op", "REGISTRY", "defop", "FLOAT", "FLOAT_COMPLEX", "NUMERIC", "REAL", "INTEGER", "ALL"]

# TF's names for types in "allowed values" messages, and their order there.
_TF_TYPE_NAMES = {
    "bfloat16": ("bfloat16", "DT_BFLOAT16"), "float16": ("half", "DT_HALF"), "float32": ("float", "DT_FLOAT"),
    "float64": ("double", "DT_DOUBLE"), "int8": ("int8", "DT_INT8"), "int16": ("int16", "DT_INT16"),
    "int32": ("int32", "DT_INT32"), "int64": ("int64", "DT_INT64"), "uint8": ("uint8", "DT_UINT8"),
    "uint16": ("uint16", "DT_UINT16"), "uint32": ("uint32", "DT_UINT32"), "uint64": ("uint64", "DT_UINT64"),
    "complex64": ("complex64", "DT_COMPLEX64"), "complex128": ("complex128", "DT_COMPLEX128"),
    "bool": ("bool", "DT_BOOL"), "string": ("string", "DT_STRING"),
}

_FROM_TF_NAME = {"half": "float16", "float": "float32", "double": "float64"}

FLOAT = ("bfloat16", "float16", "float32", "float64")
FLOAT_COMPLEX = FLOAT + ("complex64", "complex128")
INTEGER = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REAL = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
        "uint32", "uint64")
NUMERIC = REAL + ("complex64", "complex128")
ALL = NUMERIC + ("bool", "string")

REGISTRY: dict[str, Op] = {}


class Op:
    """One primitive: its TF op name, NumPy forward, tensor-level gradient rule and input checks.

    Attributes:
        name: TensorFlow's op name (``"AddV2"``, ``"MatMul"``), used in error messages and by the tape.
        forward: ``forward(*values, **attrs)`` on NumPy values.
        vjp: the gradient rule (see the module docstring), or ``None`` for a non-differentiable op.
        raw: optionally, the same rule on NumPy values (:meth:`defraw`), for backward passes nothing records.
        num_outputs: 1 for a single result (the common case), else the length of the tuple ``forward`` returns.
        allowed: dtype names the first input may have (``None``: any); checked before ``forward`` runs.
        same_dtype: whether all inputs must share the first input's dtype (TF's ``T`` attribute).
        signature: TF's signature text for "not in the list of allowed values" errors.
        on_error: ``on_error(exc, values, attrs)`` turns a NumPy exception into TF's error (optional).
        quiet: run the forward with NumPy's floating-point warnings off (ops that can make NaN or inf, which
            TF returns without a word).
        stateful: whether two runs on the same inputs may differ or act outside the program (random ops,
            printing); ``defop(..., stateful=True)``.
        value_sized: for an op whose output sizes follow its input values (``tf.unique``, a boolean mask, a
            split), ``{output: dimensions}`` (``None`` for all of them): a trace leaves those sizes unknown.
    """

    __slots__ = ("name", "forward", "vjp", "vjp_needs", "raw", "raw_needs", "num_outputs", "allowed", "allowed_nums",
                 "same_dtype", "signature", "on_error", "quiet", "multi_output", "doc", "jvp", "accepted",
                 "key", "stateful", "lower", "value_sized")

    def __init__(self, name, forward, num_outputs=1, allowed=None, same_dtype=True, signature=None,
                 on_error=None, quiet=False):
        self.name = name
        self.forward = forward
        self.vjp = None
        self.jvp = None  # own forward-mode rule (optional: derived from ``vjp`` when absent)
        self.vjp_needs = False
        self.raw = None
        self.raw_needs = False
        self.num_outputs = num_outputs
        # A tuple-returning op stays one even with a single output (unstacking an axis of length 1).
        self.multi_output = num_outputs != 1
        tf_def = OPDEFS.get(name)
        if tf_def is not None and tf_def[0] is not None:
            allowed = tuple(_FROM_TF_NAME.get(t, t) for t in tf_def[0])  # TF's own list, in TF's order
        self.allowed = allowed
        self.allowed_nums = None if allowed is None else frozenset(
            np.dtype(object if t == "string" else t).num for t in allowed if t in _TF_TYPE_NAMES and
            t != "bfloat16")
        self.same_dtype = same_dtype
        self.signature = signature
        self.on_error = on_error
        self.quiet = quiet
        self.doc = forward.__doc__
        # The dtype ``execute`` last found in ``allowed`` (a dtype object, compared by identity): it spares the
        # set lookup on every call after the first. Whatever changes ``allowed_nums`` resets it.
        self.accepted = None
        # How a stored equation names it: the name ``defop`` registered it under (usually ``name``), else the op
        # itself (a custom gradient's op, which no registry holds).
        self.key = self
        # Whether running it twice on the same inputs may differ or act on the world (random ops, printing): a
        # compiler never folds, merges or drops it.
        self.stateful = False
        # How a compiler spells it in generated code: ``lower(input_names, attrs) -> expression text`` (optional;
        # ``tapeflow.compiler`` inlines a forward that returns one expression by itself).
        self.lower = None
        self.value_sized = None

    def set_lower(self, lower):
        """Register how a compiler spells this op in generated code: ``lower(input_names, attrs)`` returns a
        Python expression over those names (``tapeflow.compiler``); use as a decorator under the forward."""
        self.lower = lower
        return lower

    def defvjp(self, rule=None, *, needs=False):
        """Register ``rule`` as this op's gradient; use as a decorator right under the forward, ``@OP.defvjp``, or
        ``@OP.defvjp(needs=True)`` for a rule that takes the ``needs`` mask after its inputs."""
        if rule is None:
            return lambda fn: self.defvjp(fn, needs=needs)
        self.vjp = rule
        self.vjp_needs = needs
        return rule

    def defraw(self, rule=None, *, needs=False):
        """Register ``rule``, the gradient rule on NumPy values, used when nothing records the backward pass
        (``@OP.defraw``, or ``@OP.defraw(needs=True)`` as for :meth:`defvjp`).

        It takes and returns arrays where :meth:`defvjp`'s rule takes and returns tensors, and must compute the
        same values with the same kernels (the op database checks that they agree bit for bit): it spares the
        backward pass of a plain training step one tensor per gradient and one dispatch per gradient op.
        """
        if rule is None:
            return lambda fn: self.defraw(fn, needs=needs)
        if self.vjp is None:  # the backward pass on arrays tells a non-differentiable op by ``vjp`` alone
            raise ValueError(f"op {self.name!r}: register its tensor rule (defvjp) before its rule on arrays")
        self.raw = rule
        self.raw_needs = needs
        return rule

    def defjvp(self, rule):
        """Register ``rule`` as this op's own forward-mode derivative (see the module docstring)."""
        self.jvp = rule
        return rule

    @property
    def differentiable(self) -> bool:
        return self.vjp is not None

    def allowed_text(self):
        """``(names, DT_NAMES)`` of the allowed dtypes, as TF's attr error lists them."""
        names = [_TF_TYPE_NAMES.get(t, (t, "DT_" + t.upper())) for t in self.allowed]
        return ", ".join(n for n, _ in names), ", ".join(d for _, d in names)

    def tf_signature(self):
        """TF's ``Op<name=...; signature=...>`` summary of this op, or ``None`` for ops TF does not have."""
        tf_def = OPDEFS.get(self.name)
        return None if tf_def is None else tf_def[1]

    def __repr__(self):
        return f"<Op {self.name}>"


def defop(name, *, num_outputs=1, dtypes=None, same_dtype=True, signature=None, on_error=None, quiet=False,
          multi_output=None, stateful=False):
    """Register a primitive whose forward is the decorated function; returns the :class:`Op`.

    Add the gradient right below with ``@OP.defvjp``; an op without one is non-differentiable.
    """

    def decorate(forward):
        if name in REGISTRY:
            raise ValueError(f"op {name!r} is registered twice")
        op = Op(name, forward, num_outputs, dtypes, same_dtype, signature, on_error, quiet)
        if multi_output is not None:
            op.multi_output = multi_output
        REGISTRY[name] = op
        op.key = name
        op.stateful = stateful
        return op

    return decorate
