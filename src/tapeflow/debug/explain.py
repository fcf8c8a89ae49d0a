"""``tapeflow.debug.explain``: why a gradient is ``None``, with the line of code where the path broke.

TensorFlow answers a broken gradient path with a bare ``None``. :func:`explain` names the cause::

    with tf.GradientTape() as tape:
        y = tf.constant(x.numpy()) * 2.0    # line 12
    tape.gradient(y, x)                     # None
    why = tapeflow.debug.explain(tape, y, x)
    why.cause   # 'left_tape'
    why.where   # 'train.py:12'
    print(why)  # what happened and how to fix it

It reads two things: the tape's recording without its arrays (a :class:`~tapeflow._core.skeleton.Skeleton`, which a
non-persistent tape keeps after ``gradient()``), and the provenance log (``tapeflow/_core/provenance.py``) of ops no
tape recorded, variable reads and assignments, and values that left for NumPy or Python. From the target it walks
back through both until it meets the source, then names the first link of that path through which gradient cannot
flow. Causes, in :data:`CAUSES`:

``connected``
    the gradient is not ``None``.
``not_watched``
    the source is a constant tensor the tape never watched.
``not_trainable``
    the source is a variable created with ``trainable=False`` (and not watched explicitly).
``watch_disabled``
    the tape has ``watch_accessed_variables=False`` and the variable was not watched explicitly.
``integer_dtype``
    the source, or a value on the path, is an integer or bool (where it was created or cast).
``left_tape``
    a value computed from the source went to NumPy or Python (``.numpy()``, ``np.asarray``, ``float()``...) and came
    back as a constant (where it left).
``outside_tape``
    an op on the path ran while the tape was not recording: before its block, after it, or inside
    ``stop_recording()`` (where it ran).
``stop_gradient``
    the path goes through ``tf.stop_gradient`` (where).
``non_differentiable``
    the path goes through an op without a gradient (``argmax``, ``round``, ``one_hot``, a comparison...) (where).
``not_a_variable``
    the source is a tensor computed from a variable, as after ``w = w - lr * g`` (where it was made).
``assigned``
    the value reaches the target only through ``Variable.assign*`` (where).
``unused``
    the source takes no part in computing the target.
``custom_gradient``
    the path goes through a ``tf.custom_gradient`` function whose ``grad_fn`` returned ``None`` for that input
    (where it was called).

With capture off (``tapeflow.debug.provenance(False)``), or once the bounded log has moved past the ops in question,
the causes that need history (``outside_tape``, ``left_tape``, ``not_a_variable``, ``assigned``) degrade to
``unused`` or ``not_watched``; the causes read from the recording itself stay exact.
"""

from __future__ import annotations

from collections import deque

from .._core import nest, observers, provenance
from .._core.skeleton import skeleton_of, skeleton_of_tape
from .._core.state import EVERYWHERE, line_of, user_frame

__all__ = ["Explanation", "explain", "explain_none_gradients", "provenance_capture", "CAUSES"]


CAUSES = ("connected", "not_watched", "not_trainable", "watch_disabled", "integer_dtype", "left_tape", "outside_tape",
          "stop_gradient", "non_differentiable", "not_a_variable", "assigned", "unused", "custom_gradient")

_TRAINABLE = frozenset({"float16", "bfloat16", "float32", "float64", "complex64", "complex128"})
_MARKERS = (provenance.READ, provenance.CONST, provenance.VARIABLE)


class Explanation:
    """Why the gradient of a target with respect to a source is (or is not) ``None``.

    Attributes:
        cause: one of :data:`CAUSES`.
        where: ``"file:line"`` of the user's code where the path broke, or ``None`` where no line applies.
        path: the op names on the path found from the source toward the target (empty when there is none).

    ``str()`` gives one or two sentences that name the problem and the fix.
    """

    __slots__ = ("cause", "where", "path", "_text")

    def __init__(self, cause, where, text, path=()):
        self.cause = cause
        self.where = where
        self.path = tuple(path)
        self._text = text

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"Explanation(cause={self.cause!r}, where={self.where!r})"

    def __eq__(self, other):
        if isinstance(other, str):
            return self.cause == other  # ``explain(...) == "connected"`` reads naturally in tests and asserts
        return NotImplemented

    __hash__ = None


