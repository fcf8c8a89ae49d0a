"""tf.function: when it traces (how arguments are keyed), reduce_retracing, input_signature and concrete functions,
what the Python body sees while tracing, variables, methods, tapes, run_functions_eagerly, the frequent-retracing
warning, the decorator's forms and errors raised by the running graph.

Each case returns observable facts only. ``count(f)`` is ``f.experimental_get_tracing_count()``; ``seen`` lists
record the Python side effects of the body (one entry per trace). Texts that hold file paths, line numbers or object
addresses are scrubbed inside the case (``_scrub``), and so are the ``tensorflow``-logger records (``_Logs``), so the
recording is the same on every machine and run.
"""

import collections
import contextlib
import functools
import io
import logging
import os
import re

import numpy as np

from tests.golden.harness import Caught, catch
from tests.golden.harness import case as _case

_FRAME = re.compile(r'( *)File "([^"]*)", line \d+, in (.*)\n(\n?)')
_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_GRAPH_NAME = re.compile(r"__inference_(\w+?)_\d+\b")
_HERE = os.path.basename(__file__).replace(".pyc", ".py")


def _frame(m):
    """A traceback line of this file loses its path and line number; one of any other file (the recorder, the
    test runner, Python's own) is dropped, so a stack shows the same frames wherever the case runs."""
    if os.path.basename(m.group(2)) != _HERE:
        return ""
    return f'{m.group(1)}File "<file>", line <n>, in {m.group(3)}\n{m.group(4)}'


def _scrub(text):
    """Replace file paths, line numbers, object addresses and graph-function counters by placeholders."""
    text = _FRAME.sub(_frame, text)
    return _GRAPH_NAME.sub(r"__inference_\1_<n>", _ADDR.sub("0x...", text))


def _err(fn, *args, **kwargs):
    """``catch`` whose message is scrubbed."""
    out = catch(fn, *args, **kwargs)
    if isinstance(out, Caught):
        out.message = _scrub(out.message)
    return out


def count(f):
    return f.experimental_get_tracing_count()


class _Logs(logging.Filter):
    """Scrub the records of the ``tensorflow`` logger (and drop its deprecation notices); keep their texts."""

    def __init__(self):
        super().__init__()
        self.records = []

    def filter(self, record):
        text = record.getMessage()
        if text.startswith("From ") and "is deprecated" in text:
            return False  # TF's deprecation notices: once per process, so they depend on the order of cases
        record.msg = _scrub(text)
        record.args = ()
        self.records.append(record.msg)
        return True

    def __enter__(self):
        logging.getLogger("tensorflow").addFilter(self)
        return self

    def __exit__(self, *exc):
        logging.getLogger("tensorflow").removeFilter(self)


def case(fn):
    """A golden case whose ``tensorflow``-logger records are scrubbed (the retracing warning names an address)."""

    @functools.wraps(fn)
    def run(tf):
        with _Logs():
            return fn(tf)

    return _case(run)


def _spec(s):
    """A TensorSpec as plain data: [shape as list, dtype name, name]."""
    return [None if s.shape.rank is None else s.shape.as_list(), s.dtype.name, s.name]


# --------------------------------------------------------------------------------------------- tensors


