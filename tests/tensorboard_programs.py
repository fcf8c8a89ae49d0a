"""The TensorBoard programs run by TensorFlow 2.21 (``tools/record_tensorboard_golden.py``) and by tapeflow
(``tests/test_summary.py``, ``tests/test_keras_tensorboard.py``), and the reader both sides use: TensorBoard's own
``plugin_event_accumulator`` (what the TensorBoard server reads logs with), turned into plain JSON values (images
decoded to pixels, audio as WAV bytes, graphs as their nodes), so TF's logs and tapeflow's compare value by value.
"""

import base64
import io
import json
import os

import numpy as np


def _rng():
    return np.random.RandomState(0)


def summaries(tf, logdir):
    """Every ``tf.summary`` function, eagerly and in a ``tf.function``, with steps from each source."""
    rng = _rng()
    writer = tf.summary.create_file_writer(os.path.join(logdir, "eager"))
    assert not bool(tf.summary.scalar("ignored", 1.0, step=0))  # no default writer: nothing written
    with writer.as_default():
        tf.summary.scalar("loss", 0.25, step=1)
        tf.summary.scalar("loss", np.float64(1) / 3, step=2, description="the *loss*")
        tf.summary.scalar("int_value", 7, step=3)
        tf.summary.scalar("bool_value", tf.constant(True), step=3)
        with tf.name_scope("outer"):
            with tf.name_scope("inner"):
                tf.summary.scalar("odd name!", 2.5, step=4)
        tf.summary.histogram("normal", rng.normal(size=1000), step=0)
        tf.summary.histogram("normal", rng.normal(3, 2, size=(40, 25)).astype("float32"), step=1, buckets=7)
        tf.summary.histogram("ints", np.arange(-5, 20, dtype="int32"), step=0, buckets=4)
        tf.summary.histogram("same", [2.0, 2.0, 2.0], step=0)
        tf.summary.histogram("empty", np.zeros((0, 3)), step=0, buckets=5)
        tf.summary.histogram("one_bucket", [0.0, 1.0, 5.0], step=0, buckets=1)
        tf.summary.histogram("no_buckets", [0.0, 1.0], step=0, buckets=0)
        tf.summary.histogram("with_nan", [1.0, np.nan, 3.0], step=0, buckets=3)
        tf.summary.histogram("with_inf", [1.0, np.inf, 3.0], step=0, buckets=3)
        tf.summary.histogram("half", np.array([0.1, 0.7, 0.3], np.float16), step=0, buckets=3)
        tf.summary.image("rgb", rng.rand(3, 5, 4, 3).astype("float32"), step=0, max_outputs=2)
        tf.summary.image("gray", (rng.rand(1, 3, 6, 1) * 1.4 - 0.2), step=0)
        tf.summary.image("rgba_uint8", rng.randint(0, 256, size=(2, 4, 4, 4)).astype("uint8"), step=1)
        tf.summary.image("gray_alpha_int16", rng.randint(-300, 32767, size=(1, 2, 3, 2)).astype("int16"), step=1)
        tf.summary.image("none", np.zeros((2, 3, 3, 3), "float32"), step=0, max_outputs=0)
        tf.summary.image("half_image", np.array([[[[0.1], [0.7], [1.2]]]], np.float16), step=0)
        tf.summary.image("int8", np.array([[[[-3], [7], [127]]]], np.int8), step=0)
        tf.summary.image("uint16", np.array([[[[300], [7000], [65535]]]], np.uint16), step=0)
        tf.summary.scalar("too_big", np.float64(1e300), step=0)
        tf.summary.text("greeting", "hello *world*", step=0)
        tf.summary.text("table", [["a", "b"], ["c", "ü"]], step=1)
        waves = np.sin(np.linspace(0, 40, 2 * 50 * 2, dtype="float32")).reshape(2, 50, 2) * 1.2
        waves[0, :4, 0] = [0.5 / 32768, -1.5 / 32768, 1.0, -1.0]
        tf.summary.audio("stereo", waves, 8000, step=0, max_outputs=1)
        tf.summary.audio("mono", waves[:, :, :1] * 0.5, 16000, step=2, description="two clips")
        tf.summary.experimental.set_step(10)
        tf.summary.scalar("default_step", 1.5)
        tf.summary.experimental.set_step(None)
        with writer.as_default(step=20):
            tf.summary.scalar("as_default_step", 2.5)
        with tf.summary.record_if(False):
            assert not bool(tf.summary.scalar("not_recorded", 1.0, step=0))
        step = tf.Variable(0, dtype=tf.int64)
        with tf.summary.record_if(lambda: step % 2 == 0):
            for k in range(4):
                tf.summary.scalar("every_other", float(k), step=step)
                step.assign_add(1)
        tf.summary.write("generic", tf.constant([[1, 2], [3, 4]], dtype=tf.int64), step=5,
                         metadata=_scalar_plugin_bytes())
        tf.summary.experimental.write_raw_pb(tf.constant(_raw_summary()), step=6)
        writer.flush()

    traced_writer = tf.summary.create_file_writer(os.path.join(logdir, "traced"))
    counter = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train_step(x):
        with traced_writer.as_default(step=counter):
            tf.summary.scalar("x_squared", x * x)
            tf.summary.histogram("x_spread", tf.stack([x, x + 1.0, x * 3.0]), buckets=3)
        counter.assign_add(1)

    for value in (1.0, 2.0, -0.5):
        train_step(tf.constant(value))
    traced_writer.close()
    writer.close()