# ------------------------------------------------------------------------------------------ public API


def explain(tape, target, source):
    """Explain the gradient of ``target`` with respect to ``source`` on ``tape``.

    Works on a live tape, a persistent tape, and a non-persistent tape after its ``gradient()`` call.

    Args:
        tape: the :class:`tapeflow.GradientTape`.
        target: the tensor (or variable, or nested structure of them) that was differentiated.
        source: one tensor or variable.

    Returns:
        An :class:`Explanation` (``.cause``, ``.where``, ``str()``).

    Raises:
        TypeError: when ``source`` is not a single tensor or variable.
        ValueError: when the tape was never entered.
    """
    if not _is_value(source):
        raise TypeError(f"explain() takes one tensor or variable as its source, not {type(source).__name__}.")
    targets = [t for t in nest.flatten(target) if _is_value(t)]
    if tape._tape is None and getattr(tape, "_skeleton", None) is None:
        ids = getattr(tape, "_connected_ids", None)
        if ids is not None and source._id in ids[1] and tuple(t._id for t in targets) == ids[0]:
            return Explanation("connected", None, f"The gradient with respect to {_describe(source)} is connected "
                               "(this tape's gradient() call found every gradient connected).")
    analysis = _Analysis(tape, skeleton_of_tape(tape), targets)
    results = getattr(tape, "_gradient_results", None)  # which gradients the tape's gradient() call returned
    if results is not None and list(results[0]) == analysis.target_ids:
        analysis.kept = results
    return analysis.explain(source)


class _Switch:
    """The previous setting of a global switch, restored when used as a context manager."""

    __slots__ = ("_restore", "_previous")

    def __init__(self, restore, previous):
        self._restore, self._previous = restore, previous

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._restore(self._previous)


def explain_none_gradients(enable=True):
    """Make every ``None`` that ``GradientTape.gradient`` returns log its explanation as a warning.

    Takes effect at once; used as a context manager (``with explain_none_gradients():``) it also restores the
    previous setting on exit. Warnings go to the ``tensorflow`` logger (``WARNING:tensorflow:...``).
    """
    return _Switch(_set_warn_none, _set_warn_none(enable))


def _set_warn_none(flag):
    """Make the explaining listener hear every thread's gradient() calls, or stop it; returns the previous setting."""
    previous = _WARNER in EVERYWHERE
    if flag:
        observers.listen(_WARNER, everywhere=True)
    else:
        observers.unlisten(_WARNER, everywhere=True)
    return previous


def provenance_capture(enable=True, size=None):
    """Turn the provenance log behind :func:`explain` on or off (on by default); also a context manager.

    Off saves about a microsecond per op no tape records; ``explain`` then still answers from the tape's own
    recording, but the causes that need history (``outside_tape``, ``left_tape``, ``not_a_variable``, ``assigned``)
    cannot be told. ``size`` (a power of two, 4096 by default) is how many of the latest tensor ids the log covers:
    raise it when a forward pass makes more tensors than that between the op in question and ``explain``.
    """
    if size is not None:
        provenance.resize(size, provenance.EVENT_SIZE)
    return _Switch(provenance.set_enabled, provenance.set_enabled(enable))


