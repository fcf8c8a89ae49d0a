"""tf.print: what it writes, for tensors of every dtype and rank, Python values and structures, and its errors.

TF writes from C++ to the file descriptors, so most cases print to a file (``output_stream="file://<path>"``) and
return what the file holds. Two cases capture the descriptors themselves (stdout and stderr), with ``sys.stdout`` /
``sys.stderr`` swapped for a fresh stream on the redirected descriptor: TF writes to the descriptor, tapeflow to
the ``sys`` object, and both land in the same file whatever capture pytest runs.

Left out, because they differ between Python and NumPy versions and not between TF and tapeflow: ``OrderedDict``
(its repr changed in Python 3.12) and NumPy scalars (their repr changed in NumPy 2); ``tests/test_print.py`` covers
them against ``pprint`` itself.
"""

import collections
import os
import sys
import tempfile

import numpy as np

from tests.golden.harness import Caught, case, catch


def _printed(tf, *inputs, **kwargs):
    """What ``tf.print(*inputs, **kwargs)`` appends to a fresh file (or the error it raised, with the file)."""
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    try:
        out = catch(tf.print, *inputs, output_stream="file://" + path, **kwargs)
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "backslashreplace")
    finally:
        os.remove(path)
    if isinstance(out, Caught):
        return [out, text]
    return text if out is None else ["returned", out, text]


