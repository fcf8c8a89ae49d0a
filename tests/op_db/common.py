"""The op database: one entry per registered primitive (``tapeflow._core.registry.REGISTRY``), OpInfo style.

Each :class:`OpEntry` says how to make its op run through the *public* API (``fn``), on which inputs
(``samples``: float64 NumPy arrays, the only arguments that are differentiated; anything static goes in
``Sample.kwargs``), what NumPy computes for it (``ref``), and what the gradient tests should expect:

* ``differentiable``: the op has a gradient rule (``op.vjp is not None``); ``False`` means gradients through it
  must be ``None``.
* ``second_order``: also check the second derivative (nested tapes) against differences of the first.
* ``zero_grad``: the rule returns zeros, not ``None`` (``tf.sign``, as in TensorFlow).
* ``covered_by``: for ops that user code only reaches through a gradient (``SqrtGrad``, ``ReluGrad`` ...), the
  entry whose first-order test runs them as part of its own backward pass (checked), and whose second-order
  test also runs their gradient rule unless ``covered_rule`` is False (the covering op is linear, so its first
  derivative is not recorded). These ops also have a direct ``fn`` here, through
  ``GradientTape.gradient(..., output_gradients=u)``, so that their forward and their own gradient rule (for
  both inputs, ``u`` included) are checked like any other op's.
* complex samples (``complex_samples=`` of :func:`op`, see :func:`cplx`): ops that take complex tensors are also
  run on ``z = re + i im`` built from real samples, returning real parts, to check the conjugations in the rules.
* ``runs_vjp``: the first-order test calls the op's gradient rule (checked); ``False`` only where the backward
  pass handles the op itself (``ReadVariableOp``).
* ``variables``: the sample arrays are passed as ``tf.Variable`` instead of tensors (``ReadVariableOp``).
* ``xfails``: ``{(check, sample name or "*"): reason}`` for known disagreements; check is "forward", "grad",
  "gradgrad" or "nograd". The tests mark those params ``xfail(strict=True)``.

``fn`` and ``ref`` take the sample's arrays positionally (tensors for ``fn``, arrays of the tested dtype for
``ref``) and its kwargs. They may return one value or a list of values (``tf.unstack``).

Sample data is drawn from a generator seeded by the entry and sample names, so it is the same on every run and
does not move when entries are added. Shapes are small and values stay clear of kinks (0 for ``abs``/``relu``,
ties for ``maximum``/``reduce_max``, integers of ``x / y`` for ``floormod``), so central differences apply.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import tapeflow as tf

__all__ = [
    "Sample", "OpEntry", "OP_DB", "op", "registry_name", "rng_for", "f64", "uniform", "nonzero", "positive",
    "make_sample",
    "UNARY_SHAPES", "BINARY_SHAPES", "unary", "binary", "apart", "frac_apart", "mask", "to_complex", "np_complex",
    "cplx", "cplx_ref", "complex_sample", "cunary", "cbinary", "vjp", "np_sigmoid", "np_softmax", "np_axis",
    "np_scatter", "reduction_samples", "distinct",
]


@dataclass(frozen=True)
class Sample:
    name: str
    args: tuple
    kwargs: dict = field(default_factory=dict)


@dataclass
class OpEntry:
    name: str
    fn: Callable
    ref: Callable
    samples: list
    differentiable: bool
    second_order: bool = False
    covered_by: str | None = None
    covered_rule: bool = True
    note: str = ""
    zero_grad: bool = False
    runs_vjp: bool = True
    variables: bool = False
    xfails: dict = field(default_factory=dict)

    def xfail_reason(self, check, sample):
        return self.xfails.get((check, sample.name)) or self.xfails.get((check, "*"))


def registry_name(key):
    """The db name for a registry key: the on-demand ``Unpack<n>`` ops are one family, ``Unpack``."""
    return "Unpack" if re.fullmatch(r"Unpack\d+", key) else key


# ------------------------------------------------------------------------------------------ sample data


def rng_for(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def f64(a):
    return np.asarray(a, dtype=np.float64)


def uniform(lo=-2.0, hi=2.0):
    return lambda rng, shape: f64(rng.uniform(lo, hi, size=shape))


def nonzero(lo=0.3, hi=2.0):
    """Magnitudes in ``[lo, hi]`` with random signs: clear of 0."""
    return lambda rng, shape: f64(rng.choice([-1.0, 1.0], size=shape) * rng.uniform(lo, hi, size=shape))


def positive(lo=0.5, hi=2.0):
    return uniform(lo, hi)


def make_sample(name, sample, gens, shapes, accept=None, kwargs=None):
    rng = rng_for(name, sample)
    for _ in range(1000):
        args = tuple(g(rng, s) for g, s in zip(gens, shapes))
        if accept is None or accept(*args):
            return Sample(sample, args, dict(kwargs or {}))
    raise RuntimeError(f"no accepted sample for {name}/{sample}")


UNARY_SHAPES = (("matrix", (2, 3)), ("scalar", ()))
BINARY_SHAPES = (
    ("same", (2, 3), (2, 3)),
    ("bcast_row", (2, 3), (3,)),
    ("bcast_outer", (2, 1), (1, 3)),
    ("scalar_y", (2, 3), ()),
    ("scalar_x", (), (3,)),
)


def unary(name, gen=None, shapes=UNARY_SHAPES, accept=None):
    gen = gen or uniform()
    return [make_sample(name, s, (gen,), (shape,), accept) for s, shape in shapes]


def binary(name, gen_x=None, gen_y=None, accept=None, shapes=BINARY_SHAPES):
    gen_x, gen_y = gen_x or uniform(), gen_y or uniform()
    return [make_sample(name, s, (gen_x, gen_y), (sx, sy), accept) for s, sx, sy in shapes]


def apart(gap=0.1):
    """Accept ``(x, y)`` whose broadcast elements differ by more than ``gap`` (no ties for max/min)."""
    return lambda x, y: bool(np.all(np.abs(x - y) > gap))


def frac_apart(x, y, margin=0.05):
    """``x / y`` stays ``margin`` away from integers: floormod's kinks."""
    q = x / y
    return bool(np.all(np.abs(q - np.round(q)) > margin))


