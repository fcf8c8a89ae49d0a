"""Op database entries for shape manipulation: concat, split, squeeze, expand_dims, tile, pad (constant and
mirrored), slice, reverse, roll, one_hot, linspace and the diagonal ops.

These ops are linear in their tensor inputs, so their own second derivatives vanish. Each entry therefore also
has ``squared`` samples (the kwarg ``sq=True`` squares the op's output): their first derivative runs the op's
gradient rule on a value that depends on the input, so the second-order test differentiates that rule's ops.
The diagonal refs are plain Python loops, independent of the vectorised forwards.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def sq(f):
    """``f`` with an optional ``sq=True`` that squares each output (see the module docstring)."""

    def fn(*args, sq=False, **kwargs):
        out = f(*args, **kwargs)
        if not sq:
            return out
        return [o * o for o in out] if isinstance(out, list) else out * out

    return fn


def sample(name, sample_name, shapes, gen=None, **kwargs):
    gen = gen or uniform()
    return make_sample(name, sample_name, (gen,) * len(shapes), shapes, kwargs=kwargs)


def csample(name, sample_name, shapes, **kwargs):
    return complex_sample(name, sample_name, [(uniform(), uniform(-1, 1), s) for s in shapes], kwargs)


# --- concat, split

op("ConcatV2", sq(lambda *xs, axis: tf.concat(list(xs), axis)), sq(lambda *xs, axis: np.concatenate(xs, axis)), [
    sample("ConcatV2", "two_axis0", ((2, 3), (1, 3)), axis=0),
    sample("ConcatV2", "three_axis1", ((2, 1), (2, 3), (2, 2)), axis=1),
    sample("ConcatV2", "axis_neg1_3d", ((2, 1, 2), (2, 1, 3)), axis=-1),
    sample("ConcatV2", "squared", ((2, 3), (2, 2)), axis=1, sq=True),
], True, complex_samples=[csample("ConcatV2", "complex", ((2, 3), (1, 3)), axis=0)])


def _split(x, n, axis=0, pick=None):
    outs = tf.split(x, n, axis)
    if isinstance(pick, int):
        return outs[pick]  # one tensor (complex samples need one)
    return outs if pick is None else [outs[i] for i in pick]


def _np_split(x, n, axis=0, pick=None):
    if not isinstance(n, int):
        n = [x.shape[axis] - sum(s for s in n if s != -1) if s == -1 else s for s in n]
        n = list(np.cumsum(n)[:-1])
    outs = [a.copy() for a in np.split(x, n, axis)]
    if isinstance(pick, int):
        return outs[pick]
    return outs if pick is None else [outs[i] for i in pick]


op("Split", sq(_split), sq(_np_split), [
    sample("Split", "two_axis1", ((3, 4),), n=2, axis=1),
    sample("Split", "three_axis0", ((3, 2),), n=3),
    sample("Split", "some_outputs_unused", ((2, 6),), n=3, axis=-1, pick=[2]),
    sample("Split", "squared", ((4, 2),), n=2, sq=True),
], True, complex_samples=[csample("Split", "complex", ((2, 4),), n=2, axis=1, pick=1)])
op("SplitV", sq(_split), sq(_np_split), [
    sample("SplitV", "sizes", ((3, 4),), n=[1, 3], axis=1),
    sample("SplitV", "minus_one", ((5, 2),), n=[2, -1, 1]),
    sample("SplitV", "empty_piece_unused", ((2, 4),), n=[1, 0, 3], axis=1, pick=[2, 1]),
    sample("SplitV", "squared", ((2, 5),), n=[3, 2], axis=-1, sq=True),
], True, complex_samples=[csample("SplitV", "complex", ((2, 4),), n=[3, -1], axis=1, pick=0)])

# --- squeeze, expand_dims, tile

op("Squeeze", sq(lambda x, axis=None: tf.squeeze(x, axis)),
   sq(lambda x, axis=None: np.squeeze(x, np_axis(axis)).copy()), [
    sample("Squeeze", "all", ((1, 3, 1),)),
    sample("Squeeze", "axis", ((1, 2, 1),), axis=[-1]),
    sample("Squeeze", "squared", ((2, 1),), axis=1, sq=True),
], True)
op("ExpandDims", sq(lambda x, axis: tf.expand_dims(x, axis)), sq(lambda x, axis: np.expand_dims(x, axis).copy()), [
    sample("ExpandDims", "front", ((2, 3),), axis=0),
    sample("ExpandDims", "back", ((2, 3),), axis=-1),
    sample("ExpandDims", "scalar", ((),), axis=0),
    sample("ExpandDims", "squared", ((3,),), axis=1, sq=True),
], True)
op("Tile", sq(lambda x, multiples: tf.tile(x, multiples)), sq(lambda x, multiples: np.tile(x, multiples)), [
    sample("Tile", "rows", ((2, 3),), multiples=[2, 1]),
    sample("Tile", "both", ((2, 2),), multiples=[2, 3]),
    sample("Tile", "vector", ((3,),), multiples=[3]),
    sample("Tile", "squared", ((1, 2),), multiples=[3, 2], sq=True),
], True, complex_samples=[csample("Tile", "complex", ((2, 1),), multiples=[2, 3])])

# --- pad, slice


def _np_pad(x, paddings, mode="CONSTANT", constant_values=0):
    if mode == "CONSTANT":
        return np.pad(x, paddings, constant_values=constant_values)
    return np.pad(x, paddings, mode=mode.lower())


_pad = sq(lambda x, paddings, mode="CONSTANT", constant_values=0: tf.pad(x, paddings, mode, constant_values))
op("Pad", _pad, sq(_np_pad), [
    sample("Pad", "matrix", ((2, 3),), paddings=[[1, 0], [2, 1]]),
    sample("Pad", "vector", ((3,),), paddings=[[0, 2]]),
    sample("Pad", "squared", ((2, 2),), paddings=[[1, 1], [0, 1]], sq=True),
], True, complex_samples=[csample("Pad", "complex", ((2, 2),), paddings=[[1, 0], [0, 2]])])
op("PadV2", _pad, sq(_np_pad), [
    sample("PadV2", "matrix", ((2, 3),), paddings=[[1, 0], [2, 1]], constant_values=1.5),
    sample("PadV2", "squared", ((2, 2),), paddings=[[1, 1], [0, 1]], constant_values=-2.0, sq=True),
], True, complex_samples=[csample("PadV2", "complex", ((2, 2),), paddings=[[1, 0], [0, 2]], constant_values=3.0)],
   note="the padding value is a static kwarg: TF gives it no gradient (None), see the golden cases")
_MIRROR = (("reflect", (3, 4), [[1, 2], [3, 0]], "REFLECT"), ("symmetric", (3, 4), [[3, 1], [2, 4]], "SYMMETRIC"),
           ("reflect_3d", (2, 3, 3), [[1, 0], [2, 2], [0, 1]], "REFLECT"),
           ("symmetric_vector", (3,), [[2, 3]], "SYMMETRIC"))
op("MirrorPad", _pad, sq(_np_pad),
   [sample("MirrorPad", n, (shape,), paddings=p, mode=m) for n, shape, p, m in _MIRROR] +
   [sample("MirrorPad", "squared", ((3, 3),), paddings=[[2, 1], [1, 2]], mode="REFLECT", sq=True)], True,
   complex_samples=[csample("MirrorPad", "complex", ((2, 3),), paddings=[[2, 1], [2, 0]], mode="SYMMETRIC")])


def _fold_ref(u, shape, paddings, mode):
    """MirrorPad's adjoint by brute force: pad an index map and scatter ``u`` back with np.add.at."""
    ids = np.arange(int(np.prod(shape))).reshape(shape)
    where = np.pad(ids, paddings, mode=mode.lower())
    out = np.zeros(int(np.prod(shape)), u.dtype)
    np.add.at(out, where.reshape(-1), u.reshape(-1))
    return out.reshape(shape)


