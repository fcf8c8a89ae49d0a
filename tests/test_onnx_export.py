"""ONNX export (``tapeflow.onnx.export``): Keras models and traced functions run under ONNX Runtime as under
tapeflow, within 1e-5, at batch sizes other than the trace's; the models pass ``onnx.checker`` (full check); the
errors name the op, the line or the extra; a failed export leaves no file behind."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from tapeflow.onnx import _export  # noqa: E402 - after the skips: it needs onnx
from tapeflow.onnx._registry import LOWERINGS, lowering_of  # noqa: E402

L = tf.keras.layers
BATCHES = (1, 4)  # neither is a size the export traces or checks at


def _session(path):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _run(sess, arrays):
    return sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})


def _close(got, want):
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


def _check_file(path):
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    return model


def _seeded(model):
    """Give every variable of ``model`` deterministic values (batch-norm statistics included, not 0 and 1)."""
    rng = np.random.default_rng(7)
    for v in model.variables:
        shape = v.shape.as_list()
        if "variance" in v.name:
            v.assign(rng.uniform(0.5, 2.0, shape).astype(np.float32))
        else:
            v.assign(rng.normal(0, 0.4, shape).astype(np.float32))
    return model


def _inputs(shape, batch, dtype=np.float32, high=None, seed=0):
    rng = np.random.default_rng(seed + batch)
    full = (batch,) + tuple(shape)
    if high is not None:
        return rng.integers(0, high, full).astype(dtype)
    return rng.normal(0, 1, full).astype(dtype)


def _export_and_compare(model, shape, tmp_path, dtype=np.float32, high=None):
    path = tmp_path / "model.onnx"
    tf.onnx.export(model, path=path)
    proto = _check_file(path)
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and [d.dim_value for d in dims[1:]] == list(shape)
    sess = _session(path)
    for batch in BATCHES:
        x = _inputs(shape, batch, dtype, high)
        (got,) = _run(sess, [x])
        _close(got, model(x, training=False))
    return proto


# ------------------------------------------------------------------------------------------ Keras models


def test_mlp(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((8,)), L.Dense(16, activation="relu"),
                                         L.Dense(12, activation="tanh"), L.Dropout(0.3),
                                         L.Dense(3, activation="softmax")]))
    _export_and_compare(model, (8,), tmp_path)


def test_cnn(tmp_path):
    model = _seeded(tf.keras.Sequential([
        tf.keras.Input((12, 12, 3)), L.Conv2D(4, 3, padding="same", activation="relu"), L.MaxPooling2D(),
        L.BatchNormalization(), L.Conv2D(5, 3, strides=2, padding="same"), L.AveragePooling2D(2, padding="same"),
        L.Conv2D(6, 2, dilation_rate=1), L.Flatten(), L.Dense(2)]))
    _export_and_compare(model, (12, 12, 3), tmp_path)


def test_cnn_global_pooling_and_strides(tmp_path):
    model = _seeded(tf.keras.Sequential([
        tf.keras.Input((11, 9, 2)), L.Conv2D(3, (3, 2), strides=(2, 1), padding="same", activation="elu"),
        L.MaxPooling2D(3, strides=2, padding="same"), L.Conv2D(4, 2, dilation_rate=2, padding="same"),
        L.GlobalMaxPooling2D(), L.Dense(3, activation="sigmoid")]))
    _export_and_compare(model, (11, 9, 2), tmp_path)


def test_conv1d(tmp_path):
    model = _seeded(tf.keras.Sequential([
        tf.keras.Input((10, 3)), L.Conv1D(4, 3, activation="gelu"), L.AveragePooling1D(2), L.Conv1D(5, 2,
                                                                                                   padding="same"),
        L.MaxPooling1D(2), L.GlobalAveragePooling1D(), L.Dense(2)]))
    _export_and_compare(model, (10, 3), tmp_path)


def test_lstm(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((5, 4)), L.LSTM(6, return_sequences=True), L.LSTM(3)]))
    _export_and_compare(model, (5, 4), tmp_path)


def test_gru(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((6, 3)), L.GRU(5, return_sequences=True), L.GRU(4),
                                         L.Dense(2)]))
    _export_and_compare(model, (6, 3), tmp_path)


def test_simple_rnn_go_backwards(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((4, 3)), L.SimpleRNN(5, go_backwards=True)]))
    _export_and_compare(model, (4, 3), tmp_path)


def test_attention_block(tmp_path):
    inp = tf.keras.Input((6, 8))
    att = L.MultiHeadAttention(2, 4)(inp, inp)
    x = L.LayerNormalization()(L.Add()([att, inp]))
    ffn = L.Dense(8)(L.Dense(16, activation="gelu")(x))
    out = L.LayerNormalization()(x + ffn)
    model = _seeded(tf.keras.Model(inp, out))
    _export_and_compare(model, (6, 8), tmp_path)


def test_embedding_int_input(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((7,), dtype="int32"), L.Embedding(20, 4),
                                         L.GlobalAveragePooling1D(), L.Dense(3)]))
    proto = _export_and_compare(model, (7,), tmp_path, np.int32, high=20)
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.INT32


ACTIVATIONS = ["relu", "sigmoid", "tanh", "softmax", "gelu", "elu", "selu", "softplus", "softsign", "leaky_relu",
               "swish", "silu", "relu6", "hard_sigmoid", "hard_silu", "mish", "log_softmax", "exponential",
               "celu", "hard_tanh", "log_sigmoid", "tanh_shrink", "squareplus"]


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_activations(activation, tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((5,)), L.Dense(6, activation=activation)]))
    _export_and_compare(model, (5,), tmp_path)


def test_multi_input_model_and_outputs(tmp_path):
    a, b = tf.keras.Input((4,), name="left"), tf.keras.Input((3,), name="right")
    joined = L.Concatenate()([L.Dense(5)(a), L.Dense(5)(b)])
    model = _seeded(tf.keras.Model([a, b], [L.Dense(2)(joined), L.Dense(1, activation="sigmoid")(joined)]))
    path = tmp_path / "two.onnx"
    proto = tf.onnx.export(model, path=path)
    _check_file(path)
    assert [i.name for i in proto.graph.input] == ["left", "right"]
    assert [o.name for o in proto.graph.output] == ["output_0", "output_1"]
    sess = _session(path)
    for batch in BATCHES:
        xs = [_inputs((4,), batch), _inputs((3,), batch, seed=1)]
        want = model(xs, training=False)
        for got, w in zip(_run(sess, xs), want):
            _close(got, w)


# ------------------------------------------------------------------------------------------ traced functions


def test_traced_function_of_many_ops(tmp_path):
    w = tf.Variable(np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32), tf.TensorSpec([None], tf.int32)])
    def f(x, idx):
        h = tf.nn.relu(x @ w) - tf.reduce_mean(x, axis=1, keepdims=True)
        parts = tf.split(h, 2, axis=1)
        z = tf.concat([parts[1], parts[0] * 2.0], axis=-1)
        picked = tf.gather(tf.transpose(w), tf.math.floormod(idx, 4))
        mixed = tf.einsum("bi,ij->bj", x, w)
        cond = tf.where(z > 0.1, z, tf.math.exp(-tf.abs(z)))
        flat = tf.reshape(cond[:, ::-1], [tf.shape(x)[0], -1])
        stats = tf.stack([tf.reduce_max(flat, 1), tf.reduce_min(flat, 1), tf.reduce_sum(flat ** 2, 1)], axis=1)
        return {"stats": stats, "picked": picked, "mixed": tf.nn.softmax(mixed),
                "pos": tf.cast(tf.argmax(mixed, axis=1), tf.float32)[:, None] + tf.math.cumsum(x, 1),
                "hot": tf.one_hot(idx % 3, 3, on_value=2.0, off_value=-1.0), "tiled": tf.tile(x[:, :2], [1, 2]),
                "padded": tf.pad(tf.expand_dims(x, -1), [[0, 0], [1, 2], [0, 0]])}

    path = tmp_path / "f.onnx"
    tf.onnx.export(f, path=path)
    _check_file(path)
    sess = _session(path)
    for batch in BATCHES:
        x = _inputs((6,), batch)
        idx = np.arange(batch, dtype=np.int32) * 5 - 2
        want = f(tf.constant(x), tf.constant(idx))
        got = _run(sess, [x, idx])
        for g, key in zip(got, sorted(want)):  # outputs in tf.nest order: a dict's sorted keys
            _close(g, want[key])


def test_python_function_with_signature_and_static_shapes(tmp_path):
    def f(x):
        return tf.math.log1p(tf.square(x)) / (1.0 + tf.math.sqrt(tf.abs(x))), tf.reduce_prod(x, axis=0)

    spec = [tf.TensorSpec([3, 4], tf.float32, name="values")]
    path = tmp_path / "p.onnx"
    proto = tf.onnx.export(f, spec, path)
    assert proto.graph.input[0].name == "values"
    assert [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim] == [3, 4]
    x = _inputs((4,), 3)
    for g, w in zip(_run(_session(path), [x]), f(tf.constant(x))):
        _close(g, w)


def test_dynamic_dims_beyond_batch(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def f(x):
        return tf.reduce_sum(tf.nn.sigmoid(x), axis=1) + tf.cast(tf.shape(x)[1], tf.float32)

    proto = tf.onnx.export(f, path=tmp_path / "d.onnx")
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_param.startswith("unk__")
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    sess = _session(tmp_path / "d.onnx")
    for shape in [(1, 2, 3), (4, 9, 3)]:
        x = np.random.default_rng(2).normal(size=shape).astype(np.float32)
        _close(_run(sess, [x])[0], f(tf.constant(x)))


def test_concrete_function_and_returned_model(tmp_path):
    f = tf.function(lambda x: tf.nn.leaky_relu(x, 0.3) * 2.0)
    concrete = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float64))
    proto = tf.onnx.export(concrete)  # no path: only the model
    onnx.checker.check_model(proto, full_check=True)
    assert proto.opset_import[0].version == tf.onnx.OPSET
    x = np.array([[-1.0, 2.0]], np.float64)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    _close(_run(sess, [x])[0], f(tf.constant(x)))


# ------------------------------------------------------------------------------------------ the lowering registry


def test_every_lowering_is_of_a_registered_op():
    from tapeflow._core.registry import REGISTRY

    assert set(tf.onnx.supported_ops()) == set(LOWERINGS)
    assert [k for k in LOWERINGS if k not in REGISTRY and k != "Unpack"] == []


def test_docs_list_every_lowering_and_the_opset():
    import re

    text = open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs", "onnx.md")).read()
    table = text.split("## Supported ops")[1].split("\n## ")[0]
    listed = set(re.findall(r"\b[A-Z][A-Za-z0-9]+\b", table.split("|---|---|")[1]))
    assert set(LOWERINGS) <= listed
    assert f"({len(LOWERINGS)} lowerings)" in table
    assert f"opset {tf.onnx.OPSET}" in text


def _attention_model():
    inp = tf.keras.Input((4, 4))
    return tf.keras.Model(inp, L.LayerNormalization()(L.MultiHeadAttention(2, 2)(inp, inp)))


MODEL_PROGRAMS = {
    "mlp": lambda: tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(3, activation="relu"), L.Dense(2)]),
    "cnn": lambda: tf.keras.Sequential([tf.keras.Input((8, 8, 2)), L.Conv2D(3, 3, padding="same"),
                                        L.MaxPooling2D(), L.BatchNormalization(), L.AveragePooling2D(2),
                                        L.GlobalAveragePooling2D()]),
    "rnn": lambda: tf.keras.Sequential([tf.keras.Input((3, 2)), L.LSTM(2, return_sequences=True), L.GRU(2),
                                        L.Dense(1)]),
    "attention": _attention_model,
    "embedding": lambda: tf.keras.Sequential([tf.keras.Input((3,), dtype="int32"), L.Embedding(5, 2),
                                              L.Flatten()]),
}


@pytest.mark.parametrize("name", sorted(MODEL_PROGRAMS))
def test_every_op_of_model_programs_has_a_lowering(name):
    function, specs = _export._function_of(MODEL_PROGRAMS[name](), None)
    plan, _ = _export._dims_plan(specs)
    graph = _export._trace(function, specs, plan).graph
    keys = {n[0] for n in graph.nodes if type(n) is tuple}
    assert keys, name
    assert sorted(k for k in keys if not isinstance(k, str) or lowering_of(k) is None) == []


def _db_cases():
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from tests.op_db import DB

    for key in sorted(LOWERINGS):
        entry = DB[key]
        for sample in entry.samples:
            # ONNX Runtime has no complex tensors (the Cast entry goes through complex128 too).
            if sample.name.startswith("complex") or key == "Cast":
                continue
            yield pytest.param(entry, sample, id=f"{key}-{sample.name}")


# What the export refuses, with the reason its error gives.
_REFUSED = {("GatherV2", "batch_dims1_axis2"): "batch_dims", ("GatherV2", "batch_dims1_axis1"): "batch_dims",
            ("Range", "down"): "stand-in inputs"}
# Ops the passes drop before export (the samples still export and run).
_DROPPED = {"Identity", "StopGradient"}


@pytest.mark.parametrize("entry,sample", list(_db_cases()))
def test_lowering_against_op_db_sample(entry, sample):
    """Every lowering, on every sample of its op's database entry, in float32: ONNX Runtime equals tapeflow."""
    from tapeflow._core.registry import REGISTRY

    args = [np.asarray(a, np.float32) for a in sample.args]
    fn = tf.function(lambda *xs: entry.fn(*xs, **sample.kwargs),
                     input_signature=[tf.TensorSpec(a.shape, tf.float32) for a in args])
    reason = _REFUSED.get((entry.name, sample.name))
    if reason is not None:
        with pytest.raises(tf.onnx.ExportError, match=reason):
            tf.onnx.export(fn)
        return
    want = fn(*[tf.constant(a) for a in args])
    want = want if isinstance(want, (list, tuple)) else [want]
    proto = tf.onnx.export(fn)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    got = _run(sess, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.asarray(w).dtype
        _close(g, w)
    if entry.name not in _DROPPED:
        name = REGISTRY[entry.name].name if entry.name in REGISTRY else entry.name
        assert any(n.doc_string.startswith(f"{name} at ") for n in proto.graph.node)


# ------------------------------------------------------------------------------------------ errors, files, extras


def test_op_without_lowering_names_op_and_line(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None, 3, 3], tf.float32)])
    def f(x):
        return tf.linalg.cholesky(x @ tf.linalg.matrix_transpose(x))

    path = tmp_path / "chol.onnx"
    path.write_bytes(b"previous")
    with pytest.raises(tf.onnx.ExportError, match=r"op 'Cholesky' \(made at .*test_onnx_export.py:\d+\) has no ONNX "
                                                  r"lowering"):
        tf.onnx.export(f, path=path)
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["chol.onnx"]


