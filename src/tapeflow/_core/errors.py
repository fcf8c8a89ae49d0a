"""``tf.errors``: TensorFlow's exception classes, with the same names, codes and constructor.

Helpers at the bottom build the messages TensorFlow's kernels print, so every op words its errors one way.
"""

import re as _re  # private: this module is ``tf.errors``

from numpy import generic as _numpy_scalar

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError",
    "ResourceExhaustedError", "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError", "OperatorNotAllowedInGraphError",
]

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 10, 11, 12, 13, 14, 15, 16


class OpError(Exception):
    """The base class of errors raised while running an op (``tf.errors.OpError``)."""

    _code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = args[0] if args else self._code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message, self._error_code)

    def __str__(self):
        return self._message


def _make(name, code, doc):
    cls = type(name, (OpError,), {"_code": code, "__doc__": doc, "__module__": __name__})

    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, *(args or (code,)))

    cls.__init__ = __init__
    return cls


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "Unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource was exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION, "A precondition failed.")
AbortedError = _make("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An operation went out of range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "An operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal error.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss.")



class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor (``bool(t)`` inside a traced function) that a graph cannot do."""


# The device TensorFlow names in kernel errors; tapeflow runs where NumPy runs, which TF would call this.
CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def op_error(op_name, message, cls=None, wrapped=True, name=""):
    """An error as TensorFlow's eager kernels word it: ``{{function_node ...}} <message> [Op:<op>] name: ``.

    ``wrapped`` adds the ``{{function_node __wrapped__...}}`` prefix TF prints for errors raised while a kernel
    runs (as opposed to while the op is validated before running). ``name`` is the name scope TF's Python
    wrapper appends (``""`` for most, ``"strided_slice/"`` for indexing); ``None`` when the wrapper appends none.
    """
    prefix = f"{{{{function_node __wrapped__{op_name}_device_{CPU_DEVICE}}}}} " if wrapped else ""
    return (cls or InvalidArgumentError)(None, None, with_name(f"{prefix}{message} [Op:{op_name}]", name))


# ------------------------------------------------------------------------------------------ allocations


class Unallocatable(MemoryError):
    """A ``MemoryError`` that knows the tensor it could not allocate (``shape``, NumPy ``dtype``).

    Ops raise it for a size NumPy cannot even represent (more than 2**63 - 1 bytes, which NumPy refuses with a
    ``ValueError``); :func:`oom` turns it, like NumPy's own ``MemoryError``, into TF's ``ResourceExhaustedError``.
    """

    def __init__(self, shape, dtype):
        super().__init__(f"Unable to allocate an array with shape {tuple(shape)} and data type {dtype}")
        self.shape = tuple(shape)
        self.dtype = dtype


# NumPy words a failed allocation "Unable to allocate 16.0 GiB for an array with shape (4294967297,) and data
# type float32": the shape and dtype are read back from that.
_NUMPY_OOM = _re.compile(r"with shape \(([\d, ]*)\) and data type (\w+)")


def oom(op_name, exc, name=""):
    """TF's ``ResourceExhaustedError`` for an allocation of ``op_name`` that failed with the ``MemoryError`` ``exc``
    (NumPy's, or :class:`Unallocatable`): ``OOM when allocating tensor with shape[...] and type ... [Op:...]``."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is None:
        found = _NUMPY_OOM.search(str(exc))
        if found is None:  # a MemoryError from elsewhere: still TF's class, with what is known
            return op_error(op_name, f"OOM when allocating tensor: {exc}", ResourceExhaustedError, name=name)
        shape = tuple(int(d) for d in found.group(1).replace(" ", "").split(",") if d)
        dtype = found.group(2)
    return op_error(op_name, f"OOM when allocating tensor with shape{shape_str(shape)} and type {_type_name(dtype)} "
                    f"on {CPU_DEVICE} by allocator cpu", ResourceExhaustedError, name=name)


def _type_name(np_dtype):
    """How TF's allocator names a dtype: ``float``, ``double``, ``half``, ``string``, else the dtype's name."""
    name = str(np_dtype)
    return {"float32": "float", "float64": "double", "float16": "half", "object": "string", "bool_": "bool",
            "bytes": "string", "str": "string"}.get(name, name)


def shape_str(shape) -> str:
    """``[2,3]``: how TF's kernels print a shape."""
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------ TF's two eager paths
#
# TF's generated op wrappers first try the C fast path (``TFE_Py_FastPathExecute``); when it cannot take an
# argument as given (a Python list or tuple, a NumPy scalar) it falls back to the Python ``*_eager_fallback``
# path. A kernel error on the fast path is re-raised with `` name: <name>`` appended (the ``name`` argument, most
# often None, which prints as nothing); on the fallback path it keeps the kernel's wording. Ops whose public
# function converts its arguments before calling the wrapper see tensors only, and always take the fast path.


_SLOW_PATH = (list, tuple, _numpy_scalar)


def fast_path(*args):
    """Whether TF's op wrapper, given these (not yet converted) tensor arguments, runs on its fast path: Python
    lists and tuples and NumPy scalars send it down the fallback path."""
    for a in args:
        if isinstance(a, _SLOW_PATH):
            return False
    return True


def error_name(name, *args):
    """What follows `` name:`` in the op's errors for these arguments (``name`` or ``""``), or None for no suffix
    (the fallback path, see :func:`fast_path`)."""
    if not fast_path(*args):
        return None
    return "" if name is None else name


def with_name(text, name):
    """``text`` with TF's `` name: <name>`` suffix, or as it is when ``name`` is None (see :func:`error_name`)."""
    return text if name is None else f"{text} name: {name}"


def without_name(exc):
    """``exc`` as the fallback path raises it: without the `` name: `` suffix the fast path adds."""
    msg = exc.message
    return type(exc)(None, None, msg[:-7]) if msg.endswith(" name: ") else exc


def call_on_path(fast, fn, *args):
    """``fn(*args)``, its kernel errors (InvalidArgumentError, an OOM's ResourceExhaustedError) worded as TF's
    ``fast`` path (or, if false, its fallback path) raises them: only the fallback drops the `` name: `` suffix
    (see :func:`fast_path`)."""
    if fast:
        return fn(*args)
    try:
        return fn(*args)
    except (InvalidArgumentError, ResourceExhaustedError) as exc:
        raise without_name(exc) from None
