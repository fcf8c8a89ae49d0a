"""``tf.experimental.numpy`` without NumPy behavior: creation, math, reductions, shapes, dtypes, gradients, errors.

Every case reaches the module as ``tf.experimental.numpy``. The cases that switch NumPy behavior on are in
``tnp_behavior.py`` (recorded after these: TensorFlow cannot switch it off again).
"""

import numpy as np

from tests.golden.harness import case, catch, value_and_grads

M = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]


def _tnp(tf):
    return tf.experimental.numpy


# --------------------------------------------------------------------------------------------- creation


@case
def array_and_asarray_inference(tf):
    tnp = _tnp(tf)
    return [tnp.array(1.5), tnp.array(2), tnp.array(True), tnp.array([1, 2]), tnp.array([1.0, 2]),
            tnp.array([[1, 2], [3, 4]], dtype=float), tnp.array(np.float32(1.5)), tnp.array(np.arange(3)),
            tnp.array(3, dtype=tnp.float32), tnp.array(3, dtype="int16"), tnp.array(3, dtype=tf.float16),
            tnp.array(3, dtype=int), tnp.array(2.7, dtype=np.int32), tnp.array([1, 0, 2], dtype=bool),
            tnp.asarray([1, 2]), tnp.asarray(2.5), tnp.asarray(tf.constant([1, 2])),
            tnp.asarray(tf.constant([1, 2]), dtype=float), tnp.array(tf.constant([1.5, -2.5]), dtype=int),
            tnp.array(1j), tnp.array([]), tnp.array(2**40), tnp.array(-(2**40)), tnp.array(2**63)]


@case
def array_ndmin_and_identity(tf):
    tnp = _tnp(tf)
    t = tf.constant([1.0, 2.0])
    return [tnp.array(t, ndmin=3), tnp.array(5, ndmin=2), tnp.array([[1]], ndmin=1), tnp.asarray(t) is t,
            tnp.asarray(t, dtype=tnp.float32) is t, tnp.array(t, copy=False) is t,
            catch(tnp.array, 1, ndmin=33)]


@case
def zeros_ones_empty_full(tf):
    tnp = _tnp(tf)
    return [tnp.zeros(3), tnp.zeros((2, 2), int), tnp.zeros([2], dtype=tnp.int32), tnp.zeros(2, dtype=bool),
            tnp.ones(3), tnp.ones((1, 2), dtype="float32"), tnp.ones(2, dtype=tf.int64), tnp.empty(2),
            tnp.empty((1, 2), dtype=int), tnp.full((2,), 3), tnp.full((2,), 3.0), tnp.full(2, 7, dtype=tnp.float32),
            tnp.full((2, 2), [1, 2]), tnp.full([], 1.5), tnp.full(3, True), tnp.zeros(()), tnp.zeros(0),
            tnp.full((2,), tf.constant(1.0)), catch(tnp.full, (2,), [1, 2, 3])]


@case
def like_functions(tf):
    tnp = _tnp(tf)
    t = tf.constant([[1, 2], [3, 4]])
    f = tf.constant([1.5, 2.5])
    return [tnp.zeros_like(t), tnp.ones_like(t), tnp.empty_like(t), tnp.full_like(t, 9), tnp.full_like(t, 2.5),
            tnp.zeros_like(f, dtype=int), tnp.ones_like(f, dtype=tnp.float64), tnp.full_like(f, 3, dtype=bool),
            tnp.zeros_like([1.0, 2.0]), tnp.ones_like(3), tnp.zeros_like(2.5), tnp.ones_like([True]),
            catch(tnp.full_like, t, 1, order="F"), catch(tnp.full_like, t, 1, shape=(3,))]


@case
def eye_identity_tri(tf):
    tnp = _tnp(tf)
    return [tnp.eye(2), tnp.eye(2, 3), tnp.eye(3, k=1), tnp.eye(3, 2, k=-1), tnp.eye(2, 4, k=2),
            tnp.eye(3, k=5), tnp.eye(2, dtype=int), tnp.eye(3, 4, k=-2, dtype=tnp.int32), tnp.eye(4, 2, k=1),
            tnp.identity(3), tnp.identity(2, dtype=bool), tnp.tri(3), tnp.tri(2, 3, k=1, dtype=int),
            tnp.tri(3, k=-1, dtype=bool)]


@case
def arange_variants(tf):
    tnp = _tnp(tf)
    return [tnp.arange(5), tnp.arange(2, 7), tnp.arange(0, 1, 0.25), tnp.arange(5, 0, -2), tnp.arange(3.0),
            tnp.arange(5, dtype=float), tnp.arange(0, 3, dtype=tnp.float32), tnp.arange(1, 2, 0.3, dtype=int),
            tnp.arange(5, 1), tnp.arange(-3), tnp.arange(1, 5, -1), catch(tnp.arange, np.int8(4)),
            tnp.arange(2, dtype=tf.int16), catch(tnp.arange, 0, 5, 0)]


