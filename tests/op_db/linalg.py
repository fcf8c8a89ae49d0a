"""Op database entries for linear algebra: products, einsum, cross, inverses, solves and decompositions.

Decompositions are checked through functions that make their outputs unique: inputs are symmetrized (``eigh``,
``cholesky`` read one triangle; the gradients TF defines are those of the symmetric function) and eigen- and
singular vectors get a fixed phase (each column's largest entry made real positive), so the loss is
gauge-invariant, as the gradient formulas require, and finite differences apply. Complex samples return the real
and imaginary parts of every output. References are NumPy's (SciPy for the triangular solve).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

import tapeflow as tf

from .common import *  # noqa: F403

# ------------------------------------------------------------------------------------------ helpers


def _cfn(f):
    """``f`` (returning one tensor or a list) extended to complex samples (kwarg ``as_complex``): inputs come
    as ``(re, im)`` pairs and each output gives its real and imaginary parts (the latter as ``Re(-i z)``)."""

    def fn(*args, as_complex=False, **kwargs):
        if not as_complex:
            return f(*args, **kwargs)
        out = f(*[to_complex(args[i], args[i + 1]) for i in range(0, len(args), 2)], **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        return [part for o in outs for part in
                ((tf.math.real(o), tf.math.real(o * -1j)) if o.dtype.is_complex else (o,))]

    return fn


def _cref(f):
    def ref(*args, as_complex=False, **kwargs):
        if not as_complex:
            return f(*args, **kwargs)
        out = f(*[np_complex(args[i], args[i + 1]) for i in range(0, len(args), 2)], **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        return [part for o in outs for part in
                ((np.real(o), np.real(o * -1j)) if np.iscomplexobj(o) else (o,))]

    return ref


def _entry(name, fn, ref, samples, complex_samples=(), **kw):
    op(name, _cfn(fn), _cref(ref), list(samples) + list(complex_samples), True, **kw)


def _well_conditioned(limit=8.0):
    return lambda *xs: all(np.all(np.linalg.cond(x) < limit) for x in xs if x.shape[-1] == x.shape[-2])


def _square(name, sample, shapes, accept=None, kwargs=None, gens=None):
    gens = gens or tuple(uniform() for _ in shapes)
    return make_sample(name, sample, gens, shapes, accept or _well_conditioned(), kwargs)


def _csquare(name, sample, shapes, accept=None, kwargs=None):
    """A complex sample of square (well-conditioned) matrices: one ``(re, im)`` pair per shape."""
    def ok(*parts):
        zs = [parts[i] + 1j * parts[i + 1] for i in range(0, len(parts), 2)]
        return (accept or _well_conditioned())(*zs)

    gens = [uniform() for _ in range(2 * len(shapes))]
    flat = [s for s in shapes for _ in (0, 1)]
    return make_sample(name, sample, gens, flat, ok, {"as_complex": True, **(kwargs or {})})


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _np_phase(v):
    """Column phases that make each column's largest entry real positive, as a row to multiply by."""
    idx = np.argmax(np.abs(v), axis=-2)[..., None, :]
    d = np.take_along_axis(v, idx, axis=-2)
    return np.conj(d) / np.abs(d)


def _tf_phase(v):
    """The tapeflow version of :func:`_np_phase`, in ops (a traced function recomputes it for each call); the argmax
    is not differentiated (argmax and equal have no gradient)."""
    idx = tf.math.argmax(tf.abs(v), axis=-2, output_type=tf.int32)
    rows = tf.range(v.shape[-2])[:, tf.newaxis]
    mask = tf.cast(tf.equal(rows, idx[..., tf.newaxis, :]), v.dtype)
    d = tf.reduce_sum(v * mask, axis=-2, keepdims=True)
    if v.dtype.is_complex:
        return tf.math.conj(d) / tf.cast(tf.abs(d), d.dtype)
    return tf.sign(d)


def _tf_sym(x):
    return (x + tf.linalg.adjoint(x)) * 0.5


def _np_sym(x):
    return (x + _h(x)) * 0.5