def _padded(shape, p):
    return tuple(d + a + b for d, (a, b) in zip(shape, p))


op("MirrorPadGrad", lambda u, shape, paddings, mode: vjp(lambda t: tf.pad(t, paddings, mode), tf.zeros(shape, u.dtype),
                                                          u),
   _fold_ref, [make_sample("MirrorPadGrad", n, (uniform(),), (_padded(shape, p),),
                           kwargs={"shape": shape, "paddings": p, "mode": m}) for n, shape, p, m in _MIRROR], True,
   covered_by="MirrorPad", covered_rule=False,
   note="MirrorPad's gradient op (the mirrored borders folded back); MirrorPad is linear, so only this entry's own "
        "tests (u watched) run its rule, which is MirrorPad")
op("Slice", sq(lambda x, begin, size: tf.slice(x, begin, size)),
   sq(lambda x, begin, size: x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))].copy()), [
    sample("Slice", "block", ((3, 4),), begin=[1, 1], size=[2, 2]),
    sample("Slice", "to_end", ((3, 4),), begin=[0, 2], size=[-1, -1]),
    sample("Slice", "vector", ((5,),), begin=[1], size=[3]),
    sample("Slice", "squared", ((3, 3),), begin=[1, 0], size=[2, -1], sq=True),
], True, complex_samples=[csample("Slice", "complex", ((3, 4),), begin=[1, 1], size=[2, 2])])