@case
def linspace_variants(tf):
    tnp = _tnp(tf)
    return [tnp.linspace(0, 1, 5), tnp.linspace(0.0, 1.0, num=4, endpoint=False), tnp.linspace(0, 10, 3, dtype=int),
            tnp.linspace(1, 2, 3, retstep=True), tnp.linspace(0, 1, 4, endpoint=False, retstep=True),
            tnp.linspace(2, 3, 1, retstep=True), tnp.linspace(2, 3, 0), catch(tnp.linspace, [0, 1], [2, 3], 3),
            tnp.linspace(tf.constant([0.0, 1]), tf.constant([2.0, 3]), 3, axis=1), tnp.linspace(0, 1, 3,
                dtype=tnp.float32),
            tnp.linspace(np.float32(0), 1, 3), catch(tnp.linspace, 0, 1, -1)]


@case
def dtype_names_and_constants(tf):
    tnp = _tnp(tf)
    return [tnp.float32 is np.float32, tnp.float64 is np.float64, tnp.int32 is np.int32, tnp.bool_ is np.bool_,
            tnp.int64 is np.int64, tnp.complex128 is np.complex128, tnp.float16 is np.float16, tnp.uint8 is np.uint8,
            tnp.newaxis is None, tnp.pi, tnp.e, tnp.inf, tnp.ndarray is tf.Tensor, tnp.float_ is np.float64,
            tnp.int_ is np.int_, tnp.complex_ is np.complex128, tnp.inexact is np.inexact,
            tnp.result_type(tnp.int32, tnp.float32), tnp.result_type(1, 2.0), tnp.result_type(tf.constant([1])),
            tnp.result_type(tf.constant([1.0]), 2.0), tnp.result_type(tf.constant([1]), np.float16),
            tnp.result_type(), tnp.promote_types(tnp.int8, tnp.uint8), tnp.promote_types("int32", "float32"),
            tnp.issubdtype(tnp.float32, np.floating), tnp.finfo(tnp.float32).eps, tnp.iinfo(tnp.int8).max,
            tnp.finfo(tf.float64).bits]


# --------------------------------------------------------------------------------------------- math


@case
def arithmetic_promotion(tf):
    tnp = _tnp(tf)
    i32 = tf.constant([1, 2])
    f32 = tf.constant([1.0, 2.0])
    f64 = tf.constant([1.0, 2.0], tf.float64)
    return [tnp.add(1, 2.5), tnp.add(1, 2), tnp.add(i32, 2.5), tnp.add(f32, 2.5), tnp.add(i32, f32), tnp.add(f32, f64),
            tnp.add(f32, np.float64(2)), tnp.add(f32, np.array([1.0])), tnp.add(True, False), tnp.add([1, 2], [3, 4]),
            tnp.add(i32, tf.constant([1, 2], tf.int8)), tnp.add(tf.constant(1, tf.uint8), tf.constant(1, tf.int8)),
            tnp.subtract(i32, 0.5), tnp.subtract(5, f32), tnp.multiply(i32, 3), tnp.multiply(True, True),
            tnp.multiply(f32, [2, 3]), tnp.add(tf.constant(1.0, tf.float16), 2), tnp.add(1j, f32),
            tnp.add(tf.constant(1, tf.int64), 1.5), tnp.add(2**40, 1)]


@case
def division_and_power(tf):
    tnp = _tnp(tf)
    i = tf.constant([7, -7, 4])
    f = tf.constant([7.0, -7.0, 4.0])
    return [tnp.divide(i, 2), tnp.true_divide(i, i), tnp.divide(f, 2), tnp.divide(True, True), tnp.divide(7, 2),
            tnp.floor_divide(i, 2), tnp.floor_divide(f, 2), tnp.floor_divide(7.5, 2), tnp.floor_divide(True, True),
            tnp.power(i, 2), tnp.power(f, 0.5), tnp.power(2, tf.constant([1, 2, 3])), tnp.power(2.0, i),
            tnp.mod(i, 3), tnp.remainder(f, 3), tnp.divide(tf.constant([1], tf.int8), tf.constant([2], tf.int8)),
            tnp.divide(tf.constant(1.0, tf.float16), 4)]