def _gaps(values, gap=0.3):
    v = np.sort(np.real(values), axis=-1)
    return bool(np.all(np.diff(v, axis=-1) > gap))


# ------------------------------------------------------------------------------------------ products


def _np_matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    a = np.swapaxes(np.conj(a) if adjoint_a else a, -1, -2) if transpose_a or adjoint_a else a
    b = np.swapaxes(np.conj(b) if adjoint_b else b, -1, -2) if transpose_b or adjoint_b else b
    return np.matmul(a, b)


def _mm(name, sample, sa, sb, **kw):
    return make_sample(name, sample, (uniform(), uniform()), (sa, sb), kwargs=kw)


def _cmm(name, sample, sa, sb, **kw):
    return complex_sample(name, sample, [(uniform(), uniform(), sa), (uniform(), uniform(), sb)], kw)


op("MatMul", lambda a, b, **kw: tf.matmul(a, b, **kw), _np_matmul, [
    _mm("MatMul", "plain", (2, 3), (3, 4)),
    _mm("MatMul", "transpose_a", (3, 2), (3, 4), transpose_a=True),
    _mm("MatMul", "transpose_b", (2, 3), (4, 3), transpose_b=True),
    _mm("MatMul", "transpose_both", (3, 2), (4, 3), transpose_a=True, transpose_b=True),
    _mm("MatMul", "adjoint_b", (2, 3), (4, 3), adjoint_b=True),
], True, complex_samples=[
    _cmm("MatMul", "complex_plain", (2, 3), (3, 2)),
    _cmm("MatMul", "complex_adjoint_a", (3, 2), (3, 2), adjoint_a=True),
    _cmm("MatMul", "complex_transpose_b", (2, 3), (2, 3), transpose_b=True),
    _cmm("MatMul", "complex_transpose_both", (3, 2), (4, 3), transpose_a=True, transpose_b=True),
])

op("BatchMatMulV2", lambda a, b, **kw: tf.matmul(a, b, **kw), _np_matmul, [
    _mm("BatchMatMulV2", "batch", (2, 2, 3), (2, 3, 4)),
    _mm("BatchMatMulV2", "bcast_rank", (2, 2, 3), (3, 2)),
    _mm("BatchMatMulV2", "bcast_ones", (2, 1, 2, 3), (1, 3, 3, 2)),
    _mm("BatchMatMulV2", "transpose_a", (2, 3, 2), (3, 4), transpose_a=True),
    _mm("BatchMatMulV2", "adjoint_both", (3, 2), (2, 4, 3), adjoint_a=True, adjoint_b=True),
], True, complex_samples=[
    _cmm("BatchMatMulV2", "complex_batch", (2, 2, 3), (3, 2)),
    _cmm("BatchMatMulV2", "complex_adjoint_b", (2, 2, 3), (2, 3), adjoint_b=True),
    _cmm("BatchMatMulV2", "complex_transpose_a", (2, 3, 2), (1, 3, 2), transpose_a=True),
])


def _einsum_samples():
    cases = (
        ("matmul", "ij,jk->ik", ((2, 3), (3, 4))),
        ("implicit_outer", "i,j", ((3,), (2,))),
        ("dot", "i,i->", ((4,), (4,))),
        ("batch_matmul", "bij,bjk->bik", ((2, 2, 3), (2, 3, 2))),
        ("ellipsis_bcast", "...ij,...jk->...ik", ((2, 1, 2, 3), (3, 3, 2))),
        ("ellipsis_middle", "a...b,b...->a...", ((2, 3, 4), (4, 3))),
        ("reduce_one_side", "abc,cd->ad", ((2, 3, 2), (2, 3))),
        ("reduce_and_transpose", "abc,cd->da", ((2, 3, 2), (2, 3))),
        ("trace_in_binary", "iij,jk->ik", ((2, 2, 3), (3, 2))),
        ("three_operands", "ij,jk,kl->il", ((2, 3), (3, 2), (2, 2))),
    )
    unary = (
        ("transpose", "ij->ji", (2, 3)),
        ("trace", "ii", (3, 3)),
        ("diag", "ii->i", (3, 3)),
        ("sum_axis", "ijk->ik", (2, 3, 2)),
        ("sum_transpose", "ijk->ki", (2, 3, 2)),
        ("ellipsis_sum", "...ij->...", (2, 2, 3)),
        ("batch_trace", "bii->b", (2, 3, 3)),
    )
    out = [make_sample("Einsum", s, tuple(uniform() for _ in shapes), shapes, kwargs={"equation": eq})
           for s, eq, shapes in cases]
    out += [make_sample("Einsum", s, (uniform(),), (shape,), kwargs={"equation": eq}) for s, eq, shape in unary]
    return out


