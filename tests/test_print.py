"""``tf.print`` beyond the golden cases: capture through Python's streams, the log streams, the one ``PrintV2`` op
it runs (inputs, attributes, what tapes record), and the reprs that differ between Python and NumPy versions.

What TF prints, for every dtype, rank and structure, is checked against TF itself in
``tests/golden/cases/print_ops.py``.
"""

from __future__ import annotations

import collections
import io
import pprint
import re
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core.equation import freeze_attrs
from tapeflow._core.registry import REGISTRY
from tapeflow.ops import print_ops
from tapeflow.ops.print_ops import PRINT


def test_exported_as_tf_print():
    assert tf.print is print_ops.print_v2
    assert tf.print.__name__ == "print_v2"
    assert "print" in tf.__all__


# ---- Python's streams ----------------------------------------------------------------------------------------


def test_default_stream_is_sys_stderr_at_the_call(capsys):
    assert tf.print("x", tf.constant([1, 2])) is None
    out, err = capsys.readouterr()
    assert (out, err) == ("", "x [1 2]\n")


def test_sys_stdout_is_captured(capsys):
    tf.print(tf.range(10), {"k": tf.constant(1.5)}, output_stream=sys.stdout, sep=", ", end="!")
    out, err = capsys.readouterr()
    assert (out, err) == ("[0 1 2 ... 7 8 9], {'k': 1.5}!", "")


def test_streams_swapped_after_import_are_the_ones_written(monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    tf.print("to out", output_stream=sys.stdout)
    tf.print("to err")
    assert (out.getvalue(), err.getvalue()) == ("to out\n", "to err\n")


def test_a_stream_no_longer_current_is_refused(monkeypatch):
    old = sys.stdout
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    if old is sys.stderr:  # pragma: no cover - only if the runner made the two one object
        pytest.skip("stdout and stderr are one object here")
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print(1, output_stream=old)


def test_streams_are_flushed():
    class Recorder(io.StringIO):
        flushed = 0

        def flush(self):
            self.flushed += 1

    stream = Recorder()
    saved, sys.stdout = sys.stdout, stream
    try:
        tf.print("x", output_stream=sys.stdout)
    finally:
        sys.stdout = saved
    assert stream.getvalue() == "x\n" and stream.flushed == 1


def test_bytes_that_are_not_utf8_reach_a_text_stream_escaped_and_a_file_as_they_are(capsys, tmp_path):
    tf.print(tf.constant(b"a\xffb"), output_stream=sys.stdout)
    assert capsys.readouterr().out == "a\\xffb\n"
    path = tmp_path / "out.txt"
    tf.print(tf.constant(b"a\xffb"), output_stream=f"file://{path}")
    tf.print(tf.constant([b"\xfe"]), output_stream=f"file://{path}", end=b"|")
    assert path.read_bytes() == b"a\xffb\n[\"\xfe\"]|"


# ---- the log streams (TF's C++ log line on stderr) ---------------------------------------------------------------

_LOG_LINE = r"{}0000 00:00:\d+\.\d{{6}} +\d+ logging_ops\.cc:{}\] {}\n"


@pytest.mark.parametrize("level,letter,line,filtered_at", [(20, "I", 169, 1), (0, "I", 169, 1),
                                                           (30, "W", 171, 2), (-1, "W", 171, 2),
                                                           (40, "E", 173, 3), (-2, "E", 173, 3)])
def test_log_levels_write_tf_log_lines_to_stderr(capsys, monkeypatch, level, letter, line, filtered_at):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "0")
    tf.print("msg", tf.constant([1, 2]), output_stream=level)
    out, err = capsys.readouterr()
    assert out == ""
    # The log line always ends in a newline of its own, after ``end``.
    assert re.fullmatch(_LOG_LINE.format(letter, line, r"msg \[1 2\]\n"), err), err
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", str(filtered_at - 1))
    tf.print("kept", output_stream=level, end="")
    assert re.fullmatch(_LOG_LINE.format(letter, line, "kept"), capsys.readouterr().err)
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", str(filtered_at))
    tf.print("filtered", output_stream=level)
    assert capsys.readouterr() == ("", "")


# ---- the one op --------------------------------------------------------------------------------------------


def _spy(monkeypatch):
    calls = []
    original = print_ops.execute

    def spy(op, inputs, attrs=None):
        calls.append((op, inputs, attrs))
        return original(op, inputs, attrs)

    monkeypatch.setattr(print_ops, "execute", spy)
    return calls


def test_one_execute_of_print_v2_with_the_tensors_as_inputs(monkeypatch, capsys):
    calls = _spy(monkeypatch)
    a, b = tf.constant([1.0, 2.0]), tf.constant(3)
    v = tf.Variable([[True]])
    tf.print("a:", a, [b, 2.5, {"v": v, "s": "text"}], np.array([7]), summarize=-1, sep="|", end="$",
             output_stream=sys.stdout)
    assert capsys.readouterr().out == "a:|[1 2]|[3, 2.5, {'s': 'text', 'v': [[1]]}]|array([7])$"
    assert len(calls) == 1
    op, inputs, attrs = calls[0]
    assert op is PRINT and op.name == "PrintV2"
    assert inputs[0] is a and inputs[1] is b and len(inputs) == 3
    assert type(inputs[2]) is type(a) and inputs[2].numpy().tolist() == [[True]]  # the variable, read
    assert attrs == {"templates": ("a:", "'{}'", "['{}', 2.5, {'s': 'text', 'v': '{}'}]", "array([7])"),
                     "placeholder": "{}", "sep": "|", "summarize": -1, "verbatim": False, "output_stream": "stdout",
                     "end": "$"}
    assert hash(freeze_attrs(attrs)) is not None