@case
def unary_math_on_floats(tf):
    tnp = _tnp(tf)
    x = tf.constant([0.25, 0.5, 1.0])
    return [tnp.exp(x), tnp.log(x), tnp.sqrt(x), tnp.abs(-x), tnp.absolute(-x), tnp.sin(x), tnp.cos(x), tnp.tan(x),
            tnp.arcsin(x), tnp.arccos(x), tnp.arctan(x), tnp.sinh(x), tnp.cosh(x), tnp.tanh(x), tnp.arcsinh(x),
            tnp.arctanh(x * 0.5), tnp.arccosh(x + 1), tnp.square(x), tnp.negative(x), tnp.reciprocal(x),
            tnp.log2(x), tnp.log10(x), tnp.log1p(x), tnp.expm1(x), tnp.floor(x * 3), tnp.ceil(x * 3), tnp.sign(-x),
            tnp.exp(1.0), tnp.sqrt(4.0), tnp.abs(-3), tnp.square(3), tnp.negative(2), tnp.sign(-2.5), tnp.exp2(x),
            tnp.cbrt(tf.constant([-8.0, 27.0])), tnp.deg2rad(x), tnp.rad2deg(x), tnp.fix(tf.constant([-1.5, 1.5])),
            tnp.exp(tf.constant([1.0], tf.float64)), tnp.sin(tf.constant([1.0], tf.float16))]


@case
def unary_math_on_integers(tf):
    tnp = _tnp(tf)
    i = tf.constant([1, 4])
    return [catch(tnp.sqrt, i), catch(tnp.exp, i), catch(tnp.log, i), catch(tnp.sin, i), tnp.abs(tf.constant([-1, 2])),
            tnp.square(i), tnp.negative(i), catch(tnp.floor, i), catch(tnp.sqrt, [1, 4]), catch(tnp.exp, 2),
            tnp.log([1.0, 2]),
            catch(tnp.sin, True), catch(tnp.sqrt, np.int32(4)), tnp.abs([-1.5]), catch(tnp.tanh, [0, 1]),
            tnp.sign(tf.constant([-3, 0, 2]))]


@case
def maximum_minimum_clip(tf):
    tnp = _tnp(tf)
    x = tf.constant([-1.0, 0.5, 2.0])
    i = tf.constant([-1, 0, 3])
    return [tnp.maximum(x, 0), tnp.maximum(x, 0.5), tnp.maximum(i, 0), tnp.maximum(i, 0.5), tnp.minimum(x, 1),
            tnp.minimum(i, 1.5), tnp.maximum(True, False), tnp.minimum([1, 2], [2, 1]), tnp.maximum(i, 0.0),
            tnp.maximum(tf.constant([True, False]), 0), tnp.clip(x, 0, 1), tnp.clip(i, 0, 2), tnp.clip(i, 0.5, 2),
            tnp.clip(x, None, 0.0), tnp.clip(x, -0.5, None), tnp.clip(x, [0, 0, 0], [1, 0.2, 3]),
            tnp.clip(x, 1, 0), catch(tnp.clip, x, None, None)]


@case
def where_function(tf):
    tnp = _tnp(tf)
    c = tf.constant([True, False, True])
    return [tnp.where(c, 1, 2), tnp.where(c, 1.0, tf.constant([5, 6, 7])), tnp.where([1, 0, 1], [1, 2, 3], 0.5),
            tnp.where(c, tf.constant([1.0, 2, 3]), tf.constant([4.0, 5, 6], tf.float64)),
            tnp.where(tf.constant([[1, 0], [0, 3]])), tnp.where([0, 2, 0, 1]), tnp.where(c, 1, [[0], [1]]),
            catch(tnp.where, c, 1), catch(tnp.where, c, None, 2)]


@case
def comparisons_and_logic(tf):
    tnp = _tnp(tf)
    i = tf.constant([1, 2, 3])
    f = tf.constant([1.5, 2.0, 2.5])
    return [tnp.equal(i, f), tnp.not_equal(i, 2), tnp.greater(i, 1.5), tnp.greater_equal(f, 2), tnp.less(i, f),
            tnp.less_equal(True, i), tnp.logical_and(i, [1, 0, 1]), tnp.logical_or(0.0, f), tnp.logical_xor(i, 2),
            tnp.logical_not(tf.constant([0, 1])), tnp.isclose(f, [1.5, 2.00001, 3]), tnp.isclose(i, [1, 3, 3]),
            tnp.isclose(tf.constant([np.nan, 1.0]), np.nan, equal_nan=True), tnp.isclose(1.0, 1.1, rtol=0.2),
            tnp.allclose(f, f + 1e-7), tnp.allclose(i, [1, 2, 4]), tnp.allclose(1, 1.0, atol=0),
            tnp.isnan(tf.constant([np.nan, 1.0])), tnp.isinf(tf.constant([np.inf, 1.0])),
            tnp.isfinite(tf.constant([np.inf, 1.0])), catch(tnp.isnan, tf.constant([1, 2])), tnp.array_equal(i, [1, 2,
                3]),
            tnp.array_equal(i, [1, 2]), tnp.equal(tf.constant([True]), 1)]


# --------------------------------------------------------------------------------------------- products