def _compare_function(f, specs, cases, tmp_path):
    path = tmp_path / "cf.onnx"
    tf.onnx.export(f, specs, path)
    _check_file(path)
    sess = _session(path)
    for arrays in cases:
        want = f(*[tf.constant(a) for a in arrays])
        want = want if isinstance(want, (list, tuple)) else [want]
        for g, w in zip(_run(sess, arrays), want):
            _close(g, w)


def test_while_loop_becomes_an_onnx_loop(tmp_path):
    w = tf.Variable(np.eye(3, dtype=np.float32) * 0.5)

    def f(x, n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.tanh(v @ w) + x), (0, x))

    specs = [tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)]
    cases = [[_inputs((3,), b), np.array(k, np.int32)] for b, k in [(1, 0), (4, 3), (2, 7)]]
    _compare_function(f, specs, cases, tmp_path)
    assert [n.op_type for n in onnx.load(str(tmp_path / "cf.onnx")).graph.node].count("Loop") == 1


def test_cond_and_switch_case_become_onnx_ifs(tmp_path):
    def f(x, k):
        picked = tf.switch_case(k, [lambda: x + 1.0, lambda: x * 3.0, lambda: tf.exp(x)])
        return tf.cond(tf.reduce_sum(x) > 0, lambda: picked * 2.0, lambda: -picked)

    specs = [tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)]
    cases = [[s * np.ones(n, np.float32), np.array(k, np.int32)]
             for s, n, k in [(1, 3, 0), (-1, 2, 1), (1, 1, 2), (-1, 4, 9), (1, 2, -1)]]
    _compare_function(f, specs, cases, tmp_path)


