"""The optional parts of a Keras optimizer step: clipping, weight decay, EMA, gradient accumulation.

Mixed into :class:`~tapeflow.keras.optimizers.base.Optimizer`, which owns the attributes used here (``clipnorm``,
``weight_decay``, ``use_ema``, ``gradient_accumulation_steps``, ...). Each feature is off unless its constructor
argument is set, and then computes what Keras 3 computes on TensorFlow, in the same order.
"""

from __future__ import annotations

import codecs
import inspect
import marshal
import re
import types
import warnings

import numpy as np

from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast, ones_like, stack, where, zeros
from ...ops.math_ops import maximum, minimum, not_equal, sqrt, square
from ...ops.reduction_ops import reduce_sum
from ..variables import Variable

__all__ = ["ExtrasMixin", "serialize_function"]


class ExtrasMixin:
    """Clipping, decoupled weight decay, weight averaging (EMA) and gradient accumulation for optimizers."""

    @staticmethod
    def _check_extras(steps, use_ema, ema_momentum, ema_overwrite_frequency):
        if steps and not steps >= 2:
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 2. Received: "
                             f"gradient_accumulation_steps={steps}")
        if use_ema:
            if ema_momentum > 1 or ema_momentum < 0:
                raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
            if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                            or ema_overwrite_frequency < 1):
                raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                                 f"ema_overwrite_frequency={ema_overwrite_frequency}")

    def _build_extras(self, variables):
        """The averages (``<var>_average``), then the accumulators (``<var>_gradient_accumulator``)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(variables, "average")
        if self.gradient_accumulation_steps:
            self._accumulated_gradients = [self.add_variable_from_reference(v, name="gradient_accumulator")
                                           for v in variables]

    def _apply_with_extras(self, grads, trainable_variables):
        """Take the step (or accumulate towards it), then update the moving averages."""
        steps = self.gradient_accumulation_steps
        if steps:
            accumulators = [self._accumulated_gradients[self._get_variable_index(v)] for v in trainable_variables]
            if (int(self._iterations.numpy()) + 1) % steps == 0:
                grads = [(g + acc) / steps for g, acc in zip(grads, accumulators)]
                self._step(grads, trainable_variables)
                for acc in self._accumulated_gradients:
                    if acc is not None:
                        acc.assign(zeros(acc.shape, dtype=acc.dtype))
            else:
                for g, acc in zip(grads, accumulators):
                    acc.assign(g + acc)
        else:
            self._step(grads, trainable_variables)
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            if self.ema_overwrite_frequency:
                if (int(self.iterations.numpy()) + 1) % self.ema_overwrite_frequency == 0:
                    self._overwrite_model_variables_with_average_value(self._trainable_variables)

    def _overwrite_variables_directly_with_gradients(self, grads, variables):
        """Variables flagged ``overwrite_with_gradient`` take their gradient as value and leave the step.

        With accumulation they take the element-wise maximum of the gradients seen, at each completed step.
        """
        if not any(getattr(v, "overwrite_with_gradient", False) for v in variables):
            return grads, variables
        grads, variables = list(grads), list(variables)
        for i in range(len(grads) - 1, -1, -1):
            g, v = grads[i], variables[i]
            if not getattr(v, "overwrite_with_gradient", False):
                continue
            if self.gradient_accumulation_steps:
                acc = self._accumulated_gradients[self._get_variable_index(v)]
                if (int(self._iterations.numpy()) + 1) % self.gradient_accumulation_steps == 0:
                    v.assign(maximum(g, acc))
                    acc.assign(zeros(g.shape, dtype=g.dtype))
                else:
                    acc.assign(maximum(g, acc))
            else:
                v.assign(g)
            grads.pop(i)
            variables.pop(i)
        return grads, variables

    # --- clipping ------------------------------------------------------------------------------------------
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

    # --- weight decay --------------------------------------------------------------------------------------
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

    # --- exponential moving average ------------------------------------------------------------------------
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


def clip_by_global_norm(value_list, clip_norm):
    """Scale all the values by ``clip_norm / max(global_norm, clip_norm)``; a non-finite norm gives NaNs."""
    norm = sqrt(reduce_sum(stack([reduce_sum(square(v)) for v in value_list if v is not None])))
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)  # NaN where the norm is infinite or NaN
    return [v * scale if v is not None else v for v in value_list]


def serialize_function(fn):
    """A callable learning rate as Keras's ``get_config`` stores it (lambdas as marshalled code, with a warning).

    Raises:
        TypeError: for a callable that is not a Python function (Keras needs a ``get_config`` for those).
    """
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"Cannot serialize object {fn} of type {type(fn)}. To be serializable, a class must "
                        "implement the `get_config()` method.")
    if fn.__name__ != "<lambda>":
        return {"module": "builtins", "class_name": "function", "config": fn.__name__, "registered_name": "function"}
    warnings.warn("The object being serialized includes a `lambda`. This is unsafe. In order to reload the object, "
                  "you will have to pass `safe_mode=False` to the loading function. Please avoid using `lambda` in "
                  "the future, and use named Python functions instead. This is the `lambda` being serialized: "
                  f"{inspect.getsource(fn)}", stacklevel=2)
    code = codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return {"class_name": "__lambda__", "config": {"value": (code, fn.__defaults__, closure)}}