@case
def dot_matmul_products(tf):
    tnp = _tnp(tf)
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v = tf.constant([1.0, -1.0])
    i = tf.constant([[1, 2], [3, 4]])
    b = tf.reshape(tf.range(8.0), [2, 2, 2])
    return [tnp.dot(a, v), tnp.dot(v, v), tnp.dot(a, a), tnp.dot(2, a), tnp.dot(i, v), tnp.dot(b, v), tnp.dot(b, a),
            tnp.matmul(a, a), tnp.matmul(a, v), tnp.matmul(v, a), tnp.matmul(b, a), tnp.matmul(i, a),
            tnp.matmul([[1, 2]], [[3], [4]]), catch(tnp.matmul, a, tf.ones([3, 2])), catch(tnp.matmul, 2.0, a),
            catch(tnp.dot, a, tf.ones([3]))]


@case
def tensordot_einsum_outer_inner_cross(tf):
    tnp = _tnp(tf)
    a = tf.reshape(tf.range(6.0), [2, 3])
    b = tf.reshape(tf.range(6.0), [3, 2])
    i = tf.constant([1, 2, 3])
    return [tnp.tensordot(a, b, 1), tnp.tensordot(a, a, [[0, 1], [0, 1]]), tnp.tensordot(a, b, axes=0),
            tnp.tensordot(i, [1.0, 2.0, 3.0], 1), tnp.einsum("ij,jk->ik", a, b), tnp.einsum("ij->ji", [[1, 2]]),
            catch(tnp.einsum, "ij->ji", i),
            tnp.einsum("i,i->", i, [0.5, 1, 1]), tnp.einsum("ii->i", [[1, 2], [3, 4]]),
            catch(tnp.einsum, "i,i->", i, [0.5, 1, 1], casting="no"), catch(tnp.einsum, "i->", i, casting="unsafe"),
            tnp.outer([1, 2], [3.0, 4.0, 5.0]), tnp.outer(a, [1, 2]), tnp.inner(i, i), tnp.inner(a, a), tnp.inner(2, i),
            tnp.cross([1.0, 0, 0], [0.0, 1, 0]), tnp.cross([1, 2], [3, 4]), tnp.cross([[1, 2, 3]], [[4, 5, 6]]),
            tnp.cross([1.0, 2], [3.0, 4, 5]), tnp.cross(tf.ones([3, 2]), tf.ones([3, 2]), axisa=0, axisb=0),
            tnp.vdot([1, 2], [3.0, 4.0]), tnp.kron([1, 2], [1, 10])]


# --------------------------------------------------------------------------------------------- reductions


@case
def sum_prod_mean(tf):
    tnp = _tnp(tf)
    i = tf.constant([[1, 2], [3, 4]])
    f = tf.constant(M)
    b = tf.constant([True, False, True])
    return [tnp.sum(i), tnp.sum(i, axis=0), tnp.sum(i, 1, keepdims=True), tnp.sum(f), tnp.sum(b), tnp.sum(b,
        dtype=bool),
            tnp.sum(tf.constant([1, 2], tf.int8)), tnp.sum(tf.constant([1, 2], tf.uint8)), tnp.sum(i, dtype=float),
            tnp.sum(i, axis=(0, 1)), tnp.sum([1.5, 2]), tnp.sum(3), tnp.prod(i), tnp.prod(f, axis=-1), tnp.prod(b),
            tnp.prod(tf.constant([2, 3], tf.int16)), tnp.mean(i), tnp.mean(i, axis=0), tnp.mean(f, 1, keepdims=True),
            tnp.mean(b), tnp.mean(tf.constant([1.0, 2.0], tf.float16)), tnp.mean(i, dtype=tnp.float32),
            tnp.sum(tf.constant([], tf.float32)), catch(tnp.mean, i, out=1), tnp.sum(i, axis=tf.constant(0))]


@case
def max_min_argmax(tf):
    tnp = _tnp(tf)
    i = tf.constant([[1, 5], [3, 4]])
    f = tf.constant(M)
    b = tf.constant([True, False])
    return [tnp.max(i), tnp.amax(i, axis=0), tnp.max(f, axis=1, keepdims=True), tnp.min(f), tnp.amin(i, 1),
            tnp.max(b), tnp.min(b), tnp.amax([1.5, 2]), tnp.argmax(i), tnp.argmax(i, axis=0), tnp.argmin(f, 1),
            tnp.argmin([3, 1, 2]), tnp.argmax(5), tnp.argmax(tf.constant(5.0), axis=0), tnp.ptp(f), tnp.ptp(i, 0),
            catch(tnp.amax, i, out=1), tnp.max(tf.constant([1, 2], tf.int8))]


@case
def std_var_average(tf):
    tnp = _tnp(tf)
    i = tf.constant([[1, 2], [3, 5]])
    f = tf.constant(M)
    return [tnp.std(f), tnp.std(i), tnp.std(f, axis=0), tnp.std(f, 1, keepdims=True), tnp.var(f), tnp.var(i),
            catch(tnp.var, f, ddof=1), catch(tnp.var, f, axis=1, ddof=1), tnp.var(i, dtype=tnp.float32), tnp.var(f,
                axis=-1),
            catch(tnp.var, i, ddof=1), catch(tnp.var, f, out=1), tnp.average(f), catch(tnp.average, i),
            catch(tnp.average, i, axis=1),
            tnp.average(f, weights=[[1, 0, 1], [1, 1, 1]]), tnp.average(f, axis=1, weights=[1, 2, 3]),
            tnp.average(i, weights=[[1, 1], [0, 2]]), tnp.average(f, returned=True),
            tnp.average(f, axis=0, returned=True), tnp.average(i, axis=0, weights=[1, 3], returned=True),
            catch(tnp.average, f, axis=(0, 1))]