@case
def tensors_keyed_by_shape_and_dtype(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append([isinstance(x, tf.Tensor), x.shape.as_list(), x.dtype.name])
        return x * 2

    out = []
    for x in [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.constant([1.0, 2.0, 3.0]),
              tf.constant([1, 2]), tf.constant([5.0, 6.0]), tf.constant(1.0), tf.constant([[1.0, 2.0]])]:
        out.append([f(x), count(f)])
    return [out, seen]


@case
def tensor_rank_differences(tf):
    @tf.function
    def f(x):
        return tf.reduce_sum(x)

    counts = []
    for x in [tf.constant(1.0), tf.constant([1.0]), tf.constant([[1.0]]), tf.constant([[[1.0]]]), tf.constant([2.0])]:
        f(x)
        counts.append(count(f))
    return counts


# --------------------------------------------------------------------------------------------- Python values


@case
def python_ints_keyed_by_value(tf):
    seen = []

    @tf.function
    def f(n):
        seen.append(n)
        return tf.constant(10) * n

    out = [[f(1), count(f)], [f(2), count(f)], [f(1), count(f)], [f(2), count(f)]]
    return [out, seen]


@case
def python_int_float_bool_share_a_trace(tf):
    seen = []

    @tf.function
    def f(n):
        seen.append(repr(n))
        return n

    @tf.function
    def g(n):
        seen.append(repr(n))
        return n

    return [[f(1), count(f)], [f(1.0), count(f)], [f(True), count(f)], [f(2.0), count(f)], [f(0), count(f)],
            [f(False), count(f)], [g(1.0), count(g)], [g(1), count(g)], [g(True), count(g)], seen]


@case
def python_floats_keyed_by_value(tf):
    seen = []

    @tf.function
    def f(x, a):
        seen.append(a)
        return x * a

    x = tf.constant(2.0)
    return [[f(x, 1.5), count(f)], [f(x, 2.5), count(f)], [f(x, 1.5), count(f)], seen]


@case
def python_bools_select_branch(tf):
    seen = []

    @tf.function
    def f(x, training):
        seen.append(training)
        if training:
            return x * 2
        return x

    x = tf.constant(3.0)
    return [[f(x, True), count(f)], [f(x, False), count(f)], [f(x, True), count(f)], seen]


@case
def python_strings_and_none(tf):
    seen = []

    @tf.function
    def f(s):
        seen.append(s)
        return tf.constant(1) if s is None else tf.strings.length(s)

    return [[f("ab"), count(f)], [f("xyz"), count(f)], [f("ab"), count(f)], [f(None), count(f)],
            [f(None), count(f)], seen]


@case
def python_values_returned_become_tensors(tf):
    @tf.function
    def f(kind):
        return {"int": 3, "float": 2.5, "bool": True, "str": "s", "none": None, "list": [1, 2.0],
                "tuple": (1, None)}[kind]

    return [f(k) for k in ["int", "float", "bool", "str", "none", "list", "tuple"]]


# --------------------------------------------------------------------------------------------- NumPy


@case
def numpy_arrays_become_tensors(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append([isinstance(x, tf.Tensor), x.dtype, x.shape])
        return x + 1

    out = []
    for x in [np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([1.0, 2.0], np.float32), np.array([1, 2]),
              np.array([1.0, 2.0, 3.0])]:
        out.append([f(x), count(f)])
    return [out, seen]


@case
def numpy_scalars_become_tensors(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append([isinstance(x, tf.Tensor), x.dtype, x.shape])
        return x * 2

    out = []
    for x in [np.float32(1.0), np.float32(2.0), np.float64(1.0), np.int64(3), np.int32(3), np.bool_(True)]:
        out.append([f(x), count(f)])
    return [out, seen]


# --------------------------------------------------------------------------------------------- structures


@case
def lists_and_tuples_keyed_by_structure(tf):
    seen = []

    @tf.function
    def f(xs):
        seen.append(type(xs).__name__)
        return tf.add_n(list(xs))

    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    out = []
    for xs in [[a, b], [b, c], [a, b, c], (a, b), (c, a), [tf.constant([1.0]), tf.constant([2.0])]]:
        out.append([f(xs), count(f)])
    return [out, seen]


@case
def dicts_keyed_by_keys(tf):
    seen = []

    @tf.function
    def f(d):
        seen.append(sorted(d))
        return d["a"] + d.get("b", 0.0)

    one = tf.constant(1.0)
    out = []
    for d in [{"a": one}, {"a": tf.constant(5.0)}, {"a": one, "b": one}, {"b": one, "a": one},
              {"a": tf.constant(1)}]:
        out.append([_err(f, d), count(f)])
    return [out, seen]


@case
def namedtuples_keyed_by_type(tf):
    Point = collections.namedtuple("Point", ["x", "y"])
    Other = collections.namedtuple("Other", ["x", "y"])

    @tf.function
    def f(p):
        return [type(p).__name__, p[0] + p[1]]

    one = tf.constant(1.0)
    out = []
    for p in [Point(one, one), Point(tf.constant(2.0), one), (one, one), Other(one, one)]:
        r = f(p)
        out.append([r[1], count(f)])
    return [out, type(f(Point(one, one))).__name__]


@case
def nested_structure_returned(tf):
    Point = collections.namedtuple("Point", ["x", "y"])

    @tf.function
    def f(x):
        return {"p": Point(x, x * 2), "l": [x, (x + 1, None)], "n": 7}

    r = f(tf.constant(1.0))
    return [type(r).__name__, type(r["p"]).__name__, r["p"].x, r["p"].y, r["l"], r["n"]]


@case
def returns_none_and_tuples(tf):
    @tf.function
    def nothing(x):
        x + 1

    @tf.function
    def pair(x):
        return x, x * 2

    @tf.function
    def single(x):
        return (x,)

    p = pair(tf.constant(1.0))
    return [nothing(tf.constant(1.0)), type(p).__name__, p, type(single(tf.constant(1.0))).__name__]


@case
def nested_structure_with_python_values(tf):
    seen = []

    @tf.function
    def f(cfg):
        seen.append(cfg["n"])
        return cfg["x"] * cfg["n"]

    x = tf.constant(2.0)
    out = []
    for cfg in [{"x": x, "n": 1}, {"x": tf.constant(3.0), "n": 1}, {"x": x, "n": 2}, {"x": x, "n": 1}]:
        out.append([f(cfg), count(f)])
    return [out, seen]


# --------------------------------------------------------------------------------------------- signature binding


@case
def keyword_and_positional_share_a_trace(tf):
    seen = []

    @tf.function
    def f(x, y):
        seen.append("trace")
        return x - y

    a, b = tf.constant(5.0), tf.constant(2.0)
    return [[f(a, b), count(f)], [f(a, y=b), count(f)], [f(x=a, y=b), count(f)], [f(y=b, x=a), count(f)], seen]


@case
def default_arguments(tf):
    seen = []

    @tf.function
    def f(x, k=2):
        seen.append(k)
        return x * k

    x = tf.constant(3.0)
    return [[f(x), count(f)], [f(x, 2), count(f)], [f(x, k=2), count(f)], [f(x, 3), count(f)], seen]


@case
def default_tensor_argument(tf):
    seen = []
    d = tf.constant(10.0)

    @tf.function
    def f(x, y=d):
        seen.append("trace")
        return x + y

    x = tf.constant(1.0)
    return [[f(x), count(f)], [f(x, d), count(f)], [f(x, tf.constant(5.0)), count(f)], seen]


@case
def star_args_and_kwargs(tf):
    seen = []

    @tf.function
    def f(*args, **kwargs):
        seen.append([len(args), sorted(kwargs)])
        return tf.add_n(list(args) + [kwargs[k] for k in sorted(kwargs)])

    one = tf.constant(1.0)
    out = []
    for args, kwargs in [((one,), {}), ((tf.constant(2.0),), {}), ((one, one), {}), ((one,), {"a": one}),
                         ((one,), {"b": one}), ((one,), {"a": tf.constant(4.0)})]:
        out.append([f(*args, **kwargs), count(f)])
    return [out, seen]


@case
def missing_and_extra_arguments(tf):
    @tf.function
    def f(x, y):
        return x + y

    one = tf.constant(1.0)
    return [_err(f, one), _err(f, one, one, one), _err(f, one, z=one), _err(f, one, one, x=one), count(f)]


# --------------------------------------------------------------------------------------------- variables as args


@case
def variables_as_arguments(tf):
    seen = []

    @tf.function
    def f(v):
        seen.append([isinstance(v, tf.Variable), isinstance(v, tf.Tensor)])
        return v * 2

    a = tf.Variable([1.0, 2.0])
    b = tf.Variable([3.0, 4.0])
    c = tf.Variable([1, 2])
    d = tf.Variable([1.0, 2.0, 3.0])
    out = []
    for v in [a, a, b, a, c, d]:
        out.append([f(v), count(f)])
    return [out, seen]


@case
def variable_argument_assigned_inside(tf):
    @tf.function
    def f(v, x):
        v.assign_add(x)
        return v.read_value()

    a = tf.Variable(1.0)
    b = tf.Variable(10.0)
    return [f(a, tf.constant(1.0)), f(b, tf.constant(1.0)), f(a, tf.constant(1.0)), a, b, count(f)]


# --------------------------------------------------------------------------------------------- Python objects


@case
def python_objects_keyed_by_identity(tf):
    class Plain:
        def __init__(self, k):
            self.k = k

    seen = []

    @tf.function
    def f(x, obj):
        seen.append(obj.k)
        return x * obj.k

    x = tf.constant(1.0)
    p, q = Plain(2), Plain(2)
    out = [[f(x, p), count(f)], [f(x, p), count(f)], [f(x, q), count(f)]]
    p.k = 5  # mutation is not seen: the trace for p is reused
    out.append([f(x, p), count(f)])
    return [out, seen]


@case
def python_objects_with_eq_and_hash(tf):
    class Key:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Key) and other.k == self.k

        def __hash__(self):
            return hash(self.k)

    seen = []

    @tf.function
    def f(x, obj):
        seen.append(obj.k)
        return x * obj.k

    x = tf.constant(1.0)
    a, b, c = Key(2), Key(2), Key(3)  # all alive: equal live objects share a trace
    out = [[f(x, a), count(f)], [f(x, b), count(f)], [f(x, c), count(f)], [f(x, a), count(f)]]
    return [out, seen]


@case
def python_object_equal_to_a_dead_one(tf):
    class Key:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Key) and other.k == self.k

        def __hash__(self):
            return hash(self.k)

    seen = []

    @tf.function
    def f(x, obj):
        seen.append(obj.k)
        return x * obj.k

    x = tf.constant(1.0)
    a = Key(2)
    first = f(x, a)
    del a  # the trace keeps only a weak reference: it no longer matches anything
    return [first, count(f), f(x, Key(2)), count(f), seen]


@case
def python_objects_without_weakref_keyed_by_equality(tf):
    class Slotted:
        __slots__ = ("k",)

        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Slotted) and other.k == self.k

        def __hash__(self):
            return hash(self.k)

    seen = []

    @tf.function
    def f(x, obj):
        seen.append(obj.k)
        return x * obj.k

    x = tf.constant(1.0)
    out = [[f(x, Slotted(2)), count(f)], [f(x, Slotted(2)), count(f)], [f(x, Slotted(3)), count(f)]]
    return [out, seen]


