"""Output sizes computed from user values, checked as TF's kernels check them, and the allocations they need.

Every op whose output size comes from the caller (``tile``, ``pad``, ``fill``/``zeros``/``ones``, ``broadcast_to``,
``range``, the random ops, ``scatter_nd``, ``eye``, ``constant(..., shape=)`` ...) builds its shape here:

- sizes are Python ints, never wrapped at 2**31 or 2**32 on the way (a list like ``[2**32 + 1]`` is int64, as
  TF infers it); where TF itself computes a size in int64 (``dim * multiple`` in Tile, ``before + dim + after``
  in Pad) it wraps at 2**64 as TF's arithmetic does, and where TF takes an int32 argument it wraps at 2**32;
- a shape is accepted as TF's ``TensorShape`` accepts it: :func:`check_dims` for shapes given as a list of
  dimensions (``Dimension -1 must be >= 0``, ``Shape [...] would have more than 2**63 - 1 elements``),
  :func:`check_built` for shapes a kernel builds one dimension at a time (``Expected a non-negative size``,
  ``Encountered overflow when multiplying ...``);
- the output is allocated before anything else, with :func:`empty`, so that an allocation that cannot be
  satisfied fails as TF's does: ``ResourceExhaustedError: OOM when allocating tensor with shape[...]`` naming the
  op (``execute`` converts the ``MemoryError``; :func:`allocating` does it for the few paths that bypass it).
"""

from __future__ import annotations

import numpy as np

from . import errors

__all__ = ["INT64_MAX", "wrap_int", "check_dims", "check_built", "empty", "zeros", "allocating", "reserve"]

INT64_MAX = 2**63 - 1


def wrap_int(value, bits=64):
    """``value`` (a Python int) as a signed ``bits``-bit integer wraps it (C++'s arithmetic on int64/int32)."""
    half = 1 << (bits - 1)
    return (int(value) + half) % (half << 1) - half


def check_dims(op_name, dims, sfx=""):
    """Check a shape given as a list of dimensions as TF's ``TensorShape`` does; return its element count.

    The running product is taken left to right, so ``[2**40, 2**40, 0]`` overflows before the 0, as in TF.
    """
    n = 1
    for d in dims:
        if d < 0:
            raise errors.op_error(op_name, f"Dimension {d} must be >= 0", name=sfx)
        n *= d
        if n > INT64_MAX:
            raise errors.op_error(op_name, f"Shape {errors.shape_str(dims)} would have more than 2**63 - 1 elements",
                                  name=sfx)
    return n


def check_built(op_name, dims, sfx=""):
    """Check a shape a kernel builds one dimension at a time (TF's ``AddDimWithStatus``); return its elements."""
    n = 1
    for d in dims:
        if d < 0:
            raise errors.op_error(op_name, f"Expected a non-negative size, got {d}", name=sfx)
        m = n * d
        if m > INT64_MAX:
            raise errors.op_error(op_name, f"Encountered overflow when multiplying {n} with {d}, result: -1",
                                  name=sfx)
        n = m
    return n


def empty(shape, dtype):
    """``np.empty(shape, dtype)``, or :class:`errors.Unallocatable` for a size NumPy cannot represent.

    NumPy refuses more than 2**63 - 1 bytes (counting the non-zero dimensions only) with a ``ValueError``; TF's
    allocator fails there with an OOM, so that is raised as a ``MemoryError`` too. A ``MemoryError`` NumPy raises
    names the shape and dtype itself.
    """
    return np.empty(shape, _representable(shape, dtype))


def zeros(shape, dtype):
    """``np.zeros(shape, dtype)`` (lazily zeroed pages), refused as :func:`empty` refuses sizes."""
    return np.zeros(shape, _representable(shape, dtype))


def _representable(shape, dtype):
    dtype = np.dtype(dtype)
    n = dtype.itemsize or 1
    for d in shape:
        if d:
            n *= d
    if n > INT64_MAX:
        raise errors.Unallocatable(shape, dtype)
    return dtype


def allocating(op_name, sfx, fn, *args):
    """``fn(*args)`` with a ``MemoryError`` turned into ``op_name``'s OOM: for ops that bypass ``execute``."""
    try:
        return fn(*args)
    except MemoryError as exc:
        raise errors.oom(op_name, exc, sfx) from None


def reserve(op_name, shape, dtype, sfx=""):
    """Allocate (and drop) an intermediate tensor TF's composition of ops allocates first, so that an OOM names
    the op TF names (``sequence_mask`` fails in its ``Range``). Untouched pages cost nothing."""
    allocating(op_name, sfx, empty, shape, dtype)
