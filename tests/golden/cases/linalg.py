"""Linear algebra: matmul, einsum, tensordot, matvec, transposes, trace, cross, norms, inverses, determinants,
solves and decompositions; values, dtypes and gradients (float32, float64, complex), TF's conventions and errors.

Gradient cases return ``{dtype: [outputs, gradients]}`` for a fixed weighted sum of the outputs. Eigen- and
singular vectors are compared through quantities their signs (phases) do not change (``abs``, products,
reconstructions): TF's come from Eigen's iterations and may differ in sign from LAPACK's.
"""

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype

_REAL = ("float32", "float64")
_COMPLEX = ("complex64", "complex128")


def _weights(shape, k):
    n = int(np.prod(shape)) if shape else 1
    return np.cos(np.arange(n) * 0.7 + k).reshape(shape)


def _loss(tf, outs):
    total = 0.0
    for k, out in enumerate(outs):
        w = tf.constant(_weights(tuple(out.shape), k), dtype=out.dtype)
        term = tf.reduce_sum(out * w)
        total = total + (tf.math.real(term) if out.dtype.is_complex else term)
    return total


def _both(tf, fn, *values, dtypes=_REAL, **kw):
    """``{dtype: [outputs, gradients]}``: one tape per dtype, its target the weighted sum of the outputs."""
    def outputs(*xs):
        outs = fn(*xs, **kw)
        return list(outs) if isinstance(outs, (list, tuple)) else [outs]

    return grads_by_dtype(tf, outputs, *values, dtypes=dtypes, per_output=False, target=lambda outs: _loss(tf, outs))


def _complex(*pairs):
    return [np.asarray(re) + 1j * np.asarray(im) for re, im in pairs]


