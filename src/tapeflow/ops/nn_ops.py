"""Neural-network functions: forward (NumPy) and gradient (tapeflow ops) side by side.

The two softmax cross-entropies are fused primitives with TF's two outputs (the loss and its gradient, the
"backprop"), computed in one NumPy pass; their rule scales the stored backprop, so a training step costs one op
forward and two backward. As in TF, second derivatives come through the backprop output: its gradient is
softmax's Jacobian-vector product (and, as TF's rule has it, nothing for the labels).
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, NUMERIC, defop
from .._core.tensor import EagerTensor
from ._convert import to_tensor
from .array_ops import BROADCAST_TO, RESHAPE, cast, stop_gradient, transpose, where, zeros_like
from .elementwise_ops import divide_no_nan, log1p, squared_difference
from .math_ops import (
    ADD,
    COMPLEX,
    EXP,
    MUL,
    NEG,
    exp,
    greater_equal,
    imag,
    maximum,
    real,
    relu,
    rsqrt,
    sigmoid,
    square,
    tanh,
    via_tensors,
)
from .math_ops import abs as _abs
from .reduction_ops import SUM, _normalize_axis, reduce_mean, reduce_sum

__all__ = [
    "softmax", "log_softmax", "relu", "sigmoid", "tanh", "sparse_softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits", "l2_loss", "bias_add",
]

_RESHAPE_TOO_BIG = "Input to reshape is a tensor with {} values, but the requested shape has {}"


def _reshape_error(n, m):
    return errors.op_error("Reshape", _RESHAPE_TOO_BIG.format(n, m))


def _reshape(t, shape):
    return t if t._value.shape == shape else execute(RESHAPE, (t,), {"shape": shape})


# ------------------------------------------------------------------------------------------ softmax, log_softmax


def _softmax_rank_check(name, x):
    if x.ndim == 0:
        raise errors.op_error(name, "logits must have >= 1 dimension, got []")


@defop("Softmax", dtypes=FLOAT, quiet=True)
def SOFTMAX(x, axis):
    _softmax_rank_check("Softmax", x)
    if x.shape[axis] == 0:
        return x.copy()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.add.reduce(e, axis=axis, keepdims=True)


@SOFTMAX.defvjp
def _softmax_grad(g, y, x, axis):
    # dx = (g - sum(g * y, axis)) * y
    return ((g - reduce_sum(g * y, axis, keepdims=True)) * y,)


@SOFTMAX.defraw
def _softmax_raw(g, y, x, axis):
    return ((g - SUM.forward(g * y, (axis % y.ndim,), True)) * y,)


@defop("LogSoftmax", dtypes=FLOAT, quiet=True)
def LOG_SOFTMAX(x, axis):
    _softmax_rank_check("LogSoftmax", x)
    if x.shape[axis] == 0:
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))


@LOG_SOFTMAX.defvjp
def _log_softmax_grad(g, y, x, axis):
    # dx = g - sum(g, axis) * softmax(x), with softmax(x) = exp(y)
    return (g - reduce_sum(g, axis, keepdims=True) * exp(y),)


@LOG_SOFTMAX.defraw
def _log_softmax_raw(g, y, x, axis):
    return (g - SUM.forward(g, (axis % y.ndim,), True) * EXP.forward(y),)


def _softmax_axis(x, axis):
    """``axis`` checked as TF's wrapper does: the last axis goes straight to the kernel, others must be in range."""
    axis = -1 if axis is None else int(axis)
    nd = x._value.ndim
    if axis == -1 or axis == nd - 1:
        return -1
    if not -nd <= axis < nd:
        raise errors.InvalidArgumentError(None, None, f"`dim` must be in the range [{-nd}, {nd}) where {nd} is the "
                                          f"number of dimensions in the input. Received: dim={axis}")
    return axis % nd


