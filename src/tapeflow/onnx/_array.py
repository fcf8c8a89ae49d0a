"""Lowerings of the shape and indexing ops: reshapes, transposes, concatenation and splitting, slicing, gathering,
filling and broadcasting (see ``_registry.py``).

ONNX takes shapes, axes and slice bounds as int64 tensors: a tapeflow attribute becomes an int64 initializer, a
shape the program computes (int32, as TF's ``tf.shape``) is cast to int64 where ONNX reads it.
"""

from __future__ import annotations

import numpy as np

from ._registry import Unsupported, lowers

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _as_i64(cx, name, dtype):
    return name if dtype == np.int64 else cx.add("Cast", [name], to=cx.onnx_type(np.int64))


def _fixed_axis(n, axis, what):
    """Refuse ``what`` when the size of ``axis`` of the input varies: the trace fixed it (an RNN or a Python loop
    over a ``None`` time axis is unrolled to the length the trace saw)."""
    if n.shapes[0][axis] is None:
        raise Unsupported(f"{what}: the size of that axis varies with the inputs' None dimensions, and the trace "
                          "fixed it (a Python loop or a Keras RNN over it is unrolled to the length traced); give "
                          "that dimension a fixed size in the input signature")


@lowers("Reshape", "Squeeze", "ExpandDims")
def _reshape(cx, n):
    shape = [int(d) for d in n.attrs["shape"]]
    # ONNX reads a 0 in a shape as "keep this dimension" unless allowzero says it means an empty one, as in TF.
    extra = {"allowzero": 1} if 0 in shape else {}
    cx.add("Reshape", [n.ins[0], cx.i64(shape)], out=n.outs[0], **extra)


@lowers("ReshapeToTensor")
def _reshape_to(cx, n):
    cx.add("Reshape", [n.ins[0], _as_i64(cx, n.ins[1], n.dtypes[1])], out=n.outs[0])


@lowers("ReshapeLike")
def _reshape_like(cx, n):
    cx.add("Reshape", [n.ins[0], cx.add("Shape", [n.ins[1]])], out=n.outs[0])


@lowers("SqueezeAt")
def _squeeze_at(cx, n):
    axis = n.attrs["axis"]
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    cx.add("Squeeze", [n.ins[0], cx.i64(axes)], out=n.outs[0])


@lowers("ExpandDimsAt")
def _expand_dims_at(cx, n):
    cx.add("Unsqueeze", [n.ins[0], cx.i64([int(n.attrs["axis"])])], out=n.outs[0])


@lowers("Transpose")
def _transpose(cx, n):
    cx.add("Transpose", n.ins, out=n.outs[0], perm=[int(p) for p in n.attrs["perm"]])


@lowers("ConcatV2")
def _concat(cx, n):
    cx.add("Concat", n.ins, out=n.outs[0], axis=int(n.attrs["axis"]))


@lowers("Pack")
def _pack(cx, n):
    axis = int(n.attrs["axis"])
    parts = [cx.add("Unsqueeze", [x, cx.i64([axis])]) for x in n.ins]
    cx.add("Concat", parts, out=n.outs[0], axis=axis)


@lowers("Unpack")
def _unpack(cx, n):
    axis, num = int(n.attrs["axis"]), int(n.attrs["num"])
    _fixed_axis(n, axis, f"unstacking axis {axis} into {num} tensors")
    if num == 1:
        cx.add("Squeeze", [n.ins[0], cx.i64([axis])], out=n.outs[0])
        return
    parts = cx.add("Split", [n.ins[0], cx.i64([1] * num)], n=num, axis=axis)
    for part, out in zip(parts, n.outs):
        cx.add("Squeeze", [part, cx.i64([axis])], out=out)


@lowers("Split", "SplitV")
def _split(cx, n):
    sizes = [int(s) for s in n.attrs["sizes"]]
    _fixed_axis(n, int(n.attrs["axis"]), f"splitting axis {n.attrs['axis']} into sizes {tuple(sizes)}")
    if len(sizes) == 1:
        cx.add("Identity", n.ins, out=n.outs[0])
        return
    cx.add("Split", [n.ins[0], cx.i64(sizes)], out=list(n.outs), axis=int(n.attrs["axis"]))


@lowers("Slice")
def _slice(cx, n):
    begin = [int(b) for b in n.attrs["begin"]]
    size = [int(s) for s in n.attrs["size"]]
    ends = [b + s for b, s in zip(begin, size)]
    cx.add("Slice", [n.ins[0], cx.i64(begin), cx.i64(ends)], out=n.outs[0])