@case
def python_plain_objects_and_nan(tf):
    seen = []

    @tf.function
    def f(x, obj):
        seen.append(type(obj).__name__)
        return x

    x = tf.constant(1.0)
    o1, o2 = object(), object()
    out = [count(f)]
    for obj in [o1, o1, o2, float("nan"), float("nan"), (1, "a"), (1, "a"), frozenset([1]), frozenset([1])]:
        f(x, obj)
        out.append(count(f))
    return [out, seen]


@case
def unhashable_unweakrefable_argument(tf):
    @tf.function
    def f(x, obj):
        return x

    return [_err(f, tf.constant(1.0), bytearray(b"ab")), _err(f, tf.constant(1.0), {1, 2})]


@case
def unhashable_python_object(tf):
    class NoHash:
        __hash__ = None

        def __init__(self, k):
            self.k = k

    @tf.function
    def f(x, obj):
        return x * obj.k

    x = tf.constant(1.0)
    n = NoHash(2)
    return [_err(f, x, n), count(f)]


@case
def python_list_of_numbers_keyed_by_value(tf):
    seen = []

    @tf.function
    def f(xs):
        seen.append(list(xs))
        return tf.reduce_sum(tf.constant(xs, tf.float32))

    return [[f([1.0, 2.0]), count(f)], [f([1.0, 2.0]), count(f)], [f([1.0, 3.0]), count(f)], seen]


