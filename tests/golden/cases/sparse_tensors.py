"""tf.SparseTensor and the first of tf.sparse (TF 2.21): construction and printing, to_dense (order and bounds
errors), from_dense, reorder, reduce_sum (dense and sparse output), add (sparse and dense), sparse_dense_matmul
with gradients to the dense operand and the values, and tf.io.VarLenFeature parsed into sparse tensors; the rest of
tf.sparse (reshape, slice, concat, retain, fill_empty_rows, softmax, expand_dims, transpose, to_indicator, reduce_max,
maximum/minimum, mask, map_values, eye), the zero-preserving math ops on sparse tensors, and the sparse embedding
lookups."""

from tests.golden.harness import case, catch


def _parts(st):
    return [st.indices, st.values, st.dense_shape]


@case
def sparse_basics(tf):
    st = tf.sparse.SparseTensor(indices=[[0, 1], [2, 0]], values=[1.5, -2.0], dense_shape=[3, 2])
    unordered = tf.SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [3, 2])
    return [str(st), repr(st), st.shape, st.dtype, st.indices.dtype, tf.sparse.to_dense(st),
            _parts(tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]]))), _parts(tf.sparse.reorder(unordered)),
            catch(tf.sparse.to_dense, unordered),
            catch(tf.sparse.to_dense, tf.SparseTensor([[0, 5]], [1.0], [3, 2])),
            tf.sparse.to_dense(tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0]), [2, 2])),
            tf.sparse.to_dense(st, default_value=7.0), _parts(st * 2.0), _parts(st * tf.constant([1.0, 10.0]))]


@case
def sparse_reductions_sums_and_products(tf):
    st = tf.SparseTensor([[0, 1], [2, 0]], [1.5, -2.0], [3, 2])
    d = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable(d)
    vals = tf.Variable([1.5, -2.0])
    with tf.GradientTape() as tape:
        s2 = tf.SparseTensor([[0, 1], [2, 0]], vals, [3, 2])
        y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(s2, w) ** 2)
    return [tf.sparse.reduce_sum(st), tf.sparse.reduce_sum(st, axis=0),
            tf.sparse.reduce_sum(st, axis=1, keepdims=True), _parts(tf.sparse.reduce_sum(st, axis=1,
                                                                                        output_is_sparse=True)),
            tf.sparse.sparse_dense_matmul(st, d), tf.sparse.sparse_dense_matmul(st, d, adjoint_a=True),
            tape.gradient(y, [w, vals]), _parts(tf.sparse.add(st, st)), tf.sparse.add(st, tf.ones([3, 2])),
            _parts(tf.sparse.add(st, tf.SparseTensor([[1, 1]], [5.0], [3, 2])))]


@case
def var_len_features(tf):
    T = tf.train
    ex = T.Example(features=T.Features(feature={"v": T.Feature(int64_list=T.Int64List(value=[1, 2, 3]))}))
    other = T.Example(features=T.Features(feature={"v": T.Feature(int64_list=T.Int64List(value=[9]))}))
    spec = {"v": tf.io.VarLenFeature(tf.int64), "w": tf.io.VarLenFeature(tf.float32)}
    one = tf.io.parse_single_example(ex.SerializeToString(), spec)
    many = tf.io.parse_example([ex.SerializeToString(), other.SerializeToString()], spec)
    return [{k: _parts(v) for k, v in one.items()}, {k: _parts(v) for k, v in many.items()},
            catch(tf.io.parse_single_example, ex.SerializeToString(), {"v": tf.io.VarLenFeature(tf.float32)})]


