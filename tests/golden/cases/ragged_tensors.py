"""tf.RaggedTensor and tf.ragged (TF 2.21): construction (constant, the factory methods, from_tensor with padding
and lengths), validation errors, properties and partitions, printing, dense and sparse forms, elementwise ops and
broadcasting, reductions over ragged and uniform axes, indexing, map_flat_values, gradients to the flat values,
tf.shape's DynamicRaggedShape, ragged results of tf.strings, and ragged tensors through tf.function."""

from tests.golden.harness import case, catch


@case
def ragged_construction_and_printing(tf):
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    r2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]]])
    r3 = tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]], ragged_rank=1)
    R = tf.RaggedTensor
    return [str(rt), repr(rt), rt.shape, rt.dtype, rt.ragged_rank, rt.row_splits.dtype, rt.values, rt.row_splits,
            rt.flat_values, list(rt.nested_row_splits), str(r2), r2.shape, r2.ragged_rank, str(r3), r3.shape,
            r3.ragged_rank, r3.values, R.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4]),
            R.from_row_lengths([1, 2, 3, 4], [1, 0, 3]), R.from_value_rowids([1, 2, 3, 4], [0, 2, 2, 3], nrows=5),
            R.from_row_starts([1, 2, 3, 4], [0, 1, 1]), R.from_row_limits([1, 2, 3, 4], [1, 1, 4]),
            R.from_tensor([[1, 0, 0], [2, 3, 0]], padding=0), R.from_tensor([[1, 0, 0], [2, 3, 0]], lengths=[1, 3]),
            str(R.from_tensor([[1, 0, 0], [2, 3, 0]])), R.from_nested_row_splits([1, 2, 3], [[0, 1, 2], [0, 2, 3]]),
            R.from_nested_row_lengths([1, 2, 3], [[2, 0], [2, 1]]),
            str(R.from_tensor([[[1, 1], [0, 0]], [[2, 2], [3, 3]]], padding=[0, 0])),
            str(R.from_tensor([[1, 0, 0], [0, 0, 0]], padding=0)),
            str(tf.ragged.constant([[1.5, 2.25], [3.0]])), str(tf.ragged.constant([[True], [False, True]])),
            str(tf.ragged.constant([["a", "bc"], []])), tf.ragged.constant([[1, 2], [3]], dtype=tf.float64),
            tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32).row_splits, tf.ragged.constant([]),
            str(tf.ragged.constant([[]])), str(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))),
            str(tf.ragged.constant([[1, 2], [3, 4]])), tf.ragged.constant([[1, 2], [3, 4]]).numpy(),
            tf.RaggedTensorSpec([None, None], tf.int32), rt._type_spec, tf.type_spec_from_value(rt)]


@case
def ragged_validation_errors(tf):
    R = tf.RaggedTensor
    return [catch(R.from_row_splits, [1, 2, 3], [0, 1, 4]), catch(R.from_row_lengths, [1, 2, 3], [1, 1]),
            catch(R.from_row_splits, [1, 2, 3], [1, 2, 3]), catch(R.from_row_splits, [1, 2, 3], [0, 2, 1, 3]),
            catch(R.from_value_rowids, [1, 2, 3], [0, 2, 1]), catch(R.from_row_lengths, [1, 2, 3], [2, -1, 2]),
            catch(tf.ragged.constant, [[1, 2], [[3]]]), catch(tf.ragged.constant, [[1, 2], ["a"]]),
            catch(R, [1], [0, 1]), catch(tf.convert_to_tensor, tf.ragged.constant([[1]])),
            catch(bool, tf.ragged.constant([[1]]))]


