"""Op database entries: convolutions and pooling (``conv_ops.py``, ``pool_ops.py``).

The NumPy references are naive loops over output positions and filter taps (tiny shapes), independent of the
im2col kernels they check. Max-pool samples have distinct values (no ties) so that finite differences apply.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403

# ------------------------------------------------------------------------------------------ references


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
    """Output sizes and top/left pads; ``padding`` is "SAME", "VALID" or ``[(t, b), (l, r)]``."""
    dims = []
    for k in range(2):
        p = padding if isinstance(padding, str) else padding[k]
        dims.append(_pads(x_shape[1 + k], ksize[k], strides[k], dilations[k], p))
    return [d[0] for d in dims], [d[1] for d in dims]


def _positions(x_shape, ksize, strides, dilations, padding):
    """Yield ``(oh, ow, i, j, h, w)``: output position, filter tap and the input position it reads (in range)."""
    (oh_n, ow_n), (pt, pl) = _geometry(x_shape, ksize, strides, dilations, padding)
    for oh in range(oh_n):
        for ow in range(ow_n):
            for i in range(ksize[0]):
                for j in range(ksize[1]):
                    h = oh * strides[0] + i * dilations[0] - pt
                    w = ow * strides[1] + j * dilations[1] - pl
                    if 0 <= h < x_shape[1] and 0 <= w < x_shape[2]:
                        yield oh, ow, i, j, h, w


def _out_shape(x_shape, ksize, strides, dilations, padding, channels):
    (oh_n, ow_n), _ = _geometry(x_shape, ksize, strides, dilations, padding)
    return (x_shape[0], oh_n, ow_n, channels)


def np_conv2d(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    out = np.zeros(_out_shape(x.shape, w.shape[:2], strides, dilations, padding, w.shape[3]), x.dtype)
    for oh, ow, i, j, h, v in _positions(x.shape, w.shape[:2], strides, dilations, padding):
        out[:, oh, ow] += x[:, h, v] @ w[i, j]
    return out


def np_conv2d_input_grad(dy, w, in_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    dx = np.zeros(in_shape, dy.dtype)
    for oh, ow, i, j, h, v in _positions(in_shape, w.shape[:2], strides, dilations, padding):
        dx[:, h, v] += dy[:, oh, ow] @ w[i, j].T
    return dx


def np_conv2d_filter_grad(x, dy, w_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    dw = np.zeros(w_shape, x.dtype)
    for oh, ow, i, j, h, v in _positions(x.shape, w_shape[:2], strides, dilations, padding):
        dw[i, j] += x[:, h, v].T @ dy[:, oh, ow]
    return dw


def np_depthwise(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w.shape[2:]
    out = np.zeros(_out_shape(x.shape, w.shape[:2], strides, dilations, padding, c * m), x.dtype)
    for oh, ow, i, j, h, v in _positions(x.shape, w.shape[:2], strides, dilations, padding):
        out[:, oh, ow] += (x[:, h, v, :, None] * w[i, j]).reshape(x.shape[0], c * m)
    return out


def np_depthwise_input_grad(dy, w, in_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w.shape[2:]
    dx = np.zeros(in_shape, dy.dtype)
    for oh, ow, i, j, h, v in _positions(in_shape, w.shape[:2], strides, dilations, padding):
        dx[:, h, v] += (dy[:, oh, ow].reshape(-1, c, m) * w[i, j]).sum(-1)
    return dx


def np_depthwise_filter_grad(x, dy, w_shape, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w_shape[2:]
    dw = np.zeros(w_shape, x.dtype)
    for oh, ow, i, j, h, v in _positions(x.shape, w_shape[:2], strides, dilations, padding):
        dw[i, j] += (x[:, h, v, :, None] * dy[:, oh, ow].reshape(-1, c, m)).sum(0)
    return dw


def _windows(x_shape, ksize, strides, padding):
    """``{(oh, ow): [(h, w), ...]}``: the real input positions of each pooling window, in row-major tap order."""
    wins = {}
    for oh, ow, _, _, h, v in _positions(x_shape, ksize, strides, (1, 1), padding):
        wins.setdefault((oh, ow), []).append((h, v))
    return wins


def np_max_pool(x, ksize, strides, padding):
    out = np.full(_out_shape(x.shape, ksize, strides, (1, 1), padding, x.shape[3]), -np.inf, x.dtype)
    for (oh, ow), cells in _windows(x.shape, ksize, strides, padding).items():
        for h, v in cells:
            out[:, oh, ow] = np.maximum(out[:, oh, ow], x[:, h, v])
    return out


def _argmax_cells(x, ksize, strides, padding):
    """For each window and (batch, channel): the input position of its first maximum."""
    found = {}
    for (oh, ow), cells in _windows(x.shape, ksize, strides, padding).items():
        values = np.stack([x[:, h, v] for h, v in cells])  # (taps, n, c)
        found[oh, ow] = [cells[k] for k in np.argmax(values, axis=0).reshape(-1)], values.shape[1:]
    return found


def np_max_pool_grad(x, u, ksize, strides, padding):
    dx = np.zeros(x.shape, u.dtype)
    for (oh, ow), (cells, (_, c)) in _argmax_cells(x, ksize, strides, padding).items():
        for k, (h, v) in enumerate(cells):
            b, ch = divmod(k, c)
            dx[b, h, v, ch] += u[b, oh, ow, ch]
    return dx


def np_max_pool_grad_grad(x, u2, ksize, strides, padding):
    out = np.zeros(_out_shape(x.shape, ksize, strides, (1, 1), padding, x.shape[3]), u2.dtype)
    for (oh, ow), (cells, (_, c)) in _argmax_cells(x, ksize, strides, padding).items():
        for k, (h, v) in enumerate(cells):
            b, ch = divmod(k, c)
            out[b, oh, ow, ch] = u2[b, h, v, ch]
    return out


def np_avg_pool(x, ksize, strides, padding):
    out = np.zeros(_out_shape(x.shape, ksize, strides, (1, 1), padding, x.shape[3]), x.dtype)
    for (oh, ow), cells in _windows(x.shape, ksize, strides, padding).items():
        out[:, oh, ow] = np.mean([x[:, h, v] for h, v in cells], axis=0)
    return out


def np_avg_pool_grad(u, in_shape, ksize, strides, padding):
    dx = np.zeros(in_shape, u.dtype)
    for (oh, ow), cells in _windows(in_shape, ksize, strides, padding).items():
        for h, v in cells:
            dx[:, h, v] += u[:, oh, ow] / len(cells)
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


def _conv_samples(name, kinds):
    """One sample per conv case; ``kinds`` picks the arrays: "x", "w", "dy" (the output gradient)."""
    samples = []
    for case, xs, ws, strides, padding, dil in _CONV_CASES:
        shapes = {"x": xs, "w": ws, "dy": _out_shape(xs, ws[:2], strides, dil, padding, ws[3])}
        kw = {"strides": strides, "padding": padding, "dilations": dil, "x_shape": xs, "w_shape": ws}
        samples.append(make_sample(name, case, [uniform()] * len(kinds), [shapes[k] for k in kinds], kwargs=kw))
    return samples


def _conv_fn(x, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1):  # conv2d's dilated gradient raises on TF's CPU; tf.nn.convolution's does not
        return tf.nn.convolution(x, w, strides, padding, dilations=dilations)
    return tf.nn.conv2d(x, w, strides, _tf_padding(padding))


def _conv_ref(x, w, strides, padding, dilations, x_shape, w_shape):
    return np_conv2d(x, w, strides, padding, dilations)


op("Conv2D", _conv_fn, _conv_ref, _conv_samples("Conv2D", "xw"), True)


def _transpose_fn(dy, w, strides, padding, dilations, x_shape, w_shape):
    if dilations != (1, 1):
        conv = lambda x: tf.nn.convolution(x, w, strides, padding, dilations=dilations)  # noqa: E731
        return vjp(conv, tf.zeros(x_shape, dy.dtype), dy)
    return tf.nn.conv2d_transpose(dy, w, x_shape, strides, _tf_padding(padding))


def _transpose_ref(dy, w, strides, padding, dilations, x_shape, w_shape):
    return np_conv2d_input_grad(dy, w, x_shape, strides, padding, dilations)


op("Conv2DBackpropInput", _transpose_fn, _transpose_ref, _conv_samples("Conv2DBackpropInput", ("dy", "w")), True,
   covered_by="Conv2D", note="tf.nn.conv2d_transpose; the dilated sample goes through tf.nn.convolution's gradient")


def _filter_grad_fn(x, dy, strides, padding, dilations, x_shape, w_shape):
    return vjp(lambda w: _conv_fn(x, w, strides, padding, dilations, x_shape, w_shape), tf.zeros(w_shape, x.dtype),
               dy)


def _filter_grad_ref(x, dy, strides, padding, dilations, x_shape, w_shape):
    return np_conv2d_filter_grad(x, dy, w_shape, strides, padding, dilations)


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
    samples = []
    for case, xs, ws, strides, padding, dil in _DW_CASES:
        shapes = {"x": xs, "w": ws, "dy": _out_shape(xs, ws[:2], strides, dil, padding, ws[2] * ws[3])}
        kw = {"strides": strides, "padding": padding, "dilations": dil, "x_shape": xs, "w_shape": ws}
        samples.append(make_sample(name, case, [uniform()] * len(kinds), [shapes[k] for k in kinds], kwargs=kw))
    return samples


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


def _pool_samples(name, kinds):
    samples = []
    for case, xs, k, s, padding in _POOL_CASES:
        shapes = {"x": xs, "dy": _out_shape(xs, k, s, (1, 1), padding, xs[3])}
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
