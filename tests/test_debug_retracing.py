"""``tapeflow.debug.explain_retracing``: why each trace of a ``tf.function`` happened."""

from __future__ import annotations

import pytest

import tapeflow as tf


def test_each_retrace_names_the_argument_and_what_changed():
    @tf.function
    def f(x, n, cfg):
        return x * n

    f(tf.ones([2]), 1, {"a": 1})
    f(tf.ones([2]), 1, {"a": 1})  # no trace
    f(tf.ones([3]), 1, {"a": 1})
    f(tf.ones([3]), 2, {"a": 1})
    f(tf.ones([3], tf.int32), 2, {"a": 1})
    f(tf.ones([3]), 2, {"a": 1, "b": 2})
    report = tf.debug.explain_retracing(f)
    assert [len(t.changes) for t in report.traces] == [0, 1, 1, 1, 1]
    args = [t.changes[0][0] for t in report.traces[1:]]
    assert args == ["x", "n", "x", "cfg"]
    text = str(report)
    assert text.startswith("f was traced 5 times")
    assert "shape (2,) before, (3,) now" in text and "reduce_retracing=True" in text
    assert "Python value 1 before, 2 now" in text and "tf.constant" in text
    assert "dtype float32 before, int32 now" in text
    assert "a dict of 1 before, a dict of 2 now" in text


def test_nested_arguments_are_named_by_their_path():
    @tf.function
    def f(batch):
        return batch["x"] * 2.0

    f({"x": tf.ones([2]), "y": tf.ones([2])})
    f({"x": tf.ones([4]), "y": tf.ones([2])})
    (arg, what, _), = tf.debug.explain_retracing(f).traces[1].changes
    assert arg == "batch['x']" and what == "shape (2,) before, (4,) now"


def test_variables_made_on_the_first_call_explain_the_second_trace():
    holder = []

    @tf.function
    def f(x):
        if not holder:
            holder.append(tf.Variable(1.0))
        return holder[0] * x

    f(tf.constant(2.0))
    report = tf.debug.explain_retracing(f)
    assert len(report.traces) == 2 and "created variables" in str(report.traces[1])


def test_only_functions_are_explained():
    with pytest.raises(TypeError, match="takes a tf.function"):
        tf.debug.explain_retracing(lambda x: x)
