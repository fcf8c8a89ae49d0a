"""Inverses, solves and decompositions: forward (NumPy's LAPACK) and gradient (tapeflow ops) side by side.

Every op works on the innermost two axes and loops over the leading (batch) ones; only ``triangular_solve``
broadcasts them, as in TF. Gradient rules are TF's own formulas written with tapeflow ops, so they differentiate
again. Where TF's kernels differ from LAPACK's conventions, TF's are kept: ``cholesky`` and ``eigh`` read only the
lower triangle, a failed Cholesky factor is NaN (not an error), ``svd`` returns ``s, u, v`` (not ``v``'s
adjoint), and ``eigh``'s eigenvalues are ascending. Eigen- and singular vectors are unique only up to sign (a
phase for complex); TF's come from Eigen's iterations and tapeflow's from LAPACK's, so their signs may differ.
"""

from __future__ import annotations

import collections

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import constant_of
from ._convert import matching, to_tensor
from .array_ops import RESHAPE, cast, getitem, where, zeros_like
from .einsum_ops import EINSUM
from .linalg_ops import Refusal, adjoint, matmul, no_kernel, refused
from .math_ops import log, real
from .reduction_ops import reduce_sum

__all__ = ["inv", "det", "slogdet", "logdet", "solve", "triangular_solve", "cholesky", "cholesky_solve", "qr",
           "svd", "eigh", "eigvalsh"]

_T = ("float64", "float32", "float16", "complex64", "complex128")  # TF's op definitions allow these (and bfloat16)

# CPU kernels of ops that have none for float16, as TF's NotFoundError lists them.
_HALF_KERNELS = {
    "Svd": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_HALF]", "CPU; T in [DT_FLOAT]", "CPU; T in [DT_DOUBLE]",
            "CPU; T in [DT_COMPLEX64]", "CPU; T in [DT_COMPLEX128]"),
    "Cholesky": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128, DT_HALF]",
                 "CPU; T in [DT_COMPLEX128]", "CPU; T in [DT_COMPLEX64]", "CPU; T in [DT_DOUBLE]",
                 "CPU; T in [DT_FLOAT]"),
    "MatrixDeterminant": ("CPU; T in [DT_COMPLEX128]", "CPU; T in [DT_COMPLEX64]", "CPU; T in [DT_DOUBLE]",
                          "CPU; T in [DT_FLOAT]"),
    "LogMatrixDeterminant": ("CPU; T in [DT_COMPLEX128]", "CPU; T in [DT_COMPLEX64]", "CPU; T in [DT_DOUBLE]",
                             "CPU; T in [DT_FLOAT]"),
    "MatrixSolve": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_HALF]", "CPU; T in [DT_COMPLEX128]",
                    "CPU; T in [DT_COMPLEX64]", "CPU; T in [DT_DOUBLE]", "CPU; T in [DT_FLOAT]"),
    "MatrixTriangularSolve": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_BFLOAT16, DT_COMPLEX128, "
                              "DT_HALF]", "CPU; T in [DT_DOUBLE]", "CPU; T in [DT_FLOAT]", "CPU; T in [DT_COMPLEX128]",
                              "CPU; T in [DT_COMPLEX64]"),
    "SelfAdjointEigV2": ("CPU; T in [DT_FLOAT]", "CPU; T in [DT_DOUBLE]", "CPU; T in [DT_COMPLEX64]",
                         "CPU; T in [DT_COMPLEX128]", "XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, "
                         "DT_COMPLEX128, DT_HALF]"),
}

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])


# ------------------------------------------------------------------------------------------ helpers


def _refuse(op, message, cls=None):
    return Refusal(errors.op_error(op, message, cls=cls))


def _no_half(op, x, **attrs):
    """Refuse float16 as TF does for ops without a float16 CPU kernel (their op definitions allow it)."""
    if x.dtype == np.float16:
        flags = ", ".join(f"{k}={str(v).lower()}" for k, v in sorted(attrs.items()))
        raise Refusal(no_kernel(op, "T=DT_HALF" + (", " + flags if flags else ""), _HALF_KERNELS[op]))