# --------------------------------------------------------------------------------------------- reduce_retracing


@case
def reduce_retracing_lengths(tf):
    seen = []

    @tf.function(reduce_retracing=True)
    def f(x):
        seen.append(x.shape.as_list())
        return tf.reduce_sum(x)

    counts = []
    for n in [1, 2, 3, 4, 5]:
        f(tf.ones([n]))
        counts.append(count(f))
    return [counts, seen]


@case
def reduce_retracing_ranks_and_dtypes(tf):
    seen = []

    @tf.function(reduce_retracing=True)
    def f(x):
        seen.append([None if x.shape.rank is None else x.shape.as_list(), x.dtype.name])
        return tf.reduce_sum(x)

    counts = []
    for x in [tf.ones([2]), tf.ones([2, 3]), tf.ones([4, 5]), tf.ones([2, 3, 4]), tf.ones([3], tf.int32),
              tf.ones([4], tf.int32), tf.ones([7]), tf.ones([])]:
        f(x)
        counts.append(count(f))
    return [counts, seen]


@case
def reduce_retracing_per_dimension(tf):
    seen = []

    @tf.function(reduce_retracing=True)
    def f(x):
        seen.append(x.shape.as_list())
        return tf.reduce_sum(x)

    counts = []
    for shape in [[2, 3], [2, 4], [2, 5], [3, 5], [4, 6], [2, 3]]:
        f(tf.ones(shape))
        counts.append(count(f))
    return [counts, seen]


@case
def reduce_retracing_structures(tf):
    seen = []

    @tf.function(reduce_retracing=True)
    def f(xs):
        seen.append([x.shape.as_list() for x in xs])
        return tf.add_n([tf.reduce_sum(x) for x in xs])

    counts = []
    for xs in [[tf.ones([1]), tf.ones([2])], [tf.ones([3]), tf.ones([2])], [tf.ones([4]), tf.ones([5])],
               [tf.ones([1])]]:
        f(xs)
        counts.append(count(f))
    return [counts, seen]


@case
def reduce_retracing_python_ints(tf):
    seen = []

    @tf.function(reduce_retracing=True)
    def f(n):
        seen.append(n)
        return tf.constant(n)

    counts = []
    for n in [1, 2, 3, 1]:
        f(n)
        counts.append(count(f))
    return [counts, seen]


@case
def reduce_retracing_concrete_signature(tf):
    @tf.function(reduce_retracing=True)
    def f(x):
        return x + 1

    f(tf.ones([1]))
    f(tf.ones([2]))
    cf = f.get_concrete_function(tf.ones([3]))
    args, kwargs = cf.structured_input_signature
    return [count(f), [_spec(s) for s in args], kwargs, [[t.shape.as_list(), t.dtype.name] for t in cf.inputs]]


# --------------------------------------------------------------------------------------------- input_signature


def _signed(tf, seen=None):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        if seen is not None:
            seen.append(x.shape)
        return x * 2

    return f


@case
def input_signature_matching_calls(tf):
    seen = []
    f = _signed(tf, seen)
    out = [f(tf.constant([1.0])), f(tf.constant([1.0, 2.0, 3.0])), f([1.0, 2.0]), f(np.array([1.0], np.float32)),
           f(x=tf.constant([4.0]))]
    return [out, count(f), seen]


@case
def input_signature_wrong_dtype(tf):
    f = _signed(tf)
    return [_err(f, tf.constant([1, 2])), _err(f, tf.constant([1.0], tf.float64)), _err(f, np.array([1.0])),
            _err(f, [1, 2]), count(f)]


@case
def input_signature_wrong_rank(tf):
    f = _signed(tf)
    return [_err(f, tf.constant(1.0)), _err(f, tf.constant([[1.0]])), _err(f, 1.0), count(f)]


@case
def input_signature_wrong_arity(tf):
    f = _signed(tf)
    one = tf.constant([1.0])
    return [_err(f), _err(f, one, one), _err(f, y=one), _err(f, one, x=one), count(f)]


