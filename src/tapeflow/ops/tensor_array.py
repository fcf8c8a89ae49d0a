"""``tf.TensorArray``: a list of tensors of one dtype, written and read by index, as TF 2.21 has it eagerly and in
traced functions.

Eagerly it is TF's eager TensorArray: a Python list of tensors. ``write`` changes the array and returns it, unset
elements read as zeros of the element shape, ``clear_after_read`` forgets an element once read, and a tape records
the ops that ``stack``, ``gather`` and ``concat`` run, which is all its gradients need.

In a traced function it is TF's graph TensorArray (a TensorList): a value, not a container. Its elements live in
one *buffer* tensor, the elements stacked (``[size, *element_shape]``); ``write`` returns a new TensorArray whose
buffer has the element set (a ``TensorArrayWrite`` op, grown by the write where the array is dynamic), ``read`` and
``gather`` gather from it, ``stack`` is the buffer. A TensorArray can be a loop variable of ``tf.while_loop`` or of
a loop AutoGraph converted (its buffer is the loop variable), and gradients flow through the buffer's ops to every
order. Its elements must then share one shape, as TF requires when shapes are inferred.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.dtypes import as_dtype, int32
from .._core.exports import export
from .._core.registry import defop
from .._core.shape import TensorShape
from .._core.state import STATE
from .._core.tensor import Tensor, constant, convert_to_tensor

__all__ = ["TensorArray"]


# ------------------------------------------------------------------------------------------- buffer ops


def _row(index):
    return int(np.asarray(index))


@defop("TensorArrayWrite", same_dtype=False)
def TA_WRITE(buffer, index, value, grow):
    """The buffer with row ``index`` set to ``value`` (grown with zero rows up to it when ``grow``)."""
    i, n = _row(index), buffer.shape[0]
    if buffer.shape[1:] != np.shape(value) and not buffer.size:
        # A buffer made before the element shape was known (``_zeros``): its elements take the first one's shape.
        buffer = np.zeros((n,) + np.shape(value), buffer.dtype)
    if i < 0:
        raise errors.OutOfRangeError(None, None, f"Writing to negative indices (index {i}) is not allowed.")
    if i >= n:
        if not grow:
            raise errors.OutOfRangeError(
                None, None, f"Tried to write to index {i} but array is not resizeable and size is: {n}")
        out = np.zeros((i + 1,) + buffer.shape[1:], buffer.dtype)
        out[:n] = buffer
    else:
        out = buffer.copy()
    out[i] = value
    return out


@TA_WRITE.defvjp
def _ta_write_grad(g, ans, buffer, index, value, grow):
    from .gather_ops import gather  # noqa: PLC0415

    return execute(TA_UNWRITE, (g, buffer, index)), None, gather(g, index)


def _resized(x, like, index):
    """``x`` cut or padded with zero rows to ``len(like)`` rows, row ``index`` zeroed."""
    n, i = like.shape[0], _row(index)
    if like.shape[1:] != x.shape[1:] and not like.size:
        return np.zeros(like.shape, x.dtype)  # a buffer of elements not shaped yet (see ``TA_WRITE``)
    out = np.zeros((n,) + x.shape[1:], x.dtype)
    k = min(n, x.shape[0])
    out[:k] = x[:k]
    if 0 <= i < n:
        out[i] = 0
    return out


@defop("TensorArrayUnwrite", same_dtype=False)
def TA_UNWRITE(x, like, index):
    """``x``'s first ``len(like)`` rows with row ``index`` zeroed: the gradient of a write for the buffer written."""
    return _resized(x, like, index)


@TA_UNWRITE.defvjp
def _ta_unwrite_grad(g, ans, x, like, index):
    return execute(TA_REWRITE, (g, x, index)), None, None


@defop("TensorArrayRewrite", same_dtype=False)
def TA_REWRITE(x, like, index):
    """``x`` padded with zero rows to ``len(like)`` rows, row ``index`` zeroed (the adjoint of the unwrite)."""
    return _resized(x, like, index)


@TA_REWRITE.defvjp
def _ta_rewrite_grad(g, ans, x, like, index):
    return execute(TA_UNWRITE, (g, x, index)), None, None


