"""Clipping: ``clip_by_value``, ``clip_by_norm``, ``clip_by_global_norm`` and ``linalg.global_norm``.

Each is TF's composition of ``minimum``/``maximum``/``where``/``sqrt``, so values and gradients are those of the
composing ops, TF's conventions included: ``clip_by_value`` passes the gradient at both bounds (ties go to ``t``),
``clip_by_norm`` of a zero tensor has a finite gradient, and a non-finite global norm makes every clipped value
NaN. ``IndexedSlices`` are clipped through their ``values`` and come back as ``IndexedSlices``.
"""

from __future__ import annotations

import collections.abc

import numpy as np

from .._core.exports import export
from .._core.indexed_slices import IndexedSlices
from .._core.tensor import constant_of
from ._convert import to_tensor
from .array_ops import cast, identity, ones_like, stack, where
from .math_ops import _scalar, maximum, minimum, sqrt
from .reduction_ops import reduce_sum

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]


def _dense_values(t):
    """``t`` as a tensor, or its ``values`` for ``IndexedSlices`` (which the caller wraps again)."""
    return to_tensor(t.values if getattr(t, "_tapeflow_indexed_slices", False) else t)


def _rewrap(result, t):
    if getattr(t, "_tapeflow_indexed_slices", False):
        return IndexedSlices(result, t.indices, t.dense_shape)
    return result


@export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` clipped to ``[clip_value_min, clip_value_max]`` as ``maximum(minimum(t, max), min)``: the gradient
    passes at both bounds, and the bounds get it where ``t`` lies beyond them (``tf.clip_by_value``).

    Raises:
        ValueError: when the bounds would broadcast ``t`` to a larger shape.
    """
    values = _dense_values(t)
    t_min = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min)
    values.shape.assert_is_compatible_with(t_max.shape)
    return _rewrap(t_max, t)


@export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``; a zero ``t`` stays zero with a finite gradient, and a
    negative ``clip_norm`` counts as 0 (``tf.clip_by_norm``)."""
    values = _dense_values(t)
    if np.isscalar(clip_norm):
        if clip_norm < 0:
            clip_norm = 0
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    # sqrt only where the sum is positive: sqrt'(0) = inf would turn the zero gradient into NaN.
    l2norm = where(pred, sqrt(where(pred, l2sum, ones_like(l2sum))), l2sum)
    intermediate = values * clip_norm
    values.shape.assert_is_compatible_with(intermediate.shape)
    return _rewrap(identity(intermediate / maximum(l2norm, clip_norm)), t)


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


@export("linalg.global_norm")
def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``, skipping ``None`` entries; 0 for none at all
    (``tf.linalg.global_norm``).

    Raises:
        TypeError: when ``t_list`` is not a sequence.
    """
    from .nn_ops import l2_loss  # nn_ops may build on this module: import at call time

    values = [None if t is None else _dense_values(t) for t in _check_sequence(t_list)]
    half_squared = reduce_sum(stack([l2_loss(v) for v in values if v is not None]))
    return sqrt(half_squared * _scalar(2.0, half_squared))


@export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``; returns
    ``(list_clipped, global_norm)``. ``None`` entries stay ``None``; a non-finite norm makes every value NaN
    (``tf.clip_by_global_norm``).

    Raises:
        TypeError: when ``t_list`` is not a sequence.
    """
    t_list = _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    inverse = 1.0 / use_norm
    one = constant_of(np.ones((), use_norm.dtype.as_numpy_dtype))
    scale_for_finite = clip_norm * minimum(inverse, one / clip_norm)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, silently as in TF
        scale = scale_for_finite + (use_norm - use_norm)  # NaN when the norm is inf or NaN
    clipped = []
    for t in t_list:
        if t is None:
            clipped.append(None)
            continue
        v = _dense_values(t)
        clipped.append(_rewrap(identity(v * cast(scale, v.dtype)), t))
    return clipped, use_norm
