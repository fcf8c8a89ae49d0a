"""Decoupled weight decay of Keras optimizers (``weight_decay``), as Keras 3 computes it on TensorFlow.

Mixed into :class:`~tapeflow.keras.optimizers.base.Optimizer`, which owns ``weight_decay`` and decays each variable
(``w -= w * weight_decay * learning_rate``) after clipping and before the update step.
"""

from __future__ import annotations

import re

from ...ops.array_ops import cast
from ..variables import Variable

__all__ = ["WeightDecayMixin"]


class WeightDecayMixin:
    """``exclude_from_weight_decay`` and the decay step ``_apply_weight_decay``."""

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exempt from weight decay the variables of ``var_list`` and those whose name matches a ``var_names`` entry.

        Call it before the first step.
        """
        self._exclude_from_weight_decay = {self._var_key(v) for v in var_list} if var_list else set()
        self._exclude_from_weight_decay_pattern = re.compile("|".join(set(var_names))) if var_names else None
        self._exclude_from_weight_decay_cache = {}

    def _use_weight_decay(self, variable):
        key = self._var_key(variable)
        cache = self.__dict__.setdefault("_exclude_from_weight_decay_cache", {})
        if key not in cache:
            pattern = getattr(self, "_exclude_from_weight_decay_pattern", None)
            cache[key] = not (key in getattr(self, "_exclude_from_weight_decay", set())
                              or (pattern is not None and re.search(pattern, variable.name) is not None))
        return cache[key]

    def _apply_weight_decay(self, variables):
        """``w -= w * weight_decay * learning_rate`` for each variable not excluded."""
        if self.weight_decay is None:
            return
        for variable in variables:
            if isinstance(variable, Variable):
                variable = variable.value
            if self._use_weight_decay(variable):
                lr = cast(self.learning_rate, variable.dtype)
                wd = cast(self.weight_decay, variable.dtype)
                variable.assign_sub(variable * wd * lr)
