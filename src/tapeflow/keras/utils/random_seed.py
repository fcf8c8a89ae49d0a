"""``set_random_seed`` of ``tf.keras.utils`` (Keras 3.15): one integer seeds every generator Keras draws from."""

from __future__ import annotations

import random

import numpy as np

__all__ = ["set_random_seed"]


def _tf():
    import tapeflow

    return tapeflow


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global generator and ``tf.random.set_seed`` with one integer."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    _tf().random.set_seed(seed)
