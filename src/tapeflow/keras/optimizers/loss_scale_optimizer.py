"""Keras 3's ``LossScaleOptimizer``: dynamic loss scaling around another optimizer, for float16 training.

float16 gradients underflow to zero below about 6e-8. Multiplying the loss by a large *scale* before taking
gradients lifts them into float16's range; the optimizer divides them by the scale again before the inner
optimizer's step. The scale adapts, as in Keras 3:

* a step whose gradients hold an Inf or a NaN is skipped (the inner optimizer does nothing, its ``iterations``
  stays), the scale is halved and the count of good steps restarts;
* after ``dynamic_growth_steps`` good steps in a row the scale doubles (and the count restarts).

State: ``dynamic_scale`` (float32, starting at ``initial_scale``) and ``step_counter`` (int64), made on the first
``apply`` with the inner optimizer's slots (``<name>/<inner name>/<variable>_<slot>``). ``iterations`` and
``learning_rate`` are the inner optimizer's; its own ``iteration`` variable never moves, and ``apply_gradients``
returns it, as Keras does. Keras 2's ``get_scaled_loss``/``get_unscaled_gradients`` and ``loss_scale`` are gone in
Keras 3: ``scale_loss`` scales, ``apply`` unscales.
"""

from __future__ import annotations

from ..._core import observers
from ..._core.indexed_slices import IndexedSlices
from ..._core.state import loud, quiet
from ..._core.tensor import Tensor, convert_to_tensor, is_tensor
from ...ops.array_ops import cast, stack
from ...ops.control_flow_ops import cond
from ...ops.elementwise_ops import is_finite
from ...ops.math_ops import equal
from ...ops.reduction_ops import reduce_all
from .. import initializers as _initializers
from .._dtypes import result_type
from .._state import name_scope
from .base import Optimizer

__all__ = ["LossScaleOptimizer"]

# The base optimizer's arguments, which Keras still accepts at their defaults (configs of older Keras hold them).
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                  "loss_scale_factor": None, "gradient_accumulation_steps": None}


def _multiply_promoting(x, y):
    """``x * y`` in the dtype Keras's ``ops.multiply`` gives (a float16 loss times the float32 scale is
    float32; a Python number is weak)."""
    dtype = result_type(x, y)
    x = cast(x, dtype) if is_tensor(x) or hasattr(x, "_read") else convert_to_tensor(x, dtype)
    y = cast(y, dtype) if is_tensor(y) or hasattr(y, "_read") else convert_to_tensor(y, dtype)
    token = quiet()  # a float16 loss times 2**15 may overflow to inf: silently, as on TF (the step is skipped)
    try:
        return x * y
    finally:
        loud(token)


class LossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss dynamically (``tf.keras.mixed_precision.LossScaleOptimizer``).

    Args:
        inner_optimizer: the optimizer that takes the steps; its ``loss_scale_factor`` is set to ``None`` (the
            gradients would be unscaled twice).
        initial_scale: the first loss scale (``2**15``).
        dynamic_growth_steps: how many steps with finite gradients in a row double the scale (2000).
        name: the name (``"loss_scale_optimizer"``, uniquified, by default).

    Raises:
        ValueError: for ``dynamic=False``, a base optimizer argument other than its default (those belong to the
            inner optimizer), or any other keyword argument (Keras's messages).
    """

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for key, default in _BASE_DEFAULTS.items():
            if key in kwargs:
                value = kwargs.pop(key)
                if (default is None and value is not None) or value != default:
                    raise ValueError(f"LossScaleOptimizer does not support `{key}`. Instead, set `{key}` on the "
                                     "`inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list):
        """Make ``step_counter`` and ``dynamic_scale``, then build the inner optimizer for ``var_list``."""
        self.step_counter = self.add_variable(shape=(), dtype="int", initializer=_initializers.Zeros(),
                                              name="step_counter")
        self.dynamic_scale = self.add_variable(shape=(), dtype="float32",
                                               initializer=_initializers.Constant(self.initial_scale),
                                               name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self):
        """Its own variables (``iteration``, ``learning_rate``, ``step_counter``, ``dynamic_scale``), then the
        inner optimizer's."""
        return self._variables + self.inner_optimizer.variables

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (setting it sets the inner one's)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        self.inner_optimizer.learning_rate = learning_rate

    @property
    def iterations(self):
        """The inner optimizer's step count (skipped steps do not count)."""
        return self.inner_optimizer.iterations

    def scale_loss(self, loss):
        """``loss`` times the current scale (``initial_scale`` before the first ``apply``), in the dtype Keras
        promotes the two to (float32 for a float16 loss)."""
        return _multiply_promoting(loss, self.dynamic_scale if self.built else self.initial_scale)

    def check_finite(self, grads):
        """A bool tensor: whether every gradient (``None`` s left out) is free of Inf and NaN."""
        checks = [reduce_all(is_finite(_values(g))) for g in grads if g is not None]
        return reduce_all(stack(checks))

    def apply(self, grads, trainable_variables=None):
        """Take the inner optimizer's step with the unscaled ``grads`` and grow the scale when due, or, when a
        gradient is not finite, skip the step and halve the scale."""
        if not self.built:
            with name_scope(self.name, caller=self):
                self.build(trainable_variables)
            self.built = True
        token = observers.suspend()  # the update is no user's code (see ``Optimizer.apply``)
        try:
            # Keras's conditional, so that a traced training step holds both outcomes.
            cond(self.check_finite(grads), lambda: self._apply_finite(grads, trainable_variables),
                 self._skip_step)
        finally:
            observers.resume(token)

    def _apply_finite(self, grads, trainable_variables):
        variables = trainable_variables or self._trainable_variables
        scale = self.dynamic_scale
        unscaled = [g if g is None or getattr(v, "overwrite_with_gradient", False) else _divide(g, scale)
                    for g, v in zip(grads, variables)]
        self.inner_optimizer.apply(unscaled, trainable_variables=trainable_variables)
        cond(equal(self.step_counter.value, self.dynamic_growth_steps - 1), self._grow, self._count)

    def _grow(self):
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale.value * 2.0)

    def _count(self):
        self.step_counter.assign_add(1)

    def _skip_step(self):
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale.value * 0.5)

    def finalize_variable_values(self, var_list):
        """The inner optimizer's (its moving averages, with ``use_ema``)."""
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self):
        """``name``, the serialized inner optimizer, ``initial_scale`` and ``dynamic_growth_steps``."""
        inner = self.inner_optimizer
        return {"name": self.name,
                "inner_optimizer": {"module": "keras.optimizers", "class_name": type(inner).__name__,
                                    "config": inner.get_config(), "registered_name": None},
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new optimizer (without state) from ``get_config()``'s output."""
        from . import get

        inner = get(config.pop("inner_optimizer"))  # (Keras takes it out of the caller's dict too)
        return cls(inner, **config)


def _values(g):
    return g.values if isinstance(g, IndexedSlices) else g


def _divide(g, scale):
    """``g / scale`` as Keras's ``ops.divide`` computes it on TensorFlow: the two promoted to one float dtype, and
    a sparse gradient (of an embedding) kept sparse, its values divided."""
    values = _values(g)
    if not isinstance(values, Tensor):
        values = convert_to_tensor(values)
    dtype = result_type(values.dtype, scale.dtype, float)
    values = cast(values, dtype) / cast(scale, dtype)
    return IndexedSlices(values, g.indices, g.dense_shape) if isinstance(g, IndexedSlices) else values
