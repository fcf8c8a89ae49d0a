"""Shapes, dtypes, creation and indexing: forward (NumPy) and gradient (tapeflow ops) side by side."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core import sizes as _sizes
from .._core import state as _state
from .._core import tensor as _tensor_module
from .._core.convert import c_name, cannot_convert
from .._core.dispatch import execute
from .._core.logs import get_logger
from .._core.opdefs import OPDEFS
from .._core.registry import ALL, defop
from .._core.shape import TensorShape
from .._core.tensor import EagerTensor, Tensor, constant_of, convert_to_tensor, to_numpy_value, wrap
from ._convert import matching, to_tensor
from .shape_like_ops import RESHAPE_LIKE, shape_varies

__all__ = [
    "cast", "reshape", "transpose", "identity", "stop_gradient", "zeros", "ones", "fill", "range", "zeros_like",
    "ones_like", "where", "broadcast_to", "stack", "unstack", "shape", "size", "rank", "strided_slice_index",
]

_FLOATING = frozenset("fc")


# ------------------------------------------------------------------------------------------ cast


def _cast_forward(x, dtype):
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = np.real(x)
    if np.dtype(dtype).kind == "b":
        return np.not_equal(x, 0)
    return np.asarray(x).astype(dtype)[()]


CAST = defop("Cast", same_dtype=False, quiet=True)(_cast_forward)


@CAST.defvjp
def _cast_grad(g, y, x, dtype):
    # Gradients cross a cast only between floating/complex types; an integer cast breaks the path (None).
    if x._value.dtype.kind in _FLOATING and g._value.dtype.kind in _FLOATING:
        return (cast(g, x.dtype),)
    return (None,)


# (NumPy dtype of a tensor, dtype argument) pairs seen to name the same dtype: a cast between them is a no-op.
_SAME_DTYPE = {}


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype``; complex to real keeps the real part (``tf.cast``).

    Gradients flow through casts between floating-point and complex types, and stop at integer and bool casts.
    """
    given = dtype
    if type(x) is EagerTensor:
        try:
            if (x._value.dtype, dtype) in _SAME_DTYPE:  # the common no-op cast (optimizers cast every gradient)
                return x
        except TypeError:  # an unhashable dtype argument: as_dtype below reports it
            pass
    elif getattr(x, "_tapeflow_variable", False):
        # Read first: a Keras variable inside a mixed-precision layer's call reads in the compute dtype, not in
        # the dtype of the array it holds.
        x = x._read()
        try:
            if (x._value.dtype, dtype) in _SAME_DTYPE:  # a learning-rate variable, cast for every variable updated
                return x
        except TypeError:
            pass
    dtype = _dtypes.as_dtype(dtype)
    if getattr(x, "_tapeflow_indexed_slices", False):
        return type(x)(cast(x.values, dtype), x.indices, x.dense_shape)  # TF casts the values and keeps slices
    if getattr(x, "_tapeflow_sparse", False):
        return x.with_values(cast(x.values, dtype))
    if getattr(x, "_tapeflow_ragged", False):
        return x.with_flat_values(cast(x.flat_values, dtype))
    x = to_tensor(x)
    if x.dtype == dtype:
        try:
            _SAME_DTYPE[x._value.dtype, given] = True
        except TypeError:  # an unhashable dtype argument: nothing to remember
            pass
        return x
    if (x.dtype == _dtypes.string) != (dtype == _dtypes.string):
        raise errors.op_error("Cast", f"Cast {c_name(x.dtype)} to {c_name(dtype)} is not supported",
                              cls=errors.UnimplementedError)
    if x.dtype.is_complex and not dtype.is_complex:
        get_logger().warning(f"You are casting an input of type {x.dtype.name} to an incompatible dtype "
                             f"{dtype.name}.  This will discard the imaginary part and may not be what you "
                             "intended.")
    return execute(CAST, (x,), {"dtype": dtype.as_numpy_dtype})


# ------------------------------------------------------------------------------------------ reshape, transpose


def _reshape_sizes(n, in_shape, sizes, sfx=None):
    """Resolve a -1 in ``sizes`` for ``n`` elements of ``in_shape``, with TF's kernel checks and wording."""
    unknown, product, has_zero, running = -1, 1, False, 1
    for i, d in enumerate(sizes):
        if d == -1:
            if unknown != -1:
                raise errors.op_error("Reshape", f"Only one input size may be -1, not both {unknown} and {i}",
                                      name=sfx)
            unknown = i
            continue
        if d < 0:
            raise errors.op_error("Reshape", f"Size {i} must be non-negative, not {d}", name=sfx)
        running *= d  # left to right, zeros included: [0, 2**40, 2**40] is fine, [2**40, 2**40, 0] is not
        if running > _sizes.INT64_MAX:
            raise errors.op_error("Reshape", f"Shape [{', '.join(map(str, sizes))}] has too many elements",
                                  name=sfx)
        if d == 0:
            has_zero = True
        else:
            product *= d
    sizes = list(sizes)
    if unknown != -1:
        # TF leaves zero-sized input dims out of the count when the target has a zero dim too.
        known = 1
        for d in in_shape:
            if d > 0 or not has_zero:
                known *= d
        missing = known // product
        if missing * product != known:
            raise errors.op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the requested "
                                  f"shape requires a multiple of {product}", name=sfx)
        sizes[unknown] = missing
    total = math.prod(sizes)  # Python ints: np.prod would wrap at 2**64
    if total != n:
        raise errors.op_error("Reshape", f"Input to reshape is a tensor with {n} values, but the requested "
                              f"shape has {total}", name=sfx)
    return tuple(sizes)