class _SkeletonKeeper:
    """A listener of the hook (``_core/observers.py``) while this module is loaded: a program that debugs keeps
    each non-persistent tape's skeleton after every gradient(), not only after one that returned a ``None`` (a
    training loop that never loads the debugging tools does not pay for it)."""

    __slots__ = ()
    user_code_only = True  # a gradient() that a gradient rule runs is no user's call

    @staticmethod
    def gradients_returned(tape, targets, sources, grads):
        if tape._persistent or getattr(tape, "_skeleton", None) is not None or tape._tape is None:
            return
        ids = getattr(tape, "_connected_ids", None)
        if ids is not None:  # gradient() found every gradient connected and kept only the ids
            tape._skeleton = skeleton_of(tape._tape)
            tape._gradient_results = (ids[0], dict.fromkeys(ids[1], True))


class _NoneWarner:
    """The listener behind :func:`explain_none_gradients`: logs why each ``None`` a gradient() returns is ``None``."""

    __slots__ = ()
    user_code_only = True

    @staticmethod
    def gradients_returned(tape, targets, sources, grads):
        for g in grads:
            if g is None:
                warn_none_gradients(tape, skeleton_of(tape._tape) if tape._tape is not None else tape._skeleton,
                                    targets, sources, grads)
                return


_KEEPER = _SkeletonKeeper()
_WARNER = _NoneWarner()
observers.listen(_KEEPER, everywhere=True)


def warn_none_gradients(tape, recording_skeleton, targets, sources, grads):
    """Log the explanation of each ``None`` in ``grads`` (in explain mode, :func:`explain_none_gradients`)."""
    from .._core.logs import get_logger

    analysis = _Analysis(tape, recording_skeleton, [t for t in targets if _is_value(t)])
    analysis.kept = (analysis.target_ids, {s._id: g is not None for s, g in zip(sources, grads)})
    call = line_of(user_frame(3))
    for source, g in zip(sources, grads):
        if g is None:
            why = analysis.explain(source)
            get_logger().warning(f"tape.gradient() at {call} returned None for {_describe(source)}: {why} "
                                 f"[cause: {why.cause}]")


# ------------------------------------------------------------------------------------------ analysis


def _is_value(x):
    return getattr(x, "_tapeflow_variable", False) or (hasattr(x, "_value") and hasattr(x, "_id"))


def _describe(x):
    if getattr(x, "_tapeflow_variable", False):
        return f"variable '{x.name}'"
    v = x._value
    return f"the {v.dtype.name} tensor of shape {tuple(getattr(v, 'shape', ()))}"


def _is_op(op):
    return op is not None and not isinstance(op, str)


def _op_name(op):
    return getattr(op, "name", str(op))


