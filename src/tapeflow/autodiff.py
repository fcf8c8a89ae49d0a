"""``tf.autodiff``: automatic differentiation."""

from ._core.tape import GradientTape

__all__ = ["GradientTape"]
