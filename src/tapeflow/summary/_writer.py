"""Summary writers and the state every summary function reads: the default writer, the default step and the
recording condition, per thread as in TensorFlow 2.21 (``summary_ops_v2``).

A writer owns one event file, written by TensorBoard's own ``EventFileWriter`` (the ``tensorboard`` extra): the
records, their checksums and the file name (``events.out.tfevents.<time>.<host>.<pid>.<n>.v2``) are the
library's, never tapeflow's. The extra is imported when a writer is made, so summaries called with no writer (they
return ``False``) and ``import tapeflow`` never load it.

Every write is one stateful op (``WriteSummary``) whose inputs are the step, the recording condition and the
summary's tensors, and whose forward builds the ``Summary`` proto and hands it to the writer: eagerly it writes
at once, and inside a ``tf.function`` the traced program writes each time it runs (the writer, tag and metadata
are fixed when the function is traced, as in TF).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading
import time
import weakref

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.extras import require
from .._core.registry import Op
from .._core.state import STATE
from .._core.tensor import Tensor, constant, convert_to_tensor
from .._core.variable import _SCOPES

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "record_if", "should_record_summaries",
           "get_step", "set_step", "summary_scope", "write", "write_raw_pb", "flush", "emit", "proto_modules",
           "tensor_proto"]

_EXTRA = "tensorboard"


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = None


_STATE = _State()
_LIVE = weakref.WeakSet()  # open file writers, flushed when the interpreter exits (TF flushes them on deletion)


def proto_modules():
    """TensorBoard's ``event_pb2``, ``summary_pb2``, ``tensor_pb2`` and ``types_pb2`` (the ``tensorboard`` extra)."""
    require("tensorboard", "tf.summary file writers", _EXTRA)
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2  # noqa: PLC0415

    return event_pb2, summary_pb2, tensor_pb2, types_pb2


# TF's DataType numbers by NumPy dtype name (types.proto; string is 7).
_DT = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "complex64": 8, "int64": 9,
       "bool": 10, "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}


def tensor_proto(array):
    """``array`` as the ``TensorProto`` TF's summary writer stores: numbers as raw little-endian bytes
    (``tensor_content``), strings one by one (``string_val``)."""
    _, _, tensor_pb2, _ = proto_modules()
    array = np.asarray(array)
    proto = tensor_pb2.TensorProto()
    proto.tensor_shape.SetInParent()  # (a scalar has an empty shape message, as TF writes it)
    for d in array.shape:
        proto.tensor_shape.dim.add(size=d)
    if array.dtype == object or array.dtype.kind in "SU":
        proto.dtype = 7
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in array.ravel())
    else:
        proto.dtype = _DT[array.dtype.name]
        proto.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return proto


class SummaryWriter:
    """A stateful summary writer (``tf.summary.SummaryWriter``): the interface of the writers
    :func:`create_file_writer` and :func:`create_noop_writer` make."""

    def set_as_default(self, step=None):
        """Make this the default writer of the thread (and ``step``, unless ``None``, the default step)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context in which this is the default writer (and ``step``, unless ``None``, the default step); the
        writer is flushed when it ends."""
        return _Default(self, step)

    def init(self):
        """Initialize the writer (a file writer is ready when made: nothing to do)."""

    def flush(self):
        """Write out anything buffered."""

    def close(self):
        """Flush and close the writer."""


class _Default:
    """``SummaryWriter.as_default()``: installs the writer (and step) on entry, restores and flushes on exit."""

    def __init__(self, writer, step):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer = _STATE.writer
        _STATE.writer = self._writer
        if self._step is not None:
            self._old_step = _STATE.step
            _STATE.step = self._step
        return self._writer

    def __exit__(self, *exc):
        _STATE.writer.flush()
        _STATE.writer = self._old_writer
        if self._step is not None:
            _STATE.step = self._old_step
        return False


