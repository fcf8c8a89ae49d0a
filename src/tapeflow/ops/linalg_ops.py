"""Products, transposes, cross products and norms: forward (NumPy/BLAS) and gradient (tapeflow ops) side by side.

``matmul`` runs TF's two kernels: ``MatMul`` for two matrices (the hot path of every dense layer) and
``BatchMatMulV2`` as soon as either side has batch axes, which broadcast. ``tensordot``, ``matvec`` and the norms
are compositions, as in TF, so their gradients (and TF's conventions at kinks, e.g. the NaN gradient of ``norm``
at the zero vector) come from the ops they are made of. ``einsum`` and ``trace`` are in ``einsum_ops``.
Also here: how ops refuse input with TF's exact errors (:class:`Refusal`, :func:`no_kernel`).
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core import state as _state
from .._core.convert import c_name
from .._core.dispatch import EMPTY, execute
from .._core.dtypes import as_dtype
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import EagerTensor, Tensor, convert_to_tensor
from .._core.variable import ResourceVariable
from ._convert import matching, to_tensor
from .array_ops import cast, reshape, shape, stack, transpose
from .math_ops import abs as _abs
from .math_ops import conj, pow, raw_cj, sqrt
from .reduction_ops import reduce_max, reduce_sum
from .shape_like_ops import shape_varies

__all__ = ["matmul", "tensordot", "matvec", "matrix_transpose", "adjoint", "cross", "norm", "refused", "Refusal",
           "no_kernel", "cj", "dt_name"]


# ------------------------------------------------------------------------------------------ TF-worded refusals


class Refusal(ValueError):
    """Raised by a forward to refuse its input with TF's exact error, which ``refused`` hands to dispatch."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def refused(exc, values, attrs):
    """``on_error`` for ops whose forwards raise :class:`Refusal`: the error they carry, else dispatch's default."""
    return exc.error if isinstance(exc, Refusal) else None


# The CPU kernels TF 2.21 registers for ops whose op definition allows more dtypes than the kernels take: a
# dtype outside them fails with NotFoundError listing these lines.
_KERNELS = {
    "BatchMatMulV3": (
        "XLA_CPU_JIT; Tout in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT16, DT_COMPLEX64, DT_INT64, DT_BFLOAT16, "
        "DT_COMPLEX128, DT_HALF]; Tb in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, "
        "DT_INT64, DT_BFLOAT16, DT_COMPLEX128, DT_HALF]; Ta in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, "
        "DT_INT8, DT_COMPLEX64, DT_INT64, DT_BFLOAT16, DT_COMPLEX128, DT_HALF]",
        *(f"CPU; Ta in [DT_{a}]; Tb in [DT_{b}]; Tout in [DT_{o}]" for a, b, o in (
            ("UINT8", "BFLOAT16", "BFLOAT16"), ("INT8", "BFLOAT16", "BFLOAT16"), ("BFLOAT16", "UINT8", "BFLOAT16"),
            ("BFLOAT16", "INT8", "BFLOAT16"), ("UINT8", "UINT8", "INT32"), ("INT8", "UINT8", "INT32"),
            ("UINT8", "INT8", "INT32"), ("INT8", "INT8", "INT32"), ("INT64", "INT64", "INT64"),
            ("INT32", "INT32", "INT32"), ("INT16", "INT16", "INT16"), ("DOUBLE", "DOUBLE", "DOUBLE"),
            ("FLOAT", "FLOAT", "FLOAT"), ("BFLOAT16", "BFLOAT16", "BFLOAT16"),
            ("COMPLEX128", "COMPLEX128", "COMPLEX128"), ("COMPLEX64", "COMPLEX64", "COMPLEX64")))),
}


def dt_name(dtype):
    """TF's enum name of a NumPy dtype (``DT_FLOAT``)."""
    name = np.dtype(dtype).name
    return "DT_" + {"float16": "HALF", "float32": "FLOAT", "float64": "DOUBLE"}.get(name, name.upper())


def no_kernel(op, attrs, kernels):
    """TF's NotFoundError for a dtype the op's definition allows but no CPU kernel takes."""
    lines = "\n".join(f"  device='{line.replace('; ', chr(39) + '; ', 1)}" for line in kernels)
    return errors.NotFoundError(None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[{attrs}]\n"
                                f"All kernels registered for op {op}:\n{lines}\n [Op:{op}] name: ")