def _scalar_plugin_bytes():
    # A SummaryMetadata naming the "custom" plugin: field 1 (plugin_data) holding field 1 (plugin_name).
    name = b"custom"
    inner = b"\x0a" + bytes([len(name)]) + name + b"\x12\x01x"
    return b"\x0a" + bytes([len(inner)]) + inner


def _raw_summary():
    # A tf.compat.v1.Summary with one simple_value (field 2 of Value) under the tag "raw": TensorBoard turns it
    # into a scalars tensor.
    from tensorboard.compat.proto import summary_pb2

    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="raw", simple_value=0.75)]).SerializeToString()


def graphs(tf, logdir):
    """``trace_on``/``trace_export`` around the first call of a function, and ``tf.summary.graph`` of one."""
    writer = tf.summary.create_file_writer(logdir)
    x = tf.constant(np.arange(4, dtype="float32").reshape(2, 2))

    @tf.function
    def f(x):
        return tf.nn.relu(tf.matmul(x, x) + 1.0)

    with writer.as_default():
        tf.summary.trace_on(graph=True)
        f(x)
        tf.summary.trace_export("f_trace", step=3)

        @tf.function
        def g(a, b):
            return a * b - 2.0, tf.reduce_sum(a)

        tf.summary.graph(g.get_concrete_function(x, x).graph)
    writer.close()

    variable = tf.Variable(np.ones((2, 2), "float32"))
    other = tf.summary.create_file_writer(os.path.join(logdir, "ops"))

    bias = tf.Variable(np.zeros(2, "float32"))

    @tf.function
    def h(a):
        y = tf.reshape(tf.transpose(a), [4, 1]) * variable[0, 0]
        z = tf.concat([a, tf.cast(tf.reduce_mean(a, axis=1, keepdims=True) > 1.0, tf.float32)], 1)
        variable.assign_add(a)
        w = tf.matmul(a, variable) + bias
        bias.assign(w[0])
        return y, tf.reduce_max(z, axis=0), w

    @tf.function
    def indexing(a):
        return (a[0], a[:, 1:], a[..., 0:2:1], a[None, -1], tf.expand_dims(a, 1), tf.tile(a, [2, 1]),
                tf.pad(a, [[1, 0], [0, 0]]), tf.gather(a, [1, 0]), tf.nn.softmax(a), tf.reduce_sum(a, 0))

    with other.as_default():
        tf.summary.graph(h.get_concrete_function(x).graph)
    other.close()
    indexed = tf.summary.create_file_writer(os.path.join(logdir, "indexing"))
    with indexed.as_default():
        tf.summary.graph(indexing.get_concrete_function(x).graph)
    indexed.close()