@case
def sparse_manipulation(tf):
    st = tf.SparseTensor([[0, 1], [1, 0], [2, 1]], [1.5, -2.0, 3.0], [3, 2])
    holes = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [4, 2])
    filled, empty = tf.sparse.fill_empty_rows(holes, -1.0)
    other = tf.SparseTensor([[0, 1], [2, 0]], [5.0, -1.0], [3, 2])
    x = tf.Variable([1.5, -2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        mine = tf.SparseTensor([[0, 0], [0, 1], [1, 1]], x, [2, 2])
        soft = tf.reduce_sum(tf.sparse.softmax(mine).values * [1.0, 2.0, 3.0])
        moved = tf.reduce_sum(tf.sparse.transpose(mine).values * [1.0, 2.0, 3.0])
    return [_parts(tf.sparse.reshape(st, [2, 3])), _parts(tf.sparse.reshape(st, [-1])),
            catch(tf.sparse.reshape, st, [4, 2]), _parts(tf.sparse.slice(st, [1, 0], [2, 2])),
            _parts(tf.sparse.concat(0, [st, st])), _parts(tf.sparse.concat(1, [st, st])),
            _parts(tf.sparse.retain(st, [True, False, True])), _parts(filled), empty,
            _parts(tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 1], [1, 1]], [1.0, 2.0, 3.0], [2, 2]))),
            _parts(tf.sparse.expand_dims(st, 0)), _parts(tf.sparse.expand_dims(st, -1)),
            _parts(tf.sparse.transpose(st)),
            tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 1], [2, 2]), 4),
            tf.sparse.reduce_max(st), tf.sparse.reduce_max(st, axis=1), tf.sparse.reduce_max(st, axis=0,
                                                                                             keepdims=True),
            _parts(tf.sparse.maximum(st, other)), _parts(tf.sparse.minimum(st, other)),
            tape.gradient(soft, x), tape.gradient(moved, x), tf.math.invert_permutation([2, 0, 1]),
            catch(tf.math.invert_permutation, [0, 0, 1])]


@case
def sparse_elementwise_and_helpers(tf):
    st = tf.SparseTensor([[0, 1], [1, 0], [2, 1]], [0.5, -0.25, 0.75], [3, 2])
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([0, 2, 4]),
                              tf.constant([5, 2]))
    masked = tf.sparse.mask(slices, tf.constant([2]))
    return [{f: _parts(getattr(tf.math, f)(st)) for f in ["abs", "negative", "square", "sqrt", "sign", "sin", "tan",
                                                        "asin", "atan", "asinh", "atanh", "erf"]},
            _parts(tf.cast(st, tf.float64)), _parts(tf.identity(st)), _parts(tf.stop_gradient(st)),
            catch(tf.exp, st), catch(tf.math.cos, st), _parts(st / tf.ones([3, 2]) * 2),
            _parts(tf.sparse.map_values(tf.math.multiply, st, 3.0)),
            _parts(tf.sparse.map_values(tf.add, st, st)), catch(tf.sparse.map_values, tf.add, 1.0, 2.0),
            _parts(tf.sparse.eye(3)), _parts(tf.sparse.eye(2, 3, dtype=tf.int32)),
            [masked.values, masked.indices, masked.dense_shape]]


@case
def sparse_embedding_lookups(tf):
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 2]], tf.constant([1, 3, 0, 2], tf.int64), [4, 3])
    w = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 2]], [1.0, 2.0, 0.5, 0.5], [4, 3])
    bad = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 2]], tf.constant([1, -1, 0, 2], tf.int64), [4, 3])
    bad_w = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 2]], [1.0, 2.0, 0.0, 0.5], [4, 3])
    deep = tf.SparseTensor([[0, 0, 0], [1, 1, 1]], tf.constant([1, 2], tf.int64), [2, 2, 3])
    three = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], tf.constant([0, 1, 2, 3, 3, 1],
                                                                                          tf.int64), [2, 3])
    small = tf.constant([[1.0], [2.0], [4.0], [0.1]])
    with tf.GradientTape(persistent=True) as tape:
        plain = tf.reduce_sum(tf.nn.embedding_lookup_sparse(table, ids, w) * [[1.0, 2.0, 3.0]])
        safe = tf.reduce_sum(tf.nn.safe_embedding_lookup_sparse(table, bad, bad_w) * [[1.0, 2.0, 3.0]])
    out = {c: [tf.nn.embedding_lookup_sparse(table, ids, w, combiner=c),
               tf.nn.embedding_lookup_sparse(table, ids, None, combiner=c),
               tf.nn.embedding_lookup_sparse(small, three, None, combiner=c)] for c in ["mean", "sum", "sqrtn"]}
    return [out, tf.nn.embedding_lookup_sparse(table, ids, None, max_norm=5.0),
            tf.nn.safe_embedding_lookup_sparse(table, bad, bad_w),
            tf.nn.safe_embedding_lookup_sparse(table, bad, None, default_id=3),
            tf.nn.safe_embedding_lookup_sparse(table, bad, None, combiner="sum"),
            tf.nn.safe_embedding_lookup_sparse(table, deep, None), tf.nn.embedding_lookup_sparse(table, deep, None),
            tf.convert_to_tensor(tape.gradient(plain, table)), tf.convert_to_tensor(tape.gradient(safe, table)),
            catch(tf.nn.embedding_lookup_sparse, table, ids, w, combiner="max")]