@case
def ragged_partitions_and_conversions(tf):
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    r2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]], []])
    two = tf.ragged.constant([[1, 2], [3]])
    return [rt.row_lengths(), rt.nrows(), rt.value_rowids(), rt.row_starts(), rt.row_limits(), rt.to_tensor(),
            rt.to_tensor(default_value=-1, shape=[4, 2]), rt.to_list(), rt.bounding_shape(), r2.row_lengths(),
            r2.row_lengths(axis=2), list(r2.nested_row_lengths()), r2.to_tensor(), r2.bounding_shape(),
            r2.merge_dims(1, 2), r2.merge_dims(0, 2), rt.merge_dims(0, 1), rt.to_sparse().indices,
            rt.to_sparse().values, rt.to_sparse().dense_shape, rt.with_values(rt.values * 10),
            rt.with_flat_values(rt.flat_values * 2), two.to_tensor(shape=[3, 1]), two.to_tensor(shape=[None, 4]),
            tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).to_tensor(), str(tf.shape(rt)),
            str(tf.shape(r2)), tf.shape(rt)[0], catch(lambda: tf.shape(rt)[1]), tf.shape(rt).static_lengths(),
            tf.shape(rt).num_row_partitions, tf.shape(rt).rank, tf.shape(rt).inner_shape,
            str(tf.experimental.DynamicRaggedShape.from_tensor(tf.ones([2, 3])))]


@case
def ragged_elementwise_and_reductions(tf):
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    r2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]], []])
    r3 = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    f = tf.cast(rt, tf.float32)
    return [rt + 1, rt * rt, tf.abs(-rt), tf.math.add(rt, 10), rt + tf.constant([[1], [2], [3]]),
            catch(lambda: rt + tf.constant([1, 2, 3])), tf.sqrt(f), tf.nn.relu(f - 2.0), rt == rt, rt > 2,
            tf.ones_like(rt), tf.zeros_like(rt), r3 + tf.constant([10, 20]),
            catch(lambda: rt * tf.ragged.constant([[1, 2], [3]])), tf.reduce_sum(rt, axis=1),
            tf.reduce_sum(rt, axis=0), tf.reduce_sum(rt), tf.reduce_mean(f, axis=1), tf.reduce_max(rt, axis=1),
            tf.reduce_mean(rt, axis=1), tf.reduce_mean(rt, axis=0), tf.reduce_mean(rt),
            tf.reduce_mean(rt, axis=1, keepdims=True), tf.reduce_sum(rt, axis=0, keepdims=True),
            tf.reduce_max(rt, axis=[0, 1]), tf.reduce_sum(rt, axis=1, keepdims=True), tf.reduce_sum(rt, axis=-1),
            tf.reduce_prod(rt, axis=1), tf.reduce_min(rt, axis=0), tf.reduce_any(rt > 2, axis=1),
            tf.reduce_all(rt > 0, axis=1), tf.reduce_sum(r2, axis=2), tf.reduce_sum(r2, axis=1),
            tf.reduce_sum(r2, axis=0), tf.reduce_sum(r2, axis=2, keepdims=True),
            tf.reduce_sum(r2, axis=1, keepdims=True), tf.reduce_sum(r3, axis=2),
            tf.ragged.map_flat_values(tf.square, rt), tf.ragged.map_flat_values(tf.add, rt, rt)]


@case
def ragged_indexing(tf):
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    r2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]], []])
    return [rt[0], rt[1:], rt[:, :2], rt[-1], catch(lambda: rt[:, 1]), rt[:, 1:], rt[::2], rt[1:2],
            catch(lambda: rt[5]), rt[:, -1:], rt[..., :1], r2[0], r2[:, :1], r2[1:, :]]


