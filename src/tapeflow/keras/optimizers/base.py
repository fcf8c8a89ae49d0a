"""The Keras 3 optimizer base: ``apply_gradients`` / ``apply`` with Keras's checks, warnings and counters."""

from __future__ import annotations

import re
import warnings

from ..._core import dtypes
from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast
from ..variables import Variable

__all__ = ["Optimizer"]


def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", name).lower()


class Optimizer:
    """Base class of Keras optimizers; subclasses implement ``build`` and ``update_step``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule``-like callable of the step, or a zero-argument callable.
        name: the optimizer's name; its variables' paths start with it.
    """

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        self.name = name if name is not None else _snake(type(self).__name__)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        scope = self.name.lower()
        self._iterations = Variable(0, name="iteration", dtype=dtypes.int64, trainable=False,
                                    path=f"{scope}/iteration")
        self._schedule = None
        if callable(learning_rate):
            self._schedule = learning_rate
            self._learning_rate = None
        else:
            self._learning_rate = Variable(float(learning_rate), name="learning_rate", dtype=dtypes.float32,
                                           trainable=False, path=f"{scope}/learning_rate")
        self._variables = [self._iterations] + ([self._learning_rate] if self._learning_rate is not None else [])
        self._trainable_variables = []
        self._var_index = {}

    # --- state ---------------------------------------------------------------------------------------------
    @property
    def iterations(self):
        return self._iterations

    @property
    def variables(self):
        return list(self._variables)

    @property
    def learning_rate(self):
        return self._current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, value):
        if self._schedule is not None and self._learning_rate is None:
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                            "`learning_rate` constructor argument, hence its learning rate is not settable. If "
                            "you need the learning rate to be settable, you should instantiate the optimizer "
                            "with a float `learning_rate` argument.")
        self._learning_rate.assign(value)

    def _current_learning_rate(self):
        if self._learning_rate is not None:
            return self._learning_rate
        sched = self._schedule
        if hasattr(sched, "get_config") or _takes_step(sched):
            return sched(self._iterations)
        return sched()

    def add_variable_from_reference(self, reference_variable, name):
        """A zero-initialised slot shaped like ``reference_variable`` (``<opt>/<var>_<name>``)."""
        var_name = reference_variable.name.split(":")[0].replace("/", "_")
        import numpy as np

        v = Variable(np.zeros(reference_variable.shape.as_list(), reference_variable.dtype.as_numpy_dtype),
                     name=f"{var_name}_{name}", trainable=False, path=f"{self.name.lower()}/{var_name}_{name}")
        self._variables.append(v)
        return v

    def build(self, variables):
        """Create per-variable state (slots); the base has none."""
        for v in variables:
            self._var_index[v._unique_id] = len(self._trainable_variables)
            self._trainable_variables.append(v)
        self.built = True

    def _get_variable_index(self, variable):
        return self._var_index[variable._unique_id]

    # --- applying ------------------------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        """Apply ``(gradient, variable)`` pairs; pairs with a ``None`` gradient are skipped with a warning.

        Returns:
            ``iterations``, incremented by one.

        Raises:
            ValueError: when every gradient is ``None`` or a variable is not the ones the optimizer was built for.
        """
        grads, trainable_variables = zip(*grads_and_vars)
        return self.apply(grads, trainable_variables)

    def apply(self, grads, trainable_variables=None):
        """Apply ``grads`` to ``trainable_variables`` (the Keras 3 entry point)."""
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
            self.built = True
        for v in trainable_variables:
            if v._unique_id not in self._var_index:
                raise ValueError(f"Unknown variable: {v}. This optimizer can only be called for the variables it "
                                 "was originally built with. When working with a new set of variables, you should "
                                 "recreate a new optimizer instance.")
        grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
        lr = self._current_learning_rate()
        for g, v in zip(grads, trainable_variables):
            g = cast(convert_to_tensor(g), v.dtype)
            self.update_step(g, v, cast(lr, v.dtype))
            if v.constraint is not None:
                v.assign(v.constraint(v))
        self._iterations.assign_add(1)
        return self._iterations

    def _filter_empty_gradients(self, grads, variables):
        grads, variables = list(grads), list(variables)
        missing = []
        for i in range(len(grads) - 1, -1, -1):
            if grads[i] is None:
                grads.pop(i)
                v = variables.pop(i)
                missing.append(getattr(v, "path", None) or v.name)
        if not grads:
            raise ValueError("No gradients provided for any variable.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {list(reversed(missing))} when minimizing the "
                          "loss. If using `model.compile()`, did you forget to provide a `loss` argument?",
                          stacklevel=3)
        return grads, variables



def _takes_step(fn):
    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__call__", None), "__code__", None)
    if code is None:
        return False
    n = code.co_argcount - (1 if hasattr(fn, "__self__") or not hasattr(fn, "__code__") else 0)
    return n >= 1