@case
def input_signature_python_objects(tf):
    f = _signed(tf)
    return [_err(f, "a"), _err(f, None), _err(f, [[1.0]]), _err(f, {"x": tf.constant([1.0])})]


@case
def input_signature_named_spec(tf):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="points"), tf.TensorSpec([], tf.int32)])
    def f(x, n):
        return x * tf.cast(n, tf.float32)

    cf = f.get_concrete_function()
    args, kwargs = cf.structured_input_signature
    return [f(tf.constant([1.0, 2.0]), tf.constant(3)), [_spec(s) for s in args], kwargs,
            [t.name for t in cf.inputs], [_spec(s) for s in f.input_signature]]


@case
def input_signature_nested_specs(tf):
    @tf.function(input_signature=[[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)]])
    def f(pair):
        return pair[0] + pair[1]

    return [f([tf.constant(1.0), tf.constant(2.0)]), f([1.0, 2.0]), _err(f, [1.0]), _err(f, (1.0, 2.0)), count(f)]


@case
def input_signature_with_default_and_kwargs(tf):
    def g(x, y=1.0):
        return x * y

    def h(x, **kwargs):
        return x

    def k(*args):
        return args[0]

    spec = [tf.TensorSpec([], tf.float32)]
    return [_err(lambda: tf.function(g, input_signature=spec)(tf.constant(2.0))),
            _err(lambda: tf.function(h, input_signature=spec)(tf.constant(2.0))),
            _err(lambda: tf.function(k, input_signature=spec)(tf.constant(2.0))),
            _err(lambda: tf.function(g, input_signature=spec * 3)(tf.constant(2.0)))]


@case
def input_signature_not_specs(tf):
    def g(x):
        return x

    return [_err(lambda: tf.function(g, input_signature=[tf.float32])(tf.constant(2.0))),
            _err(lambda: tf.function(g, input_signature=tf.TensorSpec([], tf.float32))(tf.constant(2.0)))]


# --------------------------------------------------------------------------------------------- concrete functions


@case
def concrete_function_from_tensors(tf):
    @tf.function
    def f(x, y):
        return x * y

    cf = f.get_concrete_function(tf.constant([1.0, 2.0]), tf.constant(3.0))
    args, kwargs = cf.structured_input_signature
    return [count(f), type(cf).__name__, [_spec(s) for s in args], kwargs,
            cf(tf.constant([2.0, 5.0]), tf.constant(2.0)), count(f),
            f(tf.constant([2.0, 5.0]), tf.constant(2.0)), count(f)]


@case
def concrete_function_from_specs(tf):
    @tf.function
    def f(x):
        return tf.reduce_sum(x, axis=0)

    cf = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    args, _ = cf.structured_input_signature
    return [[_spec(s) for s in args], [[t.shape.as_list(), t.dtype.name] for t in cf.inputs],
            [[t.shape.as_list(), t.dtype.name] for t in cf.outputs], cf.structured_outputs.shape.as_list(),
            cf(tf.ones([3, 2])), cf(tf.ones([1, 2])), count(f), f(tf.ones([3, 2])), count(f)]


@case
def concrete_function_bad_calls(tf):
    @tf.function
    def f(x):
        return x + 1

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    return [_err(cf, tf.ones([3])), _err(cf, tf.ones([2], tf.int32)), _err(cf), _err(cf, tf.ones([2]), tf.ones([2])),
            _err(cf, [1.0, 2.0]), _err(cf, np.ones([2], np.float32)), _err(f.get_concrete_function), count(f)]


@case
def concrete_function_keyword_call(tf):
    @tf.function
    def f(x, y):
        return x - y

    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))
    a, b = tf.constant(5.0), tf.constant(2.0)
    return [cf(a, b), cf(x=a, y=b), cf(a, y=b), _err(cf, a, z=b), _err(cf, a, b, x=a)]


@case
def concrete_function_with_python_argument(tf):
    @tf.function
    def f(x, n):
        return x * n

    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32), 3)
    a = tf.constant(2.0)
    return [cf(a), cf(a, 3), _err(cf, a, 4), count(f)]


