"""``tf.GradientTape``: record operations in a ``with`` block, then differentiate them.

The tape object is a thin state machine over a :class:`~tapeflow._core.recording.Recording` (what was recorded)
that it pushes on and pops off this thread's stack of active tapes. Its rules (re-entering, ``stop_recording``,
``reset``, one ``gradient`` call for non-persistent tapes, calling ``gradient`` inside the block) follow
TensorFlow 2.21's ``backprop.GradientTape`` state for state, error for error.
"""

from __future__ import annotations

import enum
import functools
import operator

from . import nest
from .backprop import backward
from .dtypes import is_trainable
from .logs import log_first_n
from .recording import Recording
from .skeleton import skeleton_of
from .state import STATE, line_of, user_frame
from .tensor import EagerTensor, Tensor, convert_to_tensor, zeros_like_value
from .variable import ResourceVariable

__all__ = ["GradientTape", "UnconnectedGradients"]

# The types of sources and targets that need no check (see ``_flat_differentiable``).
_PLAIN = frozenset((EagerTensor, ResourceVariable))


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on: ``None`` or zeros."""

    NONE = "none"
    ZERO = "zero"


_ONE_USE = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
_PERSISTENT_INSIDE = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than "
    "calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased "
    "CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the "
    "gradient in order to compute higher order derivatives.")


def _is_variable(x):
    return getattr(x, "_tapeflow_variable", False)


def _watchable(obj):
    """The tensors and variables in a (nested) structure; anything else is TF's ValueError."""
    for t in nest.flatten(obj):
        if isinstance(t, Tensor) or _is_variable(t):
            yield t
        elif getattr(t, "_tapeflow_weak", False):  # a weak tensor (``tf.experimental.numpy``): its tensor
            yield t.tensor
        else:
            raise ValueError(f"Passed in object {t} of type {type(t).__name__!r}, not tf.Tensor or tf.Variable "
                             "or ExtensionType.")


