"""``tf.random.Generator``: random numbers from a state held in a variable (``[counter, counter, key]``, int64, as
TF's Philox state), so that a seed gives the same numbers in every run and on every machine, a generator
checkpoints with its state, and ``split`` makes independent generators.

The numbers come from NumPy's Philox generator keyed and positioned by that state, not from TF's Philox kernels:
the same seed gives the same numbers in tapeflow every time, but not TF's numbers, and the counter advances by
NumPy's count of blocks, not TF's (``from_seed`` gives TF's initial state; later states differ). Each draw is an
op that takes the state and gives the numbers and the next state, which is then assigned: a traced function draws
new numbers on every call, as TF's stateful ops do.
"""

from __future__ import annotations

import os

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.module import Module
from .._core.registry import defop
from .._core.tensor import convert_to_tensor
from .._core.variable import Variable

__all__ = ["Generator", "get_global_generator", "set_global_generator"]

_ALGORITHMS = {"philox": 1, "threefry": 2, "auto_select": 1, 1: 1, 2: 2, 3: 1}
_MASK64 = (1 << 64) - 1


def _bit_generator(state):
    s = [int(v) & _MASK64 for v in np.asarray(state, np.int64).tolist()]
    return np.random.Philox(counter=[s[0], s[1], 0, 0], key=[s[2], 0])


def _next_state(bits):
    counter = bits.state["state"]["counter"]
    return np.array([int(counter[0]), int(counter[1])], dtype=np.uint64).view(np.int64)


def _draw(kind):
    def forward(state, *params, shape, dtype):
        bits = _bit_generator(state)
        gen = np.random.Generator(bits)
        shape = tuple(shape)
        if kind == "normal":
            values = gen.standard_normal(shape)
        elif kind == "truncated_normal":
            values = gen.standard_normal(shape)
            bad = np.abs(values) > 2
            while bad.any():  # redrawn until inside two standard deviations, as TF's truncated normal
                values[bad] = gen.standard_normal(int(bad.sum()))
                bad = np.abs(values) > 2
        elif kind == "uniform":
            values = gen.random(shape)
        elif kind == "uniform_int":
            lo, hi = (int(np.asarray(p)) for p in params)
            if lo >= hi:
                raise errors.op_error("StatefulUniformInt", f"Need minval < maxval, got {lo} >= {hi}")
            values = gen.integers(lo, hi, size=shape, dtype=np.int64)
        elif kind == "full_int":
            values = gen.integers(0, 1 << 64, size=shape, dtype=np.uint64, endpoint=False)
        else:  # binomial
            counts, probs = (np.broadcast_to(np.asarray(p, np.float64), shape) for p in params)
            values = gen.binomial(counts.astype(np.int64), probs, size=shape)
        if kind == "full_int" and np.dtype(dtype).kind == "i":
            values = values.view(np.int64)  # (the bits as they are: the whole signed range)
        out = values.astype(dtype)
        new = np.asarray(state, np.int64).copy()
        new[:2] = _next_state(bits)
        return out, new

    return forward


_DRAWS = {kind: defop(name, num_outputs=2, same_dtype=False, stateful=True)(_draw(kind))
          for kind, name in (("normal", "StatefulStandardNormalV2"), ("uniform", "StatefulUniform"),
                             ("uniform_int", "StatefulUniformInt"), ("full_int", "StatefulUniformFullInt"),
                             ("truncated_normal", "StatefulTruncatedNormal"), ("binomial", "StatefulRandomBinomial"))}


def _shape(shape):
    """The draw's shape as a tuple of ints (from a list, a TensorShape or a tensor's value)."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    values = np.asarray(getattr(shape, "_value", shape))
    return tuple(int(d) for d in np.ravel(values))


def _seed_state(seed, size=3):
    """TF's state for ``seed``: its 64-bit words, lowest first, then zeros."""
    seed = int(np.asarray(seed.numpy() if hasattr(seed, "numpy") else seed))
    words = []
    for _ in range(size):
        words.append(seed & _MASK64)
        seed >>= 64
    return np.array(words, dtype=np.uint64).view(np.int64)


def _alg(alg):
    if alg is None:
        return 1
    key = alg.lower() if isinstance(alg, str) else int(alg)
    if key not in _ALGORITHMS:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    return _ALGORITHMS[key]


