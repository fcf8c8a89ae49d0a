"""Op database entries for gathers and scatters: GatherV2, GatherNd, ScatterNd and the TensorScatter ops.

Indices are static (``Sample.kwargs``) and repeat on purpose: an axis-0 gather's gradient is an ``IndexedSlices``
with the repeated rows (the tests densify it), and scatters add repeated updates up. TensorScatterUpdate samples
have distinct indices: with duplicates, TF gives every update the gradient at its index, even the overwritten ones
that finite differences see as unused (the golden cases check that convention).
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403

# --- NumPy references


def _np_gather(x, indices, axis=0, batch_dims=0):
    indices = np.asarray(indices)
    if batch_dims == 0:
        return np.take(x, indices, axis=axis)
    parts = [_np_gather(x[b], indices[b], axis - 1, batch_dims - 1) for b in range(x.shape[0])]
    return np.stack(parts)


def _np_gather_nd(x, indices, batch_dims=0):
    indices = np.asarray(indices)
    if batch_dims:
        return np.stack([_np_gather_nd(x[b], indices[b], batch_dims - 1) for b in range(x.shape[0])])
    return np.asarray(x[tuple(np.moveaxis(indices, -1, 0))]).copy()


def _np_scatter_nd(u, indices, shape):
    out = np.zeros(shape, u.dtype)
    np.add.at(out, tuple(np.moveaxis(np.asarray(indices), -1, 0)), u)
    return out


def _np_tensor_scatter(ufunc):
    def ref(t, u, indices):
        out = t.copy()
        where = tuple(np.moveaxis(np.asarray(indices), -1, 0))
        if ufunc is None:
            out[where] = u
        else:
            ufunc.at(out, where, u)
        return out

    return ref


def _sample(name, sample, shapes, gen=None, **kwargs):
    gen = gen or uniform()
    return make_sample(name, sample, (gen,) * len(shapes), shapes, kwargs=kwargs)


def _complex(name, shapes, **kwargs):
    return [complex_sample(name, "complex", [(uniform(), uniform(-1, 1), s) for s in shapes], kwargs)]


# --- GatherV2

_GATHER = [
    ("axis0_repeated", (4, 3), {"indices": [0, 2, 2, 3]}),
    ("axis0_2d_indices", (4, 3), {"indices": [[1, 0], [3, 3]]}),
    ("axis0_scalar_index", (3, 2), {"indices": 1}),
    ("axis1", (2, 4), {"indices": [3, 0, 3], "axis": 1}),
    ("axis_neg1_2d_indices", (2, 3), {"indices": [[2, 0], [2, 2]], "axis": -1}),
    ("vector", (5,), {"indices": [4, 0, 4]}),
    ("batch_dims1_axis2", (2, 3, 4), {"indices": [[0, 3], [1, 1]], "axis": 2, "batch_dims": 1}),
    ("batch_dims1_axis1", (2, 3, 4), {"indices": [[0, 2, 2], [1, 0, 1]], "axis": 1, "batch_dims": 1}),
]
op("GatherV2", lambda x, **kw: tf.gather(x, **kw), _np_gather,
   [_sample("GatherV2", n, (shape,), **kw) for n, shape, kw in _GATHER], True,
   complex_samples=_complex("GatherV2", [(3, 2)], indices=[2, 0, 2]),
   note="axis-0 gathers give an IndexedSlices gradient (densified by the tests); others a dense one")

# --- GatherNd

_GATHER_ND = [
    ("rows", (4, 3), {"indices": [[1], [3], [1]]}),
    ("elements_repeated", (3, 4), {"indices": [[0, 1], [2, 3], [0, 1]]}),
    ("slices_3d", (2, 3, 4), {"indices": [[[1, 2]], [[0, 0]]]}),
    ("batch_dims1", (2, 3, 4), {"indices": [[[1], [1]], [[2], [0]]], "batch_dims": 1}),
]
op("GatherNd", lambda x, **kw: tf.gather_nd(x, **kw), _np_gather_nd,
   [_sample("GatherNd", n, (shape,), **kw) for n, shape, kw in _GATHER_ND], True,
   complex_samples=_complex("GatherNd", [(3, 2)], indices=[[2, 1], [0, 0]]),
   note="[n, 1] indices give an IndexedSlices gradient, others a ScatterNd")

# --- ScatterNd

_SCATTER_ND = [
    ("rows_repeated", (3, 2), {"indices": [[1], [1], [0]], "shape": [3, 2]}),
    ("elements_repeated", (3,), {"indices": [[0, 1], [2, 0], [0, 1]], "shape": [3, 2]}),
    ("indices_3d", (2, 2, 3), {"indices": [[[1], [0]], [[3], [1]]], "shape": [4, 3]}),
]
op("ScatterNd", lambda u, indices, shape: tf.scatter_nd(indices, u, shape), _np_scatter_nd,
   [_sample("ScatterNd", n, (shape,), **kw) for n, shape, kw in _SCATTER_ND], True,
   complex_samples=_complex("ScatterNd", [(2,)], indices=[[1], [1]], shape=[3]))

# --- TensorScatter*

_TENSOR_SCATTER = [
    ("elements", ((3, 4), (2,)), {"indices": [[0, 1], [2, 3]]}),
    ("rows", ((4, 3), (2, 3)), {"indices": [[1], [3]]}),
]
_REPEATED = [("elements_repeated", ((3, 4), (3,)), {"indices": [[0, 1], [2, 3], [0, 1]]})]


def _tensor_scatter_entry(name, fn, ufunc, samples, complex_ok=True, gens=None):
    gens = gens or (uniform(), uniform())
    op(name, lambda t, u, indices: fn(t, indices, u), _np_tensor_scatter(ufunc),
       [make_sample(name, n, gens, shapes, kwargs=kw) for n, shapes, kw in samples], True,
       complex_samples=_complex(name, [(3,), (2,)], indices=[[2], [0]]) if complex_ok else ())


_tensor_scatter_entry("TensorScatterUpdate", tf.tensor_scatter_nd_update, None, _TENSOR_SCATTER)
_tensor_scatter_entry("TensorScatterAdd", tf.tensor_scatter_nd_add, np.add, _TENSOR_SCATTER + _REPEATED)
_tensor_scatter_entry("TensorScatterSub", tf.tensor_scatter_nd_sub, np.subtract, _TENSOR_SCATTER + _REPEATED)


def _grid(parity):
    """Distinct values on a grid of tenths, even or odd ones: no ties within a sample or between the tensor (even)
    and the updates (odd), where TF splits the gradient."""

    def gen(rng, shape):
        n = int(np.prod(shape)) if shape else 1
        return f64((2 * rng.permutation(20)[:n] + parity).reshape(shape) / 10 - 2)

    return gen


_tensor_scatter_entry("TensorScatterMax", tf.tensor_scatter_nd_max, np.maximum, _TENSOR_SCATTER + _REPEATED,
                      complex_ok=False, gens=(_grid(0), _grid(1)))
_tensor_scatter_entry("TensorScatterMin", tf.tensor_scatter_nd_min, np.minimum, _TENSOR_SCATTER + _REPEATED,
                      complex_ok=False, gens=(_grid(0), _grid(1)))
