"""``tf.random``: seeded random tensors."""

from ._core.exports import install

install(globals(), "random")