@case
def all_any_count_nonzero(tf):
    tnp = _tnp(tf)
    i = tf.constant([[1, 0], [3, 4]])
    return [tnp.all(i), tnp.all(i, axis=0), tnp.any(i, 1), tnp.any(tf.constant([0.0, 0.0])), tnp.all([]),
            tnp.any([1, 0], keepdims=True), tnp.all(True), tnp.count_nonzero(i), tnp.count_nonzero(i, axis=1)]


@case
def cumsum_cumprod(tf):
    tnp = _tnp(tf)
    i = tf.constant([[1, 2], [3, 4]])
    f = tf.constant(M)
    return [tnp.cumsum(i), tnp.cumsum(i, axis=0), tnp.cumsum(f, axis=-1), tnp.cumsum(i, dtype=float),
            tnp.cumsum(tf.constant([1, 2], tf.int8)), catch(tnp.cumsum, tf.constant([True, True])), tnp.cumprod(i),
            tnp.cumprod(f, 1), tnp.cumprod(i, axis=-1, dtype=tnp.float32), tnp.cumsum(5), tnp.cumsum([[1.5]], 0),
            tnp.cumprod(tf.constant([2, 3], tf.uint8))]


@case
def nan_reductions_diff_trace(tf):
    tnp = _tnp(tf)
    x = tf.constant([[1.0, np.nan], [3.0, 4.0]])
    return [tnp.nansum(x), tnp.nansum(x, axis=0), tnp.nanprod(x), tnp.nanmean(x), tnp.nanmean(x, axis=1),
            tnp.nanmean(tf.constant([1, 2])), tnp.diff([1, 4, 9]), tnp.diff(x, axis=0), tnp.diff([1, 4, 9, 16], n=2),
            tnp.diff([True, False, False]), tnp.trace([[1, 2], [3, 4]]), tnp.trace(tf.reshape(tf.range(8.0), [2, 2,
                2])),
            tnp.trace([[1, 2], [3, 4]], offset=1), tnp.trace(tf.ones([2, 3, 3]), axis1=1, axis2=2)]


# --------------------------------------------------------------------------------------------- shapes


@case
def reshape_ravel_transpose(tf):
    tnp = _tnp(tf)
    a = tf.reshape(tf.range(6), [2, 3])
    return [tnp.reshape(a, [3, 2]), tnp.reshape(a, 6), tnp.reshape(a, (-1, 2)), tnp.reshape(a, [3, 2], order="F"),
            tnp.reshape([1, 2, 3, 4], (2, 2)), catch(tnp.reshape, a, [6], order="A"), catch(tnp.reshape, a, [4]),
            tnp.ravel(a), tnp.ravel(5), tnp.transpose(a), tnp.transpose(tf.ones([1, 2, 3]), (1, 0, 2)),
            tnp.transpose([[1, 2]]), tnp.swapaxes(tf.ones([1, 2, 3]), 0, 2), tnp.swapaxes(a, -1, 0),
            tnp.moveaxis(tf.ones([1, 2, 3]), 0, -1), tnp.moveaxis(tf.ones([1, 2, 3]), [0, 1], [2, 0]),
            tnp.moveaxis(a, [], []), catch(tnp.moveaxis, a, [0, 1], [0]), tnp.shape(a), tnp.ndim(a), tnp.size(a),
            tnp.shape(5), tnp.ndim([[1]]), tnp.size(2.5), tnp.isscalar(2.0), tnp.isscalar(a),
            catch(tnp.size, a, axis=0)]


@case
def expand_squeeze_flatten(tf):
    tnp = _tnp(tf)
    a = tf.ones([1, 2, 1])
    return [tnp.expand_dims(a, 0), tnp.expand_dims(a, -1), tnp.expand_dims([1, 2], 1), tnp.squeeze(a),
            tnp.squeeze(a, 0), tnp.squeeze(a, axis=-1), catch(tnp.squeeze, a, 1), tnp.squeeze(3),
            tnp.atleast_1d(1), tnp.atleast_2d([1, 2]), tnp.atleast_3d([[1, 2]]), tnp.atleast_3d(5),
            tnp.atleast_1d(1, [2, 3]), tnp.atleast_2d(tf.ones([2, 1, 1]))]


