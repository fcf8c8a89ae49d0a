"""``tf.random``: seeded random tensors, ``tf.random.Generator``, and ``tf.random.experimental``."""

import types as _types

from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install
from ._core.tensor import convert_to_tensor as _convert_to_tensor
from .ops.array_ops import stack as _stack
from .ops.generator_ops import Generator as _Generator
from .ops.generator_ops import get_global_generator as _get_global
from .ops.generator_ops import set_global_generator as _set_global
from .ops.stateless_random_ops import stateless_uniform as _stateless_uniform

_install(globals(), "random")


def _stateless_split(seed, num=2, alg="auto_select"):
    """``num`` new seeds (an ``[num, 2]`` tensor of the seed's dtype) drawn statelessly from ``seed``."""
    seed = _convert_to_tensor(seed)
    return _stateless_uniform([num, 2], seed=seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg)


def _stateless_fold_in(seed, data, alg="auto_select"):
    """A new seed from ``seed`` and the integer ``data``: ``[a number drawn from seed, data]``."""
    data = _convert_to_tensor(data)
    first = _stateless_uniform([], seed=seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return _stack([first, data])


experimental = _types.SimpleNamespace(
    Generator=_Generator, get_global_generator=_get_global, set_global_generator=_set_global,
    stateless_split=_stateless_split, stateless_fold_in=_stateless_fold_in)
__all__ = sorted(set(__all__) | {"experimental"})  # noqa: F821 - (made by _install)
