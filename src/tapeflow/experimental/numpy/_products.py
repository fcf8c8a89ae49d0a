"""Products: ``dot``, ``matmul``, ``tensordot``, ``inner``, ``outer``, ``cross``, ``vdot``, ``kron``, ``einsum``.

Operands are promoted with NumPy's rules first (``einsum`` with ``casting="no"`` excepted), then multiplied by
tapeflow's matmul, tensordot and einsum, whose gradients carry through.
"""

from __future__ import annotations

import tapeflow as _tf

from ..._core.errors import InvalidArgumentError
from ._arrays import asarray, promote, promote_binary
from ._math import broadcast
from ._unary import conj

__all__ = ["dot", "matmul", "tensordot", "inner", "outer", "cross", "vdot", "kron", "einsum", "vander", "polyval"]


def _rank(t):
    return len(t.shape)


def dot(a, b):
    """NumPy's ``dot``: a product with a scalar, the sum over ``a``'s last axis and ``b``'s last (vector) or
    second-to-last axis."""
    a, b = promote_binary(a, b)
    if _rank(a) == 0 or _rank(b) == 0:
        return a * b
    return _tf.tensordot(a, b, axes=[[-1], [-1]] if _rank(b) == 1 else [[-1], [-2]])


def matmul(x1, x2):
    """The matrix product, with NumPy's rules for vectors (a vector operand loses its added dimension) and
    batches.

    Raises:
        ValueError: with TF's kernel message, for shapes that do not multiply.
    """
    x1, x2 = promote_binary(x1, x2)
    try:
        if _rank(x1) == 2 and _rank(x2) == 2:
            return _tf.matmul(x1, x2)
        if _rank(x2) == 1:
            return _tf.tensordot(x1, x2, axes=1)
        if _rank(x1) == 1:
            return _tf.tensordot(x1, x2, axes=[[0], [-2]])
        return _tf.matmul(x1, x2)
    except InvalidArgumentError as err:
        raise ValueError(str(err)).with_traceback(err.__traceback__) from None


def tensordot(a, b, axes=2):
    """The sum of products over the given axes (``np.tensordot``)."""
    a, b = promote_binary(a, b)
    return _tf.tensordot(a, b, axes=axes)


def inner(a, b):
    """The sum of products over the last axes (a plain product with a scalar)."""
    a, b = promote_binary(a, b)
    if _rank(a) == 0 or _rank(b) == 0:
        return a * b
    return _tf.tensordot(a, b, axes=[[-1], [-1]])


def outer(a, b):
    """Every element of flattened ``a`` times every element of flattened ``b``."""
    a, b = promote_binary(a, b)
    return _tf.reshape(a, [-1, 1]) * _tf.reshape(b, [-1])


def _to_last(t, axis):
    rank = _rank(t)
    if axis == rank - 1:
        return t
    return _tf.transpose(t, [i for i in range(rank) if i != axis] + [axis])


def _pad_to_3(t):
    if t.shape[-1] != 2:
        return t
    return _tf.pad(t, [[0, 0]] * (_rank(t) - 1) + [[0, 1]])


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or 2-vectors, taken with a zero third component: the result is then the
    scalar third component), along the given axes."""
    a, b = promote_binary(a, b)
    axis_a, axis_b, axis_c = (axisa, axisb, axisc) if axis is None else (axis, axis, axis)
    axis_a = axis_a + _rank(a) if axis_a < 0 else axis_a
    axis_b = axis_b + _rank(b) if axis_b < 0 else axis_b
    a = _to_last(a, axis_a)
    b = _to_last(b, axis_b)
    a_dim, b_dim = a.shape[-1], b.shape[-1]
    c = _tf.linalg.cross(*broadcast(_pad_to_3(a), _pad_to_3(b)))
    rank = _rank(c)
    axis_c = axis_c + rank if axis_c < 0 else axis_c
    if a_dim == 2 and b_dim == 2:
        return c[..., 2]
    if axis_c == rank - 1:
        return c
    return _tf.transpose(c, list(range(axis_c)) + [rank - 1] + list(range(axis_c, rank - 1)))


def vdot(a, b):
    """The dot product of the flattened arrays, conjugating ``a``."""
    a, b = promote(a, b)
    a = _tf.reshape(a, [-1])
    b = _tf.reshape(b, [-1])
    if a.dtype.is_complex:
        a = conj(a)
    return dot(a, b)


def kron(a, b):
    """The Kronecker product (``np.kron``)."""
    a, b = promote(a, b)
    rank = max(_rank(a), _rank(b))
    a_shape = [1] * (rank - _rank(a)) + list(a.shape)
    b_shape = [1] * (rank - _rank(b)) + list(b.shape)
    a_spread = _tf.reshape(a, [d for n in a_shape for d in (n, 1)])
    b_spread = _tf.reshape(b, [d for n in b_shape for d in (1, n)])
    return _tf.reshape(a_spread * b_spread, [m * n for m, n in zip(a_shape, b_shape)])


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation (``np.einsum``) over operands promoted to one dtype (``casting="safe"``) or taken as they
    are (``casting="no"``).

    Raises:
        ValueError: for another ``casting`` or ``optimize`` value.
    """
    casting = kwargs.get("casting", "safe")
    optimize = kwargs.get("optimize", False)
    if casting == "safe":
        operands = promote(*operands)
    elif casting == "no":
        operands = [asarray(x) for x in operands]
    else:
        raise ValueError("Invalid value for argument `casting`. Expected casting=\"safe\" or casting=\"no\". "
                         f"Received: casting={casting}")
    if not optimize or optimize is True or optimize == "greedy":
        tf_optimize = "greedy"
    elif optimize == "optimal":
        tf_optimize = "optimal"
    else:
        raise ValueError("Invalid value for argument `optimize`. Expected one of {True, \"greedy\", \"optimal\"}. "
                         f"Received: optimize={optimize}")
    return _tf.einsum(subscripts, *operands, optimize=tf_optimize)


def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's argument name
    """The Vandermonde matrix of vector ``x``: columns ``x**(N-1) ... x**0`` (reversed when ``increasing``).

    Raises:
        ValueError: for a negative ``N`` or an ``x`` that is not a vector.
    """
    x = asarray(x)
    if N is None:
        N = x.shape[0]
    if N < 0:
        raise ValueError("N must be nonnegative")
    if _rank(x) != 1:
        raise ValueError("x must be a one-dimensional array")
    powers = _tf.range(0, N, 1) if increasing else _tf.range(N - 1, -1, -1)
    return _tf.pow(_tf.expand_dims(x, -1), _tf.cast(powers, dtype=x.dtype))


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's rule."""
    p, x = promote_binary(p, x)
    if _rank(p) == 0:
        p = _tf.reshape(p, [1])
    coefficients = _tf.unstack(p)
    y = coefficients[0]
    for c in coefficients[1:]:
        y = c + y * x
    if len(coefficients) == 1:
        y = _tf.broadcast_to(y, x.shape)
    return y