class _FileWriter(SummaryWriter):
    """A writer of one event file in ``logdir`` (made by :func:`create_file_writer`)."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        require("tensorboard", "tf.summary.create_file_writer", _EXTRA)
        from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: PLC0415

        _make_dirs(logdir)
        self._logdir = logdir
        self._file = EventFileWriter(logdir, max_queue_size=max_queue, flush_secs=flush_millis / 1000.0,
                                     filename_suffix=filename_suffix)
        self._closed = False
        self._lock = threading.Lock()
        _LIVE.add(self)

    def as_default(self, step=None):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")
        return super().as_default(step)

    def set_as_default(self, step=None):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")
        super().set_as_default(step)

    def add_event(self, event):
        """Append an ``Event`` proto to the file (summary ops call this)."""
        with self._lock:
            if self._closed:
                raise errors.FailedPreconditionError(None, None, f"SummaryWriter for {self._logdir} is closed")
            self._file.add_event(event)

    def flush(self):
        """Write out the events buffered so far (nothing after :meth:`close`)."""
        with self._lock:
            if not self._closed:
                self._file.flush()

    def close(self):
        """Flush and close the event file; later calls do nothing, and the writer cannot be made default again."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()


class _NoopWriter(SummaryWriter):
    """A writer that writes nothing (``tf.summary.create_noop_writer``): its ``as_default`` changes nothing."""

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield

    def set_as_default(self, step=None):
        pass


def _make_dirs(logdir):
    """``logdir`` and its parents made, or TF's error for a path that cannot be a directory."""
    parent = logdir
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if parent and not os.path.isdir(parent):
        raise errors.op_error("CreateSummaryFileWriter", f"{parent} is not a directory",
                              cls=errors.FailedPreconditionError)
    try:
        os.makedirs(logdir, exist_ok=True)
    except OSError as exc:
        failed = exc.filename or logdir
        cls = errors.PermissionDeniedError if isinstance(exc, PermissionError) else errors.NotFoundError
        raise errors.op_error("CreateSummaryFileWriter", f"{failed}; {exc.strerror}", cls=cls) from None


@atexit.register
def _flush_all():
    for writer in list(_LIVE):
        try:
            writer.flush()
        except Exception:  # noqa: BLE001,S110 - best effort at exit, as TF's resource deleters
            pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A summary writer of a new event file in ``logdir`` (``tf.summary.create_file_writer``).

    Args:
        logdir: the directory (made if missing).
        max_queue: how many events may wait before they are written (10).
        flush_millis: the longest time between flushes, in milliseconds (120000).
        filename_suffix: the file name's ending (``".v2"``).

    Raises:
        ValueError: for a ``logdir`` of ``None``.
        ImportError: without the ``tensorboard`` extra.
        tf.errors.NotFoundError, FailedPreconditionError: when the directory cannot be made.
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    logdir = _plain(logdir, "logdir")
    max_queue = 10 if max_queue is None else int(_plain(max_queue, "max_queue"))
    flush_millis = 120000 if flush_millis is None else int(_plain(flush_millis, "flush_millis"))
    filename_suffix = ".v2" if filename_suffix is None else _plain(filename_suffix, "filename_suffix")
    return _FileWriter(logdir, max_queue, flush_millis, filename_suffix)


def _plain(value, arg):
    if isinstance(value, Tensor):
        if STATE.tracer is not None:
            raise ValueError(f"Invalid graph Tensor argument '{arg}={value}' to create_file_writer() inside an "
                             "@tf.function. The create call will be lifted into the outer eager execution context, "
                             "so it cannot consume graph tensors defined inside the function body.")
        value = value.numpy()
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value.item() if isinstance(value, np.generic) else value


def create_noop_writer():
    """A summary writer that writes nothing (``tf.summary.create_noop_writer``), for code that wants one."""
    return _NoopWriter()


# ------------------------------------------------------------------------------------------ state