# ------------------------------------------------------------------------------------------ MatMul (two matrices)


def _mt(x):
    return np.swapaxes(x, -1, -2)


def _matmul_error(exc, values, attrs):
    a, b = values
    sa, sb = errors.shape_str(np.shape(a)), errors.shape_str(np.shape(b))
    if a.ndim != b.ndim:
        return errors.op_error("MatMul", f"In[0] and In[1] has different ndims: {sa} vs. {sb}")
    if a.ndim != 2:
        return errors.op_error("MatMul", f"In[0] and In[1] ndims must be == 2: {a.ndim}")
    return errors.op_error("MatMul", f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb}")


@defop("MatMul", on_error=_matmul_error, quiet=True)
def MATMUL(a, b, transpose_a=False, transpose_b=False):
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("MatMul takes two matrices")
    if transpose_a:
        a = a.T
    if transpose_b:
        b = b.T
    return a @ b  # ``np.matmul`` through the operator: the same kernel, a lookup and a call layer fewer


@MATMUL.set_lower
def _matmul_lowered(names, attrs):
    # In a traced program the ranks were checked when it was traced: the product alone, transposed as flagged.
    a, b = names
    return f"({a}{'.T' if attrs.get('transpose_a') else ''} @ {b}{'.T' if attrs.get('transpose_b') else ''})"


# The four flag combinations as shared attrs dicts (never mutated): the rules below run on every backward step.
_MM = {(False, False): EMPTY, (True, False): {"transpose_a": True, "transpose_b": False},
       (False, True): {"transpose_a": False, "transpose_b": True},
       (True, True): {"transpose_a": True, "transpose_b": True}}


def cj(t):
    """``conj(t)``, skipped for real tensors."""
    return t if t._value.dtype.kind != "c" else conj(t)


@MATMUL.defvjp(needs=True)
def _matmul_grad(g, c, a, b, needs, transpose_a=False, transpose_b=False):
    # TF's rule for each combination of flags; conj makes it the adjoint for complex inputs (tested inline: this
    # rule runs for every dense layer of every training step).
    if a._value.dtype.kind == "c":
        a = conj(a)
    if b._value.dtype.kind == "c":
        b = conj(b)
    if not transpose_a and not transpose_b:
        ga = execute(MATMUL, (g, b), _MM[False, True]) if needs[0] else None
        gb = execute(MATMUL, (a, g), _MM[True, False]) if needs[1] else None
    elif not transpose_a and transpose_b:
        ga = execute(MATMUL, (g, b)) if needs[0] else None
        gb = execute(MATMUL, (g, a), _MM[True, False]) if needs[1] else None
    elif transpose_a and not transpose_b:
        ga = execute(MATMUL, (b, g), _MM[False, True]) if needs[0] else None
        gb = execute(MATMUL, (a, g)) if needs[1] else None
    else:
        ga = execute(MATMUL, (b, g), _MM[True, True]) if needs[0] else None
        gb = execute(MATMUL, (g, a), _MM[True, True]) if needs[1] else None
    return ga, gb


@MATMUL.defraw(needs=True)
def _matmul_raw(g, c, a, b, needs, transpose_a=False, transpose_b=False):
    if a.dtype.kind == "c":
        a = raw_cj(a)
    if b.dtype.kind == "c":
        b = raw_cj(b)
    mm = MATMUL.forward
    if not transpose_a and not transpose_b:
        ga = mm(g, b, False, True) if needs[0] else None
        gb = mm(a, g, True, False) if needs[1] else None
    elif not transpose_a and transpose_b:
        ga = mm(g, b) if needs[0] else None
        gb = mm(g, a, True, False) if needs[1] else None
    elif transpose_a and not transpose_b:
        ga = mm(b, g, False, True) if needs[0] else None
        gb = mm(a, g) if needs[1] else None
    else:
        ga = mm(b, g, True, True) if needs[0] else None
        gb = mm(g, a, True, True) if needs[1] else None
    return ga, gb


# ------------------------------------------------------------------------------------------ BatchMatMulV2