# --- reverse, roll

op("ReverseV2", sq(lambda x, axis: tf.reverse(x, axis)), sq(lambda x, axis: np.flip(x, axis).copy()), [
    sample("ReverseV2", "axis0", ((2, 3),), axis=[0]),
    sample("ReverseV2", "both", ((2, 3),), axis=[1, -2]),
    sample("ReverseV2", "none", ((3,),), axis=[]),
    sample("ReverseV2", "squared", ((2, 2),), axis=[1], sq=True),
], True)
op("Roll", sq(lambda x, shift, axis: tf.roll(x, shift, axis)), sq(lambda x, shift, axis: np.roll(x, shift, axis)), [
    sample("Roll", "one_axis", ((2, 4),), shift=1, axis=1),
    sample("Roll", "two_axes", ((3, 4),), shift=[-1, 2], axis=[0, 1]),
    sample("Roll", "repeated_axis", ((5,),), shift=[2, 4], axis=[0, 0]),
    sample("Roll", "squared", ((2, 3),), shift=-4, axis=-1, sq=True),
], True)

# --- one_hot, linspace


def _np_one_hot(x, indices, depth, axis=-1):
    hot = np.expand_dims(np.asarray(indices), -1) == np.arange(depth)
    return np.where(np.moveaxis(hot, -1, axis), x, -x)


op("OneHot", lambda x, indices, depth, axis=-1: tf.one_hot(indices, depth, on_value=x, off_value=-x, axis=axis),
   _np_one_hot, [
       sample("OneHot", "vector", ((),), indices=[0, 2, -1, 3], depth=3),
       sample("OneHot", "matrix_axis0", ((),), indices=[[1, 0], [2, 2]], depth=3, axis=0),
   ], False, note="on_value and off_value come from the watched scalar: the output still has no gradient")


def _np_linspace(a, b, num, axis=0):
    return np.linspace(a, b, num, axis=axis)


op("LinSpace", sq(lambda a, b, num, axis=0: tf.linspace(a, b, num, axis=axis)), sq(_np_linspace), [
    sample("LinSpace", "scalars", ((), ()), num=5),
    sample("LinSpace", "vectors_axis0", ((2,), (2,)), num=4),
    sample("LinSpace", "broadcast_last_axis", ((2, 1), (3,)), num=3, axis=-1),
    sample("LinSpace", "single", ((), ()), num=1),
    sample("LinSpace", "two", ((2,), ()), num=2, axis=1),
    sample("LinSpace", "squared", ((2,), (2,)), num=5, axis=1, sq=True),
], True, note="tf.linspace is differentiable in start and stop (TF's composite is); TF's own LinSpace op is not")

# --- diagonals (refs by plain loops)


def _diags(rows, cols, k, align):
    """``[(d, [(r, c, pos) ...]) ...]`` for diagonals high..low, ``pos`` the slot in a row of the packed form."""
    lo, hi = (k, k) if isinstance(k, int) else k
    sup_left, sub_left = (a == "LEFT" for a in align.split("_"))
    max_len = max(min(rows + min(hi, 0), cols - max(lo, 0)), 0)
    out = []
    for d in range(hi, lo - 1, -1):
        cells = [(r, r + d) for r in range(rows) if 0 <= r + d < cols]
        left = (d >= 0 and sup_left) or (d <= 0 and sub_left)
        shift = 0 if left else max_len - len(cells)
        out.append((d, [(r, c, j + shift) for j, (r, c) in enumerate(cells)]))
    return out, lo == hi, max_len


def _np_diag(d, k=0, num_rows=None, num_cols=None, align="RIGHT_LEFT", padding_value=0):
    out = np.full(d.shape[:-1 if isinstance(k, int) else -2] + (num_rows, num_cols), padding_value, d.dtype)
    diags, single, _ = _diags(num_rows, num_cols, k, align)
    for i, (_, cells) in enumerate(diags):
        for r, c, j in cells:
            out[..., r, c] = d[..., j] if single else d[..., i, j]
    return out


def _np_diag_part(m, k=0, align="RIGHT_LEFT", padding_value=0):
    diags, single, max_len = _diags(m.shape[-2], m.shape[-1], k, align)
    out = np.full(m.shape[:-2] + (() if single else (len(diags),)) + (max_len,), padding_value, m.dtype)
    for i, (_, cells) in enumerate(diags):
        for r, c, j in cells:
            if single:
                out[..., j] = m[..., r, c]
            else:
                out[..., i, j] = m[..., r, c]
    return out