@defop("Reshape", dtypes=ALL)
def RESHAPE(x, shape):
    return np.reshape(x, shape)


@RESHAPE.defvjp
def _reshape_grad(g, y, x, shape):
    if shape_varies(x):
        return (execute(RESHAPE_LIKE, (g, x)),)
    return (reshape(g, x._value.shape),)


@RESHAPE.defraw
def _reshape_raw(g, y, x, shape):
    return (RESHAPE.forward(g, x.shape),)


def _shape_arg(shape, op_name="Reshape"):
    """A shape argument (list, tuple, TensorShape, int or integer tensor) as a tuple of ints."""
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list())
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (list, tuple)) and not shape:
        return ()
    if isinstance(shape, Tensor) or getattr(shape, "_tapeflow_variable", False):
        arr = np.asarray(shape)
    else:
        arr = np.asarray(convert_to_tensor(shape)._value) if not isinstance(shape, np.ndarray) else shape
    if arr.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'Tshape' of {c_name(_dtypes.dtype_of(arr.dtype))} is not in the list of "
            f"allowed values: int32, int64\n\t; NodeDef: {{{{node {op_name}}}}}; {OPDEFS[op_name][1]} [Op:{op_name}]")
    return tuple(int(d) for d in arr.reshape(-1))


def reshape(tensor, shape, name=None):
    """``tensor`` with the same elements in a new ``shape`` (one dimension may be -1) (``tf.reshape``)."""
    sfx = errors.error_name(name, tensor, shape)
    x = to_tensor(tensor)
    tracer = _state.STATE.tracer
    if tracer is not None and isinstance(shape, Tensor) and shape._id in tracer.dynamic:
        # A shape the traced program computes: read when it runs (TF's Reshape with a shape input).
        out = execute(RESHAPE_TO, (x, shape))
        n = shape._value.size if shape._value.ndim == 1 else None
        tracer.static_shapes[out._id] = None if n is None else (None,) * n
        return out
    computed = _computed_dims(shape) if tracer is not None and isinstance(shape, (list, tuple)) else None
    if computed is not None:  # ``tf.reshape(x, [tf.shape(x)[0], -1])``: the sizes read when the program runs
        dims, static = computed
        out = execute(RESHAPE_TO, (x, dims))
        tracer.static_shapes[out._id] = tuple(None if d is None or d == -1 else d for d in static)
        return out
    asked = _shape_arg(shape)
    shape = _reshape_sizes(x._value.size, x._value.shape, asked, sfx)
    if -1 in asked and shape_varies(x):  # the -1 stays: it is worked out when the program runs
        return execute(RESHAPE, (x,), {"shape": tuple(asked)})
    if x._value.shape == shape:
        return execute(IDENTITY, (x,))
    return execute(RESHAPE, (x,), {"shape": shape})


def _reshape_to_forward(x, shape):
    if shape.dtype.kind not in "iu" or shape.ndim > 1:
        raise errors.op_error("Reshape", f"sizes input must be 1-D, not {list(shape.shape)}")
    return np.reshape(x, _reshape_sizes(x.size, x.shape, tuple(int(d) for d in shape.reshape(-1))))


# ``tf.reshape`` to a shape given as a tensor the traced program computes: TF's ``Reshape`` with its shape as an
# input, read when the program runs (registered under its own name; errors name it ``Reshape``, as TF does).
RESHAPE_TO = defop("ReshapeToTensor", dtypes=ALL, same_dtype=False)(_reshape_to_forward)
RESHAPE_TO.name = "Reshape"


@RESHAPE_TO.defvjp
def _reshape_to_grad(g, y, x, shape):
    if shape_varies(x):
        return execute(RESHAPE_LIKE, (g, x)), None
    return reshape(g, x._value.shape), None


@defop("Transpose", dtypes=ALL)
def TRANSPOSE(x, perm):
    return np.transpose(x, perm)


@TRANSPOSE.defvjp
def _transpose_grad(g, y, x, perm):
    return (transpose(g, tuple(int(i) for i in np.argsort(perm))),)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute the dimensions of ``a`` (reversed by default) (``tf.transpose``)."""
    x = to_tensor(a)
    nd = x._value.ndim
    perm = tuple(builtins.range(nd - 1, -1, -1)) if perm is None else _check_perm(_shape_arg(perm), nd)
    out = execute(TRANSPOSE, (x,), {"perm": perm})
    if conjugate:
        from .math_ops import conj

        out = conj(out)
    return out


def _check_perm(perm, nd):
    """``perm`` with negative entries resolved, refused as TF's Transpose kernel refuses it."""
    if len(perm) != nd:
        raise errors.op_error("Transpose", f"transpose expects a vector of size {nd}. But input(1) is a vector of "
                              f"size {len(perm)}", name=None)
    resolved = []
    for p in perm:
        if not -nd <= p < nd:
            raise errors.op_error("Transpose", f"{p} is out of range [0 .. {nd})", name=None)
        resolved.append(p % nd)
    for i in builtins.range(nd):
        if i not in resolved:
            raise errors.op_error("Transpose", f"{i} is missing from {{{','.join(map(str, perm))}}}.", name=None)
    return tuple(resolved)


@defop("Identity", dtypes=ALL)
def IDENTITY(x):
    return x


@IDENTITY.defvjp
def _identity_grad(g, y, x):
    return (g,)


@IDENTITY.defraw
def _identity_raw(g, y, x):
    return (g,)


