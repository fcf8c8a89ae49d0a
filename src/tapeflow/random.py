"""``tf.random``: seeded random tensors."""

from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install

_install(globals(), "random")