def _np_set_diag(m, d, k=0, align="RIGHT_LEFT"):
    out = m.copy()
    diags, single, _ = _diags(m.shape[-2], m.shape[-1], k, align)
    for i, (_, cells) in enumerate(diags):
        for r, c, j in cells:
            out[..., r, c] = d[..., j] if single else d[..., i, j]
    return out


def _diag(d, k=0, num_rows=None, num_cols=None, align="RIGHT_LEFT", padding_value=0):
    return tf.linalg.diag(d, k=k, num_rows=-1 if num_rows is None else num_rows,
                          num_cols=-1 if num_cols is None else num_cols, align=align, padding_value=padding_value)


op("MatrixDiagV3", sq(_diag), sq(_np_diag), [
    sample("MatrixDiagV3", "main", ((3,),), num_rows=3, num_cols=3),
    sample("MatrixDiagV3", "offset_wide", ((3,),), k=1, num_rows=3, num_cols=4),
    sample("MatrixDiagV3", "band_batch", ((2, 2, 3),), k=(-1, 0), num_rows=3, num_cols=3, align="LEFT_RIGHT"),
    sample("MatrixDiagV3", "band_padded", ((3, 2),), k=(-1, 1), num_rows=2, num_cols=2, padding_value=7.0),
    sample("MatrixDiagV3", "squared", ((2, 3),), k=(0, 1), num_rows=3, num_cols=4, align="LEFT_LEFT", sq=True),
], True, complex_samples=[csample("MatrixDiagV3", "complex", ((2, 3),), k=(-1, 0), num_rows=3, num_cols=3)])
op("MatrixDiagPartV3", sq(lambda m, k=0, align="RIGHT_LEFT", padding_value=0:
                          tf.linalg.diag_part(m, k=k, align=align, padding_value=padding_value)), sq(_np_diag_part), [
    sample("MatrixDiagPartV3", "main", ((3, 4),)),
    sample("MatrixDiagPartV3", "sub", ((3, 4),), k=-1),
    sample("MatrixDiagPartV3", "band_batch", ((2, 3, 3),), k=(-1, 1)),
    sample("MatrixDiagPartV3", "band_padded", ((3, 4),), k=(-2, 2), align="RIGHT_RIGHT", padding_value=5.0),
    sample("MatrixDiagPartV3", "squared", ((4, 3),), k=(0, 2), align="LEFT_RIGHT", sq=True),
], True, complex_samples=[csample("MatrixDiagPartV3", "complex", ((3, 3),), k=(-1, 1))])
op("MatrixSetDiagV3", sq(lambda m, d, k=0, align="RIGHT_LEFT": tf.linalg.set_diag(m, d, k=k, align=align)),
   sq(_np_set_diag), [
    sample("MatrixSetDiagV3", "main", ((3, 4), (3,))),
    sample("MatrixSetDiagV3", "super", ((3, 4), (3,)), k=1),
    sample("MatrixSetDiagV3", "band_batch", ((2, 3, 3), (2, 2, 3)), k=(-1, 0), align="LEFT_RIGHT"),
    sample("MatrixSetDiagV3", "squared", ((3, 3), (3, 3)), k=(-1, 1), sq=True),
], True, complex_samples=[csample("MatrixSetDiagV3", "complex", ((3, 3), (2, 3)), k=(0, 1))])


def _np_band(m, num_lower, num_upper):
    r = np.arange(m.shape[-2])[:, None]
    c = np.arange(m.shape[-1])
    keep = ((num_lower < 0) | (r - c <= num_lower)) & ((num_upper < 0) | (c - r <= num_upper))
    return np.where(keep, m, 0).astype(m.dtype)


op("MatrixBandPart", sq(lambda m, num_lower, num_upper: tf.linalg.band_part(m, num_lower, num_upper)),
   sq(_np_band), [
    sample("MatrixBandPart", "lower", ((3, 4),), num_lower=1, num_upper=0),
    sample("MatrixBandPart", "upper_all", ((3, 4),), num_lower=0, num_upper=-1),
    sample("MatrixBandPart", "batch", ((2, 3, 3),), num_lower=-1, num_upper=1),
    sample("MatrixBandPart", "squared", ((3, 3),), num_lower=1, num_upper=1, sq=True),
], True, complex_samples=[csample("MatrixBandPart", "complex", ((3, 3),), num_lower=0, num_upper=1)])