def test_a_print_of_python_values_only_runs_the_op_without_inputs(monkeypatch, capsys):
    calls = _spy(monkeypatch)
    tf.print("no", "tensors", 1)
    assert capsys.readouterr().err == "no tensors 1\n"
    assert [(op, inputs) for op, inputs, _ in calls] == [(PRINT, ())]


def test_a_lone_scalar_string_is_verbatim(monkeypatch, capsys):
    calls = _spy(monkeypatch)
    s = tf.constant("as 'is'\n")
    tf.print(s, output_stream=sys.stdout)
    assert capsys.readouterr().out == "as 'is'\n\n"
    (op, inputs, attrs), = calls
    assert inputs == (s,) and attrs["verbatim"] is True
    assert hash(freeze_attrs(attrs)) is not None


def test_the_op_is_registered_without_outputs_or_gradient():
    assert REGISTRY["PrintV2"] is PRINT
    assert PRINT.vjp is None and not PRINT.differentiable and PRINT.num_outputs == 0


def test_printing_a_watched_tensor_under_a_tape_keeps_gradients(capsys):
    x = tf.constant([1.0, 2.0])
    v = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tf.print("y", y, v)
        loss = tf.reduce_sum(y) * v
    assert capsys.readouterr().err == "y [1 4] 3\n"
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]
    gx, gv = tape.gradient(loss, [x, v])
    assert gx.numpy().tolist() == [6.0, 12.0] and float(gv) == 5.0
    printed = [eq for eq in tape._tape.equations() if eq.op is PRINT]
    assert len(printed) == 1
    eq = printed[0]
    assert eq.outputs == () and eq.results == () and len(eq.inputs) == 2
    assert hash(freeze_attrs(eq.attrs)) is not None


def test_printing_inside_forward_mode_and_jacobians(capsys):
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
        y = x * 3.0
        tf.print(y)
    assert acc.jvp(y).numpy().tolist() == [3.0, 0.0]
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = x * x
        tf.print(z, summarize=1)
    assert tape.jacobian(z, x).numpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]
    assert capsys.readouterr().err == "[3 6]\n[1 4]\n"


def test_file_errors_carry_the_name(tmp_path):
    missing = tmp_path / "no" / "such.txt"
    with pytest.raises(tf.errors.NotFoundError, match=r"such\.txt; No such file or directory \[Op:PrintV2\] "
                                                       r"name: given$"):
        tf.print(1, output_stream=f"file://{missing}", name="given")


# ---- reprs that vary across Python and NumPy versions ----------------------------------------------------------


def test_ordered_dict_keeps_tfs_mismatch_of_order(capsys):
    # TF sorts the keys to collect the tensors but prints the dict in its own order: the values land on the wrong
    # keys. tapeflow prints the same text.
    d = collections.OrderedDict([("b", tf.constant(1)), ("a", tf.constant(2))])
    tf.print(d, output_stream=sys.stdout)
    expected = pprint.pformat(collections.OrderedDict([("b", "{}"), ("a", "{}")])).replace("'{}'", "{}")
    assert capsys.readouterr().out == expected.format(2, 1) + "\n"


def test_numpy_scalars_print_their_repr(capsys):
    tf.print(np.float32(1.5), [np.int64(3)], tf.constant(1), output_stream=sys.stdout)
    assert capsys.readouterr().out == f"{np.float32(1.5)!r} [{np.int64(3)!r}] 1\n"


# ---- float text ------------------------------------------------------------------------------------------------


def test_float32_read_back_is_rounded_once():
    # float("1.00000005960464477539062500001") is 1 + 2**-24, halfway between two float32 values; rounding that
    # double again gives 1.0 (ties to even), but the decimal itself is above halfway: it reads as 1 + 2**-23.
    text = "1.00000005960464477539062500001"
    assert print_ops._reads_back_float32(text, 1.0 + 2.0 ** -23)
    assert not print_ops._reads_back_float32(text, 1.0)
    assert print_ops._reads_back_float32("1.000000059604644775390625", 1.0)  # a true tie: to even


def test_summarize_value_formats_every_kind():
    cases = [(np.float32([0.1, 1 / 3]), b"[0.1 0.333333343]"), (np.float64([0.1, 1 / 3]), b"[0.1 0.33333333333333331]"),
             (np.float16([0.1]), b"[0.0999755859]"), (np.array([True, False]), b"[1 0]"),
             (np.array([b"q\"'\\"], dtype=object), b'["q\\"\\\'\\\\"]'), (np.complex64([1j, 2]), b"[? ?]"),
             (np.uint64([2 ** 64 - 1]), b"[18446744073709551615]"), (np.float32(-np.nan), b"-nan")]
    for value, text in cases:
        assert print_ops.summarize_value(value, 3) == text
