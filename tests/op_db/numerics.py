"""Op database entries for the numerics checks: ``CheckNumerics`` passes finite values through, and its
gradient (itself a check) passes the upstream gradient through."""

from __future__ import annotations

import tapeflow as tf

from .common import *  # noqa: F403

op("CheckNumerics", lambda x: tf.debugging.check_numerics(x, "op_db"), lambda x: x.copy(), unary("CheckNumerics"),
   True)