def _batch_matmul_error(exc, values, attrs):
    name = "BatchMatMulV2"
    a, b = values
    sa, sb = errors.shape_str(np.shape(a)), errors.shape_str(np.shape(b))
    for i, v in enumerate(values):
        if v.ndim < 2:
            return errors.op_error(name, f"In[{i}] ndims must be >= 2: {v.ndim}")
    for p, q in zip(a.shape[-3::-1], b.shape[-3::-1]):
        if p != q and p != 1 and q != 1:
            return errors.op_error(name, f"In[0] and In[1] must have compatible batch dimensions: {sa} vs. {sb}")
    return errors.op_error(name, f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb}")


@defop("BatchMatMulV2", on_error=_batch_matmul_error, quiet=True)
def BATCH_MATMUL(x, y, adj_x=False, adj_y=False):
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError("BatchMatMulV2 takes matrices")
    if adj_x:
        x = np.conj(_mt(x)) if x.dtype.kind == "c" else _mt(x)
    if adj_y:
        y = np.conj(_mt(y)) if y.dtype.kind == "c" else _mt(y)
    return np.matmul(x, y)


_BMM = {(x, y): {"adj_x": x, "adj_y": y} for x in (False, True) for y in (False, True)}


@BATCH_MATMUL.defvjp(needs=True)
def _batch_matmul_grad(g, z, x, y, needs, adj_x=False, adj_y=False):
    # TF's rule; the batch axes each side was broadcast over are summed away by the backward pass.
    if not adj_x and not adj_y:
        gx = execute(BATCH_MATMUL, (g, y), _BMM[False, True]) if needs[0] else None
        gy = execute(BATCH_MATMUL, (x, g), _BMM[True, False]) if needs[1] else None
    elif not adj_x:
        gx = execute(BATCH_MATMUL, (g, y), _BMM[False, False]) if needs[0] else None
        gy = execute(BATCH_MATMUL, (g, x), _BMM[True, False]) if needs[1] else None
    elif not adj_y:
        gx = execute(BATCH_MATMUL, (y, g), _BMM[False, True]) if needs[0] else None
        gy = execute(BATCH_MATMUL, (x, g), _BMM[False, False]) if needs[1] else None
    else:
        gx = execute(BATCH_MATMUL, (y, g), _BMM[True, True]) if needs[0] else None
        gy = execute(BATCH_MATMUL, (g, x), _BMM[True, True]) if needs[1] else None
    return gx, gy