def test_autograph_loop_over_a_tensor_range_with_an_if(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, n):
        total = tf.zeros_like(x)
        for i in tf.range(n):
            if tf.reduce_sum(total) < 10.0:
                total += x * tf.cast(i, tf.float32)
        return total

    cases = [[_inputs((2,), b), np.array(k, np.int32)] for b, k in [(3, 5), (1, 0), (4, 2)]]
    _compare_function(f, None, cases, tmp_path)


@pytest.mark.parametrize("body", ["random", "print", "cholesky_in_branch"])
def test_ops_without_lowering_are_refused_by_name(body, tmp_path):
    def f(x):
        if body == "random":
            return x + tf.random.uniform(tf.shape(x))
        if body == "print":
            tf.print(x)
            return x
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.linalg.cholesky(x[None] * x[:, None] + 1.0), lambda: x[None])

    with pytest.raises(tf.onnx.ExportError, match=r"op '\w+' \(made at .*test_onnx_export.py:\d+\) has no ONNX"):
        tf.onnx.export(f, [tf.TensorSpec([None], tf.float32)], tmp_path / "x.onnx")
    assert not os.listdir(tmp_path)


def test_variable_assignment_is_refused(tmp_path):
    v = tf.Variable(0.0)

    def f(x):
        v.assign_add(tf.reduce_sum(x))
        return x * v

    with pytest.raises(tf.onnx.ExportError, match="assigns the variable"):
        tf.onnx.export(f, [tf.TensorSpec([2], tf.float32)], tmp_path / "v.onnx")


