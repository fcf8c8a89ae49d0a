"""The primitives the core itself emits, named by their registry keys, and what the op set provides the core.

The core never imports the op set (``tapeflow.ops``): the op set builds on it. Yet the backward pass accumulates
gradients (``AddV2``), sums them back to an input's shape (``Sum``, ``Reshape``), fits an output gradient
(``BroadcastTo``) and lets sparse gradients through identities and casts (``Identity``, ``Cast``); forward mode fits
tangents (``BroadcastTo``), a custom gradient links a result to its fresh output (``Identity``) and a jacobian
expands its seed (``Mul``). Those are the
primitives named here, by the keys under which ``ops`` registers them; :func:`bind` looks them up once the op set
is registered (``tapeflow.ops`` calls it last, so a missing one fails at import) and makes them attributes of this
module (``primitives.ADD``). Their attrs are the ops' own: ``Sum`` takes ``axis`` and ``keepdims``, ``Reshape``
and ``BroadcastTo`` a ``shape`` tuple, ``Cast`` a NumPy ``dtype``.

Larger pieces the core uses but that are ops-level (TF's argument handling, many primitives) are provided by the
op set as named rule sets (:func:`provide`), loaded on first use (:func:`load`): ``"jvp"`` registers the own
forward-mode rules, ``"batching"`` returns the jacobian's batched rules and the few composite functions its loop
fallback needs. Conveniences on the core's classes (tensor and variable operators, ``Variable.sparse_read`` and
the scatters, ``IndexedSlices``' densifying) are installed on them by the op set.
"""

from __future__ import annotations

from .registry import REGISTRY

__all__ = ["EMITTED", "bind", "provide", "load", "ALL_AXES"]

#: The registry key of every primitive the core emits, by the name it has here.
EMITTED = {"ADD": "AddV2", "MUL": "Mul", "SUM": "Sum", "RESHAPE": "Reshape", "BROADCAST_TO": "BroadcastTo",
           "IDENTITY": "Identity", "CAST": "Cast", "SUM_LIKE": "SumLike"}

#: ``Sum``'s attrs for a full reduction (shared, never mutated).
ALL_AXES = {"axis": None, "keepdims": False}

ADD = MUL = SUM = RESHAPE = BROADCAST_TO = IDENTITY = CAST = SUM_LIKE = None


def bind():
    """Look up every emitted primitive in the registry; raise ``ImportError`` naming any the op set lacks."""
    missing = sorted(key for key in EMITTED.values() if key not in REGISTRY)
    if missing:
        raise ImportError(f"the op set registers no primitive {', '.join(missing)}, which the core emits")
    for name, key in EMITTED.items():
        globals()[name] = REGISTRY[key]


_PROVIDERS = {}
_LOADED = {}


def provide(kind, loader):
    """Register ``loader``, a function the op set gives for the rule set ``kind``; it runs on the first
    :func:`load` of that kind, and what it returns is what every :func:`load` returns."""
    _PROVIDERS[kind] = loader


def load(kind):
    """The rule set ``kind`` from the op set (loaded the first time)."""
    try:
        return _LOADED[kind]
    except KeyError:
        pass
    try:
        loader = _PROVIDERS[kind]
    except KeyError:
        raise ImportError(f"the op set provides no {kind!r} rules; import tapeflow.ops first") from None
    result = _LOADED[kind] = loader()
    return result
