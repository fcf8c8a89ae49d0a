"""Op database entries: convolutions and pooling (``conv_ops.py``, ``conv3d_ops.py``, ``depthwise_ops.py``,
``pool_ops.py``, ``pool3d_ops.py``).

The NumPy references are naive loops over output positions and filter taps (tiny shapes, any number of spatial
dimensions), independent of the im2col kernels they check. Max-pool samples have distinct values (no ties) so
that finite differences apply.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow._core.registry import REGISTRY

from .common import *  # noqa: F403

# ------------------------------------------------------------------------------------------ references
# N-D: ``x`` is (N, *spatial, C); ``padding`` is "SAME", "VALID" or one (before, after) pair per spatial dimension.

_ALL = slice(None)


def _pads(size, k, s, d, padding):
    """``(out, before)`` along one dimension: TF's SAME/VALID rule, or explicit ``(before, after)``."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        return out, max(0, (out - 1) * s + eff - size) // 2
    if padding == "VALID":
        return (size - eff) // s + 1, 0
    before, after = padding
    return (size + before + after - eff) // s + 1, before


def _geometry(x_shape, ksize, strides, dilations, padding):
    """Output sizes and leading pads of each spatial dimension."""
    dims = [_pads(x_shape[1 + k], ksize[k], strides[k], dilations[k], padding if isinstance(padding, str)
                  else padding[k]) for k in range(len(ksize))]
    return tuple(d[0] for d in dims), tuple(d[1] for d in dims)


def _positions(x_shape, ksize, strides, dilations, padding):
    """Yield ``(o, t, p)``: output position, filter tap and the input position it reads (in range only)."""
    outs, pads = _geometry(x_shape, ksize, strides, dilations, padding)
    for o in np.ndindex(*outs):
        for t in np.ndindex(*ksize):
            p = tuple(o[k] * strides[k] + t[k] * dilations[k] - pads[k] for k in range(len(ksize)))
            if all(0 <= p[k] < x_shape[1 + k] for k in range(len(ksize))):
                yield o, t, p


def _out_shape(x_shape, ksize, strides, dilations, padding, channels):
    outs, _ = _geometry(x_shape, ksize, strides, dilations, padding)
    return (x_shape[0],) + outs + (channels,)


def _ones(n):
    return (1,) * n


def np_conv(x, w, strides, padding="VALID", dilations=None):
    ks = w.shape[:-2]
    dilations = dilations or _ones(len(ks))
    out = np.zeros(_out_shape(x.shape, ks, strides, dilations, padding, w.shape[-1]), x.dtype)
    for o, t, p in _positions(x.shape, ks, strides, dilations, padding):
        out[(_ALL,) + o] += x[(_ALL,) + p] @ w[t]
    return out


def np_conv_input_grad(dy, w, in_shape, strides, padding="VALID", dilations=None):
    ks = w.shape[:-2]
    dilations = dilations or _ones(len(ks))
    dx = np.zeros(in_shape, dy.dtype)
    for o, t, p in _positions(in_shape, ks, strides, dilations, padding):
        dx[(_ALL,) + p] += dy[(_ALL,) + o] @ w[t].T
    return dx


def np_conv_filter_grad(x, dy, w_shape, strides, padding="VALID", dilations=None):
    ks = w_shape[:-2]
    dilations = dilations or _ones(len(ks))
    dw = np.zeros(w_shape, x.dtype)
    for o, t, p in _positions(x.shape, ks, strides, dilations, padding):
        dw[t] += x[(_ALL,) + p].T @ dy[(_ALL,) + o]
    return dw


