"""What the Keras optimizers share beyond the base class: the common keyword arguments and slot helpers."""

from __future__ import annotations

from ...ops.array_ops import cast, ones
from ..variables import Variable

__all__ = ["COMMON_DEFAULTS", "common_kwargs", "constant_initializer", "slot"]

COMMON_DEFAULTS = dict(weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                       ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                       gradient_accumulation_steps=None, name=None)


def common_kwargs(local_vars):
    """The base-class arguments among a constructor's ``locals()``."""
    return {k: local_vars[k] for k in COMMON_DEFAULTS}


def constant_initializer(value):
    """Keras's ``Constant`` initializer: ``cast(value, dtype) * ones`` (a Python float goes through float32)."""
    def init(shape, dtype):
        return cast(value, dtype) * ones(shape, dtype=dtype)
    return init


def slot(slots, optimizer, variable):
    """The ``tf.Variable`` behind ``variable``'s slot in ``slots``."""
    s = slots[optimizer._get_variable_index(variable)]
    return s.value if isinstance(s, Variable) else s