def identity(input, name=None):
    """A tensor with the same value as ``input`` (``tf.identity``); variables are read, ``IndexedSlices`` kept."""
    if getattr(input, "_tapeflow_indexed_slices", False):
        return type(input)(identity(input.values), input.indices, input.dense_shape)
    if getattr(input, "_tapeflow_sparse", False):
        return input.with_values(identity(input.values))
    if getattr(input, "_tapeflow_ragged", False):
        return input.with_flat_values(identity(input.flat_values))
    return execute(IDENTITY, (to_tensor(input),))


# StopGradient is the identity with its gradient declared away: what flows back through it is None.
STOP_GRADIENT = defop("StopGradient", dtypes=ALL)(lambda x: x)


def stop_gradient(input, name=None):
    """The value of ``input``, with no gradient flowing through it (``tf.stop_gradient``)."""
    if getattr(input, "_tapeflow_sparse", False) or getattr(input, "_tapeflow_ragged", False):
        if getattr(input, "_tapeflow_ragged", False):
            return input.with_flat_values(stop_gradient(input.flat_values))
        return input.with_values(stop_gradient(input.values))
    return execute(STOP_GRADIENT, (to_tensor(input),))


# ------------------------------------------------------------------------------------------ creation


def _np_dtype(dtype, default=np.float32):
    return default if dtype is None else _dtypes.as_dtype(dtype).as_numpy_dtype


def _dims(shape, sfx=""):
    """Dimensions for Fill-like ops: refused when not integers, never wrapped (a list that does not fit int32
    is int64, as TF infers it), checked as TF's ``TensorShape`` checks them."""
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        shape = [int(d) for d in shape]
    if isinstance(shape, (list, tuple)):
        to_numpy_value(shape, _dtypes.int32)  # refuses floats as TF does (the wrapped values are not kept)
    dims = _shape_arg(shape, "Fill")
    _sizes.check_dims("Fill", dims, sfx)
    return dims


def _computed_dims(shape):
    """``(dims, static)`` when a traced program computes ``shape`` (``tf.zeros([tf.shape(x)[0], 5])``): ``dims`` an
    int32 tensor read when the program runs, ``static`` the shape the result shows (``None`` where computed);
    ``None`` for a shape known now."""
    tracer = _state.STATE.tracer
    if tracer is None:
        return None
    if isinstance(shape, Tensor):
        if shape._id not in tracer.dynamic:
            return None
        return cast(shape, _dtypes.int32), (None,) * shape._value.size
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) and d._id in tracer.dynamic for d in shape):
        computed = [isinstance(d, Tensor) and d._id in tracer.dynamic for d in shape]
        dims = stack([cast(d, _dtypes.int32) if isinstance(d, Tensor) else constant_of(np.int32(d)) for d in shape])
        return dims, tuple(None if c else int(d) for c, d in zip(computed, shape))
    return None


def _fill_computed(computed, value):
    dims, static = computed
    out = execute(FILL_TO, (dims, value))
    _state.STATE.tracer.static_shapes[out._id] = static
    return out


