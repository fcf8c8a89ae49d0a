"""Op database entries for the reductions beyond sum/mean/max/min (prod, any/all, euclidean norm, logsumexp)
and the cumulative sum/product. Sum, mean, max, min and argmax/argmin live in ``foundation.py``.

Samples of products stay clear of 0 (TF's gradients there are its own convention, checked by golden cases), and
cumprod has no complex samples: TF does not conjugate its gradient, so central differences disagree with it.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _reduction(fn):
    return lambda x, axis=None, keepdims=False, **kw: fn(x, axis, keepdims, **kw)


def _np_reduction(fn):
    return lambda x, axis=None, keepdims=False, **kw: fn(x, axis=np_axis(axis), keepdims=keepdims, **kw)


def _np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis=axis) if axis is not None else s.reshape(())


def _np_norm(x, axis=None, keepdims=False):
    return np.sqrt(np.sum(np.abs(x) ** 2, axis=axis, keepdims=keepdims))


op("Prod", _reduction(tf.reduce_prod), _np_reduction(np.prod), reduction_samples("Prod", nonzero(0.5, 1.5)), True,
   complex_samples=[complex_sample("Prod", "complex_axis1", [(nonzero(0.5, 1.5), uniform(-1, 1), (2, 3))],
                                   {"axis": 1})],
   xfails={("gradgrad", "complex_axis1"): "the gradient is built from cumprods, whose own gradient TF does not "
                                          "conjugate: TF's second derivative of a complex product is off too"},
   note="the gradient is TF's product of the other elements from exclusive cumprods (transposed when several "
        "axes are reduced: the axes01_3d sample)")
op("Any", lambda x, axis=None, keepdims=False: tf.reduce_any(x > 0, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.any(x > 0, axis=np_axis(axis), keepdims=keepdims),
   reduction_samples("Any", uniform(-2, 1)), False, note="on x > 0 (bool input)")
op("All", lambda x, axis=None, keepdims=False: tf.reduce_all(x > 0, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.all(x > 0, axis=np_axis(axis), keepdims=keepdims),
   reduction_samples("All", uniform(-1, 2)), False, note="on x > 0 (bool input)")


def _norm_fn(x, y=None, axis=None, keepdims=False, as_complex=False):
    if not as_complex:
        return tf.math.reduce_euclidean_norm(x, axis, keepdims)
    return tf.math.real(tf.math.reduce_euclidean_norm(to_complex(x, y), axis, keepdims))


def _norm_ref(x, y=None, axis=None, keepdims=False, as_complex=False):
    if not as_complex:
        return _np_norm(x, np_axis(axis), keepdims)
    return _np_norm(np_complex(x, y), np_axis(axis), keepdims).astype(x.dtype)


op("EuclideanNorm", _norm_fn, _norm_ref, reduction_samples("EuclideanNorm", nonzero()) + [
    complex_sample("EuclideanNorm", "complex_axis0", [(nonzero(), uniform(-1, 1), (2, 3))], {"axis": 0})], True,
   xfails={("gradgrad", "complex_axis0"): "TF's rule x / (norm / g) holds for a real upstream gradient only; the "
                                          "second derivative feeds it a complex one (TF is off the same way)"},
   note="complex input gives a complex norm with zero imaginary part; only its real part is checked (TF's rule "
        "treats the norm as real-valued)")
op("ReduceLogSumExp", _reduction(tf.reduce_logsumexp), _np_reduction(_np_logsumexp),
   reduction_samples("ReduceLogSumExp"), True,
   note="tapeflow's single op for TF's composite reduce_logsumexp")

_SCANS = (
    ("axis0", (3, 2), {}),
    ("axis1_exclusive", (2, 4), {"axis": 1, "exclusive": True}),
    ("reverse", (4,), {"reverse": True}),
    ("axis_neg1_exclusive_reverse", (2, 3), {"axis": -1, "exclusive": True, "reverse": True}),
    ("middle_3d", (2, 3, 2), {"axis": 1}),
)


def _np_scan(ufunc, identity):
    def ref(x, axis=0, exclusive=False, reverse=False):
        y = np.flip(x, axis) if reverse else x
        out = ufunc.accumulate(y, axis=axis)
        if exclusive:
            pad = np.full_like(np.take(out, [0], axis=axis), identity)
            out = np.concatenate([pad, np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out

    return ref


def _scan_samples(name, gen):
    return [make_sample(name, s, (gen,), (shape,), kwargs=kw) for s, shape, kw in _SCANS]


op("Cumsum", lambda x, **kw: tf.cumsum(x, **kw), _np_scan(np.add, 0), _scan_samples("Cumsum", uniform()), True,
   complex_samples=[complex_sample("Cumsum", "complex_exclusive", [(uniform(), uniform(), (2, 3))],
                                   {"axis": 1, "exclusive": True})])
op("Cumprod", lambda x, **kw: tf.math.cumprod(x, **kw), _np_scan(np.multiply, 1),
   _scan_samples("Cumprod", nonzero(0.5, 1.5)), True,
   note="no zeros (TF's div_no_nan gradient is not the derivative there) and no complex samples (not conjugated)")