@defop("TensorArrayZeros", same_dtype=False)
def TA_ZEROS(size, element_shape, dtype):
    """A buffer of ``size`` zero elements (``size`` a tensor: its value known only when the program runs)."""
    n = _row(size)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"Size should be >= 0, but got {n}")
    return np.zeros((n,) + tuple(element_shape), dtype)


@defop("TensorArrayZerosLike", same_dtype=False)
def TA_ZEROS_LIKE(size, like):
    """``TensorArrayZeros`` for elements shaped like ``like``, whose shape the program reads when it runs (a loop
    body whose tensors change shape)."""
    return TA_ZEROS.forward(size, np.shape(like), like.dtype)


# -------------------------------------------------------------------------------------------- the class


def _raised(cls, text):
    """An error of TF's eager TensorArray whose text TF 2.21 ends with a space (most of them do)."""
    return cls(None, None, text + " ")


def _preferring(value, dtype):
    """``value`` as a tensor, of ``dtype`` where it converts to it (TF's preferred dtype), else of its own."""
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(value)


def _traced():
    return STATE.tracer is not None


@export("TensorArray")
class TensorArray:
    """A list of tensors of one dtype, written and read by index (``tf.TensorArray``; see the module docstring).

    Args:
        dtype: the elements' dtype.
        size: the number of elements (a Python int or an int32 scalar tensor).
        dynamic_size: whether writes past the end grow the array.
        clear_after_read: eagerly, whether a read forgets the element (default ``True``).
        infer_shape: whether the first element written fixes the element shape.
        element_shape: the elements' shape, where known.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._graph = _traced()
        self._read_indices = []
        if self._graph:
            self._size = size  # an int or a tensor: the buffer is made at the first write (the shape then known)
            self._buffer = None
            if self._element_shape.is_fully_defined():
                self._buffer = self._zeros(self._element_shape)
        else:
            n = int(size.numpy()) if isinstance(size, Tensor) else int(size)
            self._items = [None] * n

    # --- what TF shows -------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        """The elements' shape, as far as it is known."""
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def flow(self):
        return constant(0, int32)

    @property
    def handle(self):
        return None

    def __repr__(self):
        return f"<tapeflow.TensorArray dtype={self._dtype.name} element_shape={self._element_shape}>"

    # --- shared checks -------------------------------------------------------------------------------
    def _checked_value(self, value):
        if not isinstance(value, Tensor):
            value = _preferring(value, self._dtype)
        if value.dtype != self._dtype:
            raise _raised(errors.InvalidArgumentError,
                          f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        return value

    def _merge_shape(self, shape):
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(shape)

    # --- graph form ----------------------------------------------------------------------------------
    def _zeros(self, element_shape):
        size = self._size
        if element_shape.rank is not None and not element_shape.is_fully_defined():
            # Elements whose shape varies between runs (a loop's array written first in its body): a buffer of no
            # elements' worth, shaped by the first write (``TA_WRITE``).
            dims = tuple(0 if d is None else d for d in element_shape.as_list())
            out = execute(TA_ZEROS, (convert_to_tensor(size, dtype=int32),),
                          {"element_shape": dims, "dtype": self._dtype.as_numpy_dtype})
            STATE.tracer.static_shapes[out._id] = (None,) + tuple(element_shape.as_list())
            return out
        if isinstance(size, Tensor):
            return execute(TA_ZEROS, (size,), {"element_shape": tuple(element_shape.as_list()),
                                               "dtype": self._dtype.as_numpy_dtype})
        from .array_ops import zeros  # noqa: PLC0415

        return zeros([int(size)] + element_shape.as_list(), self._dtype)

    def _with_buffer(self, buffer):
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._buffer = buffer
        new._read_indices = []
        return new

    def _graph_buffer(self, like=None):
        """The buffer; for an array not written yet, zeros of ``like``'s shape (or of the element shape)."""
        if self._buffer is not None:
            return self._buffer
        if like is not None:
            if not like.shape.is_fully_defined():
                return execute(TA_ZEROS_LIKE, (convert_to_tensor(self._size, dtype=int32), like))
            return self._zeros(TensorShape(like.shape))
        if self._element_shape.is_fully_defined():
            return self._zeros(self._element_shape)
        raise ValueError("TensorArray has size zero, but element shape <unknown> is not fully defined. Currently "
                         "only static shapes are supported when packing zero-size TensorArrays.")

    # --- the API -------------------------------------------------------------------------------------
    def identity(self):
        """The same array (``tf.TensorArray.identity``)."""
        return self

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        if not self._graph:
            return constant(len(self._items), int32)
        if self._buffer is None:
            return convert_to_tensor(self._size, dtype=int32)
        from .array_ops import shape  # noqa: PLC0415

        return shape(self._buffer)[0]

    def write(self, index, value, name=None):
        """Set element ``index`` to ``value``; returns the array to use from now on."""
        value = self._checked_value(value)
        if self._graph:
            buffer = self._graph_buffer(value)
            self._merge_shape(value.shape)
            index = convert_to_tensor(index, dtype=int32)
            return self._with_buffer(execute(TA_WRITE, (buffer, index, value), {"grow": self._dynamic_size}))
        i = int(index.numpy()) if isinstance(index, Tensor) else int(index)
        self._write(i, value)
        return self

    def _write(self, i, value):
        if i < 0:
            raise errors.OutOfRangeError(None, None, f"Writing to negative indices (index {i}) is not allowed.")
        n = len(self._items)
        if i >= n:
            if not self._dynamic_size:
                raise _raised(errors.OutOfRangeError,
                              f"Tried to write to index {i} but array is not resizeable and size is: {n}")
            self._items.extend([None] * (i - n + 1))
        self._merge_shape(value.shape)
        self._items[i] = value

    def _zero_item(self, i):
        item = self._items[i]
        if item is None:
            from .array_ops import zeros  # noqa: PLC0415

            if not self._element_shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {self._element_shape} to a Tensor.")
            item = self._items[i] = zeros(self._element_shape.as_list(), self._dtype)
        return item

    def read(self, index, name=None):
        """Element ``index`` (zeros where never written)."""
        if self._graph:
            from .gather_ops import gather  # noqa: PLC0415

            if self._buffer is None:
                raise errors.InvalidArgumentError(
                    None, None, "Trying to read from list with uninitialized tensor but element_shape is not fully "
                    "defined")
            return gather(self._buffer, convert_to_tensor(index, dtype=int32))
        i = int(index.numpy()) if isinstance(index, Tensor) else int(index)
        if i < 0:
            raise errors.OutOfRangeError(None, None, f"Reading from negative indices (index {i}) is not allowed.")
        if i >= len(self._items):
            raise _raised(errors.OutOfRangeError, f"Tried to read from index {i} but array size is: {len(self._items)}")
        item = self._items[i]
        if item is None:
            if i in self._read_indices:
                raise errors.InvalidArgumentError(
                    None, None, f"Could not read index {i} twice because it was cleared after a previous read "
                    "(perhaps try setting clear_after_read = false?)")
            item = self._zero_item(i)
        if self._clear_after_read:
            self._items[i] = None
            self._read_indices.append(i)
        return item

    def stack(self, name=None):
        """The elements stacked along a new first axis."""
        if self._graph:
            from .array_ops import identity  # noqa: PLC0415

            return identity(self._graph_buffer())
        from .array_ops import stack  # noqa: PLC0415

        if not self._items:
            if self._element_shape.is_fully_defined():
                return convert_to_tensor(np.zeros([0] + self._element_shape.as_list(), self._dtype.as_numpy_dtype))
            return convert_to_tensor(np.zeros([0], self._dtype.as_numpy_dtype))
        return stack([self._zero_item(i) for i in range(len(self._items))])

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        from .gather_ops import gather  # noqa: PLC0415

        if self._graph:
            return gather(self._graph_buffer(), convert_to_tensor(indices, dtype=int32))
        from .array_ops import stack  # noqa: PLC0415

        ids = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
        return stack([self._zero_item(int(i)) for i in ids])

    def concat(self, name=None):
        """The elements concatenated along their first axis."""
        from .manip_ops import concat  # noqa: PLC0415

        if self._graph:
            from .array_ops import reshape  # noqa: PLC0415

            buffer = self._graph_buffer()
            if buffer.shape.rank is not None and buffer.shape.rank < 2:
                raise errors.InvalidArgumentError(None, None, "Concat saw a scalar shape at index 0 but requires at "
                                                              "least vectors.")
            return reshape(buffer, [-1] + buffer.shape.as_list()[2:])
        items = [self._zero_item(i) for i in range(len(self._items))]
        for k, t in enumerate(items):
            if t.shape.rank == 0:
                raise _raised(errors.InvalidArgumentError,
                              f"Concat saw a scalar shape at index {k} but requires at least vectors.")
        return concat(items, 0)

    def unstack(self, value, name=None):
        """Make the elements the rows of ``value``; returns the array to use from now on."""
        value = _preferring(value, self._dtype)
        if value.dtype != self._dtype:
            raise _raised(errors.InvalidArgumentError,
                          f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}")
        if self._graph:
            self._merge_shape(value.shape[1:])
            return self._with_buffer(value)
        from .array_ops import unstack  # noqa: PLC0415

        rows = unstack(value)
        if len(rows) > len(self._items) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(rows)} tensors into a TensorArray of static size "
                             f"{len(self._items)} ")
        self._items = list(rows)
        if rows:
            self._merge_shape(rows[0].shape)
        return self

    def scatter(self, indices, value, name=None):
        """Set the elements at ``indices`` to the rows of ``value``; returns the array to use from now on."""
        value = self._checked_value_rows(value)
        if self._graph:
            from .array_ops import unstack  # noqa: PLC0415

            out = self
            ids = convert_to_tensor(indices, dtype=int32)
            for k, row in enumerate(unstack(value)):
                out = out.write(ids[k], row)
            return out
        from .array_ops import unstack  # noqa: PLC0415

        ids = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
        for i, row in zip(ids, unstack(value)):
            self._write(int(i), row)
        return self

    def _checked_value_rows(self, value):
        value = _preferring(value, self._dtype)
        if value.dtype != self._dtype:
            raise _raised(errors.InvalidArgumentError,
                          f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}")
        return value

    def split(self, value, lengths, name=None):
        """Make the elements the pieces of ``value`` cut along its first axis at ``lengths``."""
        from .manip_ops import split  # noqa: PLC0415

        value = self._checked_value_rows(value)
        lengths = convert_to_tensor(lengths)
        if lengths.shape.rank != 1:
            raise _raised(errors.InvalidArgumentError,
                          f"Expected lengths to be a vector, received shape: {lengths.shape.as_list()}")
        if value.shape.rank == 0:
            raise _raised(errors.InvalidArgumentError,
                          f"Expected value to be at least a vector, but received shape: {value.shape.as_list()}")
        sizes = [int(v) for v in np.asarray(lengths.numpy())]
        if sum(sizes) != value.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{sum(sizes)} and value's shape is: {value.shape.as_list()} ")
        if self._graph:
            if len(set(sizes)) > 1:
                raise errors.UnimplementedError(
                    None, None, "tapeflow keeps a traced TensorArray's elements in one tensor: split into pieces of "
                    "equal length only")
            from .array_ops import reshape  # noqa: PLC0415

            return self._with_buffer(reshape(value, [len(sizes), sizes[0] if sizes else 0] +
                                             value.shape.as_list()[1:]))
        if not self._dynamic_size and len(sizes) != len(self._items):
            raise _raised(errors.InvalidArgumentError,
                          f"TensorArray's size is not equal to the size of lengths ({len(self._items)} vs. "
                          f"{len(sizes)}), and the TensorArray is not marked as dynamically resizeable")
        self._items = list(split(value, sizes))
        return self

    def close(self, name=None):
        """Forget every element."""
        if self._graph:
            return None
        del self._items[:]
        return None

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient implementation does not "
            "use/need this function to compute gradients of operations that use TensorArrays.")