op("Einsum", lambda *xs, equation: tf.einsum(equation, *xs), lambda *xs, equation: np.einsum(equation, *xs),
   _einsum_samples(), True, complex_samples=[
       complex_sample("Einsum", "complex_matmul", [(uniform(), uniform(), (2, 3)), (uniform(), uniform(), (3, 2))],
                      {"equation": "ij,jk->ik"}),
       complex_sample("Einsum", "complex_ellipsis", [(uniform(), uniform(), (2, 2, 3)),
                                                     (uniform(), uniform(), (3,))], {"equation": "...j,j->..."}),
       complex_sample("Einsum", "complex_diag", [(uniform(), uniform(), (3, 3))], {"equation": "ii->i"}),
   ])

op("Cross", lambda a, b: tf.linalg.cross(a, b), np.cross, [
    make_sample("Cross", "vector", (uniform(), uniform()), ((3,), (3,))),
    make_sample("Cross", "batch", (uniform(), uniform()), ((2, 2, 3), (2, 2, 3))),
], True)

# ------------------------------------------------------------------------------------------ inverse, determinants

_entry("MatrixInverse", lambda x, adjoint=False: tf.linalg.inv(x, adjoint=adjoint),
       lambda x, adjoint=False: np.linalg.inv(_h(x) if adjoint else x), [
           _square("MatrixInverse", "matrix", ((3, 3),)),
           _square("MatrixInverse", "batch", ((2, 2, 2),)),
           _square("MatrixInverse", "adjoint", ((3, 3),), kwargs={"adjoint": True}),
       ], [_csquare("MatrixInverse", "complex", ((2, 2),)),
           _csquare("MatrixInverse", "complex_adjoint", ((2, 2, 2),), kwargs={"adjoint": True})])

_entry("MatrixDeterminant", lambda x: tf.linalg.det(x), np.linalg.det, [
    _square("MatrixDeterminant", "matrix", ((3, 3),)),
    _square("MatrixDeterminant", "batch", ((2, 2, 2),)),
], [_csquare("MatrixDeterminant", "complex", ((2, 2),))],
    xfails={("grad", "complex"): "TF's rule multiplies by det, not by its conjugate: the complex gradient is "
                                 "not the conjugate derivative (kept as TF defines it)",
            ("gradgrad", "complex"): "same as grad"})

def _tf_slogdet(x, logabs_only=False):
    sign, logabs = tf.linalg.slogdet(x)
    return tf.math.real(logabs) if logabs_only else [sign, logabs]


def _np_slogdet(x, logabs_only=False):
    sign, logabs = np.linalg.slogdet(x)
    return logabs if logabs_only else [sign, logabs]


_entry("LogMatrixDeterminant", _tf_slogdet, _np_slogdet, [
    _square("LogMatrixDeterminant", "matrix", ((3, 3),)),
    _square("LogMatrixDeterminant", "batch", ((2, 2, 2),)),
], [_csquare("LogMatrixDeterminant", "complex", ((2, 2),), kwargs={"logabs_only": True})],
    note="the complex sample checks Re(log|det|) only: TF gives the (complex) sign no gradient, and its rule "
         "does not project the upstream gradient of log|det| (complex-typed, real-valued) onto the reals")

# ------------------------------------------------------------------------------------------ solves

