"""Op database entry for ``Assert``: the op a traced assertion becomes (no outputs, no gradient).

Eager assertions decide on the spot and run no op; the entry runs the op itself, with a check that passes on the
sample (positive values) and returns its input unconnected, so the forward test sees the op leave values
alone and the gradient test finds no path through it.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow.ops.assert_ops import ASSERT, _GraphCheck

from .common import *  # noqa: F403


def _assert_positive(x):
    check = _GraphCheck(lambda a, b: tf.less(a, b), ["Condition x > 0 did not hold element-wise:", 1], None)
    zero = tf.zeros_like(x)
    execute(ASSERT, (zero, x), {"check": check})
    return tf.stop_gradient(x)  # the assertion passes nothing on: no gradient through it


op("Assert", _assert_positive, lambda x: np.asarray(x), unary("Assert", positive()), False)