class _Analysis:
    """One recording and the provenance log, indexed once for any number of sources."""

    def __init__(self, tape, skeleton, targets):
        self.skel = skeleton
        self.target_ids = [t._id for t in targets]
        self.node_of = {}
        for node in skeleton.nodes:
            for out in node.outputs:
                self.node_of[out[0]] = node
        self.first_id = min(self.node_of) if self.node_of else None
        self.last_id = max(self.node_of) if self.node_of else None
        events = provenance.events()
        self.assigns = {}
        self.leaves = []
        for ev in events:
            if ev[1] == provenance.ASSIGN:
                if ev[3] is not None:
                    self.assigns.setdefault(ev[2], []).append(ev)
            else:
                self.leaves.append(ev)
        self.kept = None  # (target ids, {source id: gradient is not None}) when the gradient's results are known
        self._children = None

    # --- entry point ---------------------------------------------------------------------------------------
    def explain(self, source):
        sid = source._id
        is_var = getattr(source, "_tapeflow_variable", False)
        dtype = source._value.dtype.name
        who = _describe(source)
        skel = self.skel
        tracked = sid in skel.roots or sid in self.node_of

        if tracked and self._connected(sid):
            n = sum(1 for _ in self._recorded_path(sid))
            return Explanation("connected", None, f"The gradient with respect to {who} is connected: the tape "
                               f"recorded a differentiable path of {n} op(s) from it to the target.")
        if dtype not in _TRAINABLE:
            where = self._created_where(sid)
            return Explanation("integer_dtype", where, f"{_cap(who)} is of dtype {dtype}{_at(where)}, and gradients "
                               "flow only through floating-point and complex values. Create it as a float (e.g. "
                               "dtype=tf.float32), and cast to an integer only after the differentiable part.")
        if is_var and not tracked:
            if not source.trainable:
                where = self._created_where(sid)
                return Explanation("not_trainable", where, f"{_cap(who)} was created with trainable=False{_at(where)}, "
                                   "and tapes watch only trainable variables automatically. Call tape.watch() on it "
                                   "inside the with block, or create it with trainable=True.")
            if not skel.watch_accessed:
                return Explanation("watch_disabled", None, f"The tape was created with watch_accessed_variables=False, "
                                   f"so reading {who} did not watch it. Call tape.watch() on it inside the with "
                                   "block, or leave watch_accessed_variables at its default (True).")
        if not is_var and not tracked:
            made = self._made_from_variable(sid)
            if made is not None:
                var_name, where = made
                return Explanation("not_a_variable", where, f"{_cap(who)} is a new Tensor computed from {var_name}"
                                   f"{_at(where)} (as `w = w - lr * g` makes), not the Variable itself, so the tape "
                                   "did not watch it. Update variables in place with assign_sub()/assign() and ask "
                                   "for the gradient with respect to the Variable.")
        path, ancestors = self._find_path(sid)
        if not tracked and not is_var:
            if path is not None or self._left(sid, ancestors) is not None:
                return Explanation("not_watched", None, f"{_cap(who)} is a constant the tape never watched, so "
                                   "nothing computed from it was recorded. Call tape.watch() on it inside the with "
                                   "block before using it, or make it a tf.Variable.", _names(path))
            return self._unused(who)
        if path is not None:
            return self._first_break(path, who)
        left = self._left(sid, ancestors)
        if left is not None:
            where = line_of(left[4])
            return Explanation("left_tape", where, f"A value computed from {who} left the tape{_at(where)} "
                               f"(through {left[5]}) and came back as a constant, which cut the path to the target. "
                               "Keep the computation in tensor operations until the target is computed.")
        return self._unused(who)

    def _unused(self, who):
        text = (f"{_cap(who)} takes no part in computing the target. Check that the target is computed from it, or "
                "ask for the gradient with respect to the value it uses.")
        if not provenance.enabled():
            text += (" (Provenance capture is off, so ops that ran outside the tape are unknown: the path may also "
                     "have run before or after the tape's block.)")
        return Explanation("unused", None, text)

    # --- the recording ---------------------------------------------------------------------------------------
    def _connected(self, sid):
        if self.kept is not None and sid in self.kept[1]:
            return self.kept[1][sid]
        reach = {sid}
        for node in self.skel.nodes:
            if _passes(node.op) and any(i[0] in reach for i in node.inputs):
                for oid, dt, _shape in node.outputs:
                    if dt in _TRAINABLE:
                        reach.add(oid)
        return any(t in reach for t in self.target_ids)

    def _recorded_path(self, sid):
        reach = {sid}
        for node in self.skel.nodes:
            if _passes(node.op) and any(i[0] in reach for i in node.inputs):
                reach.update(o[0] for o in node.outputs)
                yield node

    # --- the global graph ------------------------------------------------------------------------------------
    def _parents(self, cid, bound):
        """``(edge, parent ids)`` pairs for the value ``cid``; ``bound``: only assignments before this id."""
        node = self.node_of.get(cid)
        if node is not None:
            yield ("recorded", node), [i[0] for i in node.inputs]
        else:
            entry = provenance.producer(cid)
            if entry is not None and entry[1] is not provenance.CONST and entry[1] is not provenance.VARIABLE:
                yield (("read", entry) if entry[1] is provenance.READ else ("op", entry)), list(entry[2])
        for ev in self.assigns.get(cid, ()):
            if ev[0] < bound:
                yield ("assign", ev), [ev[3]]

    def _find_path(self, sid):
        """The shortest path of edges from ``sid`` to a target (or None), and every ancestor of the targets seen."""
        via = {}
        bound = {t: float("inf") for t in self.target_ids}
        queue = deque(self.target_ids)
        seen = set(self.target_ids)
        found = sid in seen
        while queue and not found:
            cid = queue.popleft()
            for edge, parents in self._parents(cid, bound[cid]):
                for p in parents:
                    if p in seen:
                        continue
                    seen.add(p)
                    via[p] = (edge, cid)
                    bound[p] = cid if edge[0] in ("read", "recorded") else bound[cid]
                    if p == sid:
                        found = True
                        break
                    queue.append(p)
                if found:
                    break
        if not found:
            return None, seen
        path, cur = [], sid
        while cur in via:
            edge, cur = via[cur]
            path.append(edge)
        return path, seen

    def _first_break(self, path, who):
        """Name the first link of ``path`` (source to target) through which no gradient flows."""
        for k, (kind, info) in enumerate(path):
            if kind == "recorded":
                op, where = info.op, line_of(info.where)
                name = _op_name(op)
                if name == "StopGradient":
                    return Explanation("stop_gradient", where, f"tf.stop_gradient{_at(where)} blocks the gradient "
                                       f"from {who} to the target. Remove it if the gradient should flow there.",
                                       _names(path))
                if not _passes(op):
                    return Explanation("non_differentiable", where, f"{name}{_at(where)} is not differentiable (it "
                                       f"has no gradient), and the path from {who} to the target goes through it. "
                                       "Use a differentiable alternative (softmax for argmax, a smooth function for "
                                       "round or a comparison), or compute the target without it.", _names(path))
                out = info.outputs[0] if len(info.outputs) == 1 else None
                if out is not None and out[1] not in _TRAINABLE:
                    return Explanation("integer_dtype", where, f"{name}{_at(where)} turns the value computed from "
                                       f"{who} into {out[1]}, and gradients flow only through floating-point and "
                                       "complex values. Keep the path in a float dtype.", _names(path))
            elif kind in ("op", "read"):
                # A read keeps no line: the op that used the value read carries it (and names the break).
                used = info if kind == "op" else _next_op(path, k)
                where = line_of(used[3]) if used is not None else None
                name = _op_name(used[1]) if used is not None else "A variable read"
                return Explanation("outside_tape", where, f"{name}{_at(where)} ran while the tape was not "
                                   f"recording ({self._when(info[0])}), so the path from {who} to the target was not "
                                   "recorded. Move that computation inside the tape's with block.", _names(path))
            elif kind == "assign":
                where = line_of(info[4])
                return Explanation("assigned", where, f"The value computed from {who} reaches the target only "
                                   f"through Variable.{info[5]}(){_at(where)}, and assignments are not "
                                   "differentiable. Use the computed tensor directly instead of storing it in a "
                                   "variable inside the tape.", _names(path))
        # Every link passes, yet the gradient is None: a gradient rule gave no gradient for this input.
        for kind, info in path:
            name = _op_name(info.op) if kind == "recorded" else ""
            if name.startswith("CustomGradient("):
                where = line_of(info.where)
                return Explanation("custom_gradient", where, f"The custom-gradient function {name[15:-1]}{_at(where)} "
                                   f"is on the path from {who} to the target, and its grad_fn returned None for that "
                                   "input. Return a gradient for it from grad_fn (zeros if it has no influence).",
                                   _names(path))
        where = _edge_where(path[0]) if path else None
        return Explanation("non_differentiable", where, f"The ops from {who} to the target are differentiable, but a "
                           "gradient rule on the path gives no gradient for this input (as tf.gather does for its "
                           "indices).", _names(path))

    def _when(self, oid):
        if self.first_id is None or oid < self.first_id:
            return "before the tape recorded anything"
        if oid > self.last_id:
            return "after the tape's last recorded op"
        return "inside stop_recording(), or before the source was watched"

    # --- provenance-only questions ---------------------------------------------------------------------------
    def _created_where(self, vid):
        node = self.node_of.get(vid)
        if node is not None:
            return line_of(node.where)
        entry = provenance.producer(vid)
        return line_of(entry[3]) if entry is not None else None

    def _made_from_variable(self, sid):
        """``(variable description, "file:line")`` when ``sid`` was computed from a variable read."""
        entry = provenance.producer(sid)
        if entry is None or not _is_op(entry[1]) and entry[1] is not provenance.READ:
            return None
        where = line_of(entry[3])
        queue, seen = deque([entry]), {sid}
        while queue and len(seen) < 10000:
            e = queue.popleft()
            if e[1] is provenance.READ:
                return _variable_name(e[2][0], self.skel), where
            for i in e[2]:
                if i not in seen:
                    seen.add(i)
                    parent = provenance.producer(i)
                    if parent is not None and (_is_op(parent[1]) or parent[1] is provenance.READ):
                        queue.append(parent)
        return None

    def _descendants(self, sid):
        if self._children is None:
            children = {}
            for node in self.skel.nodes:
                outs = [o[0] for o in node.outputs]
                for i in node.inputs:
                    children.setdefault(i[0], []).extend(outs)
            for entry in provenance.TABLE:
                if entry is not None and entry[1] is not provenance.CONST and entry[1] is not provenance.VARIABLE:
                    for i in entry[2]:
                        children.setdefault(i, []).append(entry[0])
            for vid, evs in self.assigns.items():
                for ev in evs:
                    children.setdefault(ev[3], []).append(vid)
            self._children = children
        seen, stack = {sid}, [sid]
        while stack:
            for c in self._children.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen

    def _left(self, sid, ancestors):
        """The latest event where a value computed from ``sid`` left for NumPy/Python before a constant that the
        target was computed from was made; None when there is none."""
        if not self.leaves:
            return None
        fresh = [a for a in ancestors if self._is_leaf(a)]
        if not fresh:
            return None
        newest = max(fresh)
        desc = self._descendants(sid)
        best = None
        for ev in self.leaves:
            if ev[2] in desc and ev[0] < newest and (best is None or ev[0] > best[0]):
                best = ev
        return best

    def _is_leaf(self, i):
        if i in self.node_of:
            return False
        entry = provenance.producer(i)
        return entry is None or entry[1] is provenance.CONST