@pytest.mark.parametrize("kind", ["lstm", "gru_sequences", "simple_rnn_backwards_states", "masked_lstm"])
def test_rnn_over_a_none_time_axis_is_an_onnx_loop(kind, tmp_path):
    inp = tf.keras.Input((None, 2))
    if kind == "lstm":
        out = L.LSTM(3)(inp)
    elif kind == "gru_sequences":
        out = L.GRU(4, return_sequences=True)(L.GRU(3, return_sequences=True, go_backwards=True)(inp))
    elif kind == "simple_rnn_backwards_states":
        out = list(L.SimpleRNN(2, go_backwards=True, return_state=True)(inp))
    else:
        out = L.LSTM(3, return_sequences=True)(L.Masking(0.0)(inp))
    model = _seeded(tf.keras.Model(inp, out))
    path = tmp_path / "rnn.onnx"
    proto = tf.onnx.export(model, path=path)
    _check_file(path)
    assert [d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim][:2] == ["batch", "unk__1"]
    assert "Loop" in [n.op_type for n in proto.graph.node]
    sess = _session(path)
    for batch, steps in [(1, 1), (3, 6), (2, 9)]:
        x = _inputs((steps, 2), batch)
        if kind == "masked_lstm":
            x[:, steps // 2:] = 0.0  # masked steps keep the previous output and states
        want = model(x, training=False)
        want = want if isinstance(want, (list, tuple)) else [want]
        for got, w in zip(_run(sess, [x]), want):
            _close(got, w)


@pytest.mark.parametrize("opset", [18, 21])
def test_sequence_model_with_free_batch_and_length(opset, tmp_path):
    inp = tf.keras.Input((None, 4))
    x = L.LSTM(4, return_sequences=True)(inp)
    y = L.LayerNormalization()(x + L.MultiHeadAttention(2, 2)(x, x))
    z = L.MaxPooling1D(2, padding="same")(L.Conv1D(3, 2, padding="same", activation="gelu")(y))
    model = _seeded(tf.keras.Model(inp, L.GlobalMaxPooling1D()(L.Dense(5)(z))))
    path = tmp_path / "seq.onnx"
    proto = tf.onnx.export(model, path=path, opset=opset)
    _check_file(path)
    assert proto.opset_import[0].version == opset
    sess = _session(path)
    for batch, steps in [(1, 2), (3, 7)]:
        x = _inputs((steps, 4), batch)
        _close(_run(sess, [x])[0], model(x, training=False))


def test_text_classifier_with_masked_padding_over_any_length(tmp_path):
    model = _seeded(tf.keras.Sequential([tf.keras.Input((None,), dtype="int32"), L.Embedding(50, 8, mask_zero=True),
                                         L.GRU(6), L.Dense(2, activation="softmax")]))
    path = tmp_path / "text.onnx"
    tf.onnx.export(model, path=path)
    _check_file(path)
    sess = _session(path)
    for batch, steps in [(2, 5), (4, 11)]:
        x = np.random.default_rng(steps).integers(1, 50, (batch, steps)).astype(np.int32)
        x[:, -2:] = 0  # padding, masked out
        _close(_run(sess, [x])[0], model(x, training=False))


def test_python_loop_over_a_none_axis_is_refused(tmp_path):
    def f(x):
        total = 0.0
        for row in tf.unstack(x, axis=1):  # unrolled to the length the trace saw
            total += tf.reduce_sum(row)
        return total

    with pytest.raises(tf.onnx.ExportError, match=r"op 'Unpack' \(made at .*test_onnx_export.py:\d+\): ONNX export "
                                                  r"does not support unstacking axis 1 into 7 tensors: the size of "
                                                  r"that axis varies"):
        tf.onnx.export(f, [tf.TensorSpec([None, None], tf.float32)], tmp_path / "r.onnx")
    assert not os.listdir(tmp_path)
    tf.onnx.export(f, [tf.TensorSpec([None, 4], tf.float32)], tmp_path / "r.onnx")  # a fixed length exports
    _check_file(tmp_path / "r.onnx")


def test_keras_rnn_traced_over_none_steps_serves_every_length():
    model = _seeded(tf.keras.Sequential([tf.keras.Input((None, 2)), L.GRU(3, return_sequences=True)]))
    f = tf.function(lambda x: model(x, training=False), input_signature=[tf.TensorSpec([None, None, 2])])
    for steps in (1, 4, 7):
        x = _inputs((steps, 2), 2)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), model(x, training=False).numpy(), rtol=1e-6, atol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_bad_signatures(tmp_path):
    f = tf.function(lambda x, y: x + y)
    with pytest.raises(TypeError, match="input_signature must be either a tuple or a list"):
        tf.onnx.export(f, tf.TensorSpec([2]))
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.onnx.export(f, [3, 4])
    with pytest.raises(TypeError):  # one spec for two parameters: TF's binding error
        tf.onnx.export(f, [tf.TensorSpec([2])])
    with pytest.raises(ValueError, match="no known rank"):
        tf.onnx.export(f, [tf.TensorSpec(None), tf.TensorSpec(None)])
    with pytest.raises(ValueError, match="needs input_signature"):
        tf.onnx.export(lambda x: x)
    with pytest.raises(ValueError, match="has no input_signature"):
        tf.onnx.export(f)
    with pytest.raises(TypeError, match="expected a tf.function"):
        tf.onnx.export(42, [tf.TensorSpec([2])])
    with pytest.raises(ValueError, match="never built"):
        tf.onnx.export(tf.keras.Sequential([L.Dense(2)]))
    with pytest.raises(ValueError, match="opset"):
        tf.onnx.export(lambda x: x, [tf.TensorSpec([2])], opset=11)
    assert not os.listdir(tmp_path)


def test_interrupted_write_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "m.onnx"
    fn = tf.function(lambda x: x * 3.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    tf.onnx.export(fn, path=path)
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(_export.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        tf.onnx.export(tf.function(lambda x: x * 4.0, input_signature=[tf.TensorSpec([None], tf.float32)]),
                       path=path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.onnx"]


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # an import of onnx now fails
    with pytest.raises(ImportError, match=r"tapeflow\[onnx\]"):
        tf.onnx.export(lambda x: x, [tf.TensorSpec([2])])


def test_import_tapeflow_does_not_import_onnx():
    code = ("import sys, tapeflow; tapeflow.onnx.supported_ops(); "
            "assert 'onnx' not in sys.modules and 'onnxruntime' not in sys.modules")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