def zeros(shape, dtype=_dtypes.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with zeros (``tf.zeros``).

    Raises:
        InvalidArgumentError: for a negative dimension, or more than 2**63 - 1 elements.
        ResourceExhaustedError: when the memory cannot be allocated (TF's OOM of its ``Fill``).
    """
    if (computed := _computed_dims(shape)) is not None:
        dtype = _np_dtype(dtype)
        return _fill_computed(computed, constant_of(np.asarray(b"" if dtype == np.object_ else 0, dtype)))
    dims, dtype = _dims(shape), _np_dtype(dtype)
    arr = _sizes.allocating("Fill", "", _sizes.zeros, dims, dtype)
    if arr.dtype.kind == "O":
        arr.fill(b"")
    return constant_of(arr[()] if arr.ndim == 0 else arr)


def ones(shape, dtype=_dtypes.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with ones (``tf.ones``); raises as :func:`zeros` does."""
    np_dtype = _np_dtype(dtype)
    if np.dtype(np_dtype).kind == "O":
        raise cannot_convert(1, _dtypes.string)  # TF converts the 1 to the dtype first
    if (computed := _computed_dims(shape)) is not None:
        return _fill_computed(computed, constant_of(np.asarray(1, np_dtype)))
    dims = _dims(shape)
    arr = _sizes.allocating("Fill", "", _sizes.empty, dims, np_dtype)
    arr.fill(1)
    return constant_of(arr[()] if arr.ndim == 0 else arr)


@defop("Fill", dtypes=ALL)
def FILL(value, dims):
    arr = _sizes.empty(dims, value.dtype)  # the output first: an OOM names its shape
    arr[...] = value
    return arr[()] if arr.ndim == 0 else arr


@FILL.defvjp
def _fill_grad(g, y, value, dims):
    return (g,)  # summed back to the scalar by the backward pass


def _fill_to_forward(dims, value):
    if dims.ndim != 1:
        raise errors.op_error("Fill", f"dims must be a vector, got shape {errors.shape_str(dims.shape)}")
    if np.ndim(value):
        raise errors.op_error("Fill", f"value must be a scalar, got shape {errors.shape_str(np.shape(value))}")
    return FILL.forward(value, tuple(int(d) for d in dims))


# ``tf.fill``/``zeros``/``ones`` to a shape a traced program computes: TF's ``Fill`` with its dims as an input,
# read when the program runs (registered under its own name; errors name it ``Fill``).
FILL_TO = defop("FillToTensor", dtypes=None, same_dtype=False)(_fill_to_forward)
FILL_TO.name = "Fill"


@FILL_TO.defvjp
def _fill_to_grad(g, y, dims, value):
    return None, g  # summed back to the scalar by the backward pass


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with the scalar ``value`` (``tf.fill``)."""
    sfx = errors.error_name(name, dims, value)
    value = to_tensor(value)
    if (computed := _computed_dims(dims)) is not None:
        return _fill_computed(computed, value)
    return errors.call_on_path(sfx is not None, execute, FILL, (value,), {"dims": _dims(dims, sfx)})


def _like(op_fill, input, dtype):
    x = to_tensor(input)
    arr = op_fill(x._value.shape, x._value.dtype if dtype is None else _np_dtype(dtype))
    return arr[()] if arr.ndim == 0 else arr


ZEROS_LIKE = defop("ZerosLike", dtypes=ALL)(lambda x: _like(np.zeros, wrap(x), None))
ONES_LIKE = defop("OnesLike", dtypes=ALL)(lambda x: _like(np.ones, wrap(x), None))


def zeros_like(input, dtype=None, name=None, layout=None):
    """Zeros with the shape of ``input`` and its dtype, or ``dtype`` (``tf.zeros_like``)."""
    if getattr(input, "_tapeflow_ragged", False):
        return input.with_flat_values(zeros_like(input.flat_values, dtype))
    x = to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return zeros(x._value.shape, dtype)  # another dtype: TF's zeros (a Fill), with its errors
    return execute(ZEROS_LIKE, (x,))


def ones_like(input, dtype=None, name=None, layout=None):
    """Ones with the shape of ``input`` and its dtype, or ``dtype`` (``tf.ones_like``)."""
    if getattr(input, "_tapeflow_ragged", False):
        return input.with_flat_values(ones_like(input.flat_values, dtype))
    x = to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return ones(x._value.shape, dtype)  # another dtype: TF's ones (a Fill), with its errors
    return execute(ONES_LIKE, (x,))


def range(start, limit=None, delta=1, dtype=None, name="range"):
    """``[start, start + delta, ...)`` up to ``limit`` (``tf.range``); one argument means ``[0, start)``."""
    if limit is None:
        start, limit = 0, start
    values = [v._value if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    if dtype is None:
        inferred = [convert_to_tensor(v).dtype for v in (start, limit, delta)]
        order = [_dtypes.int32, _dtypes.int64, _dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64]
        if not all(d in order for d in inferred):
            raise AssertionError()  # TF asserts its inference order covers the bounds' dtypes (not int8 ...)
        dtype = max(inferred, key=order.index)
    dtype = _dtypes.as_dtype(dtype)
    s, lim, d = (to_numpy_value(v.item() if isinstance(v, np.ndarray) else v, dtype) for v in values)
    if dtype.name not in _RANGE_TYPES:
        raise errors.InvalidArgumentError(None, None, f"Value for attr 'Tidx' of {c_name(dtype)} is not in the list of "
                                          f"allowed values: {_RANGE_ALLOWED}\n\t; NodeDef: {{{{node Range}}}}; "
                                          f"{_RANGE_OPDEF} [Op:Range] name: ")
    if dtype.name not in _RANGE_KERNELS:  # in the op's signature, without a CPU kernel (int8, uint16 ...)
        raise errors.NotFoundError(None, None, f"Could not find device for node: {{{{node Range}}}} = Range[Tidx="
                                   f"DT_{dtype.name.upper()}]\nAll kernels registered for op Range:\n"
                                   f"{_RANGE_KERNEL_LIST} [Op:Range] name: ")
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    tracer = _state.STATE.tracer
    if tracer is not None and any(isinstance(v, Tensor) and v._id in tracer.dynamic for v in (start, limit, delta)):
        # Bounds the traced program computes: a Range op, its length known when it runs.
        bounds = [cast(v, dtype) if isinstance(v, Tensor) else constant_of(np.asarray(x, np_dtype))
                  for v, x in zip((start, limit, delta), (s, lim, d))]
        out = execute(RANGE, tuple(bounds), {"dtype": np_dtype})
        tracer.static_shapes[out._id] = (None,)
        return out
    return constant_of(_range_array(s, lim, d, np_dtype))


def _range_array(s, lim, d, np_dtype):
    """The values of ``tf.range`` as TF's kernel checks and counts them."""
    if d == 0:
        raise errors.op_error("Range", f"Requires delta != 0: {_num(d)}")
    if d > 0:  # written as TF's kernel tests it, so that a NaN bound or step fails as there
        if not s <= lim:
            raise errors.op_error("Range", f"Requires start <= limit when delta > 0: {_num(s)}/{_num(lim)}")
    elif not s >= lim:
        raise errors.op_error("Range", f"Requires start >= limit when delta < 0: {_num(s)}/{_num(lim)}")
    if np_dtype.kind in "iu":  # exact: TF counts in unsigned 64-bit arithmetic, never overflowing
        q = -(-builtins.abs(int(lim) - int(s)) // builtins.abs(int(d)))
    else:
        with np.errstate(all="ignore"):
            q = float(np.ceil(np.abs((lim - s) / d)))  # in the tensor's own precision, as TF computes it
    if not q <= _sizes.INT64_MAX:  # also refuses inf and NaN
        raise errors.op_error("Range", f"Requires ((limit - start) / delta) <= {_sizes.INT64_MAX}")
    size = int(q)
    return _sizes.allocating("Range", "", _range_values, s, lim, d, size, np_dtype)


RANGE = defop("Range", dtypes=ALL, same_dtype=False)(
    lambda start, limit, delta, dtype: _range_array(start[()], limit[()], delta[()], np.dtype(dtype)))


# The dtypes TF's Range takes (its ``Tidx``), and how its signature reads in the error for another.
_RANGE_TYPES = frozenset({"bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint16",
                          "uint32", "uint64"})
_RANGE_ALLOWED = "bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64"
_RANGE_KERNELS = frozenset({"int32", "int64", "float32", "float64", "bfloat16", "float16"})
_RANGE_KERNEL_LIST = (
    "  device='XLA_CPU_JIT'; Tidx in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, "
    "DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64]\n  device='DEFAULT'; Tidx in [DT_INT32]\n"
    + "".join(f"  device='CPU'; Tidx in [DT_{t}]\n" for t in ("INT64", "INT32", "DOUBLE", "FLOAT", "BFLOAT16", "HALF")))
_RANGE_OPDEF = ("Op<name=Range; signature=start:Tidx, limit:Tidx, delta:Tidx -> output:Tidx; attr=Tidx:type,"
                "default=DT_INT32,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, "
                "DT_INT64, DT_UINT16, DT_UINT32, DT_UINT64]>")


def _range_values(s, lim, d, size, np_dtype):
    _sizes.empty((size,), np_dtype)  # an OOM (or an unrepresentable size) names the output, before any work
    with np.errstate(all="ignore"):
        out = np.arange(s, lim, d, dtype=np_dtype)
        if len(out) != size:  # NumPy's own count overflowed (an int64 span past 2**63) or saw an infinite step
            if np_dtype.kind in "iu":  # start + i * delta, wrapped to the dtype as C++ arithmetic wraps it
                out = np.array([int(s) + i * int(d) for i in builtins.range(size)], dtype=object)
                out = (out % (1 << (8 * np_dtype.itemsize))).astype(np.uint64).astype(np_dtype)
            else:
                out = np.array([s + i * d for i in builtins.range(size)], dtype=np_dtype)
    return out


def _num(v):
    """A number as TF's C++ prints it: ``0`` and ``-2.5``, not ``0.0``."""
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


# ------------------------------------------------------------------------------------------ where, broadcast


def _select_error(exc, values, attrs):
    shapes = " vs. ".join(errors.shape_str(np.shape(v)) for v in values)
    return errors.op_error("SelectV2", f"condition [{shapes.split(' vs. ')[0][1:-1]}], then "
                           f"{errors.shape_str(np.shape(values[1]))}, and else "
                           f"{errors.shape_str(np.shape(values[2]))} must be broadcastable")


@defop("SelectV2", same_dtype=False, on_error=_select_error)
def SELECT(condition, x, y):
    return np.where(condition, x, y)[()]


@SELECT.defvjp(needs=True)
def _select_grad(g, z, condition, x, y, needs):
    zeros = zeros_like(g)
    return None, (where(condition, g, zeros) if needs[1] else None), (where(condition, zeros, g) if needs[2]
                                                                       else None)


WHERE_INDICES = defop("Where", same_dtype=False)(lambda c: np.argwhere(c).astype(np.int64))
WHERE_INDICES.value_sized = {0: (0,)}


def where(condition, x=None, y=None, name=None):
    """Elements of ``x`` where ``condition`` holds and of ``y`` elsewhere, with broadcasting (``tf.where``).

    With only ``condition``, the indices of its true elements as an int64 ``[n, rank]`` tensor. The gradient
    flows to the selected branch only; note that a NaN or inf in the other branch's *gradient* still leaks
    through the multiplication, exactly as in TensorFlow (``where(x > 0, log(x), 0)`` at 0 gives NaN).
    """
    if any(getattr(v, "_tapeflow_ragged", False) for v in (condition, x, y)):
        from .ragged_ops import where_ragged  # noqa: PLC0415 - the ragged modules build on this one

        return where_ragged(condition, x, y)
    c = to_tensor(condition)
    if x is None and y is None:
        return execute(WHERE_INDICES, (c,))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = matching(x, y)
    if c.dtype != _dtypes.bool_:
        raise errors.InvalidArgumentError(None, None, f"cannot compute SelectV2 as input #0(zero-based) was "
                                          f"expected to be a bool tensor but is a {c.dtype.name} tensor "
                                          "[Op:SelectV2] name: ")
    if x.dtype != y.dtype:
        raise errors.InvalidArgumentError(None, None, f"cannot compute SelectV2 as input #2(zero-based) was "
                                          f"expected to be a {x.dtype.name} tensor but is a {y.dtype.name} "
                                          "tensor [Op:SelectV2] name: ")
    return execute(SELECT, (c, x, y))


def _broadcast_error(exc, values, attrs):
    rank, target = np.ndim(values[0]), len(attrs["shape"])
    if rank > target:
        return errors.op_error("BroadcastTo", f"Rank of input ({rank}) must be no greater than rank of output shape "
                               f"({target}).")
    return errors.op_error("BroadcastTo", f"Incompatible shapes: {errors.shape_str(np.shape(values[0]))} vs. "
                           f"{errors.shape_str(attrs['shape'])}")


@defop("BroadcastTo", dtypes=ALL, on_error=_broadcast_error)
def BROADCAST_TO(x, shape):
    # Assigning into a fresh array broadcasts in C; np.broadcast_to would cost several microseconds more.
    src = x.shape
    if src and (len(src) > len(shape) or any(a != 1 and a != b for a, b in zip(src[::-1], shape[::-1]))):
        raise ValueError("not broadcastable")
    out = _sizes.empty(shape, x.dtype)
    out[...] = x
    return out


@BROADCAST_TO.defvjp
def _broadcast_to_grad(g, y, x, shape):
    return (g,)  # the backward pass sums it back to x's shape


def _broadcast_to_tensor_forward(x, shape):
    if shape.ndim != 1:
        raise errors.op_error("BroadcastTo", f"sizes input must be 1-D, not {list(shape.shape)}")
    dims = tuple(int(d) for d in shape)
    try:
        return BROADCAST_TO.forward(x, dims)
    except ValueError:
        raise _broadcast_error(None, (x,), {"shape": dims}) from None


# ``tf.broadcast_to`` a shape a traced program computes: TF's ``BroadcastTo`` with its shape as an input, read when
# the program runs (registered under its own name; errors name it ``BroadcastTo``).
BROADCAST_TO_TENSOR = defop("BroadcastToTensor", dtypes=ALL, same_dtype=False)(_broadcast_to_tensor_forward)
BROADCAST_TO_TENSOR.name = "BroadcastTo"


@BROADCAST_TO_TENSOR.defvjp
def _broadcast_to_tensor_grad(g, y, x, shape):
    return g, None  # the backward pass sums it back to x's shape


def broadcast_to(input, shape, name=None):
    """``input`` broadcast to ``shape`` with NumPy's rules (``tf.broadcast_to``)."""
    sfx = errors.error_name(name, input, shape)
    x = to_tensor(input)
    if (computed := _computed_dims(shape)) is not None:
        dims, static = computed
        out = execute(BROADCAST_TO_TENSOR, (x, dims))
        _state.STATE.tracer.static_shapes[out._id] = static
        return out
    dims = _shape_arg(shape, "BroadcastTo")
    _sizes.check_dims("BroadcastTo", dims, sfx)
    return errors.call_on_path(sfx is not None, execute, BROADCAST_TO, (x,), {"shape": dims})


# ------------------------------------------------------------------------------------------ stack, unstack


@defop("Pack", dtypes=ALL)
def PACK(*values, axis):
    return np.stack(values, axis=axis)


@PACK.defvjp
def _pack_grad(g, y, *values, axis):
    parts = unstack(g, axis=axis)
    return tuple(parts)


def stack(values, axis=0, name="stack"):
    """Stack a list of rank-R tensors into one rank-(R+1) tensor along ``axis`` (``tf.stack``)."""
    if not values:
        return constant_of(np.zeros((0,), np.float32))  # TF converts the empty list itself
    if any(getattr(v, "_tapeflow_ragged", False) for v in values):
        from .ragged_ops import stack_ragged  # noqa: PLC0415 - the ragged modules build on this one

        return stack_ragged(values, axis)
    tensors = matching(*values)
    nd = tensors[0]._value.ndim + 1
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    for i, t in enumerate(tensors):
        if t._value.dtype != tensors[0]._value.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute Pack as input #{i}(zero-based) was expected to be a "
                f"{c_name(tensors[0].dtype)} tensor but is a {c_name(t.dtype)} tensor [Op:Pack] name: {name}")
        if t._value.shape != tensors[0]._value.shape:
            raise errors.InvalidArgumentError(
                None, None, f"{{{{function_node __wrapped__Pack_N_{len(tensors)}_device_{errors.CPU_DEVICE}}}}} Shapes "
                f"of all inputs must match: values[0].shape = {errors.shape_str(tensors[0]._value.shape)} != "
                f"values[{i}].shape = {errors.shape_str(t._value.shape)} [Op:Pack] name: {name}")
    return execute(PACK, tensors, {"axis": axis})


def _unpack_forward(x, num, axis):
    return tuple(np.moveaxis(x, axis, 0)[i] for i in builtins.range(num))


class _Unpack:
    """The Unpack op has as many outputs as the unstacked axis is long, so it is built per length."""

    cache = {}

    @classmethod
    def get(cls, num):
        op = cls.cache.get(num)
        if op is None:
            op = defop(f"Unpack{num}", num_outputs=num, dtypes=ALL, multi_output=True)(_unpack_forward)
            op.name = "Unpack"
            op.defvjp(_unpack_grad)
            cls.cache[num] = op
        return op


def _unpack_grad(gs, ys, x, num, axis):
    parts = [g if g is not None else zeros_like(y) for g, y in zip(gs, ys)]
    return (stack(parts, axis=axis),)


def unstack(value, num=None, axis=0, name="unstack"):
    """Split ``value`` along ``axis`` into a list of tensors (``tf.unstack``)."""
    x = to_tensor(value)
    nd = x._value.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise errors.InvalidArgumentError(
            None, None, f"{{{{function_node __wrapped__Unpack_num_{num}_device_{errors.CPU_DEVICE}}}}} Input shape "
            f"axis {axis % nd} must equal {num}, got shape {errors.shape_str(x._value.shape)} [Op:Unpack] name: {name}")
    return list(execute(_Unpack.get(n), (x,), {"num": n, "axis": axis})) if n else []


def stack_nested(values, dtype=None):
    """A nested list that contains tensors, packed into one tensor (TF's auto-packing in conversion)."""
    items = [stack_nested(v, dtype) if isinstance(v, (list, tuple)) else v for v in values]
    if dtype is not None:
        items = [convert_to_tensor(v, dtype) if not isinstance(v, Tensor) else v for v in items]
    return stack(items)


_tensor_module.pack_nested = stack_nested  # ``convert_to_tensor`` of a list of tensors packs with this


# ------------------------------------------------------------------------------------------ shape queries


def shape(input, out_type=None, name=None):
    """The shape of ``input`` as a 1-D integer tensor, int32 unless ``out_type`` says int64 (``tf.shape``)."""
    out_type = _dtypes.int32 if out_type is None else _dtypes.as_dtype(out_type)
    if out_type not in (_dtypes.int32, _dtypes.int64):
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'out_type' of {c_name(out_type)} is not in the list of allowed values: int32, "
            "int64\n\t; NodeDef: {{node Shape}}; Op<name=Shape; signature=input:T -> output:out_type; attr=T:type; "
            "attr=out_type:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]> [Op:Shape] name: ")
    if getattr(input, "_tapeflow_ragged", False):
        from .ragged_shape import shape_of_ragged  # noqa: PLC0415 - the ragged modules build on this one

        return shape_of_ragged(input, out_type)
    if getattr(input, "_tapeflow_sparse", False):  # (TF gives a sparse tensor's dense shape)
        return cast(input.dense_shape, out_type)
    x = to_tensor(input)
    if shape_varies(x):
        return execute(SHAPE, (x,), {"out_type": out_type.as_numpy_dtype})
    return constant_of(np.array(x._value.shape, dtype=out_type.as_numpy_dtype))


@defop("Shape", same_dtype=False)
def SHAPE(x, out_type):
    """The shape of a tensor whose shape a traced program does not fix (a loop variable whose shape varies)."""
    return np.array(np.shape(x), dtype=out_type)


@defop("Size", same_dtype=False)
def SIZE(x, out_type):
    """The number of elements of a tensor whose shape a traced program does not fix."""
    return np.array(np.size(x), dtype=out_type)


def size(input, out_type=None, name=None):
    """The number of elements of ``input`` as a scalar tensor, int32 unless ``out_type`` says (``tf.size``)."""
    out_type = _dtypes.int32 if out_type is None else _dtypes.as_dtype(out_type)
    x = to_tensor(input)
    n = np.size(x._value)
    if out_type == _dtypes.string:
        raise cannot_convert(n, out_type)
    if shape_varies(x):
        return execute(SIZE, (x,), {"out_type": out_type.as_numpy_dtype})
    return constant_of(np.int64(n).astype(out_type.as_numpy_dtype))  # the kernel's C cast (2 as a bool is True)


def rank(input, name=None):
    """The number of dimensions of ``input`` as a scalar int32 tensor (``tf.rank``)."""
    return constant_of(np.int32(to_tensor(input)._value.ndim))


# ------------------------------------------------------------------------------------------ indexing

_INDEX_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                "tensors are valid indices, got {!r}")