@case
def concatenate_stack(tf):
    tnp = _tnp(tf)
    a = tf.constant([[1, 2]])
    f = tf.constant([[0.5, 1.5]])
    return [tnp.concatenate([a, a]), tnp.concatenate([a, f], axis=1), tnp.concatenate([a, [[3.5, 4]]]),
            tnp.concatenate((a, a), axis=-1), tnp.concatenate(a), catch(tnp.concatenate, []),
            catch(tnp.concatenate, [a, tf.ones([2, 3])]), tnp.stack([a, a]), tnp.stack([a, f], axis=1),
            tnp.stack([1, 2.5]), tnp.stack(tf.ones([2, 3]), axis=1), tnp.stack([[1, 2], [3, 4]], axis=-1),
            tnp.hstack([[1, 2], [3.0]]), tnp.hstack([a, f]), tnp.vstack([[1, 2], [3, 4]]), tnp.vstack([a, f]),
            tnp.dstack([[1, 2], [3, 4]]), tnp.append([1, 2], [[3]]), tnp.append(a, a, axis=0)]


@case
def split_variants(tf):
    tnp = _tnp(tf)
    a = tf.reshape(tf.range(12), [3, 4])
    return [tnp.split(a, 3), tnp.split(a, 2, axis=1), tnp.split(a, [1, 3], axis=1), tnp.split(a, [2]),
            catch(tnp.split, a, [3, 1], axis=1), tnp.split(tf.range(5), [2, 9]), catch(tnp.split, a, 2),
            catch(tnp.split, a, [1], axis=2), tnp.hsplit(a, 2), tnp.vsplit(a, [1]), tnp.hsplit(tf.range(4), 2),
            catch(tnp.hsplit, a, 3)]


@case
def tile_repeat_broadcast(tf):
    tnp = _tnp(tf)
    a = tf.constant([[1, 2], [3, 4]])
    return [tnp.tile(a, 2), tnp.tile(a, (2, 1)), tnp.tile([1, 2], (2, 2)), tnp.tile(5, 3), tnp.tile(a, (2, 1, 1)),
            tnp.repeat(a, 2), tnp.repeat(a, 2, axis=0), tnp.repeat(a, [1, 2], axis=1), tnp.repeat(3, 4),
            tnp.repeat([1.5, 2], [0, 3]), tnp.broadcast_to(a, (3, 2, 2)), tnp.broadcast_to(1.5, [2]),
            tnp.broadcast_to([1, 2], (2, 2)), catch(tnp.broadcast_to, a, (3,)),
            tnp.broadcast_arrays([1, 2], [[3], [4]])]


@case
def flip_roll_rot(tf):
    tnp = _tnp(tf)
    a = tf.reshape(tf.range(6), [2, 3])
    return [tnp.flip(a), tnp.flip(a, 0), tnp.flip(a, -1), tnp.fliplr(a), tnp.flipud(a), tnp.roll(a, 1),
            tnp.roll(a, -1, axis=1), tnp.roll(a, (1, 1), axis=(0, 1)), tnp.roll([1, 2, 3], 5), tnp.rot90(a),
            tnp.rot90(a, 2), tnp.rot90(a, -1)]


@case
def take_and_take_along_axis(tf):
    tnp = _tnp(tf)
    a = tf.constant([[10, 20, 30], [40, 50, 60]])
    return [tnp.take(a, 4), tnp.take(a, [0, 2]), tnp.take(a, [0, 5, 9]), tnp.take(a, [-1, 1], axis=1),
            tnp.take(a, [3, -4], axis=1, mode="wrap"), tnp.take(a, [[0], [1]], axis=0), catch(tnp.take, a, 1,
                mode="raise"),
            catch(tnp.take, a, 1, mode="fast"), catch(tnp.take, a, 1, out=1),
            tnp.take_along_axis(a, tf.constant([[2, 0, 1], [1, 1, 0]]), 1),
            tnp.take_along_axis(a, tf.constant([[1], [0]]), axis=1), tnp.take_along_axis(a, tf.constant([[1, 0, 1]]),
                0),
            tnp.take_along_axis(a, tf.constant([[-1]]), axis=-1)]


@case
def sort_argsort(tf):
    tnp = _tnp(tf)
    a = tf.constant([[3, 1, 2], [9, 7, 8]])
    f = tf.constant([2.5, -1.0, 0.0])
    return [tnp.sort(a), tnp.sort(a, axis=0), tnp.sort(a, axis=None), tnp.sort(f), tnp.sort([3, 1]),
            catch(tnp.sort, f, kind="stable"), catch(tnp.sort, f, order="x"), tnp.argsort(a), tnp.argsort(f),
            tnp.argsort(a, axis=0), tnp.argsort(a, axis=None), tnp.argsort(f, kind="stable"), tnp.argsort(3),
            catch(tnp.argsort, f, kind="heapsort"), catch(tnp.argsort, tf.constant([1j])), catch(tnp.sort, 5)]