def _fd_captured(fd, fn):
    """``[fn's result, what reached descriptor fd]``, with ``sys.stdout``/``sys.stderr`` writing to it meanwhile."""
    name = "stdout" if fd == 1 else "stderr"
    old = getattr(sys, name)
    old.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), fd)
        stream = open(fd, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below, fd kept
        setattr(sys, name, stream)
        try:
            result = catch(fn, stream)
            stream.flush()
        finally:
            setattr(sys, name, old)
            stream.close()
            os.dup2(saved, fd)
            os.close(saved)
        f.seek(0)
        return [result, f.read().decode("utf-8", "backslashreplace")]


# ---- floating values ---------------------------------------------------------------------------------------------


@case
def float_vectors_and_scalars(tf):
    return [_printed(tf, tf.constant(1.5)), _printed(tf, tf.constant([1.0, 2.5, -3.0])),
            _printed(tf, tf.constant([1.0, 2.5, -3.0], tf.float64)), _printed(tf, tf.constant(-2.0, tf.float64))]


@case
def float32_significant_digits(tf):
    values = [0.1, 1e-7, 1e20, 123456789.0, 1 / 3, 100000.0, 1e6, 1234567.0, 1e-4, 1e-5, 3.4028235e38, 2.0 ** 100,
              -7.25, 0.3]
    return _printed(tf, tf.constant(values, tf.float32), summarize=-1)


@case
def float64_significant_digits(tf):
    values = [0.1, 1e-7, 1e20, 123456789.0, 1 / 3, 100000.0, 1e6, 1234567.0, 1e-4, 1e-5, 1.7976931348623157e308,
              2.0 ** 100, -7.25, 0.3, 2.0 / 3, 1e15 + 0.3]
    return _printed(tf, tf.constant(values, tf.float64), summarize=-1)


@case
def nonfinite_and_negative_zero(tf):
    values = [-0.0, np.nan, -np.nan, np.inf, -np.inf, 0.0]
    return [_printed(tf, tf.constant(values, tf.float32), summarize=-1),
            _printed(tf, tf.constant(values, tf.float64), summarize=-1),
            _printed(tf, tf.constant(values, tf.float16), summarize=-1), _printed(tf, tf.constant(-0.0))]


@case
def subnormals_print_as_zero(tf):
    return [_printed(tf, tf.constant(np.array([1e-45, 1e-40, -1e-42, 1.2e-38], np.float32))),
            _printed(tf, tf.constant(np.array([5e-324, -1e-310, 2.3e-308], np.float64))),
            _printed(tf, tf.constant(np.array([1e-5, 6e-5, -3e-8], np.float16)))]


@case
def float16_values(tf):
    return _printed(tf, tf.constant([1.5, 0.1, 65504.0, 0.333, -2.0], tf.float16), summarize=-1)


@case
def random_floats_every_digit(tf):
    rng = np.random.default_rng(7)
    x32 = rng.standard_normal(40).astype(np.float32) * np.float32(10.0) ** rng.integers(-8, 8, 40).astype(np.float32)
    x64 = rng.standard_normal(40) * 10.0 ** rng.integers(-30, 30, 40)
    return [_printed(tf, tf.constant(x32), summarize=-1), _printed(tf, tf.constant(x64), summarize=-1)]


# ---- integers, booleans, strings, complex --------------------------------------------------------------------------


@case
def integer_dtypes_and_extremes(tf):
    return [_printed(tf, tf.constant([np.iinfo(np.int64).min, np.iinfo(np.int64).max], tf.int64)),
            _printed(tf, tf.constant([-(2 ** 31), 2 ** 31 - 1], tf.int32), tf.constant([-128, 127], tf.int8),
                     tf.constant([-5, 7], tf.int16)),
            _printed(tf, tf.constant([0, 65, 255], tf.uint8), tf.constant([65535], tf.uint16),
                     tf.constant([4294967295], tf.uint32), tf.constant([18446744073709551615], tf.uint64)),
            _printed(tf, tf.constant(7, tf.int64))]


@case
def booleans(tf):
    return [_printed(tf, tf.constant(True)), _printed(tf, tf.constant([True, False])),
            _printed(tf, tf.constant([[True, False, True], [False, False, True]]))]


@case
def lone_scalar_string_prints_as_is(tf):
    return [_printed(tf, tf.constant("hi")), _printed(tf, tf.constant("a\nb 'q' \"d\"")),
            _printed(tf, tf.constant("")), _printed(tf, tf.constant("\u00e9\u4e2d")),
            _printed(tf, tf.Variable("from a variable")),
            _printed(tf, tf.constant("s"), sep=1, summarize="x")]  # sep and summarize go unused, unchecked


@case
def string_tensors_quoted_and_escaped(tf):
    strings = ["a", "b'c", 'd"e', "new\nline", "tab\tcr\r", "\x01\x1f\x7f", "back\\slash", "\u00fcn\u00ef", ""]
    return [_printed(tf, tf.constant(strings), summarize=-1), _printed(tf, tf.constant([b"\xff\xfe", b"ok"])),
            _printed(tf, tf.constant(["only"])), _printed(tf, "x", tf.constant("hi")),
            _printed(tf, tf.constant(1.0), "and", tf.constant("a\nb")),
            _printed(tf, tf.constant([["a", "b"], ["c", "d"]]))]


@case
def complex_prints_question_marks(tf):
    long = tf.constant(np.arange(10) + 1j, tf.complex64)
    return [_printed(tf, tf.constant([1 + 2j, -0.5j], tf.complex64)), _printed(tf, tf.constant(1j)),
            _printed(tf, long), _printed(tf, long, summarize=-1), _printed(tf, long, summarize=0),
            _printed(tf, tf.constant(np.arange(12).reshape(3, 4) + 1j, tf.complex128)),
            _printed(tf, tf.constant(2j, tf.complex64), summarize=0)]


# ---- ranks, elision, summarize ----------------------------------------------------------------------------------


@case
def ranks_zero_to_four(tf):
    return [_printed(tf, tf.constant(3)), _printed(tf, tf.range(4)), _printed(tf, tf.reshape(tf.range(6), (2, 3))),
            _printed(tf, tf.reshape(tf.range(24), (2, 3, 4))),
            _printed(tf, tf.reshape(tf.range(2 * 3 * 4 * 5), (2, 3, 4, 5))),
            _printed(tf, tf.reshape(tf.range(2 * 3 * 4 * 5), (2, 3, 4, 5)), summarize=-1),
            _printed(tf, tf.constant([[[[1, 2], [3, 4]]]]))]


@case
def long_tensors_elided(tf):
    return [_printed(tf, tf.range(10)), _printed(tf, tf.range(7)), _printed(tf, tf.range(6)),
            _printed(tf, tf.reshape(tf.range(100), (10, 10))),
            _printed(tf, tf.reshape(tf.range(100, dtype=tf.float32) / 7, (10, 10)))]


@case
def summarize_values(tf):
    x = tf.range(10)
    return [_printed(tf, x, summarize=s) for s in (-1, None, 0, 1, 2, 5, -2, 2.5, True, np.int64(1), 100)]


@case
def summarize_on_higher_ranks(tf):
    return [_printed(tf, tf.reshape(tf.range(7 * 7 * 7), (7, 7, 7)), summarize=1),
            _printed(tf, tf.constant([[1, 2], [3, 4]]), summarize=1),
            _printed(tf, tf.constant([[1, 2, 3], [3, 4, 5]]), summarize=1),
            _printed(tf, tf.ones((2, 2, 2, 2)), summarize=1), _printed(tf, tf.ones((3, 1)), summarize=1),
            _printed(tf, tf.ones((1, 3)), summarize=1), _printed(tf, tf.ones((5,)), summarize=10),
            _printed(tf, tf.constant(3.0), summarize=0), _printed(tf, 1, tf.constant("s"), summarize=0)]


@case
def empty_shapes(tf):
    shapes = [(0,), (2, 0), (0, 3), (2, 0, 3), (3, 0, 2), (0, 0), (1, 0), (2, 2, 0), (1, 1, 0)]
    return [[_printed(tf, tf.zeros(s)), _printed(tf, tf.zeros(s, tf.int32), summarize=-1)] for s in shapes]


# ---- Python values and structures -----------------------------------------------------------------------------


@case
def python_values_in_the_template(tf):
    return [_printed(tf, 1, 1.5, True, None, "str'q", b"by", 1e-7, 123456789.0, float("nan"), -0.0),
            _printed(tf, tf.constant([0.5]), np.array([[1.5, 2]]), np.array(["a"]), [np.array([1, 2])]),
            _printed(tf, "line1\nline2", tf.constant([1])), _printed(tf)]


@case
def nested_lists_and_tuples(tf):
    return [_printed(tf, [tf.constant(1), 2, "a", None, (3.5, tf.constant([1, 2]))]),
            _printed(tf, (tf.constant(1.5),)), _printed(tf, [[[tf.constant([[1, 2], [3, 4]])]]]),
            _printed(tf, tf.constant([3.0]), [1.0, tf.constant("x"), {"k": (tf.constant(True), "v")}], sep=" | "),
            _printed(tf, [], (), {})]


@case
def dicts_print_sorted(tf):
    return [_printed(tf, {"b": tf.constant(1), "a": [tf.constant(2.0)]}), _printed(tf, {"b": 1, "a": tf.constant(2)}),
            _printed(tf, {2: tf.constant([1, 2]), 1: "one", 3: tf.constant(3.5)}),
            _printed(tf, "tensors:", tf.range(10), {2: tf.range(10) * 2})]


@case
def dicts_with_unsortable_keys(tf):
    return [_printed(tf, {"a": 1, 3: tf.constant(2)}), _printed(tf, {3: 1, "a": tf.constant(2)}),
            _printed(tf, {"a": 1, 3: 2})]


@case
def other_containers_and_objects(tf):
    point = collections.namedtuple("Point", "x y")
    return [_printed(tf, point(tf.constant(1), 2)), _printed(tf, {1, 2}), _printed(tf, tf.float32),
            _printed(tf, tf.TensorShape([2, None])),
            _printed(tf, collections.defaultdict(list, {"z": tf.constant(1), "y": 2}))]


@case
def long_structures_wrap_as_pprint_does(tf):
    return [_printed(tf, list(range(40))), _printed(tf, [tf.constant(i) for i in range(30)]),
            _printed(tf, {"k%d" % i: tf.constant(i) for i in range(12)}),
            _printed(tf, ["x" * 50, tf.constant(1), "y" * 50]), _printed(tf, "x" * 100, tf.constant(1)),
            _printed(tf, [tf.reshape(tf.range(6), (2, 3)), "after a matrix"])]


@case
def quotes_in_python_strings(tf):
    return [_printed(tf, tf.constant(1), 'a"b', "a'b", ["a'b", 'c"d', "e'f\"g"]),
            _printed(tf, b"\xff", tf.constant(1)), _printed(tf, "\u00e9", tf.constant(["\u00e9"]))]


@case
def placeholder_collisions(tf):
    return [_printed(tf, "{}", tf.constant(1)), _printed(tf, "{}", "{}1"), _printed(tf, tf.constant(5), "{}"),
            _printed(tf, ["{}", tf.constant(1)]), _printed(tf, "{}1", "{}", tf.constant(1.0)),
            _printed(tf, "'", tf.constant(1), "'", sep=""), _printed(tf, "{}", name="nm")]


# ---- sep, end, variables, slices --------------------------------------------------------------------------------


@case
def sep_and_end(tf):
    a, b = tf.constant([1, 2]), tf.constant(3.5)
    return [_printed(tf, a, b, sep=","), _printed(tf, a, b, end="!"), _printed(tf, a, b, sep="", end=""),
            _printed(tf, a, b, sep="\n", end="\n\n"), _printed(tf, a, end=b"!"), _printed(tf, a, end=None),
            _printed(tf, a, "x", sep=" | "), _printed(tf, "a", "b", sep="\u00e9", end="\u00e9"),
            _printed(tf, a, end="")]


@case
def variables_are_read(tf):
    return [_printed(tf, tf.Variable([1.0, 2.0])), _printed(tf, tf.Variable(3)),
            _printed(tf, "v", [tf.Variable([[True]])], {"w": tf.Variable(tf.zeros((2, 2)))})]


@case
def indexed_slices_print_dense(tf):
    s = tf.IndexedSlices(tf.constant([1.0, 2.0]), tf.constant([0, 2]), tf.constant([3]))
    return _printed(tf, s)


@case
def printing_under_a_tape(tf):
    x = tf.constant([1.0, 2.0])
    v = tf.Variable([3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        text = _printed(tf, "y", y, v)
        z = tf.reduce_sum(y) + tf.reduce_sum(v)
    return [text, tape.gradient(y, x), tape.gradient(z, [x, v]), [w.name for w in tape.watched_variables()]]


# ---- streams ----------------------------------------------------------------------------------------------


@case
def to_sys_stdout(tf):
    return [_fd_captured(1, lambda out: tf.print("to stdout", tf.range(3), {"k": 1.5}, output_stream=out)),
            _fd_captured(1, lambda out: tf.print("again", output_stream=sys.stdout, end="|"))]


@case
def to_sys_stderr(tf):
    return [_fd_captured(2, lambda err: tf.print("to stderr", tf.constant([[1, 2], [3, 4]]))),
            _fd_captured(2, lambda err: tf.print("explicit", output_stream=sys.stderr, sep="-"))]


@case
def appends_to_a_file(tf):
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    try:
        with open(path, "w") as f:
            f.write("before\n")
        tf.print("one", tf.constant(1), output_stream="file://" + path)
        tf.print("two", output_stream="file://" + path, end="")
        with open(path) as f:
            return f.read()
    finally:
        os.remove(path)


# ---- errors -------------------------------------------------------------------------------------------------


@case
def argument_errors(tf):
    x = tf.range(3)
    return [_printed(tf, x, foo=1), _printed(tf, x, summarize="x"), _printed(tf, x, summarize=[1]),
            _printed(tf, x, summarize=2 ** 63), _printed(tf, x, end=1), _printed(tf, tf.constant("s"), end=5),
            _printed(tf, x, sep=1), _printed(tf, x, sep=None), _printed(tf, x, sep=b","),
            _printed(tf, x, x, sep=b","), _printed(tf, x, name=5), _printed(tf, x, name=""),
            _printed(tf, x, name="ok")]


@case
def output_stream_errors(tf):
    out = []
    for stream in ("stdout", None, [1], "file:/x", True, 50):
        out.append(catch(tf.print, 1, output_stream=stream))
    return out


@case
def file_errors(tf):
    return [catch(tf.print, 1, output_stream="file:///nonexistent-tapeflow-dir/x"),
            catch(tf.print, 1, output_stream="file:///nonexistent-tapeflow-dir/x", name="nm"),
            catch(tf.print, tf.constant("s"), output_stream="file:///nonexistent-tapeflow-dir/x"),
            catch(tf.print, 1, output_stream="file://"), catch(tf.print, 1, output_stream="file://", name="nm"),
            catch(tf.print, 1, output_stream="file:///")]
