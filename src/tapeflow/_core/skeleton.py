"""What a tape's recording looks like without its arrays: the shared input of ``debug.explain`` and ``tape_graph``.

A :class:`Skeleton` lists the recorded ops in program order as :class:`Node` tuples: the :class:`Op`, and for each
input and output its tensor id, dtype name and shape, plus the provenance pair of the user's line (``where``, see
:func:`tapeflow._core.state.line_of`). It holds no tensor and no array, so a non-persistent tape can keep one after
``gradient()`` has freed everything else.
"""

from __future__ import annotations

from typing import NamedTuple

from .equation import op_of

__all__ = ["Node", "Skeleton", "skeleton_of", "skeleton_of_tape", "NOT_KEPT"]

# A non-persistent tape whose gradient() found every gradient connected keeps no skeleton unless tapeflow.debug was
# loaded before that call (building one costs about a microsecond per record on every training step).
NOT_KEPT = ("This non-persistent GradientTape kept no recording after gradient(): every gradient was connected, and "
            "a tape keeps its recording's skeleton only when a gradient is None or tapeflow.debug was imported before "
            "the gradient() call. Import tapeflow.debug first, or use GradientTape(persistent=True).")


class Node(NamedTuple):
    """One recorded op: ``inputs`` and ``outputs`` are ``(id, dtype name, shape)`` triples."""

    op: object
    inputs: tuple
    outputs: tuple
    where: object


class Skeleton(NamedTuple):
    """A recording without arrays.

    ``roots`` are the ids the tape watched; ``variables`` maps a watched variable's id to ``(name, trainable)``;
    ``watch_accessed`` is the tape's ``watch_accessed_variables``.
    """

    nodes: list
    roots: frozenset
    variables: dict
    watch_accessed: bool


# ``np.dtype.name`` is computed in Python by NumPy (several microseconds); a non-persistent tape builds a skeleton
# on every ``gradient()``, so names are looked up once per dtype.
_DTYPE_NAMES = {}


def _info(tid, v):
    dt = v.dtype
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = dt.name
    return (tid, name, getattr(v, "shape", ()))


def skeleton_of(recording):
    """The :class:`Skeleton` of a live :class:`~tapeflow._core.recording.Recording`. A ``tf.function`` call the
    tape recorded as one equation is shown as the ops its program ran (so ``explain`` can name the op and line
    inside the function that broke a path)."""
    nodes = []
    append = nodes.append
    for eq in recording.stored():
        key, attrs, code, lasti, outputs, results = eq[:6]
        call = attrs.get("call") if attrs else None
        if call is not None and hasattr(call, "alias"):
            nodes.extend(_call_nodes(call, outputs))
            continue
        if type(outputs) is not tuple:
            outs = (_info(outputs, results),)
        else:
            outs = tuple([_info(o, v) for o, v in zip(outputs, results)])
        if len(eq) == 8:
            ins = (_info(eq[6], eq[7]),)
        else:
            ins = tuple([_info(i, v) for i, v in zip(eq[6::2], eq[7::2])])
        append(Node(op_of(key), ins, outs, None if code is None else (code, lasti)))
    variables = {vid: (v.name, bool(v.trainable)) for vid, v in recording.variables.items()}
    return Skeleton(nodes, frozenset(recording.roots), variables, recording.watch_accessed)


def _call_nodes(call, outputs):
    """The nodes of a recorded ``tf.function`` call (``compiler/recorded_call.py``): its graph's equations, the
    graph's inputs and variable reads renamed to the tensors the call took, its outputs to the call's results, and
    its inner values to ids between the call's inputs and results (a function called twice keeps two sets)."""
    graph, values = call.graph, call.values
    outs = outputs if type(outputs) is tuple else (outputs,)
    rename = dict(call.alias)
    rename.update(zip(graph.outputs, outs))
    inner = [o for n in graph.nodes if type(n) is tuple for o in (n[4] if type(n[4]) is tuple else (n[4],))]
    base = min(outs) if outs else 0
    step = 1.0 / (len(inner) + 2)
    for k, o in enumerate(inner):
        rename.setdefault(o, base - 1 + (k + 1) * step)
    nodes = []
    for n in graph.nodes:
        if type(n) is not tuple:
            continue  # variable reads are the call's inputs; assignments make no recorded call
        ids = n[6::2]
        node_outs = n[4] if type(n[4]) is tuple else (n[4],)
        if any(i not in values for i in ids) or any(o not in values for o in node_outs):
            continue
        ins = tuple([_info(rename.get(i, i), values[i]) for i in ids])
        out_info = tuple([_info(rename[o], values[o]) for o in node_outs])
        nodes.append(Node(op_of(n[0]), ins, out_info, None if n[2] is None else (n[2], n[3])))
    return nodes


def skeleton_of_tape(tape):
    """The skeleton of ``tape``: from its live recording, or the one it kept after a non-persistent ``gradient()``.

    Raises:
        ValueError: when the tape has neither (it was never entered).
    """
    if tape._tape is not None:
        return skeleton_of(tape._tape)
    kept = getattr(tape, "_skeleton", None)
    if kept is not None:
        return kept
    if getattr(tape, "_connected_ids", None) is not None:
        raise ValueError(NOT_KEPT)
    raise ValueError("This GradientTape has recorded nothing: enter it with `with tf.GradientTape() as tape:` "
                     "before asking for its recording.")