@case
def diag_tril_triu(tf):
    tnp = _tnp(tf)
    a = tf.reshape(tf.range(1, 10), [3, 3])
    return [tnp.diag([1, 2]), tnp.diag([1, 2], k=1), tnp.diag([1.0, 2.0], -2), tnp.diag(a), tnp.diag(a, 1),
            tnp.diag(a, k=-2), tnp.diag(a, 5), tnp.diag([]), catch(tnp.diag, tf.ones([2, 2, 2])),
            tnp.diagonal(a), tnp.diagonal(a, 1), tnp.diagflat([[1, 2]]), tnp.tril(a), tnp.tril(a, -1),
            tnp.triu(a), tnp.triu(a, 1), tnp.tril(tf.ones([2, 2, 3]), 1), catch(tnp.tril, [1, 2]),
            tnp.triu(tf.ones([2, 3]), -1)]


@case
def pad_function(tf):
    tnp = _tnp(tf)
    a = tf.constant([[1, 2], [3, 4]])
    return [catch(tnp.pad, a, 1, mode="constant"), tnp.pad(a, [[1, 0], [0, 2]], "constant", constant_values=9),
            catch(tnp.pad, a, 1, "reflect"), tnp.pad(a, [[1, 1], [1, 1]], "reflect"), tnp.pad(a, [[0, 0], [2, 1]],
                "symmetric"), catch(tnp.pad, [1.5], (1, 2), "constant"), tnp.pad([1.5], [(1, 2)], "constant"),
            catch(tnp.pad, a, 1, "edge")]


@case
def misc_functions(tf):
    tnp = _tnp(tf)
    f = tf.constant([1.0, 2.5])
    return [catch(tnp.around, tf.constant([0.5, 1.5, 2.567])), catch(tnp.round, tf.constant([1.2345]), 2),
            catch(tnp.around, tf.constant([15, 25]), -1), catch(tnp.around, tf.constant([1, 2])), tnp.copy(f),
            tnp.real(tf.constant([1 + 2j])), tnp.imag(f), tnp.conj(tf.constant([1 + 2j])), tnp.meshgrid([1, 2], [3, 4,
                5]),
            catch(tnp.meshgrid, [1, 2], [3.0], indexing="ij"), tnp.meshgrid([1.0, 2], [3.0], indexing="ij"),
            tnp.nonzero([[1, 0], [0, 2]]), tnp.select([[True, False]], [[1, 2]]),
            tnp.signbit(tf.constant([-1.0, 2.0])), tnp.hypot(3.0, 4.0), tnp.arctan2(1.0, 1.0), tnp.heaviside(f - 2,
                0.5),
            tnp.logaddexp(1.0, 2.0), tnp.logaddexp2(1.0, 2.0), tnp.gcd(12, 18), tnp.lcm(4, 6),
            tnp.bitwise_and(12, 10), tnp.bitwise_or(tf.constant([True, False]), False), tnp.bitwise_not(5),
            tnp.sinc(tf.constant([0.0, 0.5])), tnp.positive(f), tnp.float_power(2, 3), tnp.vander([1, 2, 3], 3),
            tnp.polyval([1, 2, 3], 2), tnp.compress([True, False], f), tnp.iscomplexobj(f), tnp.isrealobj(f),
            catch(round, f), catch(round, tf.constant([1, 2]), 1), catch(lambda: f.reshape(2, 1)), catch(lambda: f.T),
            catch(lambda: f.max()), catch(lambda: f.size), tf.constant(2.5).ndim]


# --------------------------------------------------------------------------------------------- random


@case
def random_dtypes_and_shapes(tf):
    try:
        return _random_dtypes_and_shapes(tf)
    finally:
        tf.random.set_seed(None)  # TF's initial state again, for the cases that follow


def _random_dtypes_and_shapes(tf):
    tnp = _tnp(tf)
    tnp.random.seed(3)

    def desc(t):
        return [t.dtype, t.shape]

    u = tnp.random.uniform(size=(1000,))
    r = tnp.random.randint(2, 5, size=(200,))
    return [desc(tnp.random.rand(2, 3)), desc(tnp.random.rand()), desc(tnp.random.randn(4)),
            desc(tnp.random.standard_normal()), desc(tnp.random.standard_normal(3)),
            desc(tnp.random.standard_normal((2, 2))), desc(u), desc(tnp.random.uniform(1, 2)),
            desc(tnp.random.uniform([0.0, 1.0], 2.0)), desc(tnp.random.random((2,))), desc(r),
            desc(tnp.random.randint(5)), desc(tnp.random.randint(5, size=3, dtype=np.int32)),
            bool(tnp.all(u >= 0)), bool(tnp.all(u < 1)), bool(tnp.all(r >= 2)), bool(tnp.all(r < 5)),
            catch(tnp.random.randint, 0, 3, dtype=np.float32), catch(tnp.random.seed, "abc"),
            catch(tnp.random.seed, None)]


# --------------------------------------------------------------------------------------------- gradients