def _variable_name(vid, skel):
    info = skel.variables.get(vid)
    if info is None:
        entry = provenance.producer(vid)
        info = (entry[4],) if entry is not None and entry[1] is provenance.VARIABLE else None
    return f"variable '{info[0]}'" if info is not None else "a Variable"


def _passes(op):
    return getattr(op, "vjp", None) is not None


def _next_op(path, k):
    """The provenance entry of the unrecorded op right after link ``k`` of ``path`` (None when it is not one)."""
    if k + 1 < len(path) and path[k + 1][0] == "op":
        return path[k + 1][1]
    return None


def _edge_where(edge):
    if edge is None:
        return None
    kind, info = edge
    if kind == "recorded":
        return line_of(info.where)
    if kind == "op":
        return line_of(info[3])
    if kind == "assign":
        return line_of(info[4])
    return None


def _names(path):
    if not path:
        return ()
    out = []
    for kind, info in path:
        if kind == "recorded":
            out.append(_op_name(info.op))
        elif kind == "op":
            out.append(_op_name(info[1]))
        elif kind == "read":
            out.append("ReadVariableOp")
        else:
            out.append(f"Variable.{info[5]}")
    return out


def _at(where):
    return f" at {where}" if where else ""


def _cap(text):
    return text[:1].upper() + text[1:]