def keras_model(tf):
    """A small classifier with fixed weights, and its data."""
    keras = tf.keras
    rng = _rng()
    x = rng.rand(24, 4).astype("float32")
    y = (x.sum(axis=1) > 2).astype("float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu", name="hidden"),
                              keras.layers.Dense(1, activation="sigmoid", name="out")], name="classifier")
    model.set_weights([rng.normal(size=(4, 3)).astype("float32"), np.array([0.1, -0.2, 0.0], "float32"),
                       rng.normal(size=(3, 1)).astype("float32"), np.zeros(1, "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="binary_crossentropy", metrics=["accuracy"])
    return model, x, y


def keras_fit(tf, logdir):
    """``fit`` with the ``TensorBoard`` callback: batch scalars every 2 steps, histograms and weight images."""
    model, x, y = keras_model(tf)
    callback = tf.keras.callbacks.TensorBoard(os.path.join(logdir, "batches"), histogram_freq=1, write_images=True,
                                              update_freq=2)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, validation_data=(x[:8], y[:8]), callbacks=[callback],
              verbose=0)
    model, x, y = keras_model(tf)
    callback = tf.keras.callbacks.TensorBoard(os.path.join(logdir, "epochs"), write_graph=False)
    model.fit(x, y, batch_size=12, epochs=3, shuffle=False, validation_split=0.25, callbacks=[callback], verbose=0)


def keras_embeddings(tf, logdir):
    """``embeddings_freq``: the Projector's config for the ``Embedding`` layers, and weights saved per epoch."""
    keras = tf.keras
    model = keras.Sequential([keras.Input((3,), dtype="int32"), keras.layers.Embedding(10, 2, name="words"),
                              keras.layers.Flatten(), keras.layers.Dense(1, name="out")])
    model.compile(optimizer="sgd", loss="mse")
    callback = keras.callbacks.TensorBoard(logdir, embeddings_freq=2, write_graph=False,
                                           embeddings_metadata={"words": "words.tsv"})
    model.fit(np.arange(12).reshape(4, 3) % 10, np.zeros((4, 1), "float32"), epochs=3, verbose=0,
              callbacks=[callback])


PROGRAMS = {"summaries": summaries, "graphs": graphs, "keras_fit": keras_fit, "keras_embeddings": keras_embeddings}


def other_files(root):
    """The files under ``root`` that are not event files, with the text of ``projector_config.pbtxt``."""
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            if "tfevents" in name:
                continue
            path = os.path.join(directory, name)
            key = os.path.relpath(path, root).replace(os.sep, "/")
            out[key] = open(path).read() if name.endswith(".pbtxt") else "(file)"
    return out


# ------------------------------------------------------------------------------------------ reading


def _attr(value):
    kind = value.WhichOneof("value")
    if kind == "tensor":
        from tensorboard.util import tensor_util

        return tensor_util.make_ndarray(value.tensor).tolist()
    if kind == "shape":
        return None if value.shape.unknown_rank else [d.size for d in value.shape.dim]
    if kind == "list":
        return [list(value.list.i), [[d.size for d in s.dim] for s in value.list.shape], list(value.list.type)]
    if kind == "s":
        return value.s.decode()
    return getattr(value, kind) if kind else None


def _graph_nodes(graph_def):
    """Each node's name, op, inputs and attributes (tensors as values, types as numbers)."""
    return sorted([node.name, node.op, list(node.input), {k: _attr(v) for k, v in sorted(node.attr.items())}]
                  for node in graph_def.node)


def _value(plugin, array):
    if plugin == "images":
        from PIL import Image

        images = []
        for png in array[2:]:
            picture = Image.open(io.BytesIO(png))
            images.append([picture.mode, np.asarray(picture).tolist()])
        return {"width": array[0].decode(), "height": array[1].decode(), "images": images}
    if plugin == "audio":
        # (TensorBoard's reader keeps the clips and drops the labels column)
        return [base64.b64encode(wav).decode() for wav in array.ravel()]
    if plugin in ("graph_run_metadata_graph", "graph_run_metadata"):
        from tensorboard.compat.proto import config_pb2

        run_metadata = config_pb2.RunMetadata.FromString(array.item())
        return [_graph_nodes(fg.pre_optimization_graph) for fg in run_metadata.function_graphs]
    if plugin == "graphs":
        from tensorboard.compat.proto import graph_pb2

        return _graph_nodes(graph_pb2.GraphDef.FromString(array.item()))
    if plugin == "graph_keras_model":
        config = json.loads(array.item())
        return {"class_name": config["class_name"], "layers": [layer["config"]["name"] for layer in
                                                               config["config"]["layers"]]}
    if array.dtype == object:
        return np.vectorize(lambda b: b.decode())(array).tolist() if array.size else []
    return array.astype(np.float64).tolist()


def read_logdir(root):
    """What TensorBoard reads from each run under ``root``: ``{run: {tag: {...}}}`` with each tag's plugin name,
    plugin content (base64), description, and events (step, dtype, shape, value)."""
    from tensorboard.backend.event_processing import plugin_event_accumulator as pea
    from tensorboard.util import tensor_util

    out = {}
    for directory, _, files in sorted(os.walk(root)):
        if not any("tfevents" in f for f in files):
            continue
        run = os.path.relpath(directory, root).replace(os.sep, "/")
        # (every event kept: TensorBoard's default purges those before a step that goes back, as epoch summaries
        # after batch ones do, and both libraries' logs would lose the same ones)
        acc = pea.EventAccumulator(directory, size_guidance={pea.TENSORS: 0}, purge_orphaned_data=False)
        acc.Reload()
        tags = {}
        for tag in acc.Tags()["tensors"]:
            meta = acc.SummaryMetadata(tag)
            plugin = meta.plugin_data.plugin_name
            events = []
            for event in acc.Tensors(tag):
                array = tensor_util.make_ndarray(event.tensor_proto)
                events.append({"step": int(event.step), "dtype": str(array.dtype), "shape": list(array.shape),
                               "value": _value(plugin, array)})
            tags[tag] = {"plugin": plugin, "content": base64.b64encode(meta.plugin_data.content).decode(),
                         "description": meta.summary_description, "events": events}
        out[run] = tags
    return out