def _check_matrices(op, x, square="Input matrix must be square."):
    if x.ndim < 2:
        raise _refuse(op, f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if square and x.shape[-1] != x.shape[-2]:
        raise _refuse(op, square)


def _wide(x):
    """float16 computed in float32 (LAPACK has no half precision); the result is cast back."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _h(x):
    """The conjugate transpose of the innermost matrices of an array."""
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if x.dtype.kind == "c" else x


_MASKS = {}


def _mask(kind, n, dtype):
    """A constant ``n x n`` matrix of ``dtype``: ``"eye"``, ``"off"`` (1 - eye), ``"tril"``/``"triu"`` (with
    the diagonal), or ``"tril_half"`` (strict lower part 1, diagonal 1/2), remembered (shapes recur)."""
    key = (kind, n, np.dtype(dtype).num)
    found = _MASKS.get(key)
    if found is None:
        eye = np.eye(n)
        found = {"eye": eye, "off": 1 - eye, "tril": np.tril(np.ones((n, n))), "triu": np.triu(np.ones((n, n))),
                 "tril_half": np.tril(np.ones((n, n)), -1) + 0.5 * eye}[kind].astype(dtype)
        if len(_MASKS) < 256:
            _MASKS[key] = found
    return constant_of(found)


def _masked(x, kind):
    """``x`` times ``kind``'s mask where that is nonzero, and exact zeros elsewhere (NaN and inf included), as
    TF's ``band_part`` and ``set_diag`` give them."""
    n = x._value.shape[-1]
    mask = _mask(kind, n, x._value.dtype)
    if kind == "tril_half":
        x = x * mask
    return where(_mask(kind, n, np.bool_), x, zeros_like(x))


def _diag(v):
    """Vectors on the diagonal of zero matrices (TF's ``matrix_diag``)."""
    return execute(EINSUM, (v,), {"equation": "...i->...ii"})


def _diag_part(x):
    return execute(EINSUM, (x,), {"equation": "...ii->...i"})


def _expand(t, k=2):
    """``t`` with ``k`` trailing axes of size 1."""
    return execute(RESHAPE, (t,), {"shape": t._value.shape + (1,) * k})


def _safe_reciprocal(x, epsilon=1e-20):
    # TF's Lorentz broadening: x / (x^2 + eps), finite where eigen/singular values are (nearly) degenerate.
    # A division, not x * reciprocal(...): TF's ReciprocalGrad returns 0 for a zero upstream gradient, where
    # -g * (1/eps)^2 would be 0 * inf in float32 (the masked diagonal), so this keeps TF's finite second order.
    return x / (x * x + epsilon)


def _zero_if_none(g, like):
    return zeros_like(like) if g is None else g


# ------------------------------------------------------------------------------------------ inverse, determinants


@defop("MatrixInverse", dtypes=_T, on_error=refused, quiet=True)
def MATRIX_INVERSE(x, adjoint=False):
    _check_matrices("MatrixInverse", x)
    a = _wide(x)
    try:
        out = np.linalg.inv(_h(a) if adjoint else a)
    except np.linalg.LinAlgError:
        raise _refuse("MatrixInverse", "Input is not invertible.") from None
    return out.astype(x.dtype, copy=False)


@MATRIX_INVERSE.defvjp
def _inverse_grad(g, ainv, x, adjoint=False):
    inner = matmul(g, ainv, adjoint_a=adjoint, adjoint_b=not adjoint)
    return (-matmul(ainv, inner, adjoint_a=not adjoint),)


@defop("MatrixDeterminant", dtypes=_T, on_error=refused, quiet=True)
def MATRIX_DETERMINANT(x):
    _no_half("MatrixDeterminant", x)
    _check_matrices("MatrixDeterminant", x)
    return np.asarray(np.linalg.det(x)).astype(x.dtype)[()]


@MATRIX_DETERMINANT.defvjp
def _determinant_grad(g, c, x):
    # TF's rule: g * det * inv(x)^H. For complex x it multiplies by det, not by its conjugate (kept as TF has it).
    return (_expand(g * c) * execute(MATRIX_INVERSE, (x,), {"adjoint": True}),)


@defop("LogMatrixDeterminant", dtypes=_T, num_outputs=2, on_error=refused, quiet=True)
def LOG_MATRIX_DETERMINANT(x):
    _no_half("LogMatrixDeterminant", x)
    _check_matrices("LogMatrixDeterminant", x)
    sign, logabs = np.linalg.slogdet(x)
    sign = np.where(np.isnan(logabs), np.nan, sign)  # TF's sign of a NaN determinant is NaN, not 1
    return sign.astype(x.dtype)[()], np.asarray(logabs).astype(x.dtype)[()]


@LOG_MATRIX_DETERMINANT.defvjp
def _log_determinant_grad(gs, outs, x):
    g = _zero_if_none(gs[1], outs[1])  # the sign's gradient is ignored (zero), as in TF
    return (_expand(g) * execute(MATRIX_INVERSE, (x,), {"adjoint": True}),)


# ------------------------------------------------------------------------------------------ solves


def _solve_error(matrix, rhs):
    """MatrixSolve's input checks, in TF's order and words."""
    if matrix.ndim < 2:
        raise _refuse("MatrixSolve", f"Input tensor 0 must have rank >= 2, got {matrix.ndim}")
    if rhs.ndim != matrix.ndim:
        raise _refuse("MatrixSolve", "All input tensors must have the same rank.")
    if rhs.shape[:-2] != matrix.shape[:-2]:
        raise _refuse("MatrixSolve", "All input tensors must have the same outer dimensions.")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _refuse("MatrixSolve", "First input (lhs) must be a square matrix.")
    if rhs.shape[-2] != matrix.shape[-2]:
        raise _refuse("MatrixSolve", "Input matrix and rhs are incompatible.")


@defop("MatrixSolve", dtypes=_T, on_error=refused, quiet=True)
def MATRIX_SOLVE(matrix, rhs, adjoint=False):
    _no_half("MatrixSolve", matrix, adjoint=adjoint)
    _solve_error(matrix, rhs)
    try:
        return np.linalg.solve(_h(matrix) if adjoint else matrix, rhs)
    except np.linalg.LinAlgError:
        raise _refuse("MatrixSolve", "Input matrix is not invertible.") from None


@MATRIX_SOLVE.defvjp(needs=True)
def _solve_grad(g, c, matrix, rhs, needs, adjoint=False):
    grad_rhs = execute(MATRIX_SOLVE, (matrix, g), {"adjoint": not adjoint})
    if not needs[0]:
        return None, grad_rhs
    return _solve_matrix_grad(c, grad_rhs, adjoint), grad_rhs


def _solve_matrix_grad(c, grad_rhs, adjoint):
    """A solve's gradient for its matrix, from the solution ``c`` and the gradient for the right-hand side."""
    return -matmul(c, grad_rhs, adjoint_b=True) if adjoint else -matmul(grad_rhs, c, adjoint_b=True)


def _triangular_error(matrix, rhs, lower, adjoint):
    name = "MatrixTriangularSolve"
    for i, v in enumerate((matrix, rhs)):
        if v.ndim < 2:
            raise _refuse(name, f"In[{i}] ndims must be >= 2: {v.ndim}")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _refuse(name, f"In[0] matrices in the last dimensions must be square ({matrix.shape[-1]} =/= "
                            f"{matrix.shape[-2]})")
    sm, sr = errors.shape_str(matrix.shape), errors.shape_str(rhs.shape)
    try:
        np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise _refuse(name, f"In[0] and In[1] must have compatible batch dimensions: {sm} vs. {sr}") from None
    if matrix.shape[-1] != rhs.shape[-2]:
        raise _refuse(name, f"In[0] mismatch In[1] shape: {matrix.shape[-1]} vs. {rhs.shape[-2]}: {sm} {sr} "
                            f"{int(lower)} {int(adjoint)}")


def _substitute(a, b, lower):
    """Solve ``a x = b`` for triangular ``a`` row by row: a zero on the diagonal gives inf/NaN, as in TF."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], np.result_type(a, b))
    rows = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in rows:
            done = slice(0, i) if lower else slice(i + 1, n)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = acc / a[..., i, i][..., None]
    return x


@defop("MatrixTriangularSolve", dtypes=_T, on_error=refused, quiet=True)
def MATRIX_TRIANGULAR_SOLVE(matrix, rhs, lower=True, adjoint=False):
    _no_half("MatrixTriangularSolve", matrix, adjoint=adjoint, lower=lower)
    _triangular_error(matrix, rhs, lower, adjoint)
    a = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        a, lower = _h(a), not lower
    if np.all(np.diagonal(a, axis1=-2, axis2=-1) != 0):
        shape = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        try:
            return np.linalg.solve(np.broadcast_to(a, shape + a.shape[-2:]),
                                   np.broadcast_to(rhs, shape + rhs.shape[-2:]))
        except np.linalg.LinAlgError:
            pass  # singular to working precision: substitution gives TF's inf/NaN
    return _substitute(a, rhs, lower)


@MATRIX_TRIANGULAR_SOLVE.defvjp(needs=True)
def _triangular_solve_grad(g, c, matrix, rhs, needs, lower=True, adjoint=False):
    grad_rhs = execute(MATRIX_TRIANGULAR_SOLVE, (matrix, g), {"lower": lower, "adjoint": not adjoint})
    if not needs[0]:
        return None, grad_rhs
    return _masked(_solve_matrix_grad(c, grad_rhs, adjoint), "tril" if lower else "triu"), grad_rhs


# ------------------------------------------------------------------------------------------ Cholesky


@defop("Cholesky", dtypes=_T, on_error=refused, quiet=True)
def CHOLESKY(x):
    _no_half("Cholesky", x)
    _check_matrices("Cholesky", x)
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return _cholesky_by_columns(x)


def _cholesky_by_columns(x):
    """Cholesky as TF's kernel (Eigen's LLT) runs it, where LAPACK refuses a matrix: column by column, a NaN
    flows through, and a factor whose pivot is <= 0 is NaN in its whole lower triangle (TF's kernel goes on)."""
    n = x.shape[-1]
    low = np.tril(x)
    failed = np.zeros(x.shape[:-2], bool)
    for k in range(n):
        row = low[..., k, :k]
        pivot = np.real(low[..., k, k]) - np.sum(np.real(row * np.conj(row)), axis=-1)
        failed |= pivot <= 0
        pivot = np.sqrt(np.where(pivot <= 0, 1, pivot))
        low[..., k, k] = pivot
        if k + 1 < n:
            column = low[..., k + 1:, k] - np.einsum("...ij,...j->...i", low[..., k + 1:, :k], np.conj(row))
            low[..., k + 1:, k] = column / pivot[..., None]
    low[failed] = np.where(np.tril(np.ones((n, n), bool)), np.nan, 0)
    return low


@CHOLESKY.defvjp
def _cholesky_grad(g, chol, x):
    n = chol._value.shape[-1]
    chol_inv = execute(MATRIX_TRIANGULAR_SOLVE, (chol, _mask("eye", n, chol._value.dtype)),
                       {"lower": True, "adjoint": False})
    middle = _masked(matmul(chol, g, adjoint_a=True), "tril_half")
    grad = matmul(matmul(chol_inv, middle, adjoint_a=True), chol_inv)
    return ((grad + adjoint(grad)) * 0.5,)


# ------------------------------------------------------------------------------------------ QR


@defop("Qr", dtypes=_T, num_outputs=2, on_error=refused, quiet=True)
def QR(x, full_matrices=False):
    _check_matrices("Qr", x, square=None)
    q, r = np.linalg.qr(_wide(x), mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _solve_right_upper(x, r):
    """``x @ inv(r)^H`` for upper-triangular ``r``."""
    return adjoint(execute(MATRIX_TRIANGULAR_SOLVE, (r, adjoint(x)), {"lower": False, "adjoint": False}))


def _qr_grad_tall(q, r, dq, dr):
    """The QR gradient for rows >= columns (reduced factors); see arXiv:2009.10071."""
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - adjoint(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - adjoint(rdr)
    tril = _masked(qdq_ + rdr_, "tril")
    grad = matmul(q, dr + _solve_right_upper(tril, r)) + _solve_right_upper(dq - matmul(q, qdq), r)
    if q._value.dtype.kind == "c":
        m = rdr - adjoint(qdq)
        diagonal = _masked(m, "eye")
        correction = diagonal - cast(real(diagonal), q.dtype)
        grad = grad + _solve_right_upper(matmul(q, adjoint(correction)), r)
    return grad


@QR.defvjp
def _qr_grad(gs, outs, x, full_matrices=False):
    q, r = outs
    dq, dr = _zero_if_none(gs[0], q), _zero_if_none(gs[1], r)
    rows, cols = r._value.shape[-2], r._value.shape[-1]
    if rows > cols and q._value.shape[-2] == q._value.shape[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={r.shape} with nrows={rows}and ncols={cols}.")
    m = q._value.shape[-2]
    if m >= cols:
        return (_qr_grad_tall(q, r, dq, dr),)
    # Wide: split x = [a, b] and r = [u, v] at column m; the square part carries the rest.
    b = getitem(x, (Ellipsis, slice(None), slice(m, None)))
    u = getitem(r, (Ellipsis, slice(None), slice(None, m)))
    dv = getitem(dr, (Ellipsis, slice(None), slice(m, None)))
    du = getitem(dr, (Ellipsis, slice(None), slice(None, m)))
    db = matmul(q, dv)
    da = _qr_grad_tall(q, u, dq + matmul(b, dv, adjoint_b=True), du)
    # [da, db] along the last axis, through constant selections (so the gradient stays differentiable).
    eye = np.eye(cols, dtype=x._value.dtype)
    return (matmul(da, constant_of(eye[:m])) + matmul(db, constant_of(eye[m:])),)


# ------------------------------------------------------------------------------------------ SVD


@defop("Svd", dtypes=_T, num_outputs=3, on_error=refused, quiet=True)
def SVD(x, compute_uv=True, full_matrices=False):
    _no_half("Svd", x, compute_uv=compute_uv, full_matrices=full_matrices)
    _check_matrices("Svd", x, square=None)
    # A matrix with a NaN or inf has NaN factors in TF (LAPACK would fail or answer): computed on zeros here.
    bad = ~np.isfinite(x).all(axis=(-2, -1))
    if bad.any():
        x = np.where(bad[..., None, None], 0, x).astype(x.dtype)
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False).astype(x.dtype)
        out = (s, np.zeros((0,), x.dtype), np.zeros((0,), x.dtype))
    else:
        u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
        out = (s.astype(x.dtype), u, _h(vh))
    if bad.any():
        for t in out[:3 if compute_uv else 1]:
            t[bad] = np.nan
    return out


@SVD.defvjp
def _svd_grad(gs, outs, x, compute_uv=True, full_matrices=False):
    dtype = x.dtype
    grad_s = _zero_if_none(gs[0], outs[0])
    if not compute_uv:
        _, u, v = execute(SVD, (x,), {"compute_uv": True, "full_matrices": False})
        return (matmul(u, matmul(_diag(grad_s), v, adjoint_b=True)),)
    s, u, v = outs
    grad_u, grad_v = _zero_if_none(gs[1], u), _zero_if_none(gs[2], v)
    m, n = x._value.shape[-2], x._value.shape[-1]
    transposed = m > n
    if transposed:
        # Work on x^H = v s u^H, and take the adjoint of the gradient at the end.
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                  f"Received: m={m} and n={n} from op input={x} with shape={x.shape}.")
    s_mat = _diag(s)
    s2 = s * s
    f = _masked(_safe_reciprocal(s2[..., None, :] - s2[..., :, None]), "off")
    s_inv_mat = _diag(_safe_reciprocal(s))
    v1 = getitem(v, (Ellipsis, slice(None), slice(None, m)))
    grad_v1 = getitem(grad_v, (Ellipsis, slice(None), slice(None, m)))
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u, f_v = f * u_gu, f * v_gv
    inner = cast(_diag(grad_s), dtype) + matmul(f_u + adjoint(f_u), s_mat) + matmul(s_mat, f_v + adjoint(f_v))
    grad = matmul(u, matmul(inner, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        rest = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2 = getitem(v, (Ellipsis, slice(None), slice(m, n)))
            grad_v2 = getitem(grad_v, (Ellipsis, slice(None), slice(m, n)))
            rest = rest - matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad = grad + matmul(matmul(u, s_inv_mat), rest)
    if x._value.dtype.kind == "c":
        diagonal = _masked(v_gv, "eye")
        grad = grad + 0.5 * matmul(u, matmul(matmul(s_inv_mat, adjoint(diagonal) - diagonal), v1, adjoint_b=True))
    return (adjoint(grad) if transposed else grad,)


# ------------------------------------------------------------------------------------------ eigh


@defop("SelfAdjointEigV2", dtypes=_T, num_outputs=2, on_error=refused, quiet=True)
def SELF_ADJOINT_EIG(x, compute_v=True):
    _no_half("SelfAdjointEigV2", x, compute_v=compute_v)
    _check_matrices("SelfAdjointEigV2", x)
    no_v = np.zeros((0,), x.dtype)
    if x.shape[-1] == 1:
        # Eigen returns a 1x1 matrix's entry as it is (inf and NaN included).
        return np.real(x[..., 0]).astype(x.dtype), np.ones_like(x) if compute_v else no_v
    x, nan = _eigen_non_finite(x)
    if compute_v:
        e, v = np.linalg.eigh(x, UPLO="L")
    else:
        e, v = np.linalg.eigvalsh(x, UPLO="L"), no_v
    e = e.astype(x.dtype)
    if nan is not None:
        e[nan] = np.nan
    return e, v


def _eigen_non_finite(x):
    """``(x, nan)``: TF's kernel (Eigen) on matrices with NaN or inf in the lower triangle it reads fails, except
    for a 2x2 with infinities on the diagonal only: Eigen scales by the largest entry first, and gives NaN
    eigenvalues and the identity as eigenvectors. Those are decomposed as the identity here, ``nan`` marking
    them (``None`` when every matrix is finite)."""
    low = np.tril(x)
    finite = np.isfinite(low).all(axis=(-2, -1))
    if finite.all():
        return x, None
    diagonal_only = np.isfinite(np.tril(low, -1)).all(axis=(-2, -1)) & ~np.isnan(low).any(axis=(-2, -1))
    if x.shape[-1] != 2 or not diagonal_only[~finite].all():
        raise _refuse("SelfAdjointEigV2", "Self-adjoint eigen decomposition was not successful. The input might not "
                                          "be valid.")
    return np.where(finite[..., None, None], x, np.eye(2, dtype=x.dtype)), ~finite


@SELF_ADJOINT_EIG.defvjp
def _eigh_grad(gs, outs, x, compute_v=True):
    e = outs[0]
    grad_e = _zero_if_none(gs[0], e)
    if compute_v:
        v = outs[1]
        grad_v = _zero_if_none(gs[1], v)
        # f[i, j] = 1 / (e[j] - e[i]) off the diagonal: infinite for repeated eigenvalues, as in TF.
        f = _masked(_safe_reciprocal(e[..., None, :] - e[..., :, None]), "off")
        inner = _diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True)
    else:
        _, v = execute(SELF_ADJOINT_EIG, (x,), {"compute_v": True})
        inner = _diag(grad_e)
    grad = matmul(v, matmul(inner, v, adjoint_b=True))
    # The forward reads the lower triangle only: fold the gradient onto it (halving the diagonal).
    return (_masked(grad + adjoint(grad), "tril_half"),)


# ------------------------------------------------------------------------------------------ public functions


@export("linalg.inv")
def inv(input, adjoint=False, name=None):
    """The inverse of each innermost square matrix (of its adjoint with ``adjoint=True``) (``tf.linalg.inv``)."""
    return execute(MATRIX_INVERSE, (to_tensor(input),), {"adjoint": bool(adjoint)})


@export("linalg.det")
def det(input, name=None):
    """The determinant of each innermost square matrix (``tf.linalg.det``)."""
    return execute(MATRIX_DETERMINANT, (to_tensor(input),))


@export("linalg.slogdet")
def slogdet(input, name=None):
    """``(sign, log|det|)`` of each innermost square matrix, as TF's ``LogMatrixDeterminant`` tuple
    (``tf.linalg.slogdet``); only ``log|det|`` carries a gradient."""
    return LogMatrixDeterminant(*execute(LOG_MATRIX_DETERMINANT, (to_tensor(input),)))


@export("linalg.logdet")
def logdet(matrix, name=None):
    """``log(det(matrix))`` of Hermitian positive definite matrices, via Cholesky (``tf.linalg.logdet``).

    Real even for complex input; NaN where the matrix is not positive definite.
    """
    chol = execute(CHOLESKY, (to_tensor(matrix),))
    return 2.0 * reduce_sum(log(real(_diag_part(chol))), axis=[-1])


@export("linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """``x`` with ``matrix @ x = rhs`` (``adjoint(matrix)`` with ``adjoint=True``); batch axes must match
    (``tf.linalg.solve``)."""
    matrix, rhs = matching(matrix, rhs)
    return execute(MATRIX_SOLVE, (matrix, rhs), {"adjoint": bool(adjoint)})


@export("linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``x`` with ``matrix @ x = rhs`` for triangular ``matrix`` (the other triangle is ignored); batch axes
    broadcast (``tf.linalg.triangular_solve``)."""
    matrix, rhs = matching(matrix, rhs)
    return execute(MATRIX_TRIANGULAR_SOLVE, (matrix, rhs), {"lower": bool(lower), "adjoint": bool(adjoint)})


@export("linalg.cholesky")
def cholesky(input, name=None):
    """The lower Cholesky factor of each Hermitian positive definite matrix, from its lower triangle; NaN
    (no error) where a matrix is not positive definite, as in TF (``tf.linalg.cholesky``)."""
    return execute(CHOLESKY, (to_tensor(input),))


@export("linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name=None):
    """``x`` with ``chol @ chol^H @ x = rhs``: two triangular solves (``tf.linalg.cholesky_solve``)."""
    chol, rhs = matching(chol, rhs)
    y = execute(MATRIX_TRIANGULAR_SOLVE, (chol, rhs), {"lower": True, "adjoint": False})
    return execute(MATRIX_TRIANGULAR_SOLVE, (chol, y), {"lower": True, "adjoint": True})


@export("linalg.qr")
def qr(input, full_matrices=False, name=None):
    """``Qr(q, r)`` with ``input = q @ r`` (reduced unless ``full_matrices``) (``tf.linalg.qr``)."""
    return Qr(*execute(QR, (to_tensor(input),), {"full_matrices": bool(full_matrices)}))


@export("linalg.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values ``s`` (descending, real), and with ``compute_uv`` also ``u`` and ``v`` such that
    ``tensor = u @ diag(s) @ adjoint(v)``; TF's order ``s, u, v`` (``tf.linalg.svd``)."""
    x = to_tensor(tensor)
    s, u, v = execute(SVD, (x,), {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)})
    s = real(s)
    return (s, u, v) if compute_uv else s


@export("linalg.eigh")
def eigh(tensor, name=None):
    """``(e, v)``: ascending eigenvalues and eigenvectors (columns) of self-adjoint matrices, read from the
    lower triangle; ``e`` has the input's dtype (complex for complex input) (``tf.linalg.eigh``)."""
    e, v = execute(SELF_ADJOINT_EIG, (to_tensor(tensor),), {"compute_v": True})
    return e, v


@export("linalg.eigvalsh")
def eigvalsh(tensor, name=None):
    """Ascending eigenvalues of self-adjoint matrices, from the lower triangle (``tf.linalg.eigvalsh``)."""
    return execute(SELF_ADJOINT_EIG, (to_tensor(tensor),), {"compute_v": False})[0]