@case
def ragged_gradients_and_functions(tf):
    x = tf.Variable([1.0, 2.0, 3.0, 4.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        r = tf.RaggedTensor.from_row_lengths(x, [2, 0, 3])
        y = tf.reduce_sum(tf.reduce_sum(r * r, axis=1) * [1.0, 2.0, 3.0])
        z = tf.reduce_sum(r.to_tensor() * [[1.0, 2.0, 3.0]])
        w = tf.reduce_sum(tf.reduce_max(r, axis=1))
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    f = tf.function(lambda q: tf.reduce_sum(q, axis=1))
    g = tf.function(lambda v: tf.RaggedTensor.from_row_lengths(v, [1, 2]))
    return [tape.gradient(y, x), tape.gradient(z, x), tape.gradient(w, x), f(rt),
            f(tf.ragged.constant([[1], [2, 3, 4, 5]])), f.experimental_get_tracing_count(),
            f.get_concrete_function(rt).structured_input_signature, g(tf.constant([1.0, 2.0, 3.0])),
            g(tf.constant([4.0, 5.0, 6.0]))]


@case
def ragged_string_results(tf):
    return [tf.strings.split(["a b c", "d", ""]), tf.strings.split([["a,b", "c"], ["", "d,e,f"]], sep=","),
            tf.strings.split("x y"), tf.strings.bytes_split(["ab", "c"]),
            tf.strings.unicode_decode(["h\u00e9llo", "ab"], "UTF-8"),
            tf.strings.unicode_split(["h\u00e9llo", "ab"], "UTF-8"),
            list(tf.strings.unicode_decode_with_offsets(["h\u00e9", ""], "UTF-8")),
            list(tf.strings.unicode_split_with_offsets(["h\u00e9", "a"], "UTF-8")),
            tf.strings.split(["a b c", "d"]).to_tensor(default_value="?")]


@case
def ragged_dataset_elements(tf):
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    ds = tf.data.Dataset.from_tensor_slices(rt)
    batched = ds.batch(2)
    r2 = tf.ragged.constant([[[1, 2], [3]], [[4]], []])
    deep = tf.data.Dataset.from_tensor_slices(r2)
    scaled = tf.data.Dataset.range(3).map(lambda i: tf.ragged.constant([[1], [2, 3]]) * tf.cast(i, tf.int32))
    counts = tf.data.Dataset.range(4).map(lambda i: tf.range(i))
    grown = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1.0], [2.0, 3.0]])).map(
        lambda r: tf.RaggedTensor.from_row_lengths(r, [tf.size(r)]))
    summed = ds.map(lambda r: tf.reduce_sum(r))
    doubled = ds.map(lambda q: q * 2)
    return [ds.element_spec, list(ds), batched.element_spec, list(batched), batched.unbatch().element_spec,
            list(batched.unbatch()), deep.element_spec, list(deep), deep.batch(2).element_spec, list(deep.batch(2)),
            list(summed), doubled.element_spec, scaled.element_spec,
            list(scaled.batch(2)), list(ds.as_numpy_iterator()), grown.element_spec,
            tf.data.Dataset.from_tensors(rt).element_spec, counts.ragged_batch(2).element_spec,
            list(counts.ragged_batch(2)), catch(ds.padded_batch, 2)]


@case
def ragged_features(tf):
    T = tf.train

    def example(**kw):
        return T.Example(features=T.Features(feature={k: T.Feature(int64_list=T.Int64List(value=v))
                                                      for k, v in kw.items()})).SerializeToString()

    records = [example(v=[1, 2, 3, 4, 5], l=[2, 3], s=[0, 1, 5], st=[0, 2], lim=[1, 5], ids=[0, 0, 1, 1, 1]),
               example(v=[7], l=[1], s=[0, 1], st=[0], lim=[1], ids=[0]), example(v=[], l=[], s=[0])]
    RF = tf.io.RaggedFeature
    specs = {"plain": RF(tf.int64, value_key="v"),
             "lengths": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("l")]),
             "splits": RF(tf.int64, value_key="v", partitions=[RF.RowSplits("s")]),
             "starts": RF(tf.int64, value_key="v", partitions=[RF.RowStarts("st")]),
             "limits": RF(tf.int64, value_key="v", partitions=[RF.RowLimits("lim")]),
             "rowids": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("ids")]),
             "uniform": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(1)]),
             "v": RF(tf.int64), "fixed": tf.io.FixedLenFeature([], tf.int64, default_value=0),
             "sparse": tf.io.VarLenFeature(tf.int64)}
    parsed = tf.io.parse_example(records, specs)
    one = tf.io.parse_single_example(records[0], specs)
    spilled = tf.io.parse_example(records, {"x": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("s")])})
    return [list(parsed), {k: v for k, v in parsed.items() if k != "sparse"}, list(one),
            {k: v for k, v in one.items() if k != "sparse"}, spilled, str(RF(tf.int64)), str(RF.RowLengths("l")),
            str(RF.UniformRowLength(2)), tf.io.parse_example(records, {"missing": RF(tf.int64)})]


