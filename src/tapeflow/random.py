"""``tf.random``: seeded random tensors."""

from ._core.exports import install as _install

_install(globals(), "random")