def _second_operand(b, a):
    """``b`` as TF's matmul converts it: tensors and variables as they are, anything else towards ``a``'s dtype."""
    if getattr(b, "_tapeflow_variable", False):
        return b._read()  # the usual weight argument, read without to_tensor's checks
    if isinstance(b, Tensor):
        return to_tensor(b)
    return convert_to_tensor(b, dtype_hint=a.dtype)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product over the last two axes, broadcasting batch axes (``tf.linalg.matmul``).

    ``b`` is converted towards ``a``'s dtype, never the other way, as in TF. The sparsity and ``grad_*`` hints
    are accepted and change nothing but TF's routing (a sparse hint on float32 batches fails as in TF).
    """
    if transpose_a or transpose_b or adjoint_a or adjoint_b or a_is_sparse or b_is_sparse or output_type is not None:
        return _matmul_flags(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b, a_is_sparse, b_is_sparse,
                             output_type)
    if type(a) is not EagerTensor:
        a = to_tensor(a)
    if type(b) is not EagerTensor:
        # A dense layer's weight, a variable, is read directly (``_second_operand``'s first case).
        b = b._read() if type(b) is ResourceVariable else _second_operand(b, a)
    if a._value.ndim > 2 or b._value.ndim > 2:
        return execute(BATCH_MATMUL, (a, b))
    return execute(MATMUL, (a, b))


def _matmul_flags(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b, a_is_sparse, b_is_sparse, output_type):
    """``matmul`` with any flag set, routed to TF's kernels as TF's wrapper routes it."""
    if transpose_a and adjoint_a:
        raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`="
                         f"{transpose_a}, `adjoint_a`={adjoint_a}.")
    if transpose_b and adjoint_b:
        raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received `transpose_b`="
                         f"{transpose_b}, `adjoint_b`={adjoint_b}.")
    a = to_tensor(a)
    b = _second_operand(b, a)
    if output_type is not None:
        output_type = as_dtype(output_type)
        if output_type != a.dtype or output_type != b.dtype:
            return _matmul_v3(a, b, bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b), output_type)
    sparse = a_is_sparse or b_is_sparse
    if not sparse and (a._value.ndim > 2 or b._value.ndim > 2):
        if transpose_a:
            a = cj(a)
        if transpose_b:
            b = cj(b)
        return execute(BATCH_MATMUL, (a, b), _BMM[bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)])
    if adjoint_a:
        a, transpose_a = cj(a), True
    if adjoint_b:
        b, transpose_b = cj(b), True
    if sparse and a._value.dtype == np.float32 and b._value.dtype == np.float32:
        # TF sends these to SparseMatMul, which takes matrices only (its values are MatMul's).
        for side, t in (("a", a), ("b", b)):
            if t._value.ndim != 2:
                raise errors.op_error("SparseMatMul", f"{side} is not a matrix")
    return execute(MATMUL, (a, b), _MM[bool(transpose_a), bool(transpose_b)])


_INT8 = ("int8", "uint8")

# The output types BatchMatMulV3 takes, and its signature as TF's error for another quotes it.
_TOUT = ("bfloat16", "float16", "float32", "float64", "int16", "int32", "int64", "complex64", "complex128")
_MM_IN = "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_COMPLEX64, " \
         "DT_COMPLEX128"
_BMM_V3_OPDEF = (f"Op<name=BatchMatMulV3; signature=x:Ta, y:Tb -> output:Tout; attr=Ta:type,allowed=[{_MM_IN}]; "
                 f"attr=Tb:type,allowed=[{_MM_IN}]; attr=Tout:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, "
                 "DT_DOUBLE, DT_INT16, DT_INT32, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]; attr=adj_x:bool,"
                 "default=false; attr=adj_y:bool,default=false; attr=grad_x:bool,default=false; "
                 "attr=grad_y:bool,default=false>")


def _matmul_v3(a, b, adj_x, adj_y, output_type):
    """TF's ``BatchMatMulV3`` (an ``output_type`` other than the inputs'): 8-bit integers into int32 only."""
    if a.dtype.name in _INT8 and b.dtype.name in _INT8 and output_type.name == "int32":
        a, b = cast(a, "int32"), cast(b, "int32")
        if a._value.ndim > 2 or b._value.ndim > 2:
            return execute(BATCH_MATMUL, (a, b), _BMM[adj_x, adj_y])
        return execute(MATMUL, (a, b), _MM[adj_x, adj_y])
    if output_type.name not in _TOUT:
        raise errors.InvalidArgumentError(None, None, f"Value for attr 'Tout' of {c_name(output_type)} is not in the "
                                          f"list of allowed values: {', '.join(c_name(as_dtype(t)) for t in _TOUT)}"
                                          f"\n\t; NodeDef: {{{{node BatchMatMulV3}}}}; {_BMM_V3_OPDEF} "
                                          f"[Op:BatchMatMulV3] name: ")
    flag = {True: "true", False: "false"}
    tout = "DT_BFLOAT16" if output_type.name == "bfloat16" else dt_name(output_type.as_numpy_dtype)
    attrs = (f"Ta={dt_name(a._value.dtype)}, Tb={dt_name(b._value.dtype)}, Tout={tout}, "
             f"adj_x={flag[adj_x]}, adj_y={flag[adj_y]}, grad_x=false, grad_y=false")
    raise no_kernel("BatchMatMulV3", attrs, _KERNELS["BatchMatMulV3"])


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product ``a @ b`` over the last axes, broadcasting batch axes (``tf.linalg.matvec``)."""
    b = to_tensor(b)
    column = reshape(b, b._value.shape + (1,))
    out = matmul(a, column, transpose_a=transpose_a, adjoint_a=adjoint_a, a_is_sparse=a_is_sparse,
                 b_is_sparse=b_is_sparse)
    return reshape(out, out._value.shape[:-1])


# ------------------------------------------------------------------------------------------ tensordot


