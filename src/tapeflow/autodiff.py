"""``tf.autodiff``: automatic differentiation."""

from ._core.forward_mode import ForwardAccumulator
from ._core.tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
