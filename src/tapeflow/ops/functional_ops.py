"""Functional ops: ``tf.map_fn``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``, ``tf.py_function`` and
``tf.numpy_function``.

The first four are written as TensorFlow writes them: a ``tf.while_loop`` reading the elements from one
``TensorArray`` per component and writing the results into others. So they run as Python loops eagerly, become one
loop node inside ``tf.function`` (a ``print`` in ``fn`` runs once there), differentiate through either, and fail
with TF's errors (a result of another dtype: the TensorArray's "TensorArray dtype is float32 but Op is trying to
write dtype int32 ", a fold over nothing: its "Tried to read from index 0 but array size is: 0 ").

``py_function`` calls its Python function on eager tensors: eagerly at once, so the tapes record what it does;
inside a traced function as an op of its own whose gradient runs the function again under a tape.
``numpy_function`` gives its function NumPy arrays and has no gradient.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import nest
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import Op
from .._core.state import STATE
from .._core.tensor import Tensor, convert_to_tensor, wrap
from .control_flow_ops import while_loop
from .tensor_array import TensorArray

__all__ = ["map_fn", "scan", "foldl", "foldr", "py_function", "numpy_function"]


def _elements(elems):
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which "
                         "does not contain any Tensors.")
    first = flat[0]
    if first.shape.rank == 0:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = first.shape[0]
    for e in flat[1:]:
        if e.shape.rank == 0 or n_static is not None and e.shape[0] is not None and e.shape[0] != n_static:
            raise ValueError(f"Dimensions {n_static} and {e.shape[0] if e.shape.rank else 0} are not compatible")
    from .array_ops import shape  # noqa: PLC0415

    n = n_static if n_static is not None else shape(first)[0]
    tas = [TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e) for e in flat]
    return flat, n, tas


def _pack(structure, flat):
    return nest.pack_sequence_as(structure, flat) if nest.is_nested(structure) else flat[0]


@export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each slice of ``elems`` along its first axis, the results stacked (``tf.map_fn``).

    ``elems`` may be a nest of tensors (``fn`` gets the nest of slices); without ``fn_output_signature`` (or its
    older name ``dtype``), ``fn``'s result must nest as ``elems`` does, with the same dtypes."""
    signature = fn_output_signature if fn_output_signature is not None else dtype
    flat, n, elems_tas = _elements(elems)
    if signature is None:
        out_dtypes = [e.dtype for e in flat]
        out_structure = elems
    else:
        out_dtypes = [_dtypes.as_dtype(getattr(s, "dtype", s)) for s in nest.flatten(signature)]
        out_structure = signature
    accs = [TensorArray(d, size=n, dynamic_size=False, infer_shape=infer_shape) for d in out_dtypes]

    def compute(i, tas):
        values = fn(_pack(elems, [ta.read(i) for ta in elems_tas]))
        nest.assert_same_structure(out_structure, values)
        return i + 1, [ta.write(i, v) for ta, v in zip(tas, nest.flatten(values))]

    _, accs = while_loop(lambda i, _: i < n, compute, (0, accs), maximum_iterations=n)
    return _pack(out_structure, [ta.stack() for ta in accs])