@case
def ragged_structure_ops(tf):
    a = tf.ragged.constant([[1, 2], [3]])
    b = tf.ragged.constant([[4], [], [5, 6]])
    c = tf.ragged.constant([[7], [8, 9]])
    s = tf.ragged.constant([["a", "b"], ["c"]])
    d = tf.constant([["x"], ["y"]])
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_lengths(x, [2, 1])
        y = tf.reduce_sum(tf.concat([r, r * 2.0], axis=1).flat_values * [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    return [tf.concat([a, b], axis=0), tf.concat([a, c], axis=1), tf.stack([a, c], axis=0), tf.stack([a, c], axis=1),
            tf.concat([a, tf.constant([[1, 2]])], axis=0), tf.gather(b, [2, 0]), tf.gather(b, [[2], [0]]),
            tf.gather(tf.constant([10, 20, 30, 40]), a), catch(tf.boolean_mask, b, [True, False, True]),
            tf.ragged.boolean_mask(b, tf.ragged.constant([[True], [], [False, True]])),
            tf.ragged.boolean_mask(b, [True, False, True]),
            tf.where(tf.ragged.constant([[True, False], [True]]), a, a * 10), tape.gradient(y, x),
            tf.ragged.stack([a, b]), tf.ragged.range([1, 3], [3, 4]), tf.ragged.range(3),
            tf.ragged.row_splits_to_segment_ids([0, 2, 3]), tf.ragged.segment_ids_to_row_splits([0, 0, 1]),
            tf.ragged.cross([s, d]), tf.ragged.cross([s, d, tf.ragged.constant([[1, 2], [3]], dtype=tf.int64)]),
            tf.ragged.cross([s, tf.ragged.constant([[1, 2], []], dtype=tf.int64)]),
            tf.ragged.cross_hashed([s, d], num_buckets=100), tf.ragged.cross_hashed([s, d]),
            tf.ragged.cross_hashed([s, d], num_buckets=10, hash_key=7),
            tf.ragged.cross_hashed([tf.ragged.constant([[1, 2], [3]], dtype=tf.int64), d], num_buckets=1000),
            tf.ragged.stack_dynamic_partitions(tf.constant([10, 20, 30, 40]), tf.constant([1, 0, 1, 2]), 4),
            tf.ragged.cross([tf.sparse.from_dense(tf.constant([["p", ""], ["q", "r"]])), d])]


@case
def ragged_keras_inputs(tf):
    rt = tf.ragged.constant([[1, 2, 3], [4]])
    emb = tf.keras.layers.Embedding(10, 2, embeddings_initializer="ones")
    stack = tf.keras.Sequential([tf.keras.layers.Embedding(10, 2, embeddings_initializer="ones"),
                                 tf.keras.layers.GlobalAveragePooling1D()])
    i = tf.keras.Input(shape=(None,), ragged=True, dtype="int32")
    x = tf.keras.layers.Embedding(10, 2, embeddings_initializer="ones")(i)
    model = tf.keras.Model(i, tf.keras.layers.GlobalAveragePooling1D()(x))
    return [emb(rt), stack(rt), tf.keras.layers.Lambda(lambda q: tf.reduce_sum(q, axis=1))(rt), str(i),
            i._keras_history[0].get_config(), model(rt), str(tf.keras.Input(shape=(3,))),
            tf.is_tensor(rt), tf.is_tensor(tf.SparseTensor([[0]], [1.0], [2]))]


@case
def ragged_gathers_along_rows(tf):
    rt = tf.ragged.constant([[1, 2, 3], [4, 5], [6]])
    return [tf.gather(rt, [0], axis=1), tf.gather(rt, tf.ragged.constant([[0, 1], [1], [0]]), batch_dims=1),
            tf.gather(rt, [[0], [1], [0]], batch_dims=1), tf.gather(rt, [1, 0], axis=0),
            tf.gather(tf.constant([[1, 2], [3, 4]]), tf.ragged.constant([[0], [1, 0]]), axis=1),
            catch(tf.gather, rt, [2], axis=1), tf.gather(rt, [[0], [2], [0]], batch_dims=1)]