def get_step():
    """The default step of this thread (``tf.summary.experimental.get_step``), or ``None``."""
    return _STATE.step


def set_step(step):
    """Set the default step of this thread (``tf.summary.experimental.set_step``): a number, a variable (read
    at each write) or ``None`` to unset it."""
    _STATE.step = step


@contextlib.contextmanager
def record_if(condition):
    """A context in which summaries are written only when ``condition`` holds (``tf.summary.record_if``):
    ``True``, ``False``, a boolean tensor, or a callable returning one (called at each write)."""
    old = _STATE.is_recording
    try:
        _STATE.is_recording = condition
        yield
    finally:
        _STATE.is_recording = old


def _condition():
    """Whether to record: a Python bool, or a boolean tensor (symbolic inside a trace)."""
    if _STATE.writer is None:
        return False
    cond = _STATE.is_recording
    if callable(cond):
        cond = cond()
    if cond is None:
        return True
    if isinstance(cond, Tensor) or getattr(cond, "_tapeflow_variable", False) is True:
        cond = convert_to_tensor(cond)
        if STATE.tracer is None or not _symbolic(cond):
            return bool(cond.numpy())
        return cond
    return bool(cond)


def _symbolic(tensor):
    from ..compiler.trace import is_symbolic  # noqa: PLC0415

    return is_symbolic(tensor)


def should_record_summaries():
    """Whether summaries are written here (``tf.summary.should_record_summaries``): a boolean tensor, false with
    no default writer, else the ``record_if`` condition (true when there is none)."""
    cond = _condition()
    return cond if isinstance(cond, Tensor) else constant(cond)


def _choose_step(step):
    step = convert_to_tensor(step, dtype=_dtypes.int64)
    if step.shape.num_elements() != 1:
        raise ValueError(f"Argument `step` must be a scalar. Received step with shape {step.shape}.")
    return step


_NO_STEP = ("No step set. Please specify one either through the `step` argument or through "
            "tf.summary.experimental.set_step()")
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """A name scope for a summary, yielding ``(tag, scope)`` (``tf.summary.experimental.summary_scope``): the tag
    is ``name`` under the enclosing name scopes, with any characters; the scope drops characters TF does not allow
    in scope names."""
    name = name or default_name
    current = "/".join(_SCOPES.stack)
    tag = f"{current}/{name}" if current else name
    scope_name = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    from .._core.variable import name_scope  # noqa: PLC0415

    with name_scope(scope_name) as scope:
        yield tag, scope


# ------------------------------------------------------------------------------------------ writing


def _metadata_bytes(metadata):
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    if isinstance(metadata, Tensor):
        metadata = metadata.numpy()
    return metadata.encode() if isinstance(metadata, str) else bytes(metadata)


def emit(tag, inputs, make, metadata, step, op_name="WriteSummary"):
    """The write every summary function ends in: ``make(*values)`` (NumPy values of ``inputs``, a tensor or a
    tuple of tensors, or a callable giving them, called only when recording) is the summary's array, written
    under ``tag`` with ``metadata`` (a ``SummaryMetadata`` or its bytes) at ``step``. Returns a boolean tensor:
    whether it was written."""
    if step is not None:
        _choose_step(step)
    writer = _STATE.writer
    if writer is None:
        return constant(False)
    if step is None:
        step = get_step()
    cond = _condition()
    if cond is False:
        return constant(False)
    if step is None:
        raise ValueError(_NO_STEP)
    if callable(inputs):
        inputs = inputs()
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    inputs = tuple(convert_to_tensor(x) for x in inputs)
    step = convert_to_tensor(step, dtype=_dtypes.int64)
    if not isinstance(writer, _FileWriter):  # a no-op writer made default by ``set_as_default`` of a subclass
        return constant(False)
    serialized = _metadata_bytes(metadata)
    cond_tensor = cond if isinstance(cond, Tensor) else constant(True)

    def forward(step_value, record, *values):
        if not bool(record):
            return np.bool_(False)
        if STATE.tracer is not None:  # tracing: the traced program writes each time it runs, not the trace
            return np.bool_(True)
        array = make(*values)
        event_pb2, summary_pb2, _, _ = proto_modules()
        value = summary_pb2.Summary.Value(tag=tag, tensor=tensor_proto(array))
        if serialized:
            value.metadata.ParseFromString(serialized)
        summary = summary_pb2.Summary(value=[value])
        writer.add_event(event_pb2.Event(wall_time=time.time(), step=int(step_value), summary=summary))
        return np.bool_(True)

    return _run(op_name, forward, (step, cond_tensor) + inputs)