def np_depthwise(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w.shape[2:]
    out = np.zeros(_out_shape(x.shape, w.shape[:2], strides, dilations, padding, c * m), x.dtype)
    for o, t, p in _positions(x.shape, w.shape[:2], strides, dilations, padding):
        out[(_ALL,) + o] += (x[(_ALL,) + p][:, :, None] * w[t]).reshape(x.shape[0], c * m)
    return out


def np_depthwise_input_grad(dy, w, in_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w.shape[2:]
    dx = np.zeros(in_shape, dy.dtype)
    for o, t, p in _positions(in_shape, w.shape[:2], strides, dilations, padding):
        dx[(_ALL,) + p] += (dy[(_ALL,) + o].reshape(-1, c, m) * w[t]).sum(-1)
    return dx


def np_depthwise_filter_grad(x, dy, w_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w_shape[2:]
    dw = np.zeros(w_shape, x.dtype)
    for o, t, p in _positions(x.shape, w_shape[:2], strides, dilations, padding):
        dw[t] += (x[(_ALL,) + p][:, :, None] * dy[(_ALL,) + o].reshape(-1, c, m)).sum(0)
    return dw


def _windows(x_shape, ksize, strides, padding):
    """``{o: [p, ...]}``: the real input positions of each pooling window, in row-major tap order."""
    wins = {}
    for o, _, p in _positions(x_shape, ksize, strides, _ones(len(ksize)), padding):
        wins.setdefault(o, []).append(p)
    return wins


def np_max_pool(x, ksize, strides, padding):
    out = np.full(_out_shape(x.shape, ksize, strides, _ones(len(ksize)), padding, x.shape[-1]), -np.inf, x.dtype)
    for o, cells in _windows(x.shape, ksize, strides, padding).items():
        for p in cells:
            out[(_ALL,) + o] = np.maximum(out[(_ALL,) + o], x[(_ALL,) + p])
    return out


def _argmax_cells(x, ksize, strides, padding):
    """For each window and (batch, channel): the input position of its first maximum."""
    found = {}
    for o, cells in _windows(x.shape, ksize, strides, padding).items():
        values = np.stack([x[(_ALL,) + p] for p in cells])  # (taps, n, c)
        found[o] = [cells[k] for k in np.argmax(values, axis=0).reshape(-1)], values.shape[1:]
    return found


def np_max_pool_grad(x, u, ksize, strides, padding):
    dx = np.zeros(x.shape, u.dtype)
    for o, (cells, (_, c)) in _argmax_cells(x, ksize, strides, padding).items():
        for k, p in enumerate(cells):
            b, ch = divmod(k, c)
            dx[(b,) + p + (ch,)] += u[(b,) + o + (ch,)]
    return dx


def np_max_pool3d_grad(x, u, ksize, strides, padding):
    """TF's 3-D rule: every element within 1e-5 of its window's maximum takes the window's gradient."""
    y = np_max_pool(x, ksize, strides, padding)
    dx = np.zeros(x.shape, u.dtype)
    for o, cells in _windows(x.shape, ksize, strides, padding).items():
        for p in cells:
            dx[(_ALL,) + p] += np.where(np.abs(x[(_ALL,) + p] - y[(_ALL,) + o]) < 1e-5, u[(_ALL,) + o], 0)
    return dx


def np_max_pool_grad_grad(x, u2, ksize, strides, padding):
    out = np.zeros(_out_shape(x.shape, ksize, strides, _ones(len(ksize)), padding, x.shape[-1]), u2.dtype)
    for o, (cells, (_, c)) in _argmax_cells(x, ksize, strides, padding).items():
        for k, p in enumerate(cells):
            b, ch = divmod(k, c)
            out[(b,) + o + (ch,)] = u2[(b,) + p + (ch,)]
    return out


def np_avg_pool(x, ksize, strides, padding):
    out = np.zeros(_out_shape(x.shape, ksize, strides, _ones(len(ksize)), padding, x.shape[-1]), x.dtype)
    for o, cells in _windows(x.shape, ksize, strides, padding).items():
        out[(_ALL,) + o] = np.mean([x[(_ALL,) + p] for p in cells], axis=0)
    return out


def np_avg_pool_grad(u, in_shape, ksize, strides, padding):
    dx = np.zeros(in_shape, u.dtype)
    for o, cells in _windows(in_shape, ksize, strides, padding).items():
        for p in cells:
            dx[(_ALL,) + p] += u[(_ALL,) + o] / len(cells)
    return dx


def _tf_padding(padding):
    return padding if isinstance(padding, str) else [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]


# ------------------------------------------------------------------------------------------ samples

_CONV_CASES = (  # name, x shape, w shape, strides, padding, dilations
    ("same", (2, 5, 4, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1)),
    ("valid_stride2", (1, 6, 5, 2), (3, 2, 2, 3), (2, 2), "VALID", (1, 1)),
    ("same_stride_2x1", (1, 5, 5, 2), (2, 3, 2, 2), (2, 1), "SAME", (1, 1)),
    ("explicit", (1, 4, 4, 2), (3, 3, 2, 2), (1, 2), ((1, 2), (0, 1)), (1, 1)),
    ("dilated_same", (1, 6, 5, 2), (3, 2, 2, 2), (1, 1), "SAME", (2, 2)),
)


def _filter_samples(name, kinds, cases, channels=lambda ws: ws[-1]):
    """One sample per case ``(name, x shape, w shape, strides, padding, dilations)``; ``kinds`` picks the arrays:
    "x", "w", "dy" (the output gradient, with ``channels(w shape)`` channels)."""
    samples = []
    for case, xs, ws, strides, padding, dil in cases:
        ks = ws[:len(xs) - 2]
        shapes = {"x": xs, "w": ws, "dy": _out_shape(xs, ks, strides, dil, padding, channels(ws))}
        kw = {"strides": strides, "padding": padding, "dilations": dil, "x_shape": xs, "w_shape": ws}
        samples.append(make_sample(name, case, [uniform()] * len(kinds), [shapes[k] for k in kinds], kwargs=kw))
    return samples


def _conv_samples(name, kinds):
    return _filter_samples(name, kinds, _CONV_CASES)


def _conv_fn(x, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1):  # conv2d's dilated gradient raises on TF's CPU; tf.nn.convolution's does not
        return tf.nn.convolution(x, w, strides, padding, dilations=dilations)
    return tf.nn.conv2d(x, w, strides, _tf_padding(padding))


def _conv_ref(x, w, strides, padding, dilations, x_shape, w_shape):
    return np_conv(x, w, strides, padding, dilations)


op("Conv2D", _conv_fn, _conv_ref, _conv_samples("Conv2D", "xw"), True)


def _transpose_fn(dy, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1):
        conv = lambda x: tf.nn.convolution(x, w, strides, padding, dilations=dilations)  # noqa: E731
        return vjp(conv, tf.zeros(x_shape, dy.dtype), dy)
    return tf.nn.conv2d_transpose(dy, w, x_shape, strides, _tf_padding(padding))


def _transpose_ref(dy, w, strides, padding, dilations, x_shape, w_shape):
    return np_conv_input_grad(dy, w, x_shape, strides, padding, dilations)


op("Conv2DBackpropInput", _transpose_fn, _transpose_ref, _conv_samples("Conv2DBackpropInput", ("dy", "w")), True,
   covered_by="Conv2D", note="tf.nn.conv2d_transpose; the dilated sample goes through tf.nn.convolution's gradient")


def _filter_grad_fn(x, dy, strides, padding, dilations, x_shape, w_shape):
    return vjp(lambda w: _conv_fn(x, w, strides, padding, dilations, x_shape, w_shape), tf.zeros(w_shape, x.dtype),
               dy)


def _filter_grad_ref(x, dy, strides, padding, dilations, x_shape, w_shape):
    return np_conv_filter_grad(x, dy, w_shape, strides, padding, dilations)


op("Conv2DBackpropFilter", _filter_grad_fn, _filter_grad_ref, _conv_samples("Conv2DBackpropFilter", ("x", "dy")),
   True, covered_by="Conv2D", note="the kernel gradient of conv2d (linear in w: any w gives it)")

# --- depthwise

_DW_CASES = (  # name, x shape, w shape (multiplier last), strides, padding, dilations
    ("same", (2, 5, 4, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1)),
    ("valid_stride2", (1, 6, 5, 2), (3, 2, 2, 1), (2, 2), "VALID", (1, 1)),
    ("explicit_stride2", (1, 5, 5, 2), (2, 3, 2, 2), (2, 2), ((1, 0), (2, 1)), (1, 1)),
    ("dilated", (1, 6, 5, 2), (2, 2, 2, 2), (1, 1), "SAME", (2, 2)),
)


def _dw_samples(name, kinds):
    return _filter_samples(name, kinds, _DW_CASES, lambda ws: ws[2] * ws[3])


def _dw_fn(x, w, strides, padding, dilations, x_shape, w_shape):
    return tf.nn.depthwise_conv2d(x, w, [1, *strides, 1], _tf_padding(padding), dilations=list(dilations))


op("DepthwiseConv2dNative", _dw_fn,
   lambda x, w, strides, padding, dilations, **_: np_depthwise(x, w, strides, padding, dilations),
   _dw_samples("DepthwiseConv2dNative", "xw"), True)
op("DepthwiseConv2dNativeBackpropInput",
   lambda dy, w, x_shape, **kw: vjp(lambda x: _dw_fn(x, w, x_shape=x_shape, **kw), tf.zeros(x_shape, dy.dtype), dy),
   lambda dy, w, strides, padding, dilations, x_shape, **_: np_depthwise_input_grad(dy, w, x_shape, strides, padding,
                                                                                   dilations),
   _dw_samples("DepthwiseConv2dNativeBackpropInput", ("dy", "w")), True, covered_by="DepthwiseConv2dNative")
op("DepthwiseConv2dNativeBackpropFilter",
   lambda x, dy, w_shape, **kw: vjp(lambda w: _dw_fn(x, w, w_shape=w_shape, **kw), tf.zeros(w_shape, x.dtype), dy),
   lambda x, dy, strides, padding, dilations, w_shape, **_: np_depthwise_filter_grad(x, dy, w_shape, strides,
                                                                                    padding, dilations),
   _dw_samples("DepthwiseConv2dNativeBackpropFilter", ("x", "dy")), True, covered_by="DepthwiseConv2dNative")

# --- pooling

_POOL_CASES = (  # name, x shape, ksize, strides, padding
    ("valid_2x2", (2, 4, 4, 3), (2, 2), (2, 2), "VALID"),
    ("same_3x3_stride2", (1, 5, 6, 2), (3, 3), (2, 2), "SAME"),
    ("same_overlap", (1, 4, 5, 2), (2, 3), (1, 1), "SAME"),
    ("explicit", (1, 5, 4, 2), (3, 2), (2, 1), ((1, 2), (1, 0))),
)


def _spread(rng, shape):
    """Distinct values (a shuffled grid of step 0.2, jittered by less than 0.05): no ties in any window."""
    n = int(np.prod(shape))
    grid = (rng.permutation(n) - n / 2) * 0.2 + rng.uniform(-0.04, 0.04, n)
    return f64(grid.reshape(shape))


def _pool_samples(name, kinds, cases=_POOL_CASES):
    samples = []
    for case, xs, k, s, padding in cases:
        shapes = {"x": xs, "dy": _out_shape(xs, k, s, _ones(len(k)), padding, xs[-1])}
        kw = {"ksize": k, "strides": s, "padding": padding}
        gens = [_spread if kind == "x" else uniform() for kind in kinds]
        samples.append(make_sample(name, case, gens, [shapes[kd] for kd in kinds], kwargs=kw))
    return samples


def _max_pool_fn(x, ksize, strides, padding):
    return tf.nn.max_pool2d(x, ksize, strides, _tf_padding(padding))


_NO_EXPLICIT_GRADGRAD = {("gradgrad", "explicit"): "as in TF, MaxPoolGradGrad refuses padding EXPLICIT (the "
                                                     "explicit paddings are not passed on by MaxPoolGrad's rule)"}
op("MaxPool", _max_pool_fn, np_max_pool, _pool_samples("MaxPool", "x"), True, xfails=_NO_EXPLICIT_GRADGRAD,
   note="samples without ties; tie order (first maximum wins) is checked by the golden cases")
op("MaxPoolGrad", lambda x, u, **kw: vjp(lambda t: _max_pool_fn(t, **kw), x, u), np_max_pool_grad,
   [s for s in _pool_samples("MaxPoolGrad", ("x", "dy")) if s.name != "explicit"], True, covered_by="MaxPool",
   covered_rule=False,
   note="linear in u and piecewise constant in x: its rule gives zeros for x (as TF) and MaxPoolGradGrad for u; "
        "its own tests run that rule (MaxPool's second-order test would too, but for its explicit sample it raises, "
        "as TF does)")


def _max_pool_grad_grad_fn(x, u2, **kw):
    pooled = _max_pool_fn(x, **kw)
    return vjp(lambda u: vjp(lambda t: _max_pool_fn(t, **kw), x, u), tf.zeros_like(pooled), u2)


op("MaxPoolGradGrad", _max_pool_grad_grad_fn, np_max_pool_grad_grad,
   [s for s in _pool_samples("MaxPoolGradGrad", ("x", "x")) if s.name != "explicit"], True, covered_by="MaxPoolGrad",
   note="the gradient of MaxPoolGrad for its upstream gradient: picks u2 at each window's maximum")


def _avg_pool_fn(x, ksize, strides, padding):
    return tf.nn.avg_pool2d(x, ksize, strides, padding)


_AVG = [s for s in _pool_samples("AvgPool", "x") if isinstance(s.kwargs["padding"], str)]
op("AvgPool", _avg_pool_fn, np_avg_pool, _AVG, True)
op("AvgPoolGrad", lambda x, u, **kw: vjp(lambda t: _avg_pool_fn(t, **kw), x, u),
   lambda x, u, **kw: np_avg_pool_grad(u, x.shape, **kw),
   [s for s in _pool_samples("AvgPoolGrad", ("x", "dy")) if isinstance(s.kwargs["padding"], str)], True,
   covered_by="AvgPool", covered_rule=False, note="AvgPool is linear: its second-order test records no AvgPoolGrad")


# --- 3-D convolution

_CONV3D_CASES = (  # name, x shape, w shape, strides, padding, dilations
    ("same", (1, 4, 3, 3, 2), (2, 2, 2, 2, 2), (1, 1, 1), "SAME", (1, 1, 1)),
    ("valid_stride", (2, 4, 3, 4, 2), (2, 1, 2, 2, 3), (2, 1, 2), "VALID", (1, 1, 1)),
    ("dilated_same", (1, 4, 3, 3, 2), (2, 2, 1, 2, 2), (1, 1, 1), "SAME", (2, 2, 1)),
)


def _conv3d_samples(name, kinds):
    return _filter_samples(name, kinds, _CONV3D_CASES)


def _conv3d_fn(x, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1, 1):  # TF's space-to-batch route: Conv3D runs VALID on the input's phases
        return tf.nn.convolution(x, w, strides, padding, dilations=dilations)
    return tf.nn.conv3d(x, w, [1, *strides, 1], padding)


op("Conv3D", _conv3d_fn, lambda x, w, strides, padding, dilations, **_: np_conv(x, w, strides, padding, dilations),
   _conv3d_samples("Conv3D", "xw"), True)


def _conv3d_transpose_fn(dy, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1, 1):
        conv = lambda x: _conv3d_fn(x, w, strides, padding, dilations, x_shape, w_shape)  # noqa: E731
        return vjp(conv, tf.zeros(x_shape, dy.dtype), dy)
    return tf.nn.conv3d_transpose(dy, w, x_shape, strides, padding)


op("Conv3DBackpropInputV2", _conv3d_transpose_fn,
   lambda dy, w, strides, padding, dilations, x_shape, **_: np_conv_input_grad(dy, w, x_shape, strides, padding,
                                                                             dilations),
   _conv3d_samples("Conv3DBackpropInputV2", ("dy", "w")), True, covered_by="Conv3D",
   note="tf.nn.conv3d_transpose; the dilated sample goes through tf.nn.convolution's gradient")
op("Conv3DBackpropFilterV2",
   lambda x, dy, w_shape, **kw: vjp(lambda w: _conv3d_fn(x, w, w_shape=w_shape, **kw), tf.zeros(w_shape, x.dtype),
                                    dy),
   lambda x, dy, strides, padding, dilations, w_shape, **_: np_conv_filter_grad(x, dy, w_shape, strides, padding,
                                                                               dilations),
   _conv3d_samples("Conv3DBackpropFilterV2", ("x", "dy")), True, covered_by="Conv3D",
   note="the kernel gradient of conv3d (linear in w: any w gives it)")

# --- 3-D pooling. TF's CPU kernels take float32 only (float64 raises, as the golden cases check): float64 samples
# run the same ops through tapeflow's dispatch directly, so that the float64 checks still apply to the kernels.

_POOL3D_CASES = (  # name, x shape, ksize, strides, padding
    ("valid_2", (2, 4, 4, 2, 2), (2, 2, 2), (2, 2, 2), "VALID"),
    ("same_overlap", (1, 3, 4, 5, 2), (2, 3, 2), (1, 2, 1), "SAME"),
    ("same_big_window", (1, 2, 3, 3, 1), (3, 3, 2), (1, 1, 2), "SAME"),
)


def _pool3d_samples(name, kinds):
    return _pool_samples(name, kinds, _POOL3D_CASES)


def _pool3d_fn(public, op_name):
    def fn(x, ksize, strides, padding):
        if x.dtype == tf.float32:
            return public(x, ksize, strides, padding)
        attrs = {"ksize": (1, *ksize, 1), "strides": (1, *strides, 1), "padding": padding, "data_format": "NDHWC"}
        return execute(REGISTRY[op_name], (x,), attrs)

    return fn


_max_pool3d_fn = _pool3d_fn(tf.nn.max_pool3d, "MaxPool3D")
_avg_pool3d_fn = _pool3d_fn(tf.nn.avg_pool3d, "AvgPool3D")

op("MaxPool3D", _max_pool3d_fn, np_max_pool, _pool3d_samples("MaxPool3D", "x"), True,
   note="float64 through dispatch (TF's kernel is float32-only); near-ties are checked by the golden cases")
op("MaxPool3DGrad", lambda x, u, **kw: vjp(lambda t: _max_pool3d_fn(t, **kw), x, u), np_max_pool3d_grad,
   _pool3d_samples("MaxPool3DGrad", ("x", "dy")), True, covered_by="MaxPool3D", covered_rule=False,
   note="TF's 3-D rule (every element within 1e-5 of the maximum); without ties that is the argmax")
op("MaxPool3DGradGrad",
   lambda x, u2, **kw: vjp(lambda u: vjp(lambda t: _max_pool3d_fn(t, **kw), x, u),
                           tf.zeros_like(_max_pool3d_fn(x, **kw)), u2),
   np_max_pool_grad_grad, _pool3d_samples("MaxPool3DGradGrad", ("x", "x")), True, covered_by="MaxPool3DGrad",
   note="the gradient of MaxPool3DGrad for its upstream gradient: u2 at each window's first maximum")
op("AvgPool3D", _avg_pool3d_fn, np_avg_pool, _pool3d_samples("AvgPool3D", "x"), True)
op("AvgPool3DGrad", lambda x, u, **kw: vjp(lambda t: _avg_pool3d_fn(t, **kw), x, u),
   lambda x, u, **kw: np_avg_pool_grad(u, x.shape, **kw), _pool3d_samples("AvgPool3DGrad", ("x", "dy")), True,
   covered_by="AvgPool3D", covered_rule=False,
   note="AvgPool3D is linear: its second-order test records no AvgPool3DGrad")