def _grad(tf, fn, *values, dtype="float64"):
    return value_and_grads(tf, fn, *values, dtype=dtype)


@case
def gradients_through_math(tf):
    tnp = _tnp(tf)
    x = [0.5, 1.0, 2.0]
    return [_grad(tf, lambda a: tnp.sum(tnp.sin(a) * a), x), _grad(tf, lambda a: tnp.mean(tnp.exp(a)), x),
            _grad(tf, lambda a: tnp.sqrt(a) + tnp.log(a), x), _grad(tf, lambda a: tnp.power(a, 3), x),
            _grad(tf, lambda a: tnp.maximum(a, 1.0), x), _grad(tf, lambda a: tnp.clip(a, 0.7, 1.5), x),
            _grad(tf, lambda a: tnp.where(a > 1, a * a, -a), x), _grad(tf, lambda a: tnp.add(a, 2), x, dtype="float32"),
            _grad(tf, lambda a: tnp.divide(1, a), x), _grad(tf, lambda a: tnp.tanh(a) * 2.5, x, dtype="float32"),
            _grad(tf, lambda a: tnp.abs(a - 1), x), _grad(tf, lambda a: tnp.prod(a), x)]


@case
def gradients_through_reductions_and_products(tf):
    tnp = _tnp(tf)
    return [_grad(tf, lambda a: tnp.std(a), M), _grad(tf, lambda a: tnp.var(a, axis=0), M),
            _grad(tf, lambda a: tnp.max(a, axis=1), M), _grad(tf, lambda a: tnp.cumsum(a), M),
            _grad(tf, lambda a: tnp.cumprod(a, axis=1), M), _grad(tf, lambda a, b: tnp.dot(a, b), M, [1.0, 2.0, 3.0]),
            _grad(tf, lambda a, b: tnp.matmul(b, a), M, [1.0, 2.0]), _grad(tf, lambda a: tnp.einsum("ij,ij->", a, a),
                                                                           M),
            _grad(tf, lambda a, b: tnp.outer(a, b), [1.0, 2.0], [3.0, 4.0, 5.0]),
            _grad(tf, lambda a: tnp.tensordot(a, a, 2), M), _grad(tf, lambda a: tnp.average(a, axis=1, weights=[1, 2,
                3]), M),
            _grad(tf, lambda a, b: tnp.cross(a, b), [1.0, 2.0, 3.0], [0.5, -1.0, 2.0])]


@case
def gradients_through_shapes(tf):
    tnp = _tnp(tf)
    return [_grad(tf, lambda a: tnp.reshape(a, [3, 2]) * [1.0, 2.0], M), _grad(tf, lambda a: tnp.take(a, [0, 4, 4]), M),
            _grad(tf, lambda a: tnp.take_along_axis(a, tf.constant([[2], [0]]), 1), M),
            _grad(tf, lambda a: tnp.concatenate([a, a * 2]), M), _grad(tf, lambda a: tnp.stack([a, a], axis=-1), M),
            _grad(tf, lambda a: tnp.tile(a, 2), M), _grad(tf, lambda a: tnp.repeat(a, [1, 2], axis=0), M),
            _grad(tf, lambda a: tnp.sort(a) * [1.0, 2.0, 3.0], M), _grad(tf, lambda a: tnp.triu(a, 1), M),
            _grad(tf, lambda a: tnp.pad(a, [[1, 1], [1, 1]], "reflect"), M), _grad(tf, lambda a: tnp.flip(tnp.roll(a,
                1)), M),
            _grad(tf, lambda a: tnp.split(a, [1], axis=1)[1], M), _grad(tf, lambda a: tnp.diag(a), [1.0, 2.0]),
            _grad(tf, lambda a: tnp.moveaxis(tnp.expand_dims(a, 0), 0, -1), M),
            _grad(tf, lambda a: tnp.broadcast_to(a, [2, 2, 3]), M)]


@case
def angle_geomspace_indices(tf):
    tnp = _tnp(tf)
    return [tnp.angle(tf.constant([-1.0, 2.0])), tnp.angle(tf.constant([1 + 1j, -1j])),
            tnp.angle(tf.constant([-1.0, 2.0], tf.float64), deg=True), catch(tnp.angle, 3), tnp.diag_indices(3),
            tnp.diag_indices(2, 3), catch(tnp.diag_indices, -1), catch(tnp.diag_indices, 2, -1),
            tnp.ix_([0, 1], [2, 4]), tnp.ix_([True, False, True], [1]), catch(tnp.ix_, [1.5]),
            catch(tnp.ix_, [[1]]), tnp.geomspace(1, 1000, 4), tnp.geomspace(1.0, 8.0, 4, dtype=tnp.float32),
            tnp.geomspace(-1, -100, 3), tnp.geomspace([1.0, 2.0], 100.0, 3, axis=1),
            tnp.geomspace(2, 32, 5, endpoint=False)]