@case
def sparse_through_tf_function(tf):
    dense = tf.function(lambda s: tf.sparse.to_dense(s) * 2)
    first = tf.SparseTensor([[0, 1], [2, 0]], [1.5, -2.0], [3, 2])
    second = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [7.0, 8.0, 9.0], [3, 2])
    out = [dense(first), dense(second), dense.experimental_get_tracing_count(),
           dense.get_concrete_function(first).structured_input_signature]
    made = tf.function(lambda x: tf.sparse.from_dense(x))
    out += [_parts(made(tf.constant([[0.0, 1.0], [2.0, 0.0]]))), _parts(made(tf.constant([[0.0, 3.0], [5.0, 4.0]]))),
            made.experimental_get_tracing_count()]
    both = tf.function(lambda s: (s, tf.sparse.reduce_sum(s)))
    pair = both(second)
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(dense(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], v, [3, 2])) * [[1.0, 2.0]])
    return out + [_parts(pair[0]), pair[1], tape.gradient(y, v), tf.SparseTensorSpec([None, 3], tf.int32)]


@case
def sparse_dataset_elements(tf):
    st = tf.SparseTensor([[0, 1], [2, 0], [2, 2]], [1.5, -2.0, 3.0], [3, 4])
    ds = tf.data.Dataset.from_tensor_slices(st)
    batched = ds.batch(2)
    grown = tf.data.Dataset.range(3).map(lambda i: tf.SparseTensor([[0]], tf.cast([i], tf.float32), [i + 1]))
    pairs = tf.data.Dataset.from_tensor_slices((st, tf.constant([1, 2, 3])))
    T = tf.train
    records = [T.Example(features=T.Features(feature={"v": T.Feature(int64_list=T.Int64List(value=v))}))
               .SerializeToString() for v in ([1, 2], [], [7])]
    parsed = tf.data.Dataset.from_tensor_slices(records).map(
        lambda r: tf.io.parse_single_example(r, {"v": tf.io.VarLenFeature(tf.int64)}))
    kept = ds.filter(lambda s: tf.size(s.values) > 0)
    return [ds.element_spec, ds.cardinality(), [_parts(e) for e in ds], batched.element_spec,
            [_parts(e) for e in batched], list(ds.take(1).as_numpy_iterator()),
            batched.unbatch().element_spec, [_parts(e) for e in batched.unbatch()],
            [e for e in ds.map(lambda s: tf.sparse.to_dense(s))], grown.element_spec,
            [_parts(e) for e in grown.batch(3)], pairs.element_spec,
            [(_parts(a), b) for a, b in pairs.batch(3)], parsed.element_spec,
            [_parts(e["v"]) for e in parsed.batch(3)], [tf.sparse.to_dense(e["v"]) for e in parsed.batch(2)],
            [_parts(e) for e in kept], catch(ds.padded_batch, 2), tf.data.Dataset.from_tensors(st).element_spec]


@case
def sparse_keras_inputs_and_traced_matmul(tf):
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")(x))
    data = tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dense_shape=(6, 4))
    first = model(data)
    predicted = model.predict(data, verbose=0)
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    history = model.fit(data, tf.ones([6, 2]), epochs=2, batch_size=4, verbose=0, shuffle=False)

    @tf.function
    def f(a, b):
        return tf.sparse.sparse_dense_matmul(a, b)

    a = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    return [first, predicted, history.history, model.get_weights(), tf.shape(data),
            tf.shape(data, out_type=tf.int64), f(a, tf.sparse.to_dense(tf.sparse.transpose(a)))]