@lowers("StridedSlice")
def _strided_slice(cx, n):
    index = n.attrs["index"]
    items = list(index) if isinstance(index, tuple) else [index]
    rank = n.rank(0)
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if Ellipsis in items:
        k = items.index(Ellipsis)
        items[k:k + 1] = [slice(None)] * (rank - consumed)
    else:
        items += [slice(None)] * (rank - consumed)
    starts, ends, axes, steps, dropped, added = [], [], [], [], [], []
    axis = out_axis = 0
    for it in items:
        if it is None:  # tf.newaxis: a new axis of the result
            added.append(out_axis)
            out_axis += 1
            continue
        if isinstance(it, (bool, np.bool_)) or not isinstance(it, (int, np.integer, slice)):
            raise Unsupported(f"the index item {it!r}")
        if isinstance(it, slice):
            if it != slice(None):
                step = 1 if it.step is None else int(it.step)
                if step > 0:
                    start = 0 if it.start is None else int(it.start)
                    stop = _BIG if it.stop is None else int(it.stop)
                else:
                    start = -1 if it.start is None else int(it.start)
                    stop = _SMALL if it.stop is None else int(it.stop)
                starts.append(start), ends.append(stop), axes.append(axis), steps.append(step)
            out_axis += 1
        else:
            k = int(it)
            starts.append(k), ends.append(_BIG if k == -1 else k + 1), axes.append(axis), steps.append(1)
            dropped.append(axis)
        axis += 1
    x = n.ins[0]
    last = not dropped and not added
    if axes:
        x = cx.add("Slice", [x, cx.i64(starts), cx.i64(ends), cx.i64(axes), cx.i64(steps)],
                   out=n.outs[0] if last else None)
    if dropped:
        x = cx.add("Squeeze", [x, cx.i64(dropped)], out=None if added else n.outs[0])
    if added:
        x = cx.add("Unsqueeze", [x, cx.i64(added)], out=n.outs[0])
    if not axes and not dropped and not added:
        cx.add("Identity", [x], out=n.outs[0])


@lowers("ReverseV2")
def _reverse(cx, n):
    axes = n.attrs["axis"]
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    if not axes:
        cx.add("Identity", n.ins, out=n.outs[0])
        return
    k = len(axes)
    cx.add("Slice", [n.ins[0], cx.i64([-1] * k), cx.i64([_SMALL] * k), cx.i64(axes), cx.i64([-1] * k)],
           out=n.outs[0])


@lowers("GatherV2")
def _gather(cx, n):
    if int(n.get("batch_dims", 0)) != 0:
        raise Unsupported("a gather with batch_dims")
    cx.add("Gather", n.ins, out=n.outs[0], axis=int(n.get("axis", 0)))


@lowers("GatherNd")
def _gather_nd(cx, n):
    cx.add("GatherND", [n.ins[0], _as_i64(cx, n.ins[1], n.dtypes[1])], out=n.outs[0])


@lowers("Tile")
def _tile(cx, n):
    cx.add("Tile", [n.ins[0], cx.i64([int(m) for m in n.attrs["multiples"]])], out=n.outs[0])


@lowers("Pad", "PadV2")
def _pad(cx, n):
    pads = [(int(a), int(b)) for a, b in n.attrs["paddings"]]
    flat = [a for a, _ in pads] + [b for _, b in pads]
    ins = [n.ins[0], cx.i64(flat)] + ([n.ins[1]] if n.op_key == "PadV2" else [])
    cx.add("Pad", ins, out=n.outs[0], mode="constant")


@lowers("MirrorPad")
def _mirror_pad(cx, n):
    pads = [(int(a), int(b)) for a, b in n.attrs["paddings"]]
    if n.attrs["mode"] == "REFLECT":
        flat = [a for a, _ in pads] + [b for _, b in pads]
        cx.add("Pad", [n.ins[0], cx.i64(flat)], out=n.outs[0], mode="reflect")
        return
    # SYMMETRIC (the edge repeated) has no ONNX mode: each padded axis is reversed slices of it concatenated.
    x = n.ins[0]
    todo = [(axis, a, b) for axis, (a, b) in enumerate(pads) if a or b]
    if not todo:
        cx.add("Identity", [x], out=n.outs[0])
    for k, (axis, a, b) in enumerate(todo):
        parts = [x]
        if a:
            parts.insert(0, cx.add("Slice", [x, cx.i64([a - 1]), cx.i64([_SMALL]), cx.i64([axis]), cx.i64([-1])]))
        if b:
            parts.append(cx.add("Slice", [x, cx.i64([-1]), cx.i64([-1 - b]), cx.i64([axis]), cx.i64([-1])]))
        x = cx.add("Concat", parts, axis=axis, out=n.outs[0] if k == len(todo) - 1 else None)