def strided_slice_index(key):
    """Normalise a ``__getitem__`` key to a tuple of ints, slices, ``None`` and ``Ellipsis`` (TF's subset)."""
    items = key if isinstance(key, tuple) else (key,)
    out = []
    for k in items:
        if k is None or k is Ellipsis or isinstance(k, slice):
            if isinstance(k, slice):
                k = slice(*(_index_int(v, v) if v is not None else None for v in (k.start, k.stop, k.step)))
            out.append(k)
        else:
            out.append(_index_int(k, key))
    return tuple(out)


def _index_int(v, key):
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(_INDEX_ERROR.format(v))
    if isinstance(v, (int, np.integer)):
        return int(v)
    if getattr(v, "_tapeflow_variable", False):
        v = v.read_value()
    if isinstance(v, Tensor) and v._value.ndim == 0 and v._value.dtype.kind in "iu":
        return int(v._value)
    raise TypeError(_INDEX_ERROR.format(key if not isinstance(key, tuple) else v))


def _dynamic_items(key):
    """Positions of the items of ``key`` that are scalar integer tensors whose values a traced program computes
    (their value at tracing time must not be fixed in the program)."""
    items = key if isinstance(key, tuple) else (key,)
    dynamic = _state.STATE.tracer.dynamic
    out = []
    for k, item in enumerate(items):
        if isinstance(item, Tensor) and item._id in dynamic and item._value.ndim == 0:
            out.append(k)
        elif isinstance(item, slice) and any(isinstance(v, Tensor) and v._id in dynamic
                                             for v in (item.start, item.stop, item.step)):
            raise errors.UnimplementedError(
                None, None, "tapeflow cannot yet slice with bounds computed inside a traced function (x[:n] with n "
                "depending on the inputs); index with a scalar tensor, or use tf.gather")
    return out