class GradientTape:
    """Record operations for automatic differentiation (``tf.GradientTape``).

    Operations run inside the ``with`` block are recorded when one of their inputs is watched: trainable
    variables are watched when read (unless ``watch_accessed_variables=False``), tensors with :meth:`watch`.

    Args:
        persistent: allow several ``gradient`` calls; the recording is kept until the tape is deleted.
        watch_accessed_variables: watch every trainable variable read while the tape is active.

    Example::

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)  # 6.0
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._tape = None
        self._watched_variables = None

    # --- context -------------------------------------------------------------------------------------------
    def __enter__(self):
        self._push_tape()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_tape()

    def _push_tape(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        if self._tape is None:
            self._tape = Recording(self._watch_accessed_variables)
        STATE.tapes.append(self._tape)
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        tapes = STATE.tapes
        if tapes and tapes[-1] is self._tape:
            tapes.pop()  # the usual case: the innermost tape leaves first
        else:
            for i in range(len(tapes) - 1, -1, -1):
                if tapes[i] is self._tape:
                    del tapes[i]
                    break
        self._recording = False

    def stop_recording(self):
        """A context manager in which operations are not recorded on this tape.

        Raises:
            RuntimeError: if the tape was never entered.
            ValueError: if the tape is not recording.
        """
        return _StopRecording(self)

    def reset(self):
        """Forget everything recorded so far, including explicit watches, and keep recording.

        Raises:
            ValueError: outside the tape's ``with`` block.
        """
        self._pop_tape()
        self._tape = None
        self._push_tape()

    # --- watching ------------------------------------------------------------------------------------------
    def watch(self, tensor):
        """Watch a tensor, variable or nested structure of them, so that operations on it are recorded.

        Raises:
            ValueError: for anything that is not a tensor or variable.
        """
        if self._tape is None:
            raise AttributeError("'NoneType' object has no attribute '_tape'")
        for t in _watchable(tensor):
            if not is_trainable(t.dtype):
                log_first_n("WARNING", "The dtype of the watched tensor must be floating (e.g. tf.float32), "
                            f"got {t.dtype!r}", 5, key=("watch", _calling_line()))
            if _is_variable(t):
                self._tape.watch_variable(t)
            else:
                self._tape.watch(t)

    def watched_variables(self):
        """The variables watched so far, in the order they were first watched (a tuple)."""
        if self._tape is not None:
            return self._tape.watched_variables()
        return tuple(sorted(self._watched_variables.values(), key=_creation_order)) if self._watched_variables \
            else ()

    # --- differentiation -----------------------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of ``target`` (summed over its elements and over all targets) with respect to ``sources``.

        Args:
            target: a tensor or variable, or a nested structure of them (the gradients of all are summed).
            sources: a tensor or variable, or a nested structure of them; the result has the same structure.
            output_gradients: optional upstream gradients, one per flattened target.
            unconnected_gradients: ``"none"`` (default) or ``"zero"``, for sources the target does not reach.

        Returns:
            A structure like ``sources`` of tensors, or ``None`` for unconnected sources.

        Raises:
            RuntimeError: when a non-persistent tape is used a second time.
        """
        if self._tape is None:
            raise RuntimeError(_ONE_USE)
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                log_first_n("WARNING", _PERSISTENT_INSIDE, 1, key=("persistent_inside", _calling_line()))
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        try:
            unconnected = (unconnected_gradients if unconnected_gradients is UnconnectedGradients.NONE
                           else UnconnectedGradients(unconnected_gradients))
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None

        flat_targets = _flat_differentiable(target, "dtype")
        weak_sources = []  # (position, class) of weak tensors among the sources: their gradients are weak too
        flat_sources = _flat_differentiable(sources, "_id", weak_sources)
        if output_gradients is not None:
            output_gradients = [convert_to_tensor(g) if not _is_variable(g) else g.read_value()
                                for g in nest.flatten(output_gradients)]

        hook = STATE.tapes
        hear = hook.hear
        quiet = hear.quiet
        if quiet is not None:
            # ``observers.suspend`` and ``resume``, inlined. The backward pass's ops are no user's code: listeners
            # of user code only (the provenance log) do not hear them. ``quiet`` is None when this thread's
            # listeners are quiet already (a gradient() run by a gradient rule).
            hook.hear = quiet
            try:
                grads = backward(self._tape, flat_targets, flat_sources, output_gradients)
            finally:
                hook.hear = hear
        else:
            grads = backward(self._tape, flat_targets, flat_sources, output_gradients)
        if not self._persistent:
            _keep_for_explain(self, flat_targets, flat_sources, grads)
        if unconnected is UnconnectedGradients.ZERO:
            grads = [zeros_like_value(s) if g is None else g for g, s in zip(grads, flat_sources)]
        note = hear.gradients_returned  # ``observers.report_gradients``, inlined; the recording is still here
        if note is not None:
            note(self, flat_targets, flat_sources, grads)
        if not self._persistent:
            # Keep only the watched variables (no recorded arrays) so watched_variables() still answers.
            self._watched_variables = self._tape.variables
            self._tape = None
        if flat_sources is sources:  # a flat list or tuple of sources (the training step): nothing to rebuild
            return grads if type(sources) is list else tuple(grads)
        if weak_sources:
            grads = list(grads)
            for i, kind in weak_sources:
                if grads[i] is not None:
                    grads[i] = kind(grads[i])
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """The jacobian of ``target`` with respect to each source: shape ``target.shape + source.shape``.

        By default one backward pass carries the whole identity as a batch of output gradients (TF's vectorised
        ``pfor`` path); ``experimental_use_pfor=False`` loops over ``gradient`` calls (persistent tapes only).

        Args:
            target: a single tensor (or variable).
            sources: a tensor or variable, or a nested structure of them; the result has the same structure.
            unconnected_gradients: ``"none"`` (default: ``None`` for unconnected sources) or ``"zero"``.
            parallel_iterations: accepted for TF compatibility; the computation is not split.
            experimental_use_pfor: vectorise (default) or loop.

        Returns:
            A structure like ``sources`` of dense tensors (sparse gradients are densified), or ``None``.

        Raises:
            RuntimeError: on a used non-persistent tape, or without pfor on a non-persistent tape.
            ValueError: if the vectorised computation fails.
        """
        from .jacobian import jacobian  # noqa: PLC0415

        return jacobian(self, target, sources, unconnected_gradients, parallel_iterations, experimental_use_pfor)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobians: ``[b, y1..yn]`` target and ``[b, x1..xm]`` source give ``[b, y1..yn, x1..xm]``.

        Assumes row ``i`` of ``target`` depends only on row ``i`` of ``source`` (TF's contract: cross-row terms
        are summed). An unconnected source gives zeros whatever ``unconnected_gradients`` says, as in TF.

        Raises:
            ValueError: for ranks below 2 or mismatched first dimensions, or if vectorisation fails.
            RuntimeError: on a used non-persistent tape, or without pfor on a non-persistent tape.
        """
        from .jacobian import batch_jacobian  # noqa: PLC0415

        return batch_jacobian(self, target, source, unconnected_gradients, parallel_iterations,
                              experimental_use_pfor)


def _flat_differentiable(structure, probe, weak=None):
    """Flatten targets or sources; what is not a tensor or variable fails as TF's internals do.

    TF reads ``.dtype`` of targets and ``._id`` of sources first, so the attribute named differs. A weak tensor
    (``tf.experimental.numpy``) stands for its tensor; ``weak`` collects its position and class.
    """
    if isinstance(structure, Tensor) or getattr(structure, "_tapeflow_variable", False):
        return [structure]
    if type(structure) is list or type(structure) is tuple:
        if set(map(type, structure)) <= _PLAIN:  # a training step's list of variables: one C-level test
            return structure
        for x in structure:  # the usual flat list of tensors and variables: no copy, no walk
            if not isinstance(x, Tensor) and not getattr(x, "_tapeflow_variable", False):
                break
        else:
            return structure
    flat = nest.flatten(structure)
    for i, x in enumerate(flat):
        if isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False):
            continue
        if getattr(x, "_tapeflow_weak", False):  # a weak tensor is differentiated as its tensor
            flat[i] = x.tensor
            if weak is not None:
                weak.append((i, type(x)))
            continue
        if x is None or (probe == "_id" and isinstance(x, (str, bytes))):
            raise TypeError(f"Cannot convert the argument `type_value`: {x!r} to a TensorFlow DType.")
        if probe == "dtype" and hasattr(x, "dtype"):
            probe = "_id"
        kind = type(x)
        # C types show their dotted path in TF's message; Python classes (IndexedSlices) their bare name.
        plain = kind.__module__ == "builtins" or getattr(x, "_tapeflow_indexed_slices", False)
        name = kind.__name__ if plain else f"{kind.__module__}.{kind.__name__}"
        raise AttributeError(f"'{name}' object has no attribute '{probe}'")
    return flat


def _creation_order(v):
    return v._id


_ID = operator.attrgetter("_id")
_IS_NONE = functools.partial(operator.is_, None)


def _keep_for_explain(tape, flat_targets, flat_sources, grads):
    """What a non-persistent tape keeps of its recording for ``tapeflow.debug.explain`` and ``tape_graph``.

    The skeleton (no arrays, about a microsecond per record to build) when a gradient is ``None``; otherwise only the
    ids of this call, which is enough to answer "connected" for its sources. (``tapeflow.debug``, once loaded,
    listens for the gradients returned and keeps the skeleton of every call.)
    """
    if any(map(_IS_NONE, grads)):
        tape._skeleton = skeleton_of(tape._tape)
        tape._gradient_results = (tuple(map(_ID, flat_targets)),
                                  {s._id: g is not None for s, g in zip(flat_sources, grads)})
    else:
        tape._skeleton = None
        tape._connected_ids = (tuple(map(_ID, flat_targets)), tuple(map(_ID, flat_sources)))


def _calling_line():
    """The user's ``(file, line)`` that called into the tape: TF's ``log_first_n`` counts per calling line."""
    return line_of(user_frame(2))


class _StopRecording:
    """Context manager returned by :meth:`GradientTape.stop_recording` (recording resumes on exit)."""

    __slots__ = ("_tape",)

    def __init__(self, tape):
        self._tape = tape

    def __enter__(self):
        if self._tape._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._tape._pop_tape()

    def __exit__(self, typ, value, traceback):
        self._tape._push_tape()