_entry("MatrixSolve", lambda a, b, adjoint=False: tf.linalg.solve(a, b, adjoint=adjoint),
       lambda a, b, adjoint=False: np.linalg.solve(_h(a) if adjoint else a, b), [
           _square("MatrixSolve", "matrix", ((3, 3), (3, 2))),
           _square("MatrixSolve", "batch", ((2, 2, 2), (2, 2, 3))),
           _square("MatrixSolve", "adjoint", ((3, 3), (3, 1)), kwargs={"adjoint": True}),
       ], [_csquare("MatrixSolve", "complex_adjoint", ((2, 2), (2, 2)), kwargs={"adjoint": True})])


def _np_triangular(a, b, lower=True, adjoint=False):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    out = np.empty(shape + b.shape[-2:], np.result_type(a, b))
    for i in np.ndindex(shape):
        out[i] = scipy.linalg.solve_triangular(a[i], b[i], lower=lower, trans=2 if adjoint else 0)
    return out


def _diag_away(*xs):
    return bool(np.all(np.abs(np.diagonal(xs[0], axis1=-2, axis2=-1)) > 0.8))


_entry("MatrixTriangularSolve", lambda a, b, **kw: tf.linalg.triangular_solve(a, b, **kw), _np_triangular, [
    _square("MatrixTriangularSolve", "lower", ((3, 3), (3, 2)), _diag_away),
    _square("MatrixTriangularSolve", "upper_adjoint", ((3, 3), (3, 2)), _diag_away,
            {"lower": False, "adjoint": True}),
    _square("MatrixTriangularSolve", "bcast", ((2, 1, 2, 2), (3, 2, 1)), _diag_away),
    _square("MatrixTriangularSolve", "upper", ((2, 2), (2, 2, 3)), _diag_away, {"lower": False}),
], [_csquare("MatrixTriangularSolve", "complex_adjoint", ((2, 2), (2, 2)), _diag_away, {"adjoint": True})])

# ------------------------------------------------------------------------------------------ Cholesky


def _tf_spd(x):
    n = x.shape[-1]
    return tf.matmul(x, x, adjoint_b=True) + tf.constant(np.eye(n) * n, x.dtype)


def _np_spd(x):
    n = x.shape[-1]
    return np.matmul(x, _h(x)) + np.eye(n, dtype=x.dtype) * n


_entry("Cholesky", lambda x: tf.linalg.cholesky(_tf_spd(x)), lambda x: np.linalg.cholesky(_np_spd(x)), [
    _square("Cholesky", "matrix", ((3, 3),), accept=lambda x: True),
    _square("Cholesky", "batch", ((2, 2, 2),), accept=lambda x: True),
], [_csquare("Cholesky", "complex", ((2, 2),), accept=lambda x: True)],
    note="the input is x x^H + n I: positive definite, and symmetric as TF's symmetrized gradient assumes")

# ------------------------------------------------------------------------------------------ QR


def _tf_qr(x, full_matrices=False):
    q, r = tf.linalg.qr(x, full_matrices=full_matrices)
    return [q, r]


def _np_qr(x, full_matrices=False):
    return list(np.linalg.qr(x, mode="complete" if full_matrices else "reduced"))


def _rank_ok(x):
    return bool(np.all(np.linalg.svd(x, compute_uv=False) > 0.3))


_entry("Qr", _tf_qr, _np_qr, [
    _square("Qr", "square", ((3, 3),), _rank_ok),
    _square("Qr", "tall", ((4, 2),), _rank_ok),
    _square("Qr", "wide", ((2, 4),), _rank_ok),
    _square("Qr", "batch_wide_full", ((2, 2, 3),), _rank_ok, {"full_matrices": True}),
], [_csquare("Qr", "complex_tall", ((3, 2),), _rank_ok), _csquare("Qr", "complex_wide", ((2, 3),), _rank_ok)])

# ------------------------------------------------------------------------------------------ SVD