@export("random.Generator", "random.experimental.Generator")
class Generator(Module):
    """Random numbers from a state variable (``tf.random.Generator``; see the module docstring)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        super().__init__()
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        self._alg = _alg(alg)
        self._state_var = Variable(np.asarray(state, np.int64), trainable=False, name="StateVar")

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state comes from ``seed`` (any Python int, split into 64-bit words)."""
        return cls(state=_seed_state(seed), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator with this ``state`` (three int64 values for Philox)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a ``key`` and a two-word ``counter``."""
        return cls(state=list(np.ravel(counter)) + [int(np.asarray(key))], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        return cls(state=np.frombuffer(os.urandom(24), dtype=np.int64).copy(), alg=alg)

    @property
    def state(self):
        """The state variable (int64, ``[counter, counter, key]``)."""
        return self._state_var

    @property
    def algorithm(self):
        """The algorithm's number (1: Philox)."""
        return self._alg

    @property
    def key(self):
        """The key part of the state."""
        return self._state_var[-1]

    def reset(self, state):
        """Set the state."""
        self._state_var.assign(np.asarray(convert_to_tensor(state, _dtypes.int64).numpy(), np.int64))

    def reset_from_seed(self, seed):
        """Set the state from ``seed``, as ``from_seed`` does."""
        self._state_var.assign(_seed_state(seed))

    def reset_from_key_counter(self, key, counter):
        """Set the state from a key and a counter."""
        self._state_var.assign(np.asarray(list(np.ravel(counter)) + [int(np.asarray(key))], np.int64))

    def skip(self, delta):
        """Advance the state as ``delta`` draws of one block would."""
        bits = _bit_generator(self._state_var.numpy())
        bits.advance(int(delta))
        state = self._state_var.numpy().copy()
        state[:2] = _next_state(bits)
        self._state_var.assign(state)

    def _draw(self, kind, shape, dtype, params=()):
        values, state = execute(_DRAWS[kind], (self._state_var.read_value(), *params),
                                {"shape": _shape(shape), "dtype": _dtypes.as_dtype(dtype).as_numpy_dtype})
        self._state_var.assign(state)
        return values

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal numbers of ``shape`` with ``mean`` and ``stddev``."""
        return self._draw("normal", shape, dtype) * stddev + mean

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal numbers within two standard deviations of ``mean``."""
        return self._draw("truncated_normal", shape, dtype) * stddev + mean

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        """Uniform numbers in ``[minval, maxval)`` (``maxval`` 1 for floats; integers need it, or take the whole
        range when both bounds are ``None``)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if maxval is None:
                if minval is None:
                    return self.uniform_full_int(shape, dtype)
                raise ValueError(f"Must specify maxval for integer dtype {dtype!r}.")
            lo, hi = (convert_to_tensor(v, dtype) for v in (minval, maxval))
            return self._draw("uniform_int", shape, dtype, (lo, hi))
        maxval = 1 if maxval is None else maxval
        u = self._draw("uniform", shape, dtype)
        return u * (convert_to_tensor(maxval, dtype) - convert_to_tensor(minval, dtype)) + convert_to_tensor(
            minval, dtype)

    def uniform_full_int(self, shape, dtype=_dtypes.uint64, name=None):
        """Integers over the whole range of ``dtype``."""
        return self._draw("full_int", shape, dtype)

    def binomial(self, shape, counts, probs, dtype=_dtypes.int32, name=None):
        """Binomial numbers for ``counts`` trials of probability ``probs`` (broadcast to ``shape``)."""
        return self._draw("binomial", shape, dtype, (convert_to_tensor(counts), convert_to_tensor(probs)))

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops, an int64 ``[2, count]`` tensor."""
        return self._draw("full_int", [2, count], _dtypes.int64)

    def split(self, count=1):
        """``count`` new generators with keys drawn from this one (their counters at zero)."""
        keys = self._draw("full_int", [count], _dtypes.int64).numpy()
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys]


_GLOBAL = []


@export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The process's generator, made from the operating system's entropy on first use."""
    if not _GLOBAL:
        _GLOBAL.append(Generator.from_non_deterministic_state())
    return _GLOBAL[0]


@export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Replace the process's generator."""
    _GLOBAL[:] = [generator]
