"""Op database entries for the foundation ops: arithmetic, comparisons, unary math, gradient ops,
complex parts, array basics, indexing, reductions (matmul is in linalg.py, softmax in nn.py)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow.ops.array_ops import RESHAPE_TO, SHAPE, SIZE
from tapeflow.ops.control_flow_ops import LOOP_HISTORY_READ, LOOP_HISTORY_WRITE

from .common import *  # noqa: F403

# --- elementwise binary arithmetic

op("AddV2", lambda x, y: tf.add(x, y), np.add, binary("AddV2"), True, complex_samples=cbinary("AddV2"))
op("Sub", lambda x, y: tf.subtract(x, y), np.subtract, binary("Sub"), True, complex_samples=cbinary("Sub"))
op("Mul", lambda x, y: tf.multiply(x, y), np.multiply, binary("Mul"), True, complex_samples=cbinary("Mul"))
op("RealDiv", lambda x, y: tf.math.truediv(x, y), np.divide, binary("RealDiv", gen_y=nonzero(0.5, 2.0)), True,
   complex_samples=cbinary("RealDiv", y=(nonzero(0.5, 2.0), None)))
op("FloorDiv", lambda x, y: tf.math.floordiv(x, y), np.floor_divide,
   binary("FloorDiv", uniform(-3, 3), nonzero(0.5, 2.0), frac_apart), False)
op("FloorMod", lambda x, y: tf.math.floormod(x, y), np.mod,
   binary("FloorMod", uniform(-3, 3), nonzero(0.5, 2.0), frac_apart), True)
op("Pow", lambda x, y=None, exponent=None: tf.pow(x, y if exponent is None else exponent),
   lambda x, y=None, exponent=None: np.power(x, y if exponent is None else x.dtype.type(exponent)),
   binary("Pow", positive(0.5, 2.0), uniform(-1.5, 1.5)) + [
       make_sample("Pow", "square_exponent", (uniform(),), ((2, 3),), kwargs={"exponent": 2.0}),
       make_sample("Pow", "square_tensor_exponent", (positive(0.5, 2.0), lambda rng, shape: f64(np.full(shape, 2.0))),
                   ((2, 3), ())),
       make_sample("Pow", "cube_negative_base", (uniform(-2, -0.5),), ((3,),), kwargs={"exponent": 3.0}),
   ], True, complex_samples=cbinary("Pow", x=(positive(), None), y=(uniform(-1.5, 1.5), None)),
   note="the exponent gradient is checked for x > 0 only: TF defines it as 0 where x <= 0, where x ** y is "
        "not real-differentiable in y; the kwargs samples pass a constant exponent (2.0 takes the fast path)")
op("Maximum", lambda x, y: tf.maximum(x, y), np.maximum, binary("Maximum", accept=apart()), True)
op("Minimum", lambda x, y: tf.minimum(x, y), np.minimum, binary("Minimum", accept=apart()), True)

# --- comparisons and logic (declared non-differentiable)


def _ties(name):
    """Binary samples on a grid of quarter steps, so that some elements are equal (exactly, in float32 too)."""
    grid = lambda rng, shape: f64(rng.integers(-2, 3, size=shape) / 4)
    return binary(name, grid, grid)


op("Equal", lambda x, y: tf.equal(x, y), np.equal, _ties("Equal"), False)
op("NotEqual", lambda x, y: tf.not_equal(x, y), np.not_equal, _ties("NotEqual"), False)
op("Less", lambda x, y: tf.less(x, y), np.less, _ties("Less"), False)
op("LessEqual", lambda x, y: tf.less_equal(x, y), np.less_equal, _ties("LessEqual"), False)
op("Greater", lambda x, y: tf.greater(x, y), np.greater, _ties("Greater"), False)
op("GreaterEqual", lambda x, y: tf.greater_equal(x, y), np.greater_equal, _ties("GreaterEqual"), False)
op("LogicalAnd", lambda x, y: tf.logical_and(x > 0, y > 0), lambda x, y: np.logical_and(x > 0, y > 0),
   binary("LogicalAnd"), False)
op("LogicalOr", lambda x, y: tf.logical_or(x > 0, y > 0), lambda x, y: np.logical_or(x > 0, y > 0),
   binary("LogicalOr"), False)
op("LogicalNot", lambda x: tf.logical_not(x > 0), lambda x: np.logical_not(x > 0), unary("LogicalNot"), False)


def _i32(t):
    return tf.cast(t, tf.int32)


def _ni32(a):
    return a.astype(np.int32)


_INT_GEN = uniform(-9, 9)
op("BitwiseAnd", lambda x, y: _i32(x) & _i32(y), lambda x, y: np.bitwise_and(_ni32(x), _ni32(y)),
   binary("BitwiseAnd", _INT_GEN, _INT_GEN), False, note="reached through the & operator on int32 tensors")
op("BitwiseOr", lambda x, y: _i32(x) | _i32(y), lambda x, y: np.bitwise_or(_ni32(x), _ni32(y)),
   binary("BitwiseOr", _INT_GEN, _INT_GEN), False, note="reached through the | operator on int32 tensors")
op("BitwiseXor", lambda x, y: _i32(x) ^ _i32(y), lambda x, y: np.bitwise_xor(_ni32(x), _ni32(y)),
   binary("BitwiseXor", _INT_GEN, _INT_GEN), False, note="reached through the ^ operator on int32 tensors")
op("Invert", lambda x: ~_i32(x), lambda x: np.invert(_ni32(x)), unary("Invert", _INT_GEN), False,
   note="reached through the ~ operator on an int32 tensor")

# --- elementwise unary

op("Neg", lambda x: tf.negative(x), np.negative, unary("Neg"), True, complex_samples=cunary("Neg"))
op("Abs", lambda x: tf.abs(x), np.abs, unary("Abs", nonzero()), True)
op("ComplexAbs", lambda x, y: tf.abs(to_complex(x, y)), lambda x, y: np.abs(np_complex(x, y)),
   binary("ComplexAbs", nonzero(), nonzero(), shapes=BINARY_SHAPES[:3]), True,
   note="|x + iy| through tf.abs on a complex tensor; the real inputs check the conjugation conventions")
op("Square", lambda x: tf.square(x), np.square, unary("Square"), True, complex_samples=cunary("Square"))
op("Sqrt", lambda x: tf.sqrt(x), np.sqrt, unary("Sqrt", positive()), True,
   complex_samples=cunary("Sqrt", positive()))
op("Rsqrt", lambda x: tf.math.rsqrt(x), lambda x: 1 / np.sqrt(x), unary("Rsqrt", positive()), True,
   complex_samples=cunary("Rsqrt", positive()))
op("Exp", lambda x: tf.exp(x), np.exp, unary("Exp"), True, complex_samples=cunary("Exp", uniform(-1, 1)))
op("Log", lambda x: tf.math.log(x), np.log, unary("Log", positive()), True,
   complex_samples=cunary("Log", positive()))
op("Reciprocal", lambda x: tf.math.reciprocal(x), np.reciprocal, unary("Reciprocal", nonzero(0.5, 2.0)), True,
   complex_samples=cunary("Reciprocal", nonzero(0.5, 2.0)))
op("Sign", lambda x: tf.sign(x), np.sign, unary("Sign", nonzero()), True, zero_grad=True,
   note="TF's rule for sign is zeros, not None: the op is registered differentiable")
op("Floor", lambda x: tf.floor(x), np.floor, unary("Floor", uniform(-3, 3)), False)
op("Round", lambda x: tf.round(x), np.round,
   unary("Round", uniform(-3, 3)) + [Sample("halves", (f64([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.5]]),))], False,
   note="the halves sample checks rounding half to even")
op("Sigmoid", lambda x: tf.sigmoid(x), np_sigmoid, unary("Sigmoid", uniform(-4, 4)), True,
   complex_samples=cunary("Sigmoid", uniform(-1, 1)))
op("Tanh", lambda x: tf.tanh(x), np.tanh, unary("Tanh"), True, complex_samples=cunary("Tanh", uniform(-1, 1)))
op("Relu", lambda x: tf.nn.relu(x), lambda x: np.maximum(x, 0), unary("Relu", nonzero()), True)

# --- gradient ops, reached directly through GradientTape.gradient(..., output_gradients=u)

op("SqrtGrad", lambda x, u: vjp(tf.sqrt, x, u), lambda x, u: u * 0.5 / np.conj(np.sqrt(x)),
   binary("SqrtGrad", positive(), uniform(), shapes=BINARY_SHAPES[:1]) +
   [make_sample("SqrtGrad", "vector", (positive(), uniform()), ((4,), (4,)))], True, covered_by="Sqrt",
   complex_samples=[complex_sample("SqrtGrad", "complex", [(positive(), uniform(-1, 1), (2, 3)),
                                                           (uniform(), uniform(), (2, 3))])],
   note="Sqrt's gradient op: Sqrt's first-order test runs its forward, Sqrt's second-order test its rule for y")
op("SigmoidGrad", lambda x, u: vjp(tf.sigmoid, x, u), lambda x, u: u * np.conj(np_sigmoid(x) * (1 - np_sigmoid(x))),
   binary("SigmoidGrad", uniform(-3, 3), uniform(), shapes=BINARY_SHAPES[:1]) +
   [make_sample("SigmoidGrad", "vector", (uniform(-3, 3), uniform()), ((4,), (4,)))], True, covered_by="Sigmoid",
   complex_samples=[complex_sample("SigmoidGrad", "complex", [(uniform(-1, 1), uniform(-1, 1), (2, 3)),
                                                              (uniform(), uniform(), (2, 3))])],
   note="Sigmoid's gradient op: Sigmoid's first-order test runs its forward, the second-order test its rule")
op("TanhGrad", lambda x, u: vjp(tf.tanh, x, u), lambda x, u: u * np.conj(1 - np.tanh(x) ** 2),
   binary("TanhGrad", uniform(), uniform(), shapes=BINARY_SHAPES[:1]) +
   [make_sample("TanhGrad", "vector", (uniform(), uniform()), ((4,), (4,)))], True, covered_by="Tanh",
   complex_samples=[complex_sample("TanhGrad", "complex", [(uniform(-1, 1), uniform(-1, 1), (2, 3)),
                                                           (uniform(), uniform(), (2, 3))])],
   note="Tanh's gradient op: Tanh's first-order test runs its forward, the second-order test its rule")
op("ReluGrad", lambda x, u: vjp(tf.nn.relu, x, u), lambda x, u: u * (x > 0),
   binary("ReluGrad", nonzero(), uniform(), shapes=BINARY_SHAPES[:1]) +
   [make_sample("ReluGrad", "vector", (nonzero(), uniform()), ((4,), (4,)))], True, covered_by="Relu",
   note="Relu's gradient op: Relu's first-order test runs its forward, the second-order test its rule")

# --- complex parts


def _conj_fn(x, y):
    w = tf.math.conj(to_complex(x, y)) * to_complex(x, y) * to_complex(x, y)
    return [tf.math.real(w), tf.math.real(w * -1j)]


def _conj_ref(x, y):
    w = np.conj(np_complex(x, y)) * np_complex(x, y) ** 2
    return [np.real(w), np.real(w * -1j)]


op("Conj", _conj_fn, _conj_ref, binary("Conj", shapes=BINARY_SHAPES[:3]), True, covered_by="Real",
   note="w = conj(z) * z * z = |z|^2 z (not holomorphic), read as Re(w) and Re(-i w) = Im(w) without the Imag "
        "op; Conj also runs in every complex Mul gradient (Real's first-order test)")
op("Real", lambda x, y: tf.math.real(to_complex(x, y) * to_complex(x, y)), lambda x, y: np.real(np_complex(x, y) ** 2),
   binary("Real", shapes=BINARY_SHAPES[:3]), True, note="Re((x + iy)^2) = x^2 - y^2")
op("Imag", lambda x, y: tf.math.imag(to_complex(x, y) * to_complex(x, y)), lambda x, y: np.imag(np_complex(x, y) ** 2),
   binary("Imag", shapes=BINARY_SHAPES[:3]), True, note="Im((x + iy)^2) = 2xy")

# --- array ops

op("ReadVariableOp", lambda v: v.read_value() * v.value(), lambda x: x * x, unary("ReadVariableOp"), True,
   variables=True, runs_vjp=False,
   note="the samples are tf.Variables, read twice; the backward pass passes gradients straight through the "
        "recorded reads (the vjp, an identity, is never called: backprop special-cases READ_VARIABLE)")
op("Cast", lambda x: tf.math.real(tf.cast(x, tf.complex128)),
   lambda x: np.real(x.astype(np.complex128)), unary("Cast"), True,
   note="float -> complex128 -> real keeps float64 precision for the differences")
op("Reshape", lambda x, shape: tf.reshape(x, shape), lambda x, shape: np.reshape(x, shape), [
    make_sample("Reshape", "to_3x2", (uniform(),), ((2, 3),), kwargs={"shape": (3, 2)}),
    make_sample("Reshape", "flatten", (uniform(),), ((2, 3),), kwargs={"shape": [-1]}),
    make_sample("Reshape", "add_axis", (uniform(),), ((6,),), kwargs={"shape": (2, 1, 3)}),
    make_sample("Reshape", "to_scalar", (uniform(),), ((1, 1),), kwargs={"shape": ()}),
], True)
op("ReshapeToTensor", lambda x, shape: execute(RESHAPE_TO, (x, tf.constant(np.array(shape, np.int32)))),
   lambda x, shape: np.reshape(x, shape), [
       make_sample("ReshapeToTensor", "to_3x2", (uniform(),), ((2, 3),), kwargs={"shape": (3, 2)}),
       make_sample("ReshapeToTensor", "flatten", (uniform(),), ((2, 3),), kwargs={"shape": [-1]}),
   ], True, note="tf.reshape to a shape the traced program computes (a tensor input, read when it runs)")
op("Transpose", lambda x, perm=None: tf.transpose(x, perm), lambda x, perm=None: np.transpose(x, perm), [
    make_sample("Transpose", "matrix", (uniform(),), ((2, 3),)),
    make_sample("Transpose", "perm_3d", (uniform(),), ((2, 3, 2),), kwargs={"perm": (1, 2, 0)}),
], True)
op("Identity", lambda x: tf.identity(x), lambda x: x.copy(), unary("Identity"), True)
op("StopGradient", lambda x: tf.stop_gradient(x), lambda x: x.copy(), unary("StopGradient"), False)
op("Fill", lambda x, dims: tf.fill(dims, x), lambda x, dims: np.full(dims, x, dtype=x.dtype), [
    make_sample("Fill", "matrix", (uniform(),), ((),), kwargs={"dims": (2, 3)}),
    make_sample("Fill", "vector", (uniform(),), ((),), kwargs={"dims": [4]}),
], True)
op("ZerosLike", lambda x: tf.zeros_like(x), np.zeros_like, unary("ZerosLike"), False)
op("OnesLike", lambda x: tf.ones_like(x), np.ones_like, unary("OnesLike"), False)
op("Shape", lambda x: execute(SHAPE, (x,), {"out_type": np.int32}), lambda x: np.array(x.shape, np.int32),
   unary("Shape"), False,
   note="the op tf.shape runs in a loop body whose loop variables change shape (a constant everywhere else)")
op("Size", lambda x: execute(SIZE, (x,), {"out_type": np.int64}), lambda x: np.array(x.size, np.int64),
   unary("Size"), False,
   note="the op tf.size runs in a loop body whose loop variables change shape (a constant everywhere else)")


def _select_samples():
    out = [Sample(s.name, s.args, {"cond_shape": np.broadcast_shapes(s.args[0].shape, s.args[1].shape)})
           for s in binary("SelectV2", shapes=BINARY_SHAPES[:4])]
    out.append(make_sample("SelectV2", "bcast_cond", (uniform(), uniform()), ((2, 3), (2, 3)),
                           kwargs={"cond_shape": (3,)}))
    return out


op("SelectV2", lambda x, y, cond_shape: tf.where(tf.constant(mask(cond_shape)), x, y),
   lambda x, y, cond_shape: np.where(mask(cond_shape), x, y), _select_samples(), True,
   note="three-argument tf.where with a fixed mask; the condition itself is bool and gets no gradient")
op("Where", lambda x: tf.where(x > 0), lambda x: np.argwhere(x > 0).astype(np.int64),
   [make_sample("Where", "matrix", (uniform(),), ((2, 3),)), make_sample("Where", "vector", (uniform(),), ((5,),))],
   False,
   note="one-argument tf.where: int64 indices of the true elements")
op("BroadcastTo", lambda x, shape: tf.broadcast_to(x, shape), lambda x, shape: np.broadcast_to(x, shape).copy(), [
    make_sample("BroadcastTo", "row", (uniform(),), ((3,),), kwargs={"shape": (2, 3)}),
    make_sample("BroadcastTo", "column", (uniform(),), ((2, 1),), kwargs={"shape": (2, 3)}),
    make_sample("BroadcastTo", "scalar", (uniform(),), ((),), kwargs={"shape": (2, 2)}),
    make_sample("BroadcastTo", "middle_3d", (uniform(),), ((2, 1, 2),), kwargs={"shape": (2, 3, 2)}),
], True)
op("Pack", lambda *xs, axis=0: tf.stack(list(xs), axis=axis), lambda *xs, axis=0: np.stack(xs, axis=axis), [
    make_sample("Pack", "two_axis0", (uniform(), uniform()), ((2, 3), (2, 3))),
    make_sample("Pack", "two_axis1", (uniform(), uniform()), ((2, 3), (2, 3)), kwargs={"axis": 1}),
    make_sample("Pack", "three_axis_neg1", (uniform(),) * 3, ((3,),) * 3, kwargs={"axis": -1}),
    make_sample("Pack", "scalars", (uniform(),) * 2, ((),) * 2),
], True)


def _unstack(x, axis=0, pick=None):
    outs = tf.unstack(x, axis=axis)
    return outs if pick is None else [outs[i] for i in pick]


def _np_unstack(x, axis=0, pick=None):
    outs = [a.copy() for a in np.moveaxis(x, axis, 0)]
    return outs if pick is None else [outs[i] for i in pick]


op("Unpack", _unstack, _np_unstack, [
    make_sample("Unpack", "axis0", (uniform(),), ((2, 3),)),
    make_sample("Unpack", "axis1", (uniform(),), ((2, 3),), kwargs={"axis": 1}),
    make_sample("Unpack", "axis_neg1_3d", (uniform(),), ((2, 2, 3),), kwargs={"axis": -1}),
    make_sample("Unpack", "some_outputs_unused", (uniform(),), ((3, 2),), kwargs={"pick": [2, 0]}),
    make_sample("Unpack", "length_one_axis", (uniform(),), ((1, 3),)),
], True,
   note="the family of on-demand ops Unpack<n> (registry keys Unpack2, Unpack3 ...), one per length; "
        "unused outputs reach the rule as None")

_KEYS = (
    ("rows_reversed", (2, 3), (slice(1, None), slice(None, None, -1))),
    ("int_index", (2, 3), (0,)),
    ("ellipsis", (2, 3, 2), (Ellipsis, 1)),
    ("newaxis_strided", (2, 5), (slice(None), None, slice(0, 5, 2))),
    ("scalar_element", (2, 3), (1, -1)),
)


def _sliced_shape(shape, key):
    return np.zeros(shape)[key].shape


op("StridedSlice", lambda x, key: x[key], lambda x, key: np.asarray(x[key]).copy(),
   [make_sample("StridedSlice", n, (uniform(),), (shape,), kwargs={"key": key}) for n, shape, key in _KEYS], True,
   note="Python indexing of a tensor (__getitem__)")
op("StridedSliceGrad", lambda u, shape, key: vjp(lambda t: t[key], tf.zeros(shape, u.dtype), u),
   lambda u, shape, key: np_scatter(u, shape, key),
   [make_sample("StridedSliceGrad", n, (uniform(),), (_sliced_shape(shape, key),), kwargs={"shape": shape, "key": key})
    for n, shape, key in _KEYS], True, covered_by="StridedSlice", covered_rule=False,
   note="StridedSlice's gradient op (u scattered into zeros); StridedSlice is linear, so only this entry's own "
        "tests (u watched) run its rule")
_MASKS = (("full_mask", (2, 3), (2, 3)), ("row_mask", (3, 2), (3,)))
op("BooleanMask", lambda x, mask_shape: x[tf.constant(mask(mask_shape))],
   lambda x, mask_shape: x[mask(mask_shape)].copy(),
   [make_sample("BooleanMask", n, (uniform(),), (shape,), kwargs={"mask_shape": m}) for n, shape, m in _MASKS], True,
   note="indexing a tensor with a boolean tensor")
op("BooleanMaskGrad",
   lambda u, shape, mask_shape: vjp(lambda t: t[tf.constant(mask(mask_shape))], tf.zeros(shape, u.dtype), u),
   lambda u, shape, mask_shape: np_scatter(u, shape, mask(mask_shape)),
   [make_sample("BooleanMaskGrad", n, (uniform(),), (_sliced_shape(shape, mask(m)),),
         kwargs={"shape": shape, "mask_shape": m}) for n, shape, m in _MASKS], True,
   covered_by="BooleanMask", covered_rule=False,
   note="BooleanMask's gradient op; BooleanMask is linear, so only this entry's own tests (u watched) run its rule")

# --- reductions

op("Sum", lambda x, axis=None, keepdims=False: tf.reduce_sum(x, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.sum(x, axis=np_axis(axis), keepdims=keepdims), reduction_samples("Sum"),
   True, complex_samples=[complex_sample("Sum", "complex_axis0", [(uniform(), uniform(), (2, 3))], {"axis": 0})])
op("Mean", lambda x, axis=None, keepdims=False: tf.reduce_mean(x, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.mean(x, axis=np_axis(axis), keepdims=keepdims),
   reduction_samples("Mean"), True,
   complex_samples=[complex_sample("Mean", "complex_all", [(uniform(), uniform(), (2, 3))])])
def _mean_grad_ref(u, shape, axis=None, keepdims=False):
    axes = tuple(range(len(shape))) if axis is None else tuple(a % len(shape) for a in np.atleast_1d(axis))
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    n = int(np.prod([shape[a] for a in axes]))
    return np.broadcast_to(np.reshape(u, kept), shape) / n


def _reduced_shape(shape, axis, keepdims):
    axes = tuple(range(len(shape))) if axis is None else tuple(a % len(shape) for a in np.atleast_1d(axis))
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


_MEAN_GRAD_CASES = (("all", (2, 3), None, False), ("axis0", (2, 3), 0, False),
                    ("axis_neg1_keepdims", (2, 3), -1, True), ("axes02_3d", (2, 3, 2), [0, 2], False))
op("MeanGrad", lambda u, shape, axis=None, keepdims=False: vjp(lambda t: tf.reduce_mean(t, axis, keepdims),
                                                                tf.zeros(shape, u.dtype), u),
   _mean_grad_ref,
   [make_sample("MeanGrad", n, (uniform(),), (_reduced_shape(shape, axis, keepdims),),
         kwargs={"shape": shape, "axis": axis, "keepdims": keepdims}) for n, shape, axis, keepdims in _MEAN_GRAD_CASES],
   True, covered_by="Mean", covered_rule=False,
   note="Mean's gradient op (u spread over the reduced axes, divided by their size); Mean is linear, so only this "
        "entry's own tests (u watched) run its rule")
op("Max", lambda x, axis=None, keepdims=False: tf.reduce_max(x, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.max(x, axis=np_axis(axis), keepdims=keepdims),
   reduction_samples("Max", uniform(-4, 4), distinct), True, note="no ties: the maximum is a kink there")
op("Min", lambda x, axis=None, keepdims=False: tf.reduce_min(x, axis, keepdims),
   lambda x, axis=None, keepdims=False: np.min(x, axis=np_axis(axis), keepdims=keepdims),
   reduction_samples("Min", uniform(-4, 4), distinct), True, note="no ties: the minimum is a kink there")
op("ArgMax", lambda x, axis=None: tf.math.argmax(x, axis), lambda x, axis=None: np.argmax(x, axis=axis or 0),
   [make_sample("ArgMax", "axis0", (uniform(),), ((3, 2),)),
    make_sample("ArgMax", "axis1", (uniform(),), ((2, 3),), kwargs={"axis": 1})], False)
op("ArgMin", lambda x, axis=None: tf.math.argmin(x, axis), lambda x, axis=None: np.argmin(x, axis=axis or 0),
   [make_sample("ArgMin", "axis0", (uniform(),), ((3, 2),)),
    make_sample("ArgMin", "axis1", (uniform(),), ((2, 3),), kwargs={"axis": 1})], False)


def _history_sample(name, sample, stack_shape, shapes, k):
    out = make_sample(name, sample, (uniform(),), (stack_shape,))
    out.kwargs.update({"shapes": np.array(shapes, np.int64), "k": k})
    return out


def _history_read(stack, shapes, k):
    return execute(LOOP_HISTORY_READ, (stack, tf.constant(shapes), tf.constant(k)))


def _history_read_ref(stack, shapes, k):
    return stack[(k,) + tuple(slice(0, d) for d in shapes[k])].copy()


op("LoopHistoryRead", _history_read, _history_read_ref, [
    _history_sample("LoopHistoryRead", "padded", (3, 4), [[2], [3], [4]], 1),
    _history_sample("LoopHistoryRead", "full", (2, 2, 3), [[2, 3], [2, 3]], 1),
], True)


def _history_write(value, shapes, k, rows):
    like = tf.zeros([rows] + [int(d) for d in np.max(shapes, axis=0)], value.dtype)
    return execute(LOOP_HISTORY_WRITE, (value, like, tf.constant(shapes), tf.constant(k)))


def _history_write_ref(value, shapes, k, rows):
    out = np.zeros((rows,) + tuple(np.max(shapes, axis=0)), value.dtype)
    out[(k,) + tuple(slice(0, d) for d in shapes[k])] = value
    return out


def _write_sample(sample, value_shape, shapes, k):
    out = make_sample("LoopHistoryWrite", sample, (uniform(),), (value_shape,))
    out.kwargs.update({"shapes": np.array(shapes, np.int64), "k": k, "rows": len(shapes)})
    return out


op("LoopHistoryWrite", _history_write, _history_write_ref, [
    _write_sample("padded", (3,), [[2], [3], [4]], 1),
    _write_sample("full", (2, 3), [[2, 3], [2, 3]], 0),
], True)
