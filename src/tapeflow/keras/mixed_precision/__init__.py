"""``tf.keras.mixed_precision``: dtype policies (float16 computations with float32 weights) and dynamic loss
scaling, as Keras 3 has them (``Policy`` is ``DTypePolicy``; ``global_policy``/``set_global_policy`` are Keras's
older names of ``dtype_policy``/``set_dtype_policy``)."""

from ..optimizers.loss_scale_optimizer import LossScaleOptimizer
from .policy import DTypePolicy, dtype_policy, set_dtype_policy

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy

__all__ = ["DTypePolicy", "Policy", "dtype_policy", "global_policy", "set_dtype_policy", "set_global_policy",
           "LossScaleOptimizer"]