def map_fn_ragged(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
                  infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn`` over ``elems`` holding ragged tensors (``_ragged_dispatch`` sends those here): ``fn`` on each
    row, the results stacked into ragged tensors where the signature (``elems``' own by default) is ragged.

    The rows are visited by a Python loop over the number of rows, which a ragged tensor always knows: inside
    ``tf.function`` the loop is unrolled (TF makes one loop node of it; the results are the same)."""
    from .array_ops import stack  # noqa: PLC0415
    from .ragged_ops import is_ragged, stack_ragged  # noqa: PLC0415

    signature = fn_output_signature if fn_output_signature is not None else dtype
    leaves = nest.flatten(elems)
    first = leaves[0]
    n = int(np.asarray(first.nrows()._value)) if is_ragged(first) else convert_to_tensor(first).shape[0]
    rows = [convert_to_tensor(e) if not is_ragged(e) else e for e in leaves]
    out_structure = elems if signature is None else signature
    specs = nest.flatten(out_structure)
    if STATE.tracer is not None:  # rows by gathering (a slice by a traced row split cannot be traced)
        from .ragged_ops import _gather_rows  # noqa: PLC0415

        def row(r, i):
            return _gather_rows(r, convert_to_tensor([i], _dtypes.int64)).values if is_ragged(r) else r[i]
    else:
        def row(r, i):
            return r[i]
    results = []
    for i in range(n):
        value = fn(_pack(elems, [row(r, i) for r in rows]))
        nest.assert_same_structure(out_structure, value)
        results.append(nest.flatten(value))
    out = []
    for k, spec in enumerate(specs):
        parts = [r[k] for r in results]
        wants_ragged = is_ragged(spec) or type(spec).__name__ == "RaggedTensorSpec"
        if wants_ragged:
            for p in parts:
                if not is_ragged(p) and convert_to_tensor(p).shape.rank == 0:
                    from .._core import errors  # noqa: PLC0415

                    t = convert_to_tensor(p)
                    raise errors.InvalidArgumentError(
                        None, None, "{{function_node __wrapped__RaggedTensorFromVariant_output_ragged_rank_1_device_"
                        f"{errors.CPU_DEVICE}}}}} Ragged values must have rank >= 1; encoded scalar element at index "
                        f"0 has values Tensor: Tensor<type: {t.dtype.name} shape: [] values: {t.numpy()}> "
                        "[Op:RaggedTensorFromVariant] name: ")
            if parts and not any(is_ragged(p) for p in parts):  # dense rows: their values, cut by their lengths
                from .array_ops import shape  # noqa: PLC0415
                from .manip_ops import concat  # noqa: PLC0415
                from .ragged_tensor import RaggedTensor  # noqa: PLC0415

                parts = [convert_to_tensor(p) for p in parts]
                lengths = stack([shape(p, out_type=_dtypes.int64)[0] for p in parts])  # (sizes a trace may not fix)
                out.append(RaggedTensor.from_row_lengths(concat(parts, 0), lengths, validate=False))
            elif parts:
                out.append(stack_ragged(parts, axis=0))
            else:
                dtype_of = getattr(spec, "dtype", None)
                from .ragged_tensor import RaggedTensor  # noqa: PLC0415

                out.append(RaggedTensor.from_row_lengths(np.zeros([0], _dtypes.as_dtype(dtype_of).as_numpy_dtype),
                                                         np.zeros([0], np.int64)))
        else:
            out.append(stack(parts))
    return _pack(out_structure, out)


@export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running results ``a = fn(a, x)`` over the slices ``x`` of ``elems``, stacked (``tf.scan``); ``a``
    starts at ``initializer`` (the first slice when ``None``), and ``reverse`` goes from the last slice."""
    flat, n, elems_tas = _elements(elems)
    structure = elems if initializer is None else initializer
    if initializer is None:
        first = n - 1 if reverse else 0
        a_flat = [ta.read(first) for ta in elems_tas]
        start = 1
    else:
        a_flat = [convert_to_tensor(a) for a in nest.flatten(initializer)]
        start = 0
    accs = [TensorArray(a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape) for a in a_flat]
    if initializer is None:
        accs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs, a_flat)]

    def compute(i, a, tas):
        out = fn(_pack(structure, a), _pack(elems, [ta.read(i) for ta in elems_tas]))
        nest.assert_same_structure(structure, out)
        out_flat = nest.flatten(out)
        return (i - 1 if reverse else i + 1), out_flat, [ta.write(i, v) for ta, v in zip(tas, out_flat)]

    if reverse:
        i0, test = n - 1 - start, (lambda i, _a, _t: i >= 0)
    else:
        i0, test = start, (lambda i, _a, _t: i < n)
    _, _, accs = while_loop(test, compute, (i0, a_flat, accs), maximum_iterations=n)
    return _pack(structure, [ta.stack() for ta in accs])