def _dynamic_getitem(tensor, key, dynamic):
    """``tensor[key]`` where the items at ``dynamic`` are scalar tensors known only when the program runs: the
    rest of the key slices as usual (those items kept whole), then each of them gathers along its axis."""
    from .gather_ops import gather  # noqa: PLC0415

    items = list(key) if isinstance(key, tuple) else [key]
    picks = {k: items[k] for k in dynamic}
    for k in dynamic:
        items[k] = slice(None)
    out = getitem(tensor, tuple(items))
    # Where each kept axis lands in the result: slices keep an axis, ints drop one, ``None`` adds one.
    ndim = tensor._value.ndim
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    axis, axis_of = 0, {}
    for k, it in enumerate(items):
        if it is Ellipsis:
            axis += ndim - consumed
        elif it is None or isinstance(it, slice):
            if k in picks:
                axis_of[k] = axis
            axis += 1
    for k in sorted(picks, key=lambda k: axis_of[k], reverse=True):
        index = picks[k]
        size = out.shape[axis_of[k]]
        if size is not None:  # a negative index counts from the end, as strided slicing has it
            from .math_ops import add  # noqa: PLC0415

            index = where(index < 0, add(index, constant_of(np.asarray(size, index._value.dtype))), index)
        out = gather(out, index, axis=axis_of[k])
    return out


