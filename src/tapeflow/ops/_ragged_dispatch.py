"""How the op set's public functions take a ``RaggedTensor``: the hooks they call when an argument is not a plain
tensor (``ragged_ops.py`` loads on the first ragged argument; it builds on the modules that call these)."""

from __future__ import annotations

__all__ = ["is_ragged", "binary", "unary", "reduce"]


def is_ragged(value):
    return getattr(value, "_tapeflow_ragged", False)


def binary(fn, x, y):
    """``fn(x, y)`` with ``x`` or ``y`` ragged."""
    from .ragged_ops import binary as ragged_binary  # noqa: PLC0415

    return ragged_binary(fn, x, y)


def unary(fn, rt, *args, **kwargs):
    """``fn`` on the flat values of ``rt`` (every elementwise op of one tensor applies to a ragged one)."""
    return rt.with_flat_values(fn(rt.flat_values, *args, **kwargs))


def reduce(kind, rt, axis, keepdims):
    from .ragged_ops import reduce as ragged_reduce  # noqa: PLC0415

    return ragged_reduce(kind, rt, axis, keepdims)