def _fold(fn, elems, initializer, from_end):
    _flat, n, elems_tas = _elements(elems)
    if initializer is None:
        i = n - 1 if from_end else 1
        a = _pack(elems, [ta.read(n - 1 if from_end else 0) for ta in elems_tas])
    else:
        i, a = (n if from_end else 0), initializer

    if from_end:
        def compute(i, a):
            i = i - 1
            return i, fn(a, _pack(elems, [ta.read(i) for ta in elems_tas]))

        test = (lambda i, a: i > 0)
    else:
        def compute(i, a):
            return i + 1, fn(a, _pack(elems, [ta.read(i) for ta in elems_tas]))

        test = (lambda i, a: i < n)
    _, a = while_loop(test, compute, (i, a), maximum_iterations=n)
    return a


@export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, x)`` over the slices ``x`` of ``elems`` from the first, the last ``a`` (``tf.foldl``)."""
    return _fold(fn, elems, initializer, from_end=False)


@export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, x)`` over the slices ``x`` of ``elems`` from the last, the last ``a`` (``tf.foldr``)."""
    return _fold(fn, elems, initializer, from_end=True)


# ------------------------------------------------------------------------------------------ Python functions


def _results(values, tout, single):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    out = []
    for v, d in zip(values, tout):
        t = v if isinstance(v, Tensor) and v.dtype == d else convert_to_tensor(v, dtype=d)
        out.append(t)
    return out[0] if single else out


def _tout(Tout):
    single = not isinstance(Tout, (list, tuple))
    return [_dtypes.as_dtype(d) for d in ([Tout] if single else Tout)], single


@export("py_function")
def py_function(func, inp, Tout, name=None):
    """``func(*inp)`` run as Python on eager tensors, its results converted to ``Tout`` (``tf.py_function``).

    Eagerly the function runs at once (tapes record its ops, so gradients flow through it); inside a traced
    function it is an op that calls it each time the program runs, whose gradient calls it again under a tape."""
    tout, single = _tout(Tout)
    inputs = tuple(convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp]))
    if STATE.tracer is None:
        return _results(func(*inputs), tout, single)

    def forward(*values):
        results = _results(func(*[wrap(v) for v in values]), tout, False)
        return tuple(r._value for r in results) if len(results) > 1 else results[0]._value

    op = Op("EagerPyFunc", forward, num_outputs=len(tout), same_dtype=False)
    op.multi_output = len(tout) > 1
    op.stateful = True
    op.vjp = _py_function_grad(func, tout)
    out = execute(op, inputs)
    return out if single else list(out if isinstance(out, tuple) else (out,))


def _py_function_grad(func, tout):
    def vjp(g, ans, *inputs):
        from .._core.tape import GradientTape  # noqa: PLC0415

        gs = g if isinstance(g, tuple) else (g,)
        with GradientTape() as tape:
            for x in inputs:
                tape.watch(x)
            out = _results(func(*inputs), tout, False)
        pairs = [(o, gi) for o, gi in zip(out, gs) if gi is not None]
        grads = tape.gradient([o for o, _ in pairs], list(inputs), output_gradients=[gi for _, gi in pairs])
        return tuple(grads)

    return vjp


@export("numpy_function")
def numpy_function(func, inp, Tout, stateful=True, name=None):
    """``func`` called on the NumPy values of ``inp``, its results made tensors of ``Tout``
    (``tf.numpy_function``); no gradient flows through it."""
    tout, single = _tout(Tout)
    inputs = tuple(convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp]))

    def forward(*values):
        results = func(*[np.asarray(v) for v in values])
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        arrays = tuple(np.asarray(r, dtype=d.as_numpy_dtype) for r, d in zip(results, tout))
        return arrays if len(arrays) > 1 else arrays[0]

    op = Op("PyFunc", forward, num_outputs=len(tout), same_dtype=False)
    op.multi_output = len(tout) > 1
    op.stateful = bool(stateful)
    out = execute(op, inputs)
    return out if single else list(out if isinstance(out, tuple) else (out,))
