"""tf.SparseTensor and the first of tf.sparse (TF 2.21): construction and printing, to_dense (order and bounds
errors), from_dense, reorder, reduce_sum (dense and sparse output), add (sparse and dense), sparse_dense_matmul
with gradients to the dense operand and the values, and tf.io.VarLenFeature parsed into sparse tensors."""

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
