"""The exponential moving average of a Keras optimizer's variables (``use_ema``), as Keras 3 computes it on
TensorFlow.

Mixed into :class:`~tapeflow.keras.optimizers.base.Optimizer`, which owns ``use_ema``, ``ema_momentum`` and
``ema_overwrite_frequency``: after each step the averages (slots ``<var>_average``) move towards the variables,
and every ``ema_overwrite_frequency`` steps, or at ``finalize_variable_values``, they are written into them.
"""

from __future__ import annotations

from ...ops.array_ops import cast
from ...ops.math_ops import not_equal
from ..variables import Variable

__all__ = ["MovingAverageMixin"]


class MovingAverageMixin:
    """The averages' checks, slots and updates, and ``finalize_variable_values``."""

    @staticmethod
    def _check_moving_average(use_ema, ema_momentum, ema_overwrite_frequency):
        if use_ema:
            if ema_momentum > 1 or ema_momentum < 0:
                raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
            if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                            or ema_overwrite_frequency < 1):
                raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                                 f"ema_overwrite_frequency={ema_overwrite_frequency}")

    def _build_moving_averages(self, variables):
        """The averages, one slot ``<var>_average`` per variable (``None`` for those never stepped)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(variables, "average")

    def _update_moving_averages(self):
        """After a step: move the averages, and write them into the variables every ``ema_overwrite_frequency``."""
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            if self.ema_overwrite_frequency:
                if (int(self.iterations.numpy()) + 1) % self.ema_overwrite_frequency == 0:
                    self._overwrite_model_variables_with_average_value(self._trainable_variables)

    def _update_model_variables_moving_average(self, trainable_variables):
        """``average = m * average + (1 - m) * variable``, with ``m = 0`` at the first step (a plain copy)."""
        for var, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is not None:
                momentum = cast(not_equal(self.iterations, 0), var.dtype) * self.ema_momentum
                average.assign(momentum * average + (1 - momentum) * var)

    def _overwrite_model_variables_with_average_value(self, trainable_variables):
        for var, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is not None:
                (var.value if isinstance(var, Variable) else var).assign(average)

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, write the moving averages into the variables (at the end of training)."""
        if self.use_ema:
            self._overwrite_model_variables_with_average_value(var_list)