def _tf_svd(x, full_matrices=False, compute_uv=True):
    if not compute_uv:
        return tf.linalg.svd(x, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    shared = _tf_phase(u)[..., :, :s.shape[-1]]  # the first k columns of u and v share u's phases
    return [s, u * _with_first(_tf_phase(u), shared), v * _with_first(_tf_phase(v), shared)]


def _with_first(p, shared):
    """Phases ``p`` with the first columns replaced by ``shared`` (through constant matrices, not concat)."""
    k, n = shared.shape[-1], p.shape[-1]
    if n == k:
        return shared
    keep = np.diag([0.0] * k + [1.0] * (n - k))
    return tf.matmul(shared, tf.constant(np.eye(k, n), p.dtype)) + tf.matmul(p, tf.constant(keep, p.dtype))


def _np_svd(x, full_matrices=False, compute_uv=True):
    if not compute_uv:
        return np.linalg.svd(x, compute_uv=False)
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    v = _h(vh)
    k = s.shape[-1]
    p = _np_phase(u[..., :, :k])

    def fix(w):
        return w * (p if w.shape[-1] == k else np.concatenate([p, _np_phase(w[..., :, k:])], axis=-1))

    return [s, fix(u), fix(v)]


def _distinct_singular(*xs):
    s = np.linalg.svd(xs[0] if len(xs) == 1 else xs[0] + 1j * xs[1], compute_uv=False)
    return bool(np.all(s > 0.3)) and _gaps(s)


_entry("Svd", _tf_svd, _np_svd, [
    _square("Svd", "square", ((3, 3),), _distinct_singular),
    _square("Svd", "tall", ((4, 2),), _distinct_singular),
    _square("Svd", "wide_batch", ((2, 2, 3),), _distinct_singular),
    _square("Svd", "values_only", ((3, 2),), _distinct_singular, {"compute_uv": False}),
    _square("Svd", "full_tall", ((3, 2),), _distinct_singular, {"full_matrices": True}),
], [_csquare("Svd", "complex_wide", ((2, 3),), _distinct_singular),
    _csquare("Svd", "complex_full_wide", ((2, 3),), _distinct_singular, {"full_matrices": True}),
    _csquare("Svd", "complex_values_only", ((3, 2),), _distinct_singular, {"compute_uv": False})],
    note="singular vectors are compared with a fixed phase per column (the first k columns of u and v share it)",
    xfails={("gradgrad", name): "TF's complex SVD gradient is right to first order only: differentiating it again "
                                "disagrees with finite differences, in TF 2.21 itself by the same amounts (checked)"
            for name in ("complex_wide", "complex_full_wide")})

# ------------------------------------------------------------------------------------------ eigh


def _tf_eigh(x, values_only=False):
    a = _tf_sym(x)
    if values_only:
        return tf.linalg.eigvalsh(a)
    e, v = tf.linalg.eigh(a)
    return [e, v * _tf_phase(v)]


def _np_eigh(x, values_only=False):
    a = _np_sym(x)
    if values_only:
        return np.linalg.eigvalsh(a).astype(x.dtype)
    e, v = np.linalg.eigh(a)
    return [e.astype(x.dtype), v * _np_phase(v)]


def _distinct_eigen(*xs):
    z = xs[0] if len(xs) == 1 else xs[0] + 1j * xs[1]
    return _gaps(np.linalg.eigvalsh(_np_sym(z)))


_entry("SelfAdjointEigV2", _tf_eigh, _np_eigh, [
    _square("SelfAdjointEigV2", "matrix", ((3, 3),), _distinct_eigen),
    _square("SelfAdjointEigV2", "batch", ((2, 2, 2),), _distinct_eigen),
    _square("SelfAdjointEigV2", "values_only", ((3, 3),), _distinct_eigen, {"values_only": True}),
], [_csquare("SelfAdjointEigV2", "complex", ((3, 3),), _distinct_eigen),
    _csquare("SelfAdjointEigV2", "complex_values_only", ((2, 2),), _distinct_eigen, {"values_only": True})],
    note="the input is symmetrized first; eigenvectors get a fixed phase per column")