def mask(shape):
    """A fixed boolean mask of ``shape`` with both values (for ``where`` and boolean-mask indexing)."""
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n) % 3 != 1).reshape(shape)


# ------------------------------------------------------------------------------------------ helpers for fns


def to_complex(x, y):
    """``x + iy`` as a complex tensor, differentiably (complex128 for float64 inputs, complex64 for float32)."""
    ct = tf.complex128 if x.dtype == tf.float64 else tf.complex64
    return tf.cast(x, ct) + tf.cast(y, ct) * 1j


def np_complex(x, y):
    return x.astype(np.complex128 if x.dtype == np.float64 else np.complex64) + 1j * y


def cplx(f):
    """``f`` extended to complex samples (kwarg ``as_complex=True``).

    The sample's arrays are then ``(re, im)`` pairs, one per complex input ``z = re + i im``, and the result is
    ``[Re f(z), Im f(z)]``, the imaginary part read as ``Re(-i f(z))`` so that no Imag op is involved. The real
    loss of real inputs makes finite differences independent of complex gradient conventions, so these samples
    check that the rules (and their conjugations) are consistent.
    """

    def fn(*args, as_complex=False, **kwargs):
        if not as_complex:
            return f(*args, **kwargs)
        out = f(*[to_complex(args[i], args[i + 1]) for i in range(0, len(args), 2)], **kwargs)
        return [tf.math.real(out), tf.math.real(out * -1j)]

    return fn


def cplx_ref(f):
    """The NumPy side of :func:`cplx`."""

    def ref(*args, as_complex=False, **kwargs):
        if not as_complex:
            return f(*args, **kwargs)
        out = f(*[np_complex(args[i], args[i + 1]) for i in range(0, len(args), 2)], **kwargs)
        return [np.real(out), np.real(out * -1j)]

    return ref


def complex_sample(name, sample, parts, kwargs=None):
    """A :func:`cplx` sample: ``parts`` is one ``(gen_re, gen_im, shape)`` per complex input."""
    gens = [g for re, im, _ in parts for g in (re, im)]
    shapes = [shape for _, _, shape in parts for _ in (0, 1)]
    return make_sample(name, sample, gens, shapes, kwargs={"as_complex": True, **(kwargs or {})})


def cunary(name, re=None, im=None, shape=(2, 3)):
    return [complex_sample(name, "complex", [(re or uniform(), im or uniform(-1, 1), shape)])]


def cbinary(name, x=(None, None), y=(None, None)):
    px = (x[0] or uniform(), x[1] or uniform(-1, 1))
    py = (y[0] or uniform(), y[1] or uniform(-1, 1))
    return [complex_sample(name, "complex_same", [(*px, (2, 3)), (*py, (2, 3))]),
            complex_sample(name, "complex_bcast", [(*px, (2, 3)), (*py, (3,))])]


def vjp(f, x, u):
    """``f``'s vector-Jacobian product at ``x`` for the upstream gradient ``u``: runs ``f``'s gradient op.

    Under the tests' own tapes this is recorded like any op, so differentiating it checks the gradient op's rule.
    """
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=u)


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def np_scatter(u, shape, key):
    out = np.zeros(shape, dtype=u.dtype)
    out[key] = u
    return out


def reduction_samples(name, gen=None, accept=None):
    gen = gen or uniform()
    variants = (
        ("all", (2, 3), {}),
        ("axis0", (2, 3), {"axis": 0}),
        ("axis_neg1_keepdims", (2, 3), {"axis": -1, "keepdims": True}),
        ("axes01_3d", (2, 3, 2), {"axis": [0, 2]}),
        ("all_keepdims", (3, 2), {"keepdims": True}),
        ("vector", (4,), {"axis": 0}),
    )
    return [make_sample(name, s, (gen,), (shape,), accept, kw) for s, shape, kw in variants]


def distinct(x):
    """No two elements within 0.1 of each other: reduce_max/min and argmax stay clear of ties."""
    v = np.sort(x.reshape(-1))
    return bool(np.all(np.diff(v) > 0.1))


# ------------------------------------------------------------------------------------------ entries

OP_DB: list[OpEntry] = []


def op(name, fn, ref, samples, differentiable, second_order=None, complex_samples=(), **kw):
    second_order = differentiable if second_order is None else second_order
    if complex_samples:
        fn, ref, samples = cplx(fn), cplx_ref(ref), list(samples) + list(complex_samples)
    OP_DB.append(OpEntry(name, fn, ref, samples, differentiable, second_order, **kw))
