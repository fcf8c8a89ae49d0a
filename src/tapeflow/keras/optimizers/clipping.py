"""Gradient clipping of Keras optimizers: ``clipnorm`` (each gradient), ``global_clipnorm`` (all together) and
``clipvalue`` (each element), computed as Keras 3 computes them on TensorFlow.

Mixed into :class:`~tapeflow.keras.optimizers.base.Optimizer`, which owns ``clipnorm``, ``global_clipnorm`` and
``clipvalue`` (at most one is set) and clips before weight decay and the update step.
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import ones_like, stack, where
from ...ops.math_ops import maximum, minimum, sqrt, square
from ...ops.reduction_ops import reduce_sum

__all__ = ["ClippingMixin", "clip_by_global_norm"]


class ClippingMixin:
    """``_clip_gradients``: the optimizer's one clipping option applied to a list of gradients."""

    def _clip_gradients(self, grads):
        # Squares that overflow and infinite norms give inf and NaN silently in TF: NumPy must not warn about them.
        if self.clipnorm and self.clipnorm > 0:
            with np.errstate(over="ignore", invalid="ignore"):
                return [self._clip_by_norm(g) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            with np.errstate(over="ignore", invalid="ignore"):
                return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            v = self.clipvalue
            return [minimum(maximum(convert_to_tensor(g), -v), v) for g in grads]
        return grads

    def _clip_by_norm(self, values):
        """``values * clipnorm / max(||values||, clipnorm)``; a zero gradient stays zero (and its gradient finite)."""
        values = convert_to_tensor(values)
        l2sum = reduce_sum(square(values), keepdims=True)
        positive = l2sum > 0
        l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
        return values * self.clipnorm / maximum(l2norm, self.clipnorm)


def clip_by_global_norm(value_list, clip_norm):
    """Scale all the values by ``clip_norm / max(global_norm, clip_norm)``; a non-finite norm gives NaNs."""
    norm = sqrt(reduce_sum(stack([reduce_sum(square(v)) for v in value_list if v is not None])))
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)  # NaN where the norm is infinite or NaN
    return [v * scale if v is not None else v for v in value_list]