@case
def concrete_function_reused_by_call(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append("trace")
        return x

    f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    c1 = count(f)
    f(tf.constant([1.0]))
    c2 = count(f)
    f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    return [c1, c2, count(f), len(seen)]


@case
def concrete_function_structured_outputs(tf):
    @tf.function
    def f(x):
        return {"a": x, "b": [x * 2, 3]}

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    so = cf.structured_outputs
    r = cf(tf.constant([1.0, 2.0]))
    return [sorted(so), so["a"].shape.as_list(), so["a"].dtype, type(so["b"]).__name__, so["b"][1].dtype,
            so["b"][1].shape.as_list(), r]


# --------------------------------------------------------------------------------------------- inside the body


@case
def executing_eagerly_inside(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        return x

    outside = tf.executing_eagerly()
    f(tf.constant(1.0))
    return [outside, seen, tf.executing_eagerly()]


@case
def numpy_inside_raises(tf):
    @tf.function
    def f(x):
        return x.numpy()

    return [_err(f, tf.constant([1.0])), count(f)]


@case
def symbolic_shape_from_signature(tf):
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        seen.append([x.shape, x.shape.as_list(), x.shape.rank, x.shape[0], x.shape[1], x.get_shape()])
        return tf.shape(x)

    return [f(tf.ones([2, 3])), seen]


@case
def print_symbolic_tensor(tf):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        print(x)
        print(x * 2)
        print("n", x.shape)
        return x

    @tf.function
    def g(values, k):
        print(values, k)
        return values

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f(tf.constant([1.0]))
        f(tf.constant([1.0, 2.0]))
        g(tf.constant([[1, 2]]), tf.constant(1.0))
    return buf.getvalue()


@case
def python_bool_of_symbolic_tensor_without_autograph(tf):
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    @tf.function(autograph=False)
    def g(x):
        for _ in x:
            pass
        return x

    return [_err(f, tf.constant(1.0)), _err(g, tf.constant([1.0]))]


@case
def autograph_converts_tensor_if(tf):
    @tf.function
    def f(x):
        if x > 0:
            y = x
        else:
            y = -x
        return y

    return [f(tf.constant(2.0)), f(tf.constant(-3.0)), count(f)]


@case
def len_of_unknown_dimension(tf):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return len(x)

    @tf.function
    def g(x):
        return len(x)

    return [_err(f, tf.constant([1.0, 2.0])), g(tf.constant([1.0, 2.0, 3.0]))]


@case
def exception_raised_while_tracing(tf):
    @tf.function
    def f(x):
        raise ValueError("boom")

    @tf.function
    def g(x):
        return x + "a"

    return [_err(f, tf.constant(1.0)), count(f), _err(g, tf.constant(1.0)), count(g)]


# --------------------------------------------------------------------------------------------- variables inside


@case
def variable_created_once_in_module(tf):
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None
            self.created = 0

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.created += 1
                self.v = tf.Variable(2.0)
            return self.v * x

    m = Scale()
    out = []
    for x in [tf.constant(1.0), tf.constant(3.0), tf.constant([1.0, 2.0])]:
        out.append([m(x), m.__call__.experimental_get_tracing_count()])
    return [out, m.created, m.v, len(m.trainable_variables)]


@case
def variable_created_once_in_closure(tf):
    seen = []
    holder = []

    @tf.function
    def f(x):
        seen.append("trace")
        if not holder:
            holder.append(tf.Variable(10.0))
        return holder[0] + x

    out = []
    for x in [tf.constant(1.0), tf.constant(2.0), tf.constant([1.0])]:
        out.append([f(x), count(f)])
    return [out, len(seen), len(holder), holder[0]]


@case
def variable_created_on_every_call(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append("trace")
        v = tf.Variable(1.0)
        return v * x

    return [_err(f, tf.constant(2.0)), len(seen), count(f)]


@case
def variable_closure_sees_assign_outside(tf):
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        return v * x

    x = tf.constant(2.0)
    first = f(x)
    v.assign(5.0)
    return [first, f(x), count(f)]


@case
def variable_returned_from_function(tf):
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        return v

    @tf.function
    def g():
        return [v, v.read_value(), v.value()]

    r = f()
    v.assign([3.0, 4.0])
    s = g()
    return [type(r).__name__, isinstance(r, tf.Variable), isinstance(r, tf.Tensor), r,
            [isinstance(t, tf.Variable) for t in s], s]


@case
def variable_assign_inside(tf):
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign(x)
        return v.assign_add(1.0)

    @tf.function
    def g():
        r = v.assign_add(10.0)
        return [r, v.read_value()]

    a = f(tf.constant(5.0))
    b = v.numpy()
    c = g()
    return [a, b, c, v, count(f)]


@case
def variable_assign_sub_returns_value(tf):
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        out = v.assign_sub([0.5, 0.5])
        return out

    r = f()
    r2 = f()
    return [type(r).__name__ == type(tf.constant(1.0)).__name__, r, r2, v]


@case
def variable_shape_change_inside(tf):
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        v.assign([1.0, 2.0, 3.0])
        return v

    return [_err(f), v]


# --------------------------------------------------------------------------------------------- methods


@case
def method_caches_per_instance(tf):
    class Model:
        def __init__(self, k):
            self.k = k
            self.traces = 0

        @tf.function
        def apply(self, x):
            self.traces += 1
            return x * self.k

    a, b = Model(2.0), Model(3.0)
    x = tf.constant(1.0)
    out = [a.apply(x), a.apply(x), b.apply(x), a.apply(tf.constant([1.0]))]
    return [out, a.traces, b.traces, a.apply.experimental_get_tracing_count(),
            b.apply.experimental_get_tracing_count(), a.apply is a.apply,
            type(Model.apply).__name__ == type(a.apply).__name__]


@case
def function_of_a_bound_method(tf):
    class Model:
        def __init__(self):
            self.calls = 0

        def apply(self, x):
            self.calls += 1
            return x + 1

    m = Model()
    f = tf.function(m.apply)
    out = [f(tf.constant(1.0)), f(tf.constant(2.0))]
    return [out, m.calls, count(f), f.python_function == m.apply]


@case
def method_signature_with_input_signature(tf):
    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def apply(self, x):
            return x * 2

    m = Model()
    return [m.apply(tf.constant([1.0, 2.0])), m.apply(tf.constant([3.0])), m.apply.experimental_get_tracing_count(),
            _err(m.apply, tf.constant([1]))]


# --------------------------------------------------------------------------------------------- tapes


@case
def tape_outside_gradient_through_call(tf):
    @tf.function
    def f(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [y, tape.gradient(y, x)]


@case
def tape_outside_variable_read_inside(tf):
    w = tf.Variable([1.0, 2.0])
    b = tf.Variable(0.5)

    @tf.function
    def f(x):
        return tf.reduce_sum(w * x) + b

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        y = f(x)
    gw, gb = tape.gradient(y, [w, b])
    return [y, gw, gb]


@case
def tape_outside_second_derivative(tf):
    @tf.function
    def f(x):
        return tf.sin(x) * x

    x = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return [y, g, outer.gradient(g, x)]


@case
def tape_inside_training_step(tf):
    w = tf.Variable(1.0)
    u = tf.Variable(3.0)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = (w * x - y) ** 2
        gw, gu = tape.gradient(loss, [w, u])
        w.assign_sub(0.1 * gw)
        return [loss, gu is None]

    out = [step(tf.constant(1.0), tf.constant(3.0)) for _ in range(3)]
    return [out, w, u, count(step)]


@case
def gradient_inside_returned(tf):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    return [f(tf.constant(3.0)), f(tf.constant([1.0, 2.0]))]


@case
def jacobian_through_function(tf):
    @tf.function
    def f(x):
        return x * x

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x)


# --------------------------------------------------------------------------------------------- run eagerly


@case
def run_functions_eagerly(tf):
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        return x.numpy() * 2

    before = tf.config.functions_run_eagerly()
    tf.config.run_functions_eagerly(True)
    try:
        during = tf.config.functions_run_eagerly()
        out = [f(tf.constant(1.0)), f(tf.constant(1.0)), count(f)]
    finally:
        tf.config.run_functions_eagerly(False)
    after = [tf.config.functions_run_eagerly(), _err(f, tf.constant(1.0)), count(f)]
    return [before, during, out, seen, after]


@case
def run_functions_eagerly_ignores_input_signature(tf):
    f = _signed(tf)
    tf.config.run_functions_eagerly(True)
    try:
        out = [f(tf.constant([1.0])), _err(f, tf.constant([1])), count(f)]
    finally:
        tf.config.run_functions_eagerly(False)
    return out


# --------------------------------------------------------------------------------------------- retracing warning


@case
def retracing_warning_python_values(tf):
    @tf.function
    def f(x, n):
        return x + n

    x = tf.constant(1.0)
    after = []
    with _Logs() as logs:
        for n in range(12):
            f(x, n)
            after.append(len(logs.records))
    return [after, logs.records, count(f)]


@case
def retracing_warning_tensor_shapes(tf):
    @tf.function
    def f(x):
        return x

    after = []
    with _Logs() as logs:
        for n in range(1, 8):
            f(tf.ones([n]))
            after.append(len(logs.records))
    return [after, logs.records]


@case
def retracing_warning_window(tf):
    @tf.function
    def f(n):
        return n

    after = []
    with _Logs() as logs:
        # a new value every other call: traces on calls 1, 3, 5, 7, 9 ...
        for n in [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]:
            f(n)
            after.append(len(logs.records))
    return [after, logs.records, count(f)]


@case
def retracing_warning_sparse_traces(tf):
    @tf.function
    def f(n):
        return n

    after = []
    with _Logs() as logs:
        # a new value every third call: never 5 traces within 10 calls
        for n in [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5]:
            f(n)
            after.append(len(logs.records))
    return [after, logs.records, count(f)]


@case
def retracing_warning_function_recreated_in_loop(tf):
    after = []
    with _Logs() as logs:
        for _ in range(7):
            @tf.function
            def f(x):
                return x + 1

            f(tf.constant(1.0))
            after.append([len(logs.records), count(f)])
    return [after, logs.records]


@case
def retracing_warning_lambda_recreated_in_loop(tf):
    after = []
    with _Logs() as logs:
        for k in range(7):
            g = tf.function(lambda x: x * 2)
            g(tf.constant(float(k)))
            after.append(len(logs.records))
    return [after, logs.records]


@case
def retracing_warning_method_of_new_instances(tf):
    class Model:
        @tf.function
        def apply(self, x):
            return x

    after = []
    with _Logs() as logs:
        for _ in range(7):
            Model().apply(tf.constant(1.0))
            after.append(len(logs.records))
    return [after, logs.records]


@case
def retracing_warning_separate_per_function(tf):
    @tf.function
    def f(n):
        return n

    @tf.function
    def g(n):
        return n

    after = []
    with _Logs() as logs:
        for n in range(4):
            f(n)
            g(n)
            after.append(len(logs.records))
    return [after, count(f), count(g)]


@case
def retracing_no_warning_when_run_eagerly(tf):
    @tf.function
    def f(n):
        return n

    tf.config.run_functions_eagerly(True)
    try:
        with _Logs() as logs:
            for n in range(8):
                f(n)
    finally:
        tf.config.run_functions_eagerly(False)
    return [logs.records, count(f)]


# --------------------------------------------------------------------------------------------- decorator forms


@case
def decorator_forms(tf):
    def square(x):
        """Squares."""
        return x * x

    a = tf.function(square)

    @tf.function
    def b(x):
        return x * x

    @tf.function()
    def c(x):
        return x * x

    x = tf.constant(3.0)
    return [[a(x), b(x), c(x)], [type(g).__name__ for g in (a, b, c)], a.python_function is square,
            a.__name__, a.__doc__, a.__wrapped__ is square, a.name, b.name, c.__name__]


@case
def decorator_options_accepted(tf):
    def g(x):
        return x + 1

    x = tf.constant(1.0)
    return [tf.function(g, autograph=False)(x), tf.function(g, jit_compile=True)(x),
            tf.function(g, reduce_retracing=True)(x), tf.function(g, experimental_follow_type_hints=True)(x),
            _err(tf.function, g, name="renamed"), _err(tf.function, g, relax_shapes=True), _err(tf.function, 3),
            _err(tf.function, "f")]


@case
def function_signature(tf):
    import inspect

    params = inspect.signature(tf.function).parameters
    return [[name, repr(p.default)] for name, p in params.items()]


@case
def experimental_relax_shapes_alias(tf):
    def g(x):
        return x + 1

    f = catch(tf.function, g, experimental_relax_shapes=True)
    if isinstance(f, Caught):
        return f
    counts = []
    for n in [1, 2, 3]:
        f(tf.ones([n]))
        counts.append(count(f))
    return counts


@case
def function_of_a_function(tf):
    def g(x):
        return x * 2

    f = tf.function(g)
    ff = tf.function(f)
    return [ff(tf.constant(2.0)), type(ff).__name__, ff.python_function is g, ff.python_function is f]


@case
def functools_wraps_metadata(tf):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args) + 1

        return wrapper

    @tf.function
    @deco
    def add(x):
        """Adds."""
        return x

    return [add(tf.constant(1.0)), add.__name__, add.__doc__, add.name]


@case
def nested_tf_functions(tf):
    seen = []

    @tf.function
    def inner(x):
        seen.append("inner")
        return x * 2

    @tf.function
    def outer(x):
        seen.append("outer")
        return inner(x) + inner(x + 1)

    r = [outer(tf.constant(1.0)), outer(tf.constant(2.0))]
    return [r, seen, count(outer), count(inner)]


# --------------------------------------------------------------------------------------------- errors at run time


@case
def gather_out_of_range_at_run_time(tf):
    @tf.function
    def f(params, i):
        return tf.gather(params, i)

    p = tf.constant([1.0, 2.0, 3.0])
    return [f(p, tf.constant(1)), _err(f, p, tf.constant(7)), count(f)]


@case
def assertion_at_run_time(tf):
    @tf.function
    def f(x):
        tf.debugging.assert_positive(x, message="need positive")
        return x

    return [f(tf.constant([1.0])), _err(f, tf.constant([-1.0]))]


@case
def reshape_error_at_run_time(tf):
    @tf.function
    def f(x, s):
        return tf.reshape(x, s)

    return [f(tf.ones([4]), tf.constant([2, 2])), _err(f, tf.ones([4]), tf.constant([3, 2]))]


@case
def static_shape_error_while_tracing(tf):
    @tf.function
    def f(x, y):
        return tf.matmul(x, y)

    return [_err(f, tf.ones([2, 3]), tf.ones([2, 3])), count(f)]


@case
def pretty_printed_concrete_signatures(tf):
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    double(tf.constant(1.5))

    @tf.function
    def g(x, n=2, *, k=3):
        return {"y": x * n, "k": [x, None]}

    g(tf.ones([2]), 3)
    g(tf.ones([2]), 4, k=5)
    return [double.pretty_printed_concrete_signatures(), g.pretty_printed_concrete_signatures(),
            g.pretty_printed_concrete_signatures(verbose=False)]


@case
def init_scope_runs_once_outside_the_trace(tf):
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                with tf.init_scope():  # lifted out of the function: runs once, while tracing
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v

    m = Model()
    out = [m() for _ in range(3)]
    with tf.init_scope():
        eager = tf.executing_eagerly()
    return [out, m.v, m.counter, eager]


@case
def concrete_function_called_with_tensors_only(tf):
    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = 0.0
            self.weight = 2.0

    def evaluate(model, x):
        return model.weight * x + model.bias

    model = SimpleModel()
    x = tf.constant(10.0)
    cf = tf.function(evaluate).get_concrete_function(model, x)
    return [cf(x), cf(model, x), cf(x=x)]