def _check_index(shape, index):
    """Refuse an index as TF's StridedSlice kernel does (TF's wording; the ``strided_slice/`` name scope)."""
    nd = len(shape)
    if sum(1 for k in index if k is Ellipsis) > 1:
        raise errors.op_error("StridedSlice", "Multiple ellipses in slice spec not allowed", name="strided_slice/")
    consumed = sum(1 for k in index if k is not None and k is not Ellipsis)
    if nd == 0 and consumed:
        raise errors.op_error("StridedSlice", "Attempting to slice scalar input.", name="strided_slice/")
    if consumed > nd:
        raise errors.op_error("StridedSlice", f"Index out of range using input dim {nd}; input has only {nd} dims",
                              name="strided_slice/")
    axis = 0
    for i, k in enumerate(index):
        if k is Ellipsis:
            axis += nd - consumed
        elif k is not None:
            if isinstance(k, slice) and k.step == 0:
                raise errors.op_error("StridedSlice", f"strides[{i}] must be non-zero", name="strided_slice/")
            if isinstance(k, int) and not -shape[axis] <= k < shape[axis]:
                shown = k + shape[axis] if k < 0 else k
                raise errors.op_error("StridedSlice", f"slice index {shown} of dimension {axis} out of bounds.",
                                      name="strided_slice/")
            axis += 1


