"""``tf.keras.optimizers.schedules``: learning rates that change with the step (Keras 3 on TensorFlow).

A schedule is called with the step (a Python int, an integer tensor or the optimizer's ``iterations``) and returns
a scalar tensor in the dtype of its initial learning rate (float32 for a Python float). An optimizer calls it with
its step count *before* the step's increment, so the first step uses ``schedule(0)``.
"""

from __future__ import annotations

import math

import tapeflow as _tf

from ..._core.tensor import convert_to_tensor

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "PolynomialDecay",
           "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts", "serialize", "deserialize"]


def _cast(x, dtype):
    return _tf.cast(x.value if hasattr(x, "value") and hasattr(x, "path") else x, dtype)


def _check_name(name):
    # Keras opens a name scope with the schedule's name at each call, which refuses ``/``.
    if not isinstance(name, str) or "/" in name:
        raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. Received: name={name}")


def _check_steps(arg, value):
    if value <= 0:
        raise ValueError(f"Argument `{arg}` must be > 0. Received: {arg}={value}")


class LearningRateSchedule:
    """Base class of learning-rate schedules: subclasses define ``__call__(step)`` and ``get_config()``."""

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override "
                                  "`__call__(self, step)`.")

    def get_config(self):
        """The constructor arguments as a dict (subclasses must define it)."""
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override "
                                  "`get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config):
        """A schedule from ``get_config()``'s output."""
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """What ExponentialDecay and InverseTimeDecay share: their arguments, their config and the decay progress
    ``step / decay_steps`` (floored with ``staircase``) in the initial rate's dtype."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase, name):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def _progress(self, step):
        """``(initial rate as a tensor, its dtype, progress)``."""
        _check_name(self.name)
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        p = _cast(step, dtype) / _cast(self.decay_steps, dtype)
        if self.staircase:
            p = _tf.math.floor(p)
        return initial, dtype, p

    def get_config(self):
        """``initial_learning_rate``, ``decay_steps``, ``decay_rate``, ``staircase``, ``name``."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_RateDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored with ``staircase``).

    Raises:
        ValueError: when ``decay_steps`` is not positive.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        initial, dtype, p = self._progress(step)
        return _tf.math.multiply(initial, _tf.math.pow(_cast(self.decay_rate, dtype), p))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``,
    ``values[-1]`` after the last boundary.

    Raises:
        ValueError: unless there is one more value than boundaries.
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        _check_name(self.name)
        step = convert_to_tensor(step.value if hasattr(step, "path") else step)
        bounds = [convert_to_tensor(b) for b in self.boundaries]
        bounds = [b if b.dtype == step.dtype else _tf.cast(b, step.dtype) for b in bounds]
        values = [convert_to_tensor(v) for v in self.values]
        dtype = values[0].dtype
        result = _tf.zeros((), dtype=dtype)
        result = result + _tf.cast(step <= bounds[0], dtype) * values[0]
        result = result + _tf.cast(step > bounds[-1], dtype) * values[-1]
        for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1]):
            result = result + _tf.cast(_tf.math.logical_and(step > low, step <= high), dtype) * value
        return result

    def get_config(self):
        """``boundaries``, ``values``, ``name``."""
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, the step capped at ``decay_steps`` (with
    ``cycle``, ``decay_steps`` grows to the next multiple of itself instead).

    Raises:
        ValueError: when ``decay_steps`` is not positive.
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name="PolynomialDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step):
        _check_name(self.name)
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        end = _cast(self.end_learning_rate, dtype)
        power = _cast(self.power, dtype)
        step = _cast(step, dtype)
        decay_steps = _cast(self.decay_steps, dtype)
        if self.cycle:
            multiplier = _tf.where(_tf.math.equal(step, 0), _tf.constant(1.0, dtype),
                                   _tf.math.ceil(step / self.decay_steps))
            decay_steps = _tf.math.multiply(decay_steps, multiplier)
        else:
            step = _tf.math.minimum(step, decay_steps)
        p = _tf.math.divide(step, decay_steps)
        return _tf.math.add(_tf.math.multiply(initial - end, _tf.math.pow(1 - p, power)), end)

    def get_config(self):
        """``initial_learning_rate``, ``decay_steps``, ``end_learning_rate``, ``power``, ``cycle``, ``name``."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(_RateDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio floored with ``staircase``).

    Raises:
        ValueError: when ``decay_steps`` is not positive.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        initial, dtype, p = self._progress(step)
        denom = _tf.math.add(_tf.cast(1, dtype), _tf.math.multiply(_cast(self.decay_rate, dtype), p))
        return _tf.math.divide(initial, denom)


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the initial rate (or, after a linear warmup of ``warmup_steps`` to ``warmup_target``,
    from that target) down to ``alpha`` times it over ``decay_steps``, then flat.

    Raises:
        ValueError: when ``decay_steps`` is not positive.
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay", warmup_target=None,
                 warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        _check_steps("decay_steps", decay_steps)

    def _decay(self, step, decay_steps, decay_from, dtype):
        fraction = _tf.math.divide(step, decay_steps)
        cosine = 0.5 * (1.0 + _tf.math.cos(_tf.math.multiply(_tf.constant(math.pi, dtype), fraction)))
        return _tf.math.multiply(decay_from, (1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        _check_name(self.name)
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        decay_steps = _cast(self.decay_steps, dtype)
        step = _cast(step, dtype)
        if self.warmup_target is None:
            return self._decay(_tf.math.minimum(step, decay_steps), decay_steps, initial, dtype)
        target = _cast(self.warmup_target, dtype)
        warmup_steps = _cast(self.warmup_steps, dtype)
        step = _tf.math.minimum(step, decay_steps + warmup_steps)
        if bool((step < warmup_steps).numpy()):
            return (target - initial) * (step / warmup_steps) + initial
        return self._decay(step - warmup_steps, decay_steps, target, dtype)

    def get_config(self):
        """``initial_learning_rate``, ``decay_steps``, ``alpha``, ``name``, ``warmup_target``, ``warmup_steps``."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps`` times ``t_mul`` to the restart
    count, each starting from the initial rate times ``m_mul`` to the restart count.

    Raises:
        ValueError: when ``first_decay_steps`` is not positive.
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name="SGDRDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name
        _check_steps("first_decay_steps", first_decay_steps)

    def __call__(self, step):
        _check_name(self.name)
        initial = convert_to_tensor(self.initial_learning_rate)
        dtype = initial.dtype
        alpha = _cast(self.alpha, dtype)
        t_mul = _cast(self._t_mul, dtype)
        m_mul = _cast(self._m_mul, dtype)
        fraction = _cast(step, dtype) / _cast(self.first_decay_steps, dtype)
        if bool(_tf.math.equal(t_mul, 1.0).numpy()):
            i_restart = _tf.math.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = _tf.math.floor(_tf.math.log(_tf.cast(1.0 - fraction * (1.0 - t_mul), dtype))
                                       / _tf.math.log(t_mul))
            sum_r = _tf.math.divide(1.0 - _tf.math.pow(t_mul, i_restart), 1.0 - t_mul)
            fraction = _tf.math.divide(_tf.math.subtract(fraction, sum_r), _tf.math.pow(t_mul, i_restart))
        m_fac = _tf.math.pow(m_mul, i_restart)
        cosine = 0.5 * m_fac * (1.0 + _tf.math.cos(_tf.math.multiply(_tf.constant(math.pi, dtype), fraction)))
        decayed = _tf.math.add(_tf.math.multiply(1 - alpha, cosine), alpha)
        return _tf.math.multiply(initial, decayed)

    def get_config(self):
        """``initial_learning_rate``, ``first_decay_steps``, ``t_mul``, ``m_mul``, ``alpha``, ``name``."""
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self._t_mul, "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_BUILTIN = {c.__name__: c for c in (LearningRateSchedule, ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
                                    InverseTimeDecay, CosineDecay, CosineDecayRestarts)}


def serialize(learning_rate_schedule):
    """A schedule as Keras saves it: ``{"module", "class_name", "config", "registered_name"}``."""
    cls = type(learning_rate_schedule)
    builtin = _BUILTIN.get(cls.__name__) is cls
    return {"module": "keras.optimizers.schedules" if builtin else cls.__module__, "class_name": cls.__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None if builtin else cls.__name__}


def is_schedule_config(config):
    """Whether ``config`` is what :func:`serialize` gives for a built-in schedule."""
    return isinstance(config, dict) and config.get("class_name") in _BUILTIN


def deserialize(config, custom_objects=None):
    """A schedule from :func:`serialize`'s output (``custom_objects`` maps further class names to classes).

    Raises:
        TypeError: for a class name that is neither built in nor in ``custom_objects``.
    """
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BUILTIN.get(name)
    if cls is None:
        raise TypeError(f"Could not locate class '{name}'. Make sure custom classes are decorated with "
                        f"`@keras.saving.register_keras_serializable()`. Full object config: {config}")
    return cls.from_config(config["config"])