A = [[2.0, -1.0, 0.5], [1.0, 3.0, -2.0]]          # 2x3
B = [[1.0, 0.5], [-1.0, 2.0], [0.25, -0.5]]       # 3x2
S3 = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.25], [0.5, -0.25, 2.0]]  # symmetric positive definite, distinct eigenvalues
M3 = [[3.0, 1.0, -1.0], [0.5, 2.0, 1.0], [-1.0, 0.25, 4.0]]   # well conditioned
L3 = [[2.0, 0.0, 0.0], [1.0, -1.5, 0.0], [0.5, 2.0, 3.0]]     # lower triangular
T42 = [[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [-2.0, 1.0]]       # tall, distinct singular values


# --------------------------------------------------------------------------------------------- matmul


@case
def matmul_flags_grad(tf):
    def fn(a, b):
        return [tf.matmul(a, b), tf.matmul(a, a, transpose_b=True), tf.matmul(b, a, transpose_a=True,
                                                                              transpose_b=True),
                tf.linalg.matmul(a, b, adjoint_a=False, adjoint_b=False), tf.matmul(b, b, adjoint_a=True), a @ b]

    return _both(tf, fn, A, B)


@case
def matmul_batch_broadcast_grad(tf):
    a = np.arange(12.0).reshape(2, 1, 2, 3) / 5 - 1
    b = np.arange(18.0).reshape(3, 3, 2) / 7 - 1

    def fn(x, y):
        return [tf.matmul(x, y), tf.matmul(x, y[0]), tf.matmul(y, x, transpose_a=True, transpose_b=True),
                tf.matmul(x[0, 0], y, adjoint_b=False)]

    return _both(tf, fn, a, b)


ZA = _complex((A, [[0.5, 1.0, -1.0], [2.0, 0.0, 0.25]]))[0]     # 2x3 complex
ZB = _complex((B, [[1.0, -0.5], [0.0, 1.5], [-1.0, 0.5]]))[0]     # 3x2 complex


@case
def matmul_complex_grad(tf):
    def fn(x, y):
        return [tf.matmul(x, y), tf.matmul(x, x, adjoint_b=True), tf.matmul(y, x, transpose_a=True,
                                                                             transpose_b=True),
                tf.matmul(x[None], x[None], adjoint_a=True), tf.matmul(x, y[None], transpose_b=False)]

    return _both(tf, fn, ZA, ZB, dtypes=_COMPLEX)


@case
def matmul_dtypes(tf):
    i = tf.constant([[1, 2], [3, 4]])
    h = tf.constant([[1.5, 2.0], [0.5, -1.0]], tf.float16)
    return [tf.matmul(i, i), tf.matmul(h, h), tf.matmul(tf.ones((2, 2, 2), tf.int16), tf.ones((2, 2), tf.int16)),
            tf.matmul(tf.constant([[1, 2]], tf.uint8), tf.constant([[1], [2]], tf.int8), output_type=tf.int32),
            tf.matmul(tf.constant([[1, 2]], tf.int8), tf.constant([[3], [2]], tf.int8), output_type=tf.int32,
                      transpose_a=False),
            tf.matmul(i, i, output_type=tf.int32), tf.matmul(tf.zeros((2, 0)), tf.zeros((0, 3))),
            tf.matmul(tf.zeros((2, 3, 0)), tf.zeros((1, 0, 3)))]


@case
def matmul_conversion(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [tf.matmul(a, np.ones((2, 2))), tf.matmul(a, [[1, 2], [3, 4]]), [[1, 2]] @ a, a @ [[1], [2]],
            catch(tf.matmul, np.ones((2, 2)), a), catch(tf.matmul, [[1, 2]], a),
            catch(tf.matmul, a, tf.constant([[1.0]], tf.float64))]


@case
def matmul_errors(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b3 = tf.ones((2, 2, 2))
    return [catch(tf.matmul, a, a, transpose_a=True, adjoint_a=True),
            catch(tf.matmul, a, a, transpose_b=True, adjoint_b=True),
            catch(tf.matmul, a, tf.ones((3, 2))), catch(tf.matmul, tf.ones((3, 2)), tf.ones((2, 2)), transpose_a=True),
            catch(tf.matmul, a, tf.constant([1.0, 2.0])), catch(tf.matmul, tf.constant([1.0, 2.0]),
                                                                tf.constant([1.0, 2.0])),
            catch(tf.matmul, tf.constant(7.0), a), catch(tf.matmul, tf.constant([1.0, 2.0]), b3),
            catch(tf.matmul, b3, tf.ones((3, 2, 2))), catch(tf.matmul, b3, tf.ones((2, 3, 2))),
            catch(tf.matmul, tf.ones((1, 3, 2)), tf.ones((3, 2))),
            catch(tf.matmul, tf.constant([[1, 2]], tf.int8), tf.constant([[1], [2]], tf.int8)),
            catch(tf.matmul, tf.constant([[True]]), tf.constant([[True]])),
            catch(tf.matmul, tf.constant([[[True]]]), tf.constant([[True]])),
            catch(tf.matmul, a, a, output_type=tf.float64),
            catch(tf.matmul, tf.ones((2, 2, 2)), a, output_type=tf.float64, transpose_a=True),
            catch(tf.matmul, tf.constant([[1, 2]], tf.int16), tf.constant([[1], [2]], tf.int16),
                  output_type=tf.int32)]


@case
def matvec_grad_and_errors(tf):
    out = _both(tf, lambda a, v: [tf.linalg.matvec(a, v), tf.linalg.matvec(a, v[:2], transpose_a=True),
                                  tf.linalg.matvec(a[None], v[None])], A, [1.0, -2.0, 0.5])
    x = tf.constant(A)
    out["errors"] = [catch(tf.linalg.matvec, x, tf.ones((2,))), catch(tf.linalg.matvec, x, tf.ones((3, 1))),
                     catch(tf.linalg.matvec, x, tf.ones(())), catch(tf.linalg.matvec, tf.ones((3,)), tf.ones((3,))),
                     catch(tf.linalg.matvec, x, tf.ones((3,)), transpose_a=True, adjoint_a=True),
                     tf.linalg.matvec(x, tf.ones((4, 2, 3))), tf.linalg.matvec(tf.constant([[1, 2]]), [3, 4])]
    return out


# --------------------------------------------------------------------------------------------- einsum


@case
def einsum_values_and_grads(tf):
    a = np.arange(6.0).reshape(2, 3) / 4 - 0.5
    b = np.arange(12.0).reshape(3, 4) / 6 - 1
    sq = np.array(S3)

    def fn(x, y, z):
        return [tf.einsum("ij,jk->ik", x, y), tf.einsum("ij,jk", x, y), tf.einsum("ij->ji", x),
                tf.einsum("ii->i", z), tf.einsum("ii", z), tf.einsum("ij->", x), tf.einsum("ji", x),
                tf.einsum("ij,ij->ij", x, x), tf.einsum("i,j->ij", x[0], y[0]), tf.einsum("ij,kj->ik", x, x),
                tf.einsum("ij,jk,kl->il", x, y, tf.transpose(y)), tf.linalg.einsum("abc,bd->da", y[None], z),
                tf.einsum("iij,jk->ik", tf.stack([z, z, z], axis=-1), z), tf.einsum("ij,jk->ki", z, z)]

    return _both(tf, fn, a, b, sq)


@case
def einsum_ellipsis_grads(tf):
    a = np.arange(12.0).reshape(2, 1, 2, 3) / 5 - 1
    b = np.arange(18.0).reshape(3, 3, 2) / 7 - 1
    c = np.arange(24.0).reshape(2, 3, 4) / 9 - 1
    d = [[0.5], [-1.0], [2.0], [0.25]]

    def fn(x, y, z, w):
        return [tf.einsum("...ij,...jk->...ik", x, y), tf.einsum("...ij,jk", x, y[0]),
                tf.einsum("...ij->...", x), tf.einsum("...ij->ij", x[0, 0]),
                tf.einsum("i...j,j...->i...", z, tf.ones((4, 3), z.dtype)), tf.einsum("a...b,b...->a...", z, w),
                tf.einsum("...i,...i->...", x, x[0]), tf.einsum("b...,b->...", z, z[:, 0, 0]),
                tf.einsum("...ij,...jk->...ik", y, x)]

    return _both(tf, fn, a, b, c, d)


@case
def einsum_complex_and_ints(tf):
    out = _both(tf, lambda p, q: [tf.einsum("ij,jk->ik", p, q), tf.einsum("ij->ji", p),
                                  tf.einsum("ij,ij->", p, tf.math.conj(p)), tf.einsum("ii->i", p @ q)], ZA, ZB,
                dtypes=_COMPLEX)
    i = tf.constant([[1, 2], [3, 4]])
    out["ints"] = [tf.einsum("ij,jk->ik", i, i), tf.einsum("ii", i), tf.einsum("ij->j", tf.cast(i, tf.int64)),
                   tf.einsum("ij->ji", tf.constant([[1.0, 2.0]], tf.float16))]
    return out


@case
def einsum_errors(tf):
    a = tf.reshape(tf.range(6.0), (2, 3))
    sq = tf.ones((3, 3))
    return [catch(tf.einsum, "ij,jk->ik", a, a), catch(tf.einsum, "ij,jk->ik", a),
            catch(tf.einsum, "ij->ik", a), catch(tf.einsum, "ij->ii", a), catch(tf.einsum, "i->ii", tf.ones(3)),
            catch(tf.einsum, "ij->ij", tf.ones(3)), catch(tf.einsum, "i,j,k", tf.ones(3)),
            catch(tf.einsum, "ij,jk->ik", a, tf.ones((3, 4), tf.float64)),
            catch(tf.einsum, "ij->ji", tf.ones((2, 3), tf.bool)),
            catch(tf.einsum, "ij,jk->ik", tf.ones((2, 3), tf.int8), tf.ones((3, 4), tf.int8)),
            catch(tf.einsum, "i.j->ji", a), catch(tf.einsum, "ij0->ji", a), catch(tf.einsum, "i1->i", a),
            catch(tf.einsum, "ij->j..", a), catch(tf.einsum, "...0->", a), catch(tf.einsum, "ijk->ij", a),
            catch(tf.einsum, "ab,ab->ab", a, tf.ones((1, 3))), catch(tf.einsum, "ij,ij->ij", a, tf.ones((2, 1))),
            catch(tf.einsum, "ij,jk->ik", a, a, foo=1), catch(tf.einsum, "ij,jk->ik", [[1.0, 2.0]], [[1.0], [2.0]]),
            catch(tf.einsum, "ii->i", tf.ones((2, 3))), catch(tf.einsum, "...ij,...jk", tf.ones((2, 1, 2, 3)),
                                                             tf.ones((5, 3, 4))),
            catch(tf.einsum, "...ij->ij", tf.ones((2, 1, 2, 3))), catch(tf.einsum, "...ij->...", tf.ones((3,))),
            catch(tf.einsum, "...i,...i->...", tf.ones((2, 3)), tf.ones((4, 3))),
            catch(tf.einsum, "...ab,...bc->...ac", tf.ones((2, 2, 3)), tf.ones((3, 3, 4))),
            catch(tf.einsum, "...ba,...bc->...ac", tf.ones((2, 3, 2)), tf.ones((3, 3, 4))),
            catch(tf.einsum, "x...ba,x...bc->x...ac", tf.ones((5, 2, 3, 2)), tf.ones((5, 3, 3, 4))),
            catch(tf.einsum, "ab...,b...->a...", tf.ones((2, 3, 4, 5)), tf.ones((3, 2, 1))),
            catch(tf.einsum, "bc,a...b->a...", tf.ones((3, 4)), tf.ones((2, 5, 6, 4))),
            catch(tf.einsum, "ij...,jk->...", sq, tf.ones((3, 3, 3))),
            tf.einsum("i j->ji", a), tf.einsum("ij-> ji", a), tf.einsum("", tf.constant(3.0)),
            tf.einsum("->", tf.constant(3.0)), tf.einsum(",->", tf.constant(3.0), tf.constant(2.0)),
            tf.einsum("ij,jk->ik", tf.ones((2, 0)), tf.ones((0, 4))), tf.einsum("ij,jk->ik", a, sq, optimize="optimal")]


# --------------------------------------------------------------------------------------------- tensordot


@case
def tensordot_grads(tf):
    a = np.arange(24.0).reshape(2, 3, 4) / 10 - 1
    b = np.arange(60.0).reshape(4, 3, 5) / 20 - 1

    def fn(x, y):
        return [tf.tensordot(x, y, 1), tf.tensordot(x, y, [[1, 2], [1, 0]]), tf.tensordot(x, y, [2, 0]),
                tf.tensordot(x, y, ([1], [1])), tf.tensordot(x, y, [[-1], [0]]), tf.linalg.tensordot(x[0], y[0], 0),
                tf.tensordot(x, y, [(2, 1), (0, 1)]), tf.tensordot(x, y, np.array([[2], [0]]))]

    return _both(tf, fn, a, b)


@case
def tensordot_errors(tf):
    a, b = tf.ones((2, 3, 4)), tf.ones((4, 3, 5))
    return [catch(tf.tensordot, a, b, -1), catch(tf.tensordot, a, b, 4), catch(tf.tensordot, a, b, [[1, 2], [1]]),
            catch(tf.tensordot, a, b, [[0], [0]]), catch(tf.tensordot, a, b, [[0], [0], [1]]),
            catch(tf.tensordot, a, b, 1.5), catch(tf.tensordot, a, tf.ones((4,), tf.float64), 1),
            catch(tf.tensordot, a, b, [[5], [0]]), catch(tf.tensordot, a, b, tf.constant(1)),
            tf.tensordot(a, b, tf.constant([[2], [0]])), tf.tensordot(tf.constant(2.0), tf.constant(3.0), 0),
            tf.tensordot([1.0, 2.0], [3.0, 4.0], 1), tf.tensordot(tf.ones((4,), tf.int32), tf.ones((4,), tf.int32), 1),
            tf.tensordot(a, b, [[], []])]


# --------------------------------------------------------------------------------------------- transpose, trace, cross


@case
def transpose_trace(tf):
    z = tf.constant([[1 + 2j, 2.0 - 1j, 0.5j]])
    out = _both(tf, lambda x, y: [tf.linalg.matrix_transpose(x), tf.linalg.adjoint(y[None]),
                                  tf.linalg.trace(y), tf.linalg.trace(tf.stack([y, y * 2.0]))], A, S3)
    out["values"] = [tf.linalg.matrix_transpose(z), tf.linalg.matrix_transpose(z, conjugate=True),
                     tf.linalg.adjoint(z), tf.linalg.adjoint([[1 + 2j, 2.0 + 0j]]),
                     tf.linalg.matrix_transpose([[1, 2]]),
                     tf.linalg.trace(tf.ones((2, 3, 3), tf.int32)), tf.linalg.trace(tf.constant(A)),
                     tf.linalg.trace(z), tf.linalg.trace(tf.ones((2, 3, 2))),
                     tf.linalg.matrix_transpose(tf.ones((2, 3, 4)), conjugate=True)]
    out["errors"] = [catch(tf.linalg.matrix_transpose, tf.constant([1.0, 2.0])),
                     catch(tf.linalg.matrix_transpose, tf.constant(1.0)),
                     catch(tf.linalg.adjoint, tf.constant([1.0, 2.0])), catch(tf.linalg.trace, tf.constant([1.0, 2.0]))]
    return out


@case
def cross_grad_and_errors(tf):
    out = _both(tf, lambda a, b: [tf.linalg.cross(a, b), tf.linalg.cross(b, a)],
                [[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]], [[2.0, 1.0, -1.0], [1.0, 1.0, 1.0]])
    out["values"] = [tf.linalg.cross([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
                     tf.linalg.cross(tf.constant([1, 2, 3]), tf.constant([4, 5, 6]))]
    out["errors"] = [catch(tf.linalg.cross, tf.ones((2, 3)), tf.ones((3,))),
                     catch(tf.linalg.cross, tf.ones((2, 3)), tf.ones((1, 3))),
                     catch(tf.linalg.cross, tf.ones((2, 4)), tf.ones((2, 4))),
                     catch(tf.linalg.cross, tf.ones(()), tf.ones(())),
                     catch(tf.linalg.cross, tf.ones((3,), tf.complex64), tf.ones((3,), tf.complex64))]
    return out


# --------------------------------------------------------------------------------------------- norm


@case
def norm_vector_grads(tf):
    x = [[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]]

    def fn(t):
        return [tf.norm(t), tf.norm(t, axis=1), tf.norm(t, axis=-1, keepdims=True), tf.norm(t, ord=1),
                tf.norm(t, ord=1, axis=0), tf.norm(t, ord=np.inf), tf.norm(t, ord=np.inf, axis=1), tf.norm(t, ord=3),
                tf.norm(t, ord=0.5, axis=0), tf.norm(t, ord=2.0), tf.linalg.norm(t, ord=np.float32(1.5)),
                tf.norm(t, ord="euclidean", axis=0, keepdims=True), tf.norm(t, ord=True)]

    return _both(tf, fn, x)


@case
def norm_matrix_grads(tf):
    x = np.arange(24.0).reshape(2, 3, 4) / 7 - 1.3

    def fn(t):
        m = t[0]
        return [tf.norm(m, ord="fro", axis=[0, 1]), tf.norm(m, ord="euclidean", axis=(0, 1)),
                tf.norm(m, ord=1, axis=[0, 1]), tf.norm(m, ord=1, axis=[-1, 0], keepdims=True),
                tf.norm(m, ord=np.inf, axis=[0, 1]), tf.norm(m, ord=np.inf, axis=[1, 0]),
                tf.norm(m, ord=2, axis=[0, 1]), tf.norm(m, ord=2, axis=[1, 0], keepdims=True),
                tf.norm(t, ord=2, axis=[0, 2]), tf.norm(t, ord=2, axis=[2, 0], keepdims=True),
                tf.norm(t, ord=np.inf, axis=(2, 0)), tf.norm(t, ord=2, axis=[-2, -1])]

    return _both(tf, fn, x)


@case
def norm_kinks(tf):
    # TF 2.18: the Euclidean norm of a zero vector has a NaN gradient; 1- and inf-norms follow abs and max.
    return _both(tf, lambda t: [tf.norm(t), tf.norm(t, ord=1), tf.norm(t, ord=np.inf), tf.norm(t, ord=3),
                                tf.norm(t, axis=1), tf.norm(t, ord="fro", axis=[0, 1])], [[0.0, 0.0], [0.0, 0.0]]) | {
        "ties": _both(tf, lambda t: [tf.norm(t, ord=np.inf), tf.norm(t, ord=1, axis=[0, 1]),
                                     tf.norm(t, ord=np.inf, axis=[0, 1])], [[3.0, -3.0], [1.0, 3.0]])}


@case
def norm_complex_and_ints(tf):
    z = _complex(([[1.0, 2.0], [0.0, -1.0]], [[1.0, 0.0], [2.0, 0.5]]))[0]
    out = _both(tf, lambda t: [tf.norm(t), tf.norm(t, ord=1), tf.norm(t, ord=3, axis=0),
                               tf.norm(t, ord=2, axis=[0, 1]), tf.norm(t, ord=np.inf, axis=[0, 1])], z,
                dtypes=_COMPLEX)
    out["ints"] = [tf.norm(tf.constant([[1, 2]]), ord=1), catch(tf.norm, tf.constant([[1, 2]])),
                   tf.norm([3.0, 4.0]), tf.norm(tf.ones((1, 1, 3))), tf.norm(tf.constant(3.0)),
                   tf.norm(tf.constant(3.0), ord=1)]
    return out


@case
def norm_errors(tf):
    x = tf.constant([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    calls = [dict(ord="fro"), dict(ord="fro", axis=1), dict(ord="nuc", axis=[0, 1]), dict(ord=0), dict(ord=-1),
             dict(ord=3, axis=[0, 1]), dict(ord=-np.inf), dict(axis=[0, 0]), dict(axis=[0, 1, 2]), dict(axis=(0,)),
             dict(axis=[0]), dict(axis=1.0), dict(axis=5), dict(ord=1j), dict(ord="bad"), dict(ord=None),
             dict(ord=2, axis=[0, -2]), dict(axis=[0, 5]), dict(ord=2, axis=[0, 5]),
             dict(ord=2, axis=(np.int64(0), 1)), dict(ord=0.5, axis=[0, 1])]
    return [catch(tf.norm, x, **kw) for kw in calls] + [catch(tf.norm, tf.constant(3.0), axis=0)]


# --------------------------------------------------------------------------------------------- inverse, determinants


@case
def inv_det_grads(tf):
    batch = np.stack([np.array(M3), np.array(S3)])

    def fn(x, b):
        return [tf.linalg.inv(x), tf.linalg.inv(x, adjoint=True), tf.linalg.det(x), tf.linalg.det(b),
                tf.linalg.inv(b), tf.linalg.slogdet(x)[1], tf.linalg.slogdet(-b)[1], tf.linalg.logdet(b)]

    out = _both(tf, fn, M3, batch)
    out["slogdet"] = [list(tf.linalg.slogdet(tf.constant(M3))), list(tf.linalg.slogdet(tf.constant(-batch))),
                      type(tf.linalg.slogdet(tf.constant(M3))).__name__, tf.linalg.slogdet(tf.constant(M3))._fields,
                      list(tf.linalg.slogdet(tf.constant([[1.0, 2.0], [2.0, 4.0]])))]
    return out


@case
def inv_det_complex_grads(tf):
    z = _complex((M3, [[0.5, -1.0, 0.0], [1.0, 0.25, 0.5], [0.0, 1.0, -0.5]]))[0]
    hpd = z @ z.conj().T + 3 * np.eye(3)
    # TF's det gradient multiplies by det itself (not its conjugate) for complex input: matched as TF defines it.
    return _both(tf, lambda x, h: [tf.linalg.inv(x), tf.linalg.inv(x, adjoint=True), tf.linalg.det(x),
                                   tf.linalg.slogdet(x)[0], tf.math.real(tf.linalg.slogdet(x)[1]),
                                   tf.linalg.logdet(h)], z, hpd, dtypes=_COMPLEX)


@case
def slogdet_sign_gradient(tf):
    def fn(x):
        return [tf.linalg.slogdet(x)[0]]

    return _both(tf, fn, M3)


@case
def inv_det_errors(tf):
    sing = tf.constant([[1.0, 2.0], [2.0, 4.0]])
    h = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(sing)
        d = tf.linalg.det(sing)
        sign, logabs = tf.linalg.slogdet(sing)
    return [catch(tf.linalg.inv, tf.constant(A)), catch(tf.linalg.det, tf.constant(A)),
            catch(tf.linalg.slogdet, tf.constant(A)), catch(tf.linalg.inv, tf.constant([1.0, 2.0])),
            catch(tf.linalg.det, tf.constant([1.0, 2.0])), catch(tf.linalg.inv, tf.constant(3.0)),
            catch(tf.linalg.inv, sing), catch(tf.linalg.inv, tf.zeros((2, 2), tf.float64)),
            catch(tf.linalg.inv, tf.constant([[1, 2], [3, 4]])), catch(tf.linalg.det, tf.constant([[1, 2], [3, 4]])),
            catch(tf.linalg.det, h), catch(tf.linalg.slogdet, h), tf.linalg.inv(h), d, sign, logabs,
            catch(tape.gradient, d, sing), catch(tape.gradient, logabs, sing),
            tf.linalg.det(tf.zeros((0, 0))), tf.linalg.det(tf.zeros((2, 0, 0))), tf.linalg.inv(tf.zeros((2, 0, 0))),
            tf.linalg.logdet(tf.constant([[1.0, 2.0], [2.0, 1.0]]))]


# --------------------------------------------------------------------------------------------- solves


@case
def solve_grads(tf):
    rhs = [[1.0, -1.0], [0.5, 2.0], [-2.0, 0.25]]
    batch = np.stack([np.array(M3), np.array(S3)])

    def fn(a, b, ab):
        return [tf.linalg.solve(a, b), tf.linalg.solve(a, b, adjoint=True), tf.linalg.solve(ab, tf.stack([b, -b])),
                tf.linalg.triangular_solve(a, b), tf.linalg.triangular_solve(a, b, lower=False),
                tf.linalg.triangular_solve(a, b, adjoint=True), tf.linalg.triangular_solve(a, b, lower=False,
                                                                                           adjoint=True),
                tf.linalg.triangular_solve(ab, b), tf.linalg.triangular_solve(a, tf.stack([b, b * 2.0])),
                tf.linalg.cholesky_solve(tf.linalg.cholesky(ab), b)]

    return _both(tf, fn, M3, rhs, batch)


@case
def solve_complex_grads(tf):
    a = _complex((M3, [[0.5, -1.0, 0.0], [1.0, 0.25, 0.5], [0.0, 1.0, -0.5]]))[0]
    return _both(tf, lambda x, y: [tf.linalg.solve(x, y), tf.linalg.solve(x, y, adjoint=True),
                                   tf.linalg.triangular_solve(x, y), tf.linalg.triangular_solve(x, y, lower=False,
                                                                                                adjoint=True)],
                 a, ZB, dtypes=_COMPLEX)


@case
def solve_edge_cases_and_errors(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    tri = tf.constant([[2.0, 0.0], [1.0, 3.0]])
    h = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
    return [tf.linalg.triangular_solve(tf.constant([[0.0, 0.0], [2.0, 4.0]]), tf.constant([[1.0], [2.0]])),
            tf.linalg.triangular_solve(tf.constant([[1.0, 0.0], [2.0, 0.0]]), tf.constant([[1.0], [2.0]])),
            tf.linalg.triangular_solve(tf.constant([[1.0, 0.0], [2.0, 0.0]]), tf.constant([[1.0], [0.0]])),
            tf.linalg.triangular_solve(tf.constant([[2.0, 100.0], [1.0, 3.0]]), tf.constant([[1.0], [2.0]])),
            catch(tf.linalg.solve, tf.constant(A), tf.constant(B)), catch(tf.linalg.solve, a, tf.ones((3, 1))),
            catch(tf.linalg.solve, a, tf.constant([1.0, 2.0])), catch(tf.linalg.solve, tf.ones((2, 2, 2)), a),
            catch(tf.linalg.solve, tf.ones((2, 2, 2)), tf.ones((3, 2, 1))),
            catch(tf.linalg.solve, tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])),
            catch(tf.linalg.solve, tf.constant([[1.0, 2.0], [2.0, 4.0]]), tf.constant([[1.0], [2.0]])),
            catch(tf.linalg.solve, a, tf.ones((2, 1), tf.float64)), catch(tf.linalg.solve, h, h),
            catch(tf.linalg.solve, h, h, adjoint=True),
            catch(tf.linalg.triangular_solve, tf.constant(A), tf.constant(B)),
            catch(tf.linalg.triangular_solve, tf.ones((3, 2)), tf.ones((3, 1)), adjoint=True),
            catch(tf.linalg.triangular_solve, tri, tf.ones((3, 1)), lower=False),
            catch(tf.linalg.triangular_solve, tri, tf.ones((3, 1)), adjoint=True),
            catch(tf.linalg.triangular_solve, tf.ones((2, 2, 2)), tf.ones((3, 2, 1))),
            catch(tf.linalg.triangular_solve, tf.constant([1.0, 2.0]), tf.ones((2, 1))),
            catch(tf.linalg.triangular_solve, tri, tf.constant([1.0, 2.0])),
            catch(tf.linalg.triangular_solve, tri, tf.ones((2, 1), tf.float64)),
            catch(tf.linalg.triangular_solve, h, h), catch(tf.linalg.triangular_solve, h, h, lower=False,
                                                           adjoint=True),
            tf.linalg.triangular_solve(tf.constant(np.ones((2, 1, 2, 2)) + np.eye(2)), tf.ones((3, 2, 1),
                                                                                          tf.float64))]


# --------------------------------------------------------------------------------------------- Cholesky


@case
def cholesky_grads(tf):
    batch = np.stack([np.array(S3), np.array(S3) + np.eye(3)])

    def fn(x, b):
        sym = (x + tf.transpose(x)) * 0.5
        return [tf.linalg.cholesky(sym), tf.linalg.cholesky(b), tf.linalg.logdet(sym)]

    return _both(tf, fn, S3, batch)


@case
def cholesky_complex_grads(tf):
    z = _complex((M3, [[0.5, -1.0, 0.0], [1.0, 0.25, 0.5], [0.0, 1.0, -0.5]]))[0]
    hpd = z @ z.conj().T + np.eye(3)
    return _both(tf, lambda x: [tf.linalg.cholesky((x + tf.linalg.adjoint(x)) * 0.5),
                                tf.linalg.logdet((x + tf.linalg.adjoint(x)) * 0.5)], hpd, dtypes=_COMPLEX)


@case
def cholesky_lower_triangle_and_failures(tf):
    # TF reads only the lower triangle; a factor that fails is NaN on and below the diagonal (no error). Its
    # strictly upper part is whatever memory held, so only the lower part is compared.
    bad = tf.constant([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]])
    chol = tf.linalg.cholesky(bad)
    h = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
    return [tf.linalg.cholesky(tf.constant([[4.0, 100.0], [2.0, 3.0]])), tf.einsum("...ii->...i", chol),
            chol[:, 1, 0], tf.einsum("ii->i", tf.linalg.cholesky(tf.constant([[4.0, 2.0], [100.0, 3.0]]))),
            tf.linalg.logdet(tf.constant([[1.0, 2.0], [2.0, 1.0]])), catch(tf.linalg.cholesky, tf.constant(A)),
            catch(tf.linalg.cholesky, tf.constant([1.0])), catch(tf.linalg.cholesky, h),
            catch(tf.linalg.cholesky, tf.constant([[1, 0], [0, 1]]))]


# --------------------------------------------------------------------------------------------- QR


@case
def qr_values_and_grads(tf):
    wide = [[1.0, 2.0, 3.0], [3.0, 4.0, 5.5]]

    def fn(t, s, w):
        q, r = tf.linalg.qr(t)
        q2, r2 = tf.linalg.qr(s)
        q3, r3 = tf.linalg.qr(w)
        q4, r4 = tf.linalg.qr(w, full_matrices=True)
        return [q, r, q2, r2, q3, r3, q4, r4]

    out = _both(tf, fn, T42, M3, wide)
    full = tf.linalg.qr(tf.constant(T42), full_matrices=True)
    out["full"] = [type(full).__name__, full._fields, full.r, tf.abs(full.q)]
    return out


@case
def qr_complex_grads(tf):
    z = _complex((T42, [[0.5, -1.0], [1.0, 0.25], [0.0, 1.0], [2.0, -0.5]]))[0]
    return _both(tf, lambda t: list(tf.linalg.qr(t)) + list(tf.linalg.qr(tf.linalg.adjoint(t))), z,
                 dtypes=_COMPLEX)


@case
def qr_errors(tf):
    x = tf.constant(T42)
    with tf.GradientTape() as tape:
        tape.watch(x)
        q, r = tf.linalg.qr(x, full_matrices=True)
    return [catch(tape.gradient, q, x), catch(tf.linalg.qr, tf.constant([1.0, 2.0])),
            catch(tf.linalg.qr, tf.constant([[1, 2], [3, 4]])),
            [t.dtype for t in tf.linalg.qr(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16))],
            [t.shape for t in tf.linalg.qr(tf.zeros((2, 0, 3)))]]


# --------------------------------------------------------------------------------------------- SVD


def _svd_parts(tf, s, u, v):
    """What the SVD determines regardless of singular-vector signs/phases."""
    return [s, tf.abs(u), tf.abs(v), tf.matmul(u * tf.cast(s[..., None, :], u.dtype), v, adjoint_b=True)]


def _svd_loss_terms(tf, s, u, v):
    return [s, tf.math.real(u * tf.math.conj(u)), tf.math.real(v * tf.math.conj(v))]


@case
def svd_values_and_grads(tf):
    batch = np.stack([np.array(M3), np.array(S3)])

    def fn(t, b):
        s, u, v = tf.linalg.svd(t)
        sb, ub, vb = tf.linalg.svd(b)
        sw, uw, vw = tf.linalg.svd(tf.transpose(t))
        return (_svd_loss_terms(tf, s, u, v) + _svd_loss_terms(tf, sb, ub, vb) + _svd_loss_terms(tf, sw, uw, vw)
                + [tf.linalg.svd(t, compute_uv=False), tf.linalg.svd(b, compute_uv=False)])

    out = _both(tf, fn, T42, batch)
    s, u, v = tf.linalg.svd(tf.constant(T42, tf.float64), full_matrices=True)
    # Past the first min(m, n) columns, u (or v) is any orthonormal completion: compare what is determined.
    out["full"] = [s, tf.abs(u[:, :2]), tf.abs(v), u.shape, v.shape, tf.matmul(u, u, adjoint_a=True)]
    out["parts"] = _svd_parts(tf, *tf.linalg.svd(tf.constant(batch)))
    return out


@case
def svd_full_matrices_grad(tf):
    def fn(t):
        s, u, v = tf.linalg.svd(t, full_matrices=True)
        return _svd_loss_terms(tf, s, u, v)

    return _both(tf, fn, T42[:3])


@case
def svd_complex(tf):
    z = _complex((T42, [[0.5, -1.0], [1.0, 0.25], [0.0, 1.0], [2.0, -0.5]]))[0]

    def fn(t):
        s, u, v = tf.linalg.svd(t)
        sw, uw, vw = tf.linalg.svd(tf.linalg.adjoint(t))
        return _svd_loss_terms(tf, s, u, v) + _svd_loss_terms(tf, sw, uw, vw) + [tf.linalg.svd(t, compute_uv=False)]

    out = _both(tf, fn, z, dtypes=_COMPLEX)
    out["parts"] = _svd_parts(tf, *tf.linalg.svd(tf.constant(z)))
    return out


@case
def svd_errors(tf):
    x = tf.constant(np.ones((4, 2)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s, u, v = tf.linalg.svd(x, full_matrices=True)
    h = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
    return [catch(tape.gradient, u, x), catch(tape.gradient, s, x), catch(tf.linalg.svd, tf.constant([1.0, 2.0])),
            catch(tf.linalg.svd, tf.constant([[1, 2], [3, 4]])), catch(tf.linalg.svd, h),
            catch(tf.linalg.svd, h, compute_uv=False),
            [t.shape for t in tf.linalg.svd(tf.zeros((2, 0, 3)))]]


# --------------------------------------------------------------------------------------------- eigh


@case
def eigh_values_and_grads(tf):
    batch = np.stack([np.array(S3), np.array(M3) + np.array(M3).T])

    def fn(t, b):
        e, v = tf.linalg.eigh(t)
        eb, vb = tf.linalg.eigh(b)
        return [e, v * v, eb, vb * vb, tf.linalg.eigvalsh(t), tf.linalg.eigvalsh(b)]

    out = _both(tf, fn, M3, batch)
    e, v = tf.linalg.eigh(tf.constant(batch))
    out["parts"] = [e, tf.abs(v), tf.matmul(v * e[..., None, :], v, adjoint_b=True)]
    return out


@case
def eigh_complex(tf):
    z = _complex((S3, [[0.0, 1.0, -0.5], [-1.0, 0.0, 0.25], [0.5, -0.25, 0.0]]))[0]

    def fn(t):
        e, v = tf.linalg.eigh(t)
        return [e, tf.math.real(v * tf.math.conj(v)), tf.linalg.eigvalsh(t)]

    out = _both(tf, fn, z, dtypes=_COMPLEX)
    e, v = tf.linalg.eigh(tf.constant(z))
    out["parts"] = [e, tf.abs(v), tf.matmul(v * e[..., None, :], v, adjoint_b=True)]
    return out


@case
def eigh_errors(tf):
    h = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
    return [catch(tf.linalg.eigh, tf.constant(A)), catch(tf.linalg.eigvalsh, tf.constant(A)),
            catch(tf.linalg.eigh, tf.constant([1.0])), catch(tf.linalg.eigh, h), catch(tf.linalg.eigvalsh, h),
            catch(tf.linalg.eigh, tf.constant([[1, 2], [3, 4]])),
            [t.shape for t in tf.linalg.eigh(tf.zeros((2, 0, 0)))]]


@case
def namespaces(tf):
    names = ["matmul", "einsum", "tensordot", "matvec", "matrix_transpose", "adjoint", "trace", "cross", "norm",
             "inv", "det", "slogdet", "logdet", "solve", "triangular_solve", "cholesky", "cholesky_solve", "qr",
             "svd", "eigh", "eigvalsh"]
    return {ns: [n for n in names if hasattr(mod, n)] for ns, mod in (("tf", tf), ("linalg", tf.linalg),
                                                                      ("math", tf.math))}


@case
def argument_names(tf):
    import inspect

    fns = [tf.matmul, tf.einsum, tf.tensordot, tf.linalg.matvec, tf.linalg.matrix_transpose, tf.linalg.adjoint,
           tf.linalg.trace, tf.linalg.cross, tf.norm, tf.linalg.inv, tf.linalg.det, tf.linalg.slogdet,
           tf.linalg.logdet, tf.linalg.solve, tf.linalg.triangular_solve, tf.linalg.cholesky,
           tf.linalg.cholesky_solve, tf.linalg.qr, tf.linalg.svd, tf.linalg.eigh, tf.linalg.eigvalsh]
    return [[(p.name, repr(p.default)) for p in inspect.signature(fn).parameters.values()] for fn in fns]


def _second(tf, fn, value, dtype):
    """``d/dx <grad f(x), w>`` with nested tapes: TF's gradients are differentiated again."""
    x = tf.constant(value, dtype=getattr(tf, dtype))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            outs = fn(x)
            loss = _loss(tf, outs if isinstance(outs, list) else [outs])
        g = inner.gradient(loss, x)
        gw = _loss(tf, [g])
    return [g, outer.gradient(gw, x)]


@case
def second_order(tf):
    sym = lambda x: (x + tf.linalg.adjoint(x)) * 0.5  # noqa: E731
    fns = {
        "matmul": lambda x: [tf.matmul(x, x), tf.matmul(x[None], x, adjoint_b=True)],
        "einsum": lambda x: [tf.einsum("ij,jk->ik", x, x), tf.einsum("ii->i", x), tf.einsum("ij,kj->", x, x)],
        "inv_det": lambda x: [tf.linalg.inv(x), tf.linalg.det(x), tf.linalg.slogdet(x)[1]],
        "solves": lambda x: [tf.linalg.solve(x, x[:, :2]), tf.linalg.triangular_solve(x, x[:, :1], adjoint=True)],
        "cholesky": lambda x: [tf.linalg.cholesky(sym(x)), tf.linalg.logdet(sym(x))],
        "qr": lambda x: list(tf.linalg.qr(x)),
        "svd": lambda x: _svd_loss_terms(tf, *tf.linalg.svd(x)),
        "eigh": lambda x: [tf.linalg.eigh(sym(x))[0], tf.linalg.eigh(sym(x))[1] ** 2],
        "norms": lambda x: [tf.norm(x), tf.norm(x, ord=3, axis=0), tf.norm(x, ord=2, axis=[0, 1])],
    }
    out = {name: {d: _second(tf, fn, S3 if name in ("cholesky", "eigh") else M3, d) for d in _REAL}
           for name, fn in fns.items()}
    z = _complex((M3, [[0.5, -1.0, 0.0], [1.0, 0.25, 0.5], [0.0, 1.0, -0.5]]))[0]
    out["complex"] = {d: [_second(tf, fn, z, d) for fn in (fns["matmul"], fns["inv_det"], fns["svd"], fns["qr"])]
                      for d in _COMPLEX}
    return out


@case
def non_finite_inputs(tf):
    # NaN and inf propagate (no errors), as TF's kernels let them; NaN in the triangle an op ignores is ignored.
    out = []
    for m in ([[1.0, np.nan], [0.0, 1.0]], [[np.inf, 0.0], [0.0, 1.0]], [[1.0, 0.0], [np.nan, 2.0]]):
        x = tf.constant(m)
        out.append([tf.linalg.inv(x), tf.linalg.det(x), list(tf.linalg.slogdet(x)), tf.linalg.solve(x, tf.ones((2, 1))),
                    tf.linalg.triangular_solve(x, tf.ones((2, 1))), tf.linalg.eigvalsh(x),
                    tf.linalg.svd(x, compute_uv=False), tf.einsum("ii->i", tf.linalg.cholesky(x)),
                    tf.linalg.qr(x).r, tf.matmul(x, x), tf.norm(x)])
    return out


@case
def non_finite_eigen_and_cholesky(tf):
    inf, nan = np.inf, np.nan
    out = []
    for m in ([[1.0, 0.0], [inf, 2.0]], [[inf, 0.0], [1.0, 2.0]], [[inf, 0.0], [0.0, -inf]],
              [[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.1, 0.2, inf]], [[1.0, 0.0], [0.5, nan]], [[inf]], [[nan]],
              [[1.0, 0.0], [nan, 2.0]], [[nan, 0.0], [1.0, 2.0]], [[4.0, 0.0, 0.0], [2.0, 1.0, 0.0], [nan, 1.0, 3.0]]):
        x = tf.constant(m)
        chol = tf.linalg.cholesky(x)  # (its strictly upper part is uninitialized memory in TF when it fails)
        out.append([catch(tf.linalg.eigh, x), catch(tf.linalg.eigvalsh, x), tf.einsum("ii->i", chol), chol[-1, 0],
                    chol[-1, -2]])
    return out