@defop("StridedSlice", dtypes=ALL)
def STRIDED_SLICE(x, index):
    out = np.asarray(x)[index]
    if isinstance(out, np.ndarray):
        return out.copy()
    # One element: a NumPy scalar, or for strings the bare ``bytes`` object, kept as a 0-d array.
    return out if isinstance(out, np.generic) else np.array(out, dtype=object)


@STRIDED_SLICE.defvjp
def _strided_slice_grad(g, y, x, index):
    if shape_varies(x):
        return (execute(STRIDED_SLICE_GRAD_LIKE, (g, x), {"index": index}),)
    return (execute(STRIDED_SLICE_GRAD, (g,), {"shape": x._value.shape, "index": index}),)


@defop("StridedSliceGrad", dtypes=ALL)
def STRIDED_SLICE_GRAD(g, shape, index):
    out = np.zeros(shape, dtype=g.dtype)
    out[index] = g
    return out[()] if out.ndim == 0 else out


@STRIDED_SLICE_GRAD.defvjp
def _strided_slice_grad_grad(gg, y, g, shape, index):
    return (execute(STRIDED_SLICE, (gg,), {"index": index}),)


# The two gradients above with the input's shape read when the program runs, from the input itself (a traced loop
# body whose tensors change shape: see ``shape_like_ops``).
STRIDED_SLICE_GRAD_LIKE = defop("StridedSliceGradLike", dtypes=ALL, same_dtype=False)(
    lambda g, like, index: STRIDED_SLICE_GRAD.forward(g, np.shape(like), index))


@STRIDED_SLICE_GRAD_LIKE.defvjp
def _strided_slice_grad_like_grad(gg, y, g, like, index):
    return execute(STRIDED_SLICE, (gg,), {"index": index}), None


# ``t[mask]`` with a boolean tensor: the mask is the op's second input (not an attr made from its values), so a
# traced program selects by the mask of each call. ``axis``: the first dimension the mask covers.


def _masked(axis, mask):
    return (slice(None),) * axis + (mask,)


@defop("BooleanMask", dtypes=ALL, same_dtype=False)
def BOOLEAN_MASK(x, mask, axis):
    return np.asarray(x)[_masked(axis, mask)]


BOOLEAN_MASK.value_sized = lambda attrs: {0: (attrs["axis"],)}


@defop("BooleanMaskGrad", dtypes=ALL, same_dtype=False)
def BOOLEAN_MASK_GRAD(g, mask, shape, axis):
    """``g`` put back where ``mask`` holds, in zeros of ``shape``."""
    out = np.zeros(shape, dtype=g.dtype)
    out[_masked(axis, mask)] = g
    return out


@BOOLEAN_MASK.defvjp
def _boolean_mask_grad(g, y, x, mask, axis):
    if shape_varies(x):
        return execute(BOOLEAN_MASK_GRAD_LIKE, (g, mask, x), {"axis": axis}), None
    return execute(BOOLEAN_MASK_GRAD, (g, mask), {"shape": x._value.shape, "axis": axis}), None


@BOOLEAN_MASK_GRAD.defvjp
def _boolean_mask_grad_grad(gg, y, g, mask, shape, axis):
    return execute(BOOLEAN_MASK, (gg, mask), {"axis": axis}), None


BOOLEAN_MASK_GRAD_LIKE = defop("BooleanMaskGradLike", dtypes=ALL, same_dtype=False)(
    lambda g, mask, like, axis: BOOLEAN_MASK_GRAD.forward(g, mask, np.shape(like), axis))


@BOOLEAN_MASK_GRAD_LIKE.defvjp
def _boolean_mask_grad_like_grad(gg, y, g, mask, like, axis):
    return execute(BOOLEAN_MASK, (gg, mask), {"axis": axis}), None, None


def getitem(tensor, key):
    """``tensor[key]`` for ints, slices (negative steps too), ``...``, ``tf.newaxis``, scalar int tensors, and a
    boolean tensor as a mask."""
    if isinstance(key, Tensor) and key._value.dtype.kind == "b":
        mask = key._value
        if mask.shape != tensor._value.shape[:mask.ndim]:
            raise errors.op_error("BooleanMask", f"Shapes {tensor.shape} and {key.shape} are incompatible",
                                  wrapped=False)
        return execute(BOOLEAN_MASK, (tensor, key), {"axis": 0})
    if isinstance(key, list) and not any(isinstance(k, (list, tuple, np.ndarray, Tensor)) for k in key):
        key = tuple(key)  # TF reads a flat list as a tuple of indices, one per dimension
    if _state.STATE.tracer is not None:
        dynamic = _dynamic_items(key)
        if dynamic:
            return _dynamic_getitem(tensor, key, dynamic)
    index = strided_slice_index(key)
    _check_index(tensor._value.shape, index)
    return execute(STRIDED_SLICE, (tensor,), {"index": index})
