"""TensorFlow's warning about frequent retracing, with its rule and thresholds (TF 2.21).

One detector per Python code object (the function unwrapped through ``__wrapped__`` and ``__func__``), so every
``tf.function`` made from the same source (a function or lambda re-created in a loop, the same method of new
instances) shares one. A detector keeps one entry per recent tracing call: 1 plus the calls after it that did not
trace. A tracing call drops the oldest entries while the calls after the oldest exceed 10; then, with 5 entries
or more, it logs the warning, at most twice per detector.
"""

from __future__ import annotations

import weakref

from .._core.logs import get_logger

__all__ = ["detector_of", "note_call"]

HISTORY, THRESHOLD, MAX_WARNINGS = 10, 5, 2

_TEXT = (
    "{traces} out of the last {calls} calls to {fn} triggered tf.function retracing. Tracing is expensive and the "
    "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) passing "
    "tensors with different shapes, (3) passing Python objects instead of tensors. For (1), please define your "
    "@tf.function outside of the loop. For (2), @tf.function has reduce_retracing=True option that can avoid "
    "unnecessary retracing. For (3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing"
    " and https://www.tensorflow.org/api_docs/python/tf/function for  more details.")


class _Detector:
    __slots__ = ("entries", "total", "warnings", "__weakref__")

    def __init__(self):
        self.entries, self.total, self.warnings = [], 0, 0


_DETECTORS = weakref.WeakKeyDictionary()
_OTHERS = {}  # functions without a code object (builtins, callables): by the object itself


def _unwrapped(fn):
    while True:
        inner = getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None)
        if inner is None or inner is fn:
            return fn
        fn = inner


def detector_of(fn):
    """The detector shared by every ``tf.function`` of ``fn``'s code."""
    target = _unwrapped(fn)
    code = getattr(target, "__code__", None)
    table, key = (_DETECTORS, code) if code is not None else (_OTHERS, id(target))
    detector = table.get(key)
    if detector is None:
        detector = table[key] = _Detector()
    return detector


def note_call(detector, traced, fn):
    """Count a call (``traced``: whether it traced), and warn as TF does."""
    if not traced:
        if not detector.entries:
            detector.entries.append(0)
        detector.entries[-1] += 1
        detector.total += 1
        return
    detector.entries.append(1)
    detector.total += 1
    while detector.total - detector.entries[0] > HISTORY:
        detector.total -= detector.entries.pop(0)
    if detector.warnings < MAX_WARNINGS and len(detector.entries) >= THRESHOLD:
        detector.warnings += 1
        get_logger().warning(_TEXT.format(traces=len(detector.entries), calls=detector.total,
                                          fn=_unwrapped(fn)))
