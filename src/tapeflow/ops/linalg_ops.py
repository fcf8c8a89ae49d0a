"""Matrix multiplication and norms: forward (NumPy/BLAS) and gradient (tapeflow ops) side by side."""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.registry import defop
from ._convert import matching, to_tensor
from .math_ops import abs as _abs
from .math_ops import conj, real, sqrt
from .reduction_ops import reduce_sum

__all__ = ["matmul", "norm"]

_MATMUL_TYPES = ("bfloat16", "float16", "float32", "float64", "int32", "int64", "complex64", "complex128")


def _mt(x):
    return np.swapaxes(x, -1, -2)


def _matmul_error(exc, values, attrs):
    a, b = values
    sa, sb = errors.shape_str(np.shape(a)), errors.shape_str(np.shape(b))
    if a.ndim <= 2 and b.ndim <= 2:
        if a.ndim != b.ndim:
            return errors.op_error("MatMul", f"In[0] and In[1] has different ndims: {sa} vs. {sb}")
        if a.ndim != 2:
            return errors.op_error("MatMul", f"In[0] and In[1] ndims must be == 2: {a.ndim}")
        return errors.op_error("MatMul", f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb}")
    name = "BatchMatMulV2"
    for i, v in enumerate(values):
        if v.ndim < 2:
            return errors.op_error(name, f"In[{i}] ndims must be >= 2: {v.ndim}")
    for p, q in zip(a.shape[-3::-1], b.shape[-3::-1]):
        if p != q and p != 1 and q != 1:
            return errors.op_error(name, f"In[0] and In[1] must have compatible batch dimensions: {sa} vs. {sb}")
    return errors.op_error(name, f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb}")


@defop("MatMul", dtypes=_MATMUL_TYPES, on_error=_matmul_error)
def MATMUL(a, b, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("matmul needs rank >= 2")
    if transpose_a:
        a = _mt(a)
    if transpose_b:
        b = _mt(b)
    return np.matmul(a, b)


@MATMUL.defvjp
def _matmul_grad(g, c, a, b, needs, transpose_a=False, transpose_b=False):
    # TF's rule for each combination of flags; conj makes it the adjoint for complex inputs.
    a, b = conj(a), conj(b)
    if not transpose_a and not transpose_b:
        ga = matmul(g, b, transpose_b=True) if needs[0] else None
        gb = matmul(a, g, transpose_a=True) if needs[1] else None
    elif not transpose_a and transpose_b:
        ga = matmul(g, b) if needs[0] else None
        gb = matmul(g, a, transpose_a=True) if needs[1] else None
    elif transpose_a and not transpose_b:
        ga = matmul(b, g, transpose_b=True) if needs[0] else None
        gb = matmul(a, g) if needs[1] else None
    else:
        ga = matmul(b, g, transpose_a=True, transpose_b=True) if needs[0] else None
        gb = matmul(g, a, transpose_a=True, transpose_b=True) if needs[1] else None
    return ga, gb


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product ``a @ b`` over the last two axes, broadcasting batch axes (``tf.linalg.matmul``)."""
    a, b = matching(a, b)
    if adjoint_a:
        a, transpose_a = conj(a), True
    if adjoint_b:
        b, transpose_b = conj(b), True
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)} if (transpose_a or
                                                                                      transpose_b) else {}
    return execute(MATMUL, (a, b), attrs)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """The Euclidean (Frobenius) norm of ``tensor`` over ``axis`` (``tf.norm``; other orders come later).

    Its gradient at the zero vector is NaN, as in TensorFlow.
    """
    x = to_tensor(tensor)
    if ord not in ("euclidean", "fro", 2, 2.0) and not (ord == "fro" and axis is not None):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    sq = x * conj(x) if x._value.dtype.kind == "c" else x * x
    result = sqrt(reduce_sum(sq, axis, keepdims=bool(keepdims)))
    return _abs(real(result)) if x._value.dtype.kind == "c" else result
