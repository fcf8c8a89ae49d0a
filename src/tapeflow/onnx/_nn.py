"""Lowerings of convolutions and pooling (see ``_registry.py``).

TF's default layout is channels last (NHWC, NDHWC); ONNX's ``Conv`` and pools are channels first. A channels-last
op becomes a ``Transpose`` to channels first, the ONNX op, and a ``Transpose`` back (runtimes fuse the pairs that
meet between two such ops). Filters go from TF's (spatial..., in, out) to ONNX's (out, in, spatial...). Padding is
written out per side, as TF's ``SAME`` works it out for the static spatial sizes (more after than before when odd:
ONNX's ``SAME_UPPER``, used when a spatial size varies), ``EXPLICIT`` padding as given.
"""

from __future__ import annotations

from ..ops._windows import window_dim
from ._registry import Unsupported, lowers


def _channels_last(fmt):
    return fmt is None or fmt.startswith("N") and fmt.endswith("C")


def _to_first(cx, x, rank):
    return cx.add("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))


def _to_last(cx, x, rank, out):
    return cx.add("Transpose", [x], out=out, perm=[0] + list(range(2, rank)) + [1])


def _window_attrs(n, ksize, strides, dilations, spatial):
    """ONNX's ``strides``, ``dilations`` and ``pads`` (or ``auto_pad``) of a TF window op over ``spatial`` axes."""
    padding = n.attrs["padding"]
    attrs = {"strides": [int(strides[i]) for i in spatial]}
    if dilations is not None:
        attrs["dilations"] = [int(dilations[i]) for i in spatial]
    d = attrs.get("dilations", [1] * len(spatial))
    shape = n.shapes[0]
    if padding == "SAME" and any(shape[i] is None for i in spatial):
        attrs["auto_pad"] = "SAME_UPPER"  # TF's SAME puts the odd one after, as SAME_UPPER does
        return attrs
    explicit = n.get("explicit_paddings", ())
    before, after = [], []
    for k, i in enumerate(spatial):
        pair = (int(explicit[2 * i]), int(explicit[2 * i + 1])) if padding == "EXPLICIT" else None
        if pair is not None and shape[i] is None:
            before.append(pair[0]), after.append(pair[1])
            continue
        _, b, a = window_dim(n.op, shape[i], int(ksize[k]), attrs["strides"][k], d[k], padding, pair)
        before.append(b), after.append(a)
    attrs["pads"] = before + after
    return attrs


@lowers("Conv2D", "Conv3D", "DepthwiseConv2dNative")
def _conv(cx, n):
    x, f = n.ins
    rank = n.rank(0)
    fmt = n.get("data_format")
    last = _channels_last(fmt)
    spatial = list(range(1, rank - 1)) if last else list(range(2, rank))
    fshape = n.shapes[1]
    ksize = fshape[:-2]
    nd = len(ksize)
    dilations = n.get("dilations", (1,) * rank)
    attrs = _window_attrs(n, ksize, n.attrs["strides"], dilations, spatial)
    attrs["kernel_shape"] = [int(k) for k in ksize]
    cin = n.shapes[0][spatial[-1] + 1 if last else 1]
    if n.op_key == "DepthwiseConv2dNative":
        # (kh, kw, C, M) -> (kh, kw, 1, C*M): one group per input channel, its M outputs next to each other.
        f = cx.add("Reshape", [f, cx.i64(list(ksize) + [1, fshape[-2] * fshape[-1]])])
        attrs["group"] = int(fshape[-2])
    elif cin is not None and cin != fshape[-2]:
        attrs["group"] = int(cin // fshape[-2])
    elif cin is None:
        raise Unsupported("a convolution whose input channels vary")
    w = cx.add("Transpose", [f], perm=[nd + 1, nd] + list(range(nd)))
    if last:
        out = cx.add("Conv", [_to_first(cx, x, rank), w], **attrs)
        _to_last(cx, out, rank, n.outs[0])
    else:
        cx.add("Conv", [x, w], out=n.outs[0], **attrs)


@lowers("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D")
def _pool(cx, n):
    x = n.ins[0]
    rank = n.rank(0)
    last = _channels_last(n.get("data_format"))
    spatial = list(range(1, rank - 1)) if last else list(range(2, rank))
    ksize = [int(n.attrs["ksize"][i]) for i in spatial]
    attrs = _window_attrs(n, ksize, n.attrs["strides"], None, spatial)
    attrs["kernel_shape"] = ksize
    if n.op_key.startswith("AvgPool"):
        kind = "AveragePool"
        attrs["count_include_pad"] = 0  # TF's average leaves the padding out of the count
    else:
        kind = "MaxPool"
    if last:
        out = cx.add(kind, [_to_first(cx, x, rank)], **attrs)
        _to_last(cx, out, rank, n.outs[0])
    else:
        cx.add(kind, [x], out=n.outs[0], **attrs)