def _tensordot_axes(a, axes):
    """The contracted axes of ``a`` and ``b``, checked and worded as TF checks them."""
    nd = a._value.ndim
    if isinstance(axes, Tensor):
        axes = axes._value.tolist()
        if isinstance(axes, int):
            raise errors.op_error("StridedSlice", "Attempting to slice scalar input.", name="strided_slice/")
    elif isinstance(axes, np.ndarray):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > nd:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received "
                             f"{axes}, vs tensor dimensions {nd}.")
        return list(range(nd - axes, nd)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        return list(a_axes), list(b_axes)
    return _tensordot_axes(a, int(convert_to_tensor(axes, "int32")._value))


def _tensordot_matrix(x, axes, flipped):
    """``x`` transposed and reshaped to a matrix: free axes one side, contracted axes the other."""
    shape = list(x._value.shape)
    axes = [i if i >= 0 else i + len(shape) for i in axes]
    free = [i for i in range(len(shape)) if i not in axes]
    free_dims = [shape[i] for i in free]
    n_free = int(np.prod(free_dims))
    n_axes = int(np.prod([shape[i] for i in axes]))
    # In a traced program whose free sizes vary (and whose contracted ones do not), the free side is -1.
    varying = shape_varies(x) and n_axes > 0 and all(x.shape[i] is not None for i in axes)
    perm = axes + free if flipped else free + axes
    if perm != list(range(len(shape))):
        x = transpose(x, perm)
    target = (n_axes, n_free) if flipped else (n_free, n_axes)
    if x._value.shape != target:
        x = reshape(x, ((n_axes, -1) if flipped else (-1, n_axes)) if varying else target)
    return x, free_dims


def tensordot(a, b, axes, name=None):
    """Sum over the ``axes`` of ``a`` and ``b`` (an int N: the last N of ``a`` with the first N of ``b``; or a
    pair of axis lists), as a transpose, reshape and matmul, like TF (``tf.tensordot``).
    """
    a, b = to_tensor(a), to_tensor(b)
    a_axes, b_axes = _tensordot_axes(a, axes)
    am, a_free = _tensordot_matrix(a, a_axes, False)
    bm, b_free = _tensordot_matrix(b, b_axes, True)
    product = matmul(am, bm)
    if list(product._value.shape) == a_free + b_free:
        return product
    if shape_varies(a):  # a traced program whose free sizes of ``a`` vary: read them when it runs
        out = reshape(product, _varying_free_shape(a, a_axes, b_free))
        # The static shape the result shows: ``a``'s free dimensions, then ``b``'s (a reshape alone cannot tell
        # which of its sizes vary).
        nd = len(a._value.shape)
        contracted = {i % nd for i in a_axes}
        static = a.shape.as_list()
        _state.STATE.tracer.static_shapes[out._id] = tuple(static[i] for i in range(nd) if i not in contracted) + \
            tuple(b_free)
        return out
    return reshape(product, a_free + b_free)


def _varying_free_shape(a, a_axes, b_free):
    """The result shape of a tensordot whose ``a`` has free sizes that vary between runs of the traced program: one
    such size as -1, several read from ``tf.shape(a)`` (a fixed number would tie the program to this trace's)."""
    nd = len(a._value.shape)
    contracted = {i % nd for i in a_axes}
    free = [i for i in range(nd) if i not in contracted]
    static = a.shape.as_list()
    unknown = [k for k, i in enumerate(free) if static[i] is None]
    if len(unknown) == 1:
        return [-1 if k == unknown[0] else static[i] for k, i in enumerate(free)] + list(b_free)
    sizes = shape(a)
    return stack([sizes[i] if static[i] is None else np.int32(static[i]) for i in free] +
                 [np.int32(d) for d in b_free])


# ------------------------------------------------------------------------------------------ transpose, trace


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two axes of ``a`` (and conjugate with ``conjugate=True``) (``tf.linalg.matrix_transpose``)."""
    a = to_tensor(a)
    nd = a._value.ndim
    if nd < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
                         f"{a.shape}")
    return transpose(a, [*range(nd - 2), nd - 1, nd - 2], conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes (``tf.linalg.adjoint``)."""
    return matrix_transpose(matrix, conjugate=True)


# ------------------------------------------------------------------------------------------ cross


def _cross_error(exc, values, attrs):
    a, b = values
    if np.shape(a) != np.shape(b):
        return errors.op_error("Cross", f"Both inputs must be of same shape: {errors.shape_str(np.shape(a))} vs. "
                                        f"{errors.shape_str(np.shape(b))}")
    if np.ndim(a) == 0:
        return errors.op_error("Cross", "Input must be at least 1D[]")
    return errors.op_error("Cross", "Cross-products are only defined for 3-element vectors.",
                           cls=errors.FailedPreconditionError)


@defop("Cross", on_error=_cross_error, quiet=True)
def CROSS(a, b):
    if a.shape != b.shape or a.ndim == 0 or a.shape[-1] != 3:
        raise ValueError("Cross takes two arrays of one shape, of 3-vectors")
    return np.cross(a, b)


@CROSS.defvjp(needs=True)
def _cross_grad(g, c, a, b, needs):
    return (execute(CROSS, (b, g)) if needs[0] else None), (execute(CROSS, (g, a)) if needs[1] else None)


def cross(a, b, name=None):
    """Cross product of 3-vectors along the last axis; no broadcasting (``tf.linalg.cross``)."""
    a, b = matching(a, b)
    return execute(CROSS, (a, b))


# ------------------------------------------------------------------------------------------ norm

_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]
_VECTOR_NORMS = ["euclidean", 1, 2, np.inf]