def _run(op_name, forward, inputs):
    op = Op(op_name, forward, same_dtype=False)
    op.stateful = True  # a write acts on the world: a traced program keeps it, in its place, every run
    return execute(op, inputs)


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write ``tensor`` (or what the callable ``tensor`` returns, called only when recording) under ``tag`` to the
    default writer (``tf.summary.write``), with ``metadata`` (a ``SummaryMetadata`` proto or its bytes).

    Returns a boolean tensor: ``False`` when nothing was written (no default writer, or ``record_if`` false).

    Raises:
        ValueError: when a writer is set but no step is (``step`` or ``tf.summary.experimental.set_step``).
    """
    if isinstance(tag, Tensor):
        tag = tag.numpy()
    tag = tag.decode() if isinstance(tag, bytes) else str(tag)
    return emit(tag, tensor, lambda value: value, metadata, step)


def write_raw_pb(tensor, step=None, name=None):
    """Write serialized ``Summary`` protos (a string tensor of any shape, or bytes) to the default writer, one
    event each, at ``step`` (``tf.summary.experimental.write_raw_pb``).

    Raises:
        ValueError: when a writer is set but no step is.
        tf.errors.DataLossError: for a string that is not a ``Summary`` proto.
    """
    if step is not None:
        _choose_step(step)
    writer = _STATE.writer
    if writer is None:
        return constant(False)
    if step is None:
        step = get_step()
        if step is None:
            raise ValueError(_NO_STEP)
    cond = _condition()
    if cond is False:
        return constant(False)
    data = convert_to_tensor(tensor, dtype=_dtypes.string)
    step = convert_to_tensor(step, dtype=_dtypes.int64)
    if not isinstance(writer, _FileWriter):
        return constant(False)

    def forward(step_value, record, values):
        if not bool(record):
            return np.bool_(False)
        if STATE.tracer is not None:
            return np.bool_(True)
        event_pb2, summary_pb2, _, _ = proto_modules()
        events = []
        for k, raw in enumerate(np.asarray(values, dtype=object).ravel()):
            summary = summary_pb2.Summary()
            try:
                summary.ParseFromString(raw)
            except Exception:  # noqa: BLE001 - protobuf's DecodeError and kin
                raise errors.op_error("WriteRawProtoSummary", "Bad tf.compat.v1.Summary binary proto tensor string "
                                      f"at index {k}", cls=errors.DataLossError) from None
            events.append(event_pb2.Event(wall_time=time.time(), step=int(step_value), summary=summary))
        for event in events:  # (all parsed first: a bad one writes none)
            writer.add_event(event)
        return np.bool_(True)

    cond_tensor = cond if isinstance(cond, Tensor) else constant(True)
    return _run("WriteRawProtoSummary", forward, (step, cond_tensor, data))


def flush(writer=None, name=None):
    """Flush ``writer`` (default: the default writer; nothing without one) (``tf.summary.flush``).

    Raises:
        ValueError: for something that is not a ``SummaryWriter``.
    """
    if writer is None:
        writer = _STATE.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError(f"Invalid argument to flush(): {writer!r}")


def default_writer():
    """The thread's default writer, or ``None``."""
    return _STATE.writer