# ------------------------------------------------------------------------------------------ shapes and fills


@lowers("Shape")
def _shape(cx, n):
    cx.add("Cast", [cx.add("Shape", n.ins)], out=n.outs[0], to=cx.onnx_type(n.out_dtypes[0]))


@lowers("Size")
def _size(cx, n):
    cx.add("Cast", [cx.add("Size", n.ins)], out=n.outs[0], to=cx.onnx_type(n.out_dtypes[0]))


@lowers("Fill")
def _fill(cx, n):
    cx.add("Expand", [n.ins[0], cx.i64([int(d) for d in n.attrs["dims"]])], out=n.outs[0])


@lowers("FillToTensor")
def _fill_to(cx, n):
    dims, value = n.ins
    cx.add("Expand", [value, _as_i64(cx, dims, n.dtypes[0])], out=n.outs[0])


@lowers("ZerosLike", "OnesLike")
def _like(cx, n):
    value = cx.const(np.asarray(0 if n.op_key == "ZerosLike" else 1, n.dtypes[0]))
    cx.add("Expand", [value, cx.add("Shape", n.ins)], out=n.outs[0])


@lowers("BroadcastTo")
def _broadcast_to(cx, n):
    cx.add("Expand", [n.ins[0], cx.i64([int(d) for d in n.attrs["shape"]])], out=n.outs[0])


@lowers("BroadcastToTensor")
def _broadcast_to_tensor(cx, n):
    cx.add("Expand", [n.ins[0], _as_i64(cx, n.ins[1], n.dtypes[1])], out=n.outs[0])


@lowers("BroadcastLike")
def _broadcast_like(cx, n):
    cx.add("Expand", [n.ins[0], cx.add("Shape", [n.ins[1]])], out=n.outs[0])


@lowers("Range")
def _range(cx, n):
    dt = n.out_dtypes[0]
    ins = [cx.add("Cast", [x], to=cx.onnx_type(dt)) if d != dt else x for x, d in zip(n.ins, n.dtypes)]
    cx.add("Range", ins, out=n.outs[0])


@lowers("Where")
def _where_indices(cx, n):
    # tf.where(cond): the coordinates of the true entries, one row each (NonZero gives one row per axis).
    cx.add("Transpose", [cx.add("NonZero", n.ins)], out=n.outs[0], perm=[1, 0])


@lowers("OneHot")
def _one_hot(cx, n):
    indices, on, off = n.ins
    depth = int(n.attrs["depth"])
    # Runtimes implement OneHot for int64 indices and float32 or int64 values: other types are cast around it.
    indices = _as_i64(cx, indices, n.dtypes[0])
    # TF gives a negative index a row of off values; ONNX counts it from the end: make it out of range instead.
    negative = cx.add("Less", [indices, cx.const(np.asarray(0, np.int64))])
    indices = cx.add("Where", [negative, cx.const(np.asarray(depth, np.int64)), indices])
    kind = n.out_dtypes[0]
    carrier = kind if kind in (np.float32, np.int64) else np.dtype(np.float32)
    if carrier != kind:
        on, off = (cx.add("Cast", [v], to=cx.onnx_type(carrier)) for v in (on, off))
    values = cx.add("Concat", [cx.add("Unsqueeze", [v, cx.i64([0])]) for v in (off, on)], axis=0)
    out = cx.add("OneHot", [indices, cx.const(np.asarray(depth, np.int64)), values], axis=int(n.attrs["axis"]),
                 out=n.outs[0] if carrier == kind else None)
    if carrier != kind:
        cx.add("Cast", [out], out=n.outs[0], to=cx.onnx_type(kind))


@lowers("TopKV2")
def _top_k(cx, n):
    k = cx.const(np.asarray([int(n.attrs["k"])], np.int64))
    values, indices = cx.add("TopK", [n.ins[0], k], n=2, axis=-1, largest=1, sorted=1)
    cx.add("Identity", [values], out=n.outs[0])
    cx.add("Cast", [indices], out=n.outs[1], to=cx.onnx_type(n.out_dtypes[1]))