@export("math.softmax", "nn.softmax")
def softmax(logits, axis=None, name=None):
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably, along ``axis`` (default last)
    (``tf.nn.softmax``)."""
    x = to_tensor(logits)
    return execute(SOFTMAX, (x,), {"axis": _softmax_axis(x, axis)})


@export("math.log_softmax", "nn.log_softmax")
def log_softmax(logits, axis=None, name=None):
    """``logits - log(reduce_sum(exp(logits), axis))``, computed stably, along ``axis`` (default last)
    (``tf.nn.log_softmax``)."""
    x = to_tensor(logits)
    return execute(LOG_SOFTMAX, (x,), {"axis": _softmax_axis(x, axis)})


# ------------------------------------------------------------------------------------------ cross-entropies

_LAST = {"axis": -1}


def _xent_second_order(g_back, logits):
    """The gradient through the backprop output: softmax's Jacobian-vector product (TF's rule)."""
    sm = execute(SOFTMAX, (logits,), _LAST)
    return _softmax_grad(g_back, sm, logits, -1)[0]


def _xent_logits_grad(g_loss, g_back, backprop, logits):
    gx = None
    if g_loss is not None:
        g_col = execute(RESHAPE, (g_loss,), {"shape": g_loss._value.shape + (1,)})
        gx = execute(MUL, (g_col, backprop))
    if g_back is not None:
        extra = _xent_second_order(g_back, logits)
        gx = extra if gx is None else execute(ADD, (gx, extra))
    return gx


def _class_count_error(op_name, shape):
    return errors.op_error(op_name, f"Must have at least one class, but got logits shape {errors.shape_str(shape)}")


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_ROWS = {}


def _rows(n):
    """``arange(n)``, kept for the batch sizes seen (only ever used as an index, never written)."""
    rows = np.arange(n)
    rows.flags.writeable = False
    if len(_ROWS) < 64:
        _ROWS[n] = rows
    return rows


@defop("SparseSoftmaxCrossEntropyWithLogits", num_outputs=2, dtypes=FLOAT, same_dtype=False, quiet=True)
def SPARSE_XENT(logits, labels):
    n, c = logits.shape
    if c == 0:
        raise _class_count_error("SparseSoftmaxCrossEntropyWithLogits", logits.shape)
    if n:
        # Reductions through the ufuncs directly (positional arguments): ``.min()``/``.max()``/``.sum()`` go
        # through a Python wrapper in NumPy's ``_methods`` each, and this op runs on every training step.
        # One reduction checks both ends: seen as unsigned, a negative label is larger than any class count.
        if _MAX(labels.view(_UNSIGNED[labels.dtype.itemsize])) >= c:
            lo, hi = _MIN(labels), _MAX(labels)
            bad = lo if lo < 0 else hi
            raise errors.op_error(
                "SparseSoftmaxCrossEntropyWithLogits",
                f"Received a label value of {bad} which is outside the valid range of [0, {c}).  Label values: "
                + " ".join(str(v) for v in labels.tolist()))
    shifted = logits - _MAX(logits, 1, None, None, True)
    e = np.exp(shifted)
    s = np.add.reduce(e, 1, None, None, True)
    rows = _ROWS.get(n)
    if rows is None:
        rows = _rows(n)
    loss = np.log(s[:, 0]) - shifted[rows, labels]
    backprop = e / s
    backprop[rows, labels] -= 1
    return loss, backprop


@SPARSE_XENT.defvjp(needs=True)
def _sparse_xent_grad(g, ans, logits, labels, needs):
    return _xent_logits_grad(g[0], g[1], ans[1], logits), None


@SPARSE_XENT.defraw(needs=True)
def _sparse_xent_raw(g, ans, logits, labels, needs):
    g_loss, g_back = g
    if g_back is not None or g_loss is None:  # through the backprop output: softmax's rule, on tensors
        return via_tensors(_sparse_xent_grad, g, ans, (logits, labels), needs)
    return RESHAPE.forward(g_loss, g_loss.shape + (1,)) * ans[1], None


@defop("SoftmaxCrossEntropyWithLogits", num_outputs=2, dtypes=FLOAT, quiet=True)
def XENT(logits, labels):
    if logits.shape != labels.shape:
        try:
            np.broadcast_shapes(logits.shape, labels.shape)
        except ValueError:
            raise errors.op_error(
                "SoftmaxCrossEntropyWithLogits",
                f"logits and labels must be broadcastable: logits_size={errors.shape_str(logits.shape)} "
                f"labels_size={errors.shape_str(labels.shape)}") from None
    if logits.shape[1] == 0:
        shape = np.broadcast_shapes(logits.shape, labels.shape)
        return np.zeros(shape[0], logits.dtype), np.zeros(shape, logits.dtype)
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    loss = np.add.reduce(labels * (np.log(s) - shifted), axis=1)
    return loss, e / s - labels


@XENT.defvjp(needs=True)
def _xent_grad(g, ans, logits, labels, needs):
    g_loss, g_back = g
    backprop = ans[1]
    gx = _xent_logits_grad(g_loss, g_back, backprop, logits) if needs[0] else None
    gl = None
    if needs[1]:
        if labels._value.shape != backprop._value.shape:
            # TF's wrapper reshapes broadcast labels, and that reshape's gradient fails.
            raise _reshape_error(backprop._value.size, labels._value.size)
        if g_loss is None:
            gl = zeros_like(labels)  # TF scales a zero upstream gradient here: zeros, not None
        else:
            g_col = execute(RESHAPE, (g_loss,), {"shape": g_loss._value.shape + (1,)})
            gl = execute(MUL, (g_col, execute(NEG, (execute(LOG_SOFTMAX, (logits,), _LAST),))))
    return gx, gl


_HALF = np.dtype(np.float16)
_LABEL_TYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _tlabels_error(labels):
    from .._core.convert import c_name
    from .._core.opdefs import OPDEFS

    name = "SparseSoftmaxCrossEntropyWithLogits"
    return errors.InvalidArgumentError(
        None, None, f"Value for attr 'Tlabels' of {c_name(labels.dtype)} is not in the list of allowed values: "
        f"int32, int64\n\t; NodeDef: {{{{node {name}}}}}; {OPDEFS[name][1]} [Op:{name}] name: ")


@export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Softmax cross-entropy against integer class ``labels`` (int32 or int64), one fused op; labels out of
    ``[0, num_classes)`` raise TF's error, and labels get no gradient
    (``tf.nn.sparse_softmax_cross_entropy_with_logits``)."""
    labels = labels if type(labels) is EagerTensor else to_tensor(labels)
    logits = logits if type(logits) is EagerTensor else to_tensor(logits)
    lv, xv = labels._value, logits._value
    half = xv.dtype == _HALF
    precise = cast(logits, "float32") if half else logits
    nd = xv.ndim
    if nd == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    if lv.ndim != nd - 1:
        raise ValueError("`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                         f"labels.shape={labels.shape} of rank {lv.ndim} and logits.shape={logits.shape} of rank {nd}")
    if lv.shape != xv.shape[:-1]:
        raise ValueError("`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                         f"labels.shape={labels.shape} and logits.shape={logits.shape}")
    if lv.dtype not in _LABEL_TYPES:
        raise _tlabels_error(labels)  # TF checks Tlabels before T
    if nd == 2:
        loss = execute(SPARSE_XENT, (precise, labels))[0]
    else:
        flat = _reshape(precise, (lv.size, xv.shape[-1]))
        loss = execute(SPARSE_XENT, (flat, _reshape(labels, (lv.size,))))[0]
        loss = _reshape(loss, lv.shape)
    return cast(loss, "float16") if half else loss


def _range_error(start, limit):
    return errors.op_error("Range", f"Requires start <= limit when delta > 0: {start}/{limit}")


def _flatten_outer(t):
    v = t._value
    if v.ndim == 2:
        return t
    if v.ndim == 0:
        raise errors.op_error("Slice", "Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when "
                              "input.dim_size(0) == 0", name=None)
    last = v.shape[-1]
    rows = v.size // last if last else int(np.prod(v.shape[:-1]))
    return execute(RESHAPE, (t,), {"shape": (rows, last)})


@export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Softmax cross-entropy against probability ``labels`` along ``axis``, one fused op; gradients flow into
    both logits and labels, as in TF 2 (``tf.nn.softmax_cross_entropy_with_logits``)."""
    logits = logits if type(logits) is EagerTensor else to_tensor(logits)
    labels = labels if type(labels) is EagerTensor else to_tensor(labels)
    half = logits._value.dtype == _HALF
    precise = cast(logits, "float32") if half else logits
    if labels._value.dtype != precise._value.dtype:
        labels = cast(labels, precise.dtype)
    shape = precise._value.shape
    rank = len(shape)
    if axis != -1:
        if axis < 0:
            raise _range_error(0, axis)
        if axis >= rank:
            raise _range_error(axis + 1, rank)
        perm = list(range(axis)) + list(range(axis + 1, rank)) + [axis]
        precise, labels = transpose(precise, perm), transpose(labels, perm)
        shape = precise._value.shape
    if rank == 2 and labels._value.ndim == 2:
        loss = execute(XENT, (precise, labels))[0]
        if loss._value.shape[0] != shape[0]:
            raise _reshape_error(loss._value.shape[0], shape[0])
    else:
        loss = execute(XENT, (_flatten_outer(precise), _flatten_outer(labels)))[0]
        out_shape = shape[:-1]
        want = int(np.prod(out_shape))
        if loss._value.size != want:
            raise _reshape_error(loss._value.size, want)
        loss = _reshape(loss, out_shape)
    return cast(loss, "float16") if half else loss


@export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss ``max(x, 0) - x * z + log(1 + exp(-abs(x)))``, stable for any ``x``
    (``tf.nn.sigmoid_cross_entropy_with_logits``)."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
    logits, labels = to_tensor(logits), to_tensor(labels)
    _same_shape(logits, labels)
    zeros = zeros_like(logits)
    cond = greater_equal(logits, zeros)
    relu_logits = where(cond, logits, zeros)
    neg_abs_logits = where(cond, -logits, logits)
    return relu_logits - logits * labels + log1p(exp(neg_abs_logits))


@export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """The logistic loss with positive terms weighted by ``pos_weight``, computed stably
    (``tf.nn.weighted_cross_entropy_with_logits``)."""
    logits, labels = to_tensor(logits), to_tensor(labels)
    _same_shape(logits, labels)
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-_abs(logits))) + relu(-logits))


def _ensure_xent_args(name, labels, logits):
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")


def _same_shape(logits, labels):
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).")


# ------------------------------------------------------------------------------------------ l2_loss, bias_add


@defop("L2Loss", dtypes=FLOAT)
def L2_LOSS(x):
    return np.add.reduce(x * x * x.dtype.type(0.5), axis=None)


@L2_LOSS.defvjp
def _l2_loss_grad(g, y, x):
    return (execute(MUL, (x, g)),)


@export("nn.l2_loss")
def l2_loss(t, name=None):
    """``sum(t ** 2) / 2`` as a scalar (``tf.nn.l2_loss``)."""
    return errors.call_on_path(errors.fast_path(t), execute, L2_LOSS, (to_tensor(t),))


def _channel_axis(ndim, data_format):
    return 1 if data_format == "NCHW" else ndim - 1


def _bias_shape(ndim, n, data_format):
    """The shape the bias broadcasts as: ``[n]`` on the last axis, or on axis 1 for NCHW."""
    if data_format == "NCHW":
        return (1, n) + (1,) * (ndim - 2)
    return (n,)


@defop("BiasAdd", dtypes=NUMERIC)
def BIAS_ADD(value, bias, data_format):
    name = "BiasAdd"
    if value.ndim < 2:
        raise errors.op_error(name, f"Input tensor must be at least 2D: {errors.shape_str(value.shape)}")
    if bias.ndim != 1:
        raise errors.op_error(name, f"Biases must be 1D: {errors.shape_str(bias.shape)}")
    c = value.shape[_channel_axis(value.ndim, data_format)]
    if bias.shape[0] != c:
        raise errors.op_error(name, "Must provide as many biases as the last dimension of the input tensor: "
                              f"{errors.shape_str(bias.shape)} vs. {errors.shape_str(value.shape)}")
    return value + bias.reshape(_bias_shape(value.ndim, c, data_format))


@BIAS_ADD.defvjp(needs=True)
def _bias_add_grad(g, y, value, bias, needs, data_format):
    gb = execute(BIAS_ADD_GRAD, (g,), {"data_format": data_format}) if needs[1] else None
    return g, gb


@BIAS_ADD.defraw(needs=True)
def _bias_add_raw(g, y, value, bias, needs, data_format):
    return g, (BIAS_ADD_GRAD.forward(g, data_format) if needs[1] else None)


@defop("BiasAddGrad", dtypes=NUMERIC)
def BIAS_ADD_GRAD(g, data_format):
    axis = _channel_axis(g.ndim, data_format)
    return np.add.reduce(g, axis=tuple(i for i in range(g.ndim) if i != axis))


@BIAS_ADD_GRAD.defvjp
def _bias_add_grad_grad(gg, gb, g, data_format):
    shape = g._value.shape
    expanded = execute(RESHAPE, (gg,), {"shape": _bias_shape(len(shape), gg._value.shape[0], data_format)})
    return (execute(BROADCAST_TO, (expanded,), {"shape": shape}),)


@export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with a 1-D ``bias`` on the channel axis: the last one, or axis 1 for ``NC...``
    data formats (``tf.nn.bias_add``)."""
    if data_format is not None:
        if data_format.startswith("NC"):
            data_format = "NCHW"
        elif data_format.startswith("N") and data_format.endswith("C"):
            data_format = "NHWC"
        else:
            raise ValueError("`data_format` must be of the form `N...C` or `NC...`. Received: "
                             f"data_format={data_format}")
    x = to_tensor(value)
    b = bias if isinstance(bias, EagerTensor) else to_tensor(bias, None if _is_tensor(bias) else x.dtype)
    return errors.call_on_path(errors.fast_path(value, bias), execute, BIAS_ADD, (x, b),
                               {"data_format": data_format or "NHWC"})


def _is_tensor(v):
    return isinstance(v, EagerTensor) or getattr(v, "_tapeflow_variable", False)


# ------------------------------------------------------------------------------------------ normalization


@export("math.l2_normalize", "nn.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` along ``axis`` (all axes by default); complex ``x`` is
    scaled by its modulus (``tf.math.l2_normalize``)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    x = to_tensor(x)
    if x.dtype.is_complex:
        re, im = real(x), imag(x)
        square_sum = reduce_sum(square(re) + square(im), axis, keepdims=True)
        x_inv_norm = rsqrt(maximum(square_sum, epsilon))
        return execute(COMPLEX, (re * x_inv_norm, im * x_inv_norm))  # TF builds the result with its Complex op
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return x * rsqrt(maximum(square_sum, epsilon))


@export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """``(mean, variance)`` of ``x`` over ``axes``; the variance's gradient does not flow through the mean
    (``tf.nn.moments``). float16 is computed in float32."""
    x = to_tensor(x)
    y = cast(x, "float32") if x._value.dtype == _HALF else x
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(squared_difference(y, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        kept = mean._value.shape
        norm = _normalize_axis("Squeeze", axes, len(kept))
        drop = norm if norm else tuple(i for i, d in enumerate(kept) if d == 1)
        out_shape = tuple(d for i, d in enumerate(kept) if i not in drop)
        mean, variance = _reshape(mean, out_shape), _reshape(variance, out_shape)
    if x._value.dtype == _HALF:
        return cast(mean, "float16"), cast(variance, "float16")
    return mean, variance


@export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``, in TF's order of operations
    (``tf.nn.batch_normalization``)."""
    inv = rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv *= scale
    return x * cast(inv, x.dtype) + cast(offset - mean * inv if offset is not None else -mean * inv, x.dtype)


# ------------------------------------------------------------------------------------------ losses


@export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size``, 0 for a batch size of 0
    (``tf.nn.compute_average_loss``). The global batch size defaults to this batch's size times the current
    strategy's replica count (``tf.distribute``); a strategy's cross-replica context refuses that default with TF's
    ``RuntimeError``."""
    loss = to_tensor(per_example_loss)
    input_dtype = loss.dtype
    if loss._value.ndim == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={loss} with rank 0")
    if sample_weight is not None:
        weight = cast(to_tensor(sample_weight), "float32")
        loss = cast(loss, "float32")
        diff = weight._value.ndim - loss._value.ndim
        if weight._value.ndim and diff == 1:
            weight = _reshape(weight, weight._value.shape[:-1]) if weight._value.shape[-1] == 1 else weight
        elif weight._value.ndim and diff == -1:
            weight = _reshape(weight, weight._value.shape + (1,))
        loss = cast(loss * weight, input_dtype)
    if global_batch_size is None:
        from .distribute_losses import replicas_in_sync

        global_batch_size = loss._value.shape[0] * replicas_in_sync("compute_average_loss")
    n = to_tensor(global_batch_size)
    if n._value.ndim:
        raise ValueError("global_batch_size must be scalar..  Expected scalar shape, saw shape: "
                         f"{n.shape}.")
    if not n.dtype.is_integer:
        raise TypeError('global_batch_size must be an integer..  Expected "x" to be integer type.  Found: tensor '
                        f"of dtype {n.dtype}")
    if n._value < 0:
        raise errors.InvalidArgumentError(
            None, None, "global_batch_size must be non-negative..  \nCondition x >= 0 did not hold element-wise:\n"
            f"x (shape=() dtype={n.dtype.name}) = \n{n._value}")
    return divide_no_nan(reduce_sum(loss), cast(n, input_dtype))