def _unsupported_vector_norm(ord):
    # TF's test, word for word in effect: NaN passes, None fails comparing with 0, strings are not real.
    return (not np.isreal(ord) or ord <= 0) and ord not in _VECTOR_NORMS


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector norms (``ord`` 'euclidean', 1, 2, ``np.inf`` or any positive real) over ``axis`` (None: all
    entries), or matrix norms ('fro'/'euclidean', 1, 2, ``np.inf``) over an ``axis`` pair (``tf.norm``).

    Composed of TF's ops as TF composes it, so a complex tensor's Euclidean norm is complex and the gradient
    at the zero vector is NaN.
    """
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if _unsupported_vector_norm(ord):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    x = to_tensor(tensor)
    if ord in ("fro", "euclidean", 2, 2.0):
        if matrix and ord in (2, 2.0):
            result = _matrix_2_norm(x, axis)
        else:
            result = sqrt(reduce_sum(x * conj(x), axis, keepdims=True))
    else:
        result = _abs(x)
        if ord == 1:
            result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
            if matrix:
                result = reduce_max(result, axis[-1], keepdims=True)
        elif ord == np.inf:
            if matrix:
                result = reduce_sum(result, axis[1], keepdims=True)
            result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
        else:
            result = pow(reduce_sum(pow(result, ord), axis, keepdims=True), 1.0 / ord)
    if not keepdims:
        shape = result._value.shape
        if axis is None:
            kept = tuple(d for d in shape if d != 1)
        else:
            drop = {a % len(shape) for a in axis}
            kept = tuple(d for i, d in enumerate(shape) if i not in drop)
        result = reshape(result, kept)
    return result


def _matrix_2_norm(x, axis):
    """The largest singular value over the ``axis`` pair, moved there and back by transposes as TF does."""
    from .decomp_ops import SVD  # noqa: PLC0415 - decomp_ops builds on this module

    rank = x._value.ndim
    positive = [a if a >= 0 else a + rank for a in axis]
    before = [i for i in range(rank) if i not in positive] + positive
    after = []
    for i in range(rank):
        hits = [j for j, p in enumerate(before) if p == i]
        if len(hits) != 1:
            raise ValueError(f"Incompatible shape for value (()), expected (({len(hits)},))")
        after.append(hits[0])
    if len(before) != rank:
        raise errors.op_error("Transpose", f"transpose expects a vector of size {rank}. But input(1) is a vector of "
                                           f"size {len(before)}")
    s = execute(SVD, (transpose(x, before),), {"compute_uv": False, "full_matrices": False})[0]
    largest = reduce_max(_abs(s), -1, keepdims=True)
    largest = reshape(largest, largest._value.shape + (1,))
    return transpose(largest, after)


for _fn, _paths in ((matmul, ("linalg.matmul", "matmul")),
                    (tensordot, ("linalg.tensordot", "tensordot")), (matvec, ("linalg.matvec",)),
                    (matrix_transpose, ("linalg.matrix_transpose",)), (adjoint, ("linalg.adjoint",)),
                    (cross, ("linalg.cross",)), (norm, ("linalg.norm", "norm"))):
    export(*_paths)(_fn)
