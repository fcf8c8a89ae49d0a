"""Variable updates by a gather's gradient (``tf.IndexedSlices``): ``assign``, ``assign_add`` and ``assign_sub``
densify it as ``tf.convert_to_tensor`` does, so hand-written SGD on an embedding table works; conversion errors
(no ``dense_shape``, another dtype, another dense shape) leave the variable as it was.
"""

from tests.golden.harness import case, catch


def _table(tf, dtype="float32"):
    return tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=getattr(tf, dtype))


def _gather_gradient(tf, v, rows):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, rows) * 2.0)
    return tape.gradient(y, v)


@case
def assign_sub_add_and_assign_take_a_gather_gradient(tf):
    out = []
    for dtype in ("float32", "float64"):
        v = _table(tf, dtype)
        g = _gather_gradient(tf, v, [0, 2, 0])
        out += [type(g).__name__, v.assign_sub(g).numpy(), v.assign_add(g).numpy(), v.assign(g).numpy()]
        v.assign_sub(g, read_value=False)
        out.append(v)
    return out


@case
def embedding_sgd_by_hand(tf):
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]) / 10.0)
    ids = tf.constant([[0, 3], [3, 3]])
    losses = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) ** 2)
        g = tape.gradient(loss, table)
        # ``lr * g`` is not defined on IndexedSlices (TF raises TypeError); SGD scales the rows instead.
        table.assign_sub(tf.IndexedSlices(0.1 * g.values, g.indices, g.dense_shape))
        losses.append(loss)
    return [losses, table, catch(lambda: 0.1 * g)]


@case
def sparse_update_without_dense_shape_fails_and_changes_nothing(tf):
    v = _table(tf)
    g = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([1]))
    return [catch(v.assign_sub, g), catch(v.assign_add, g), catch(v.assign, g), v]


@case
def sparse_update_of_another_dtype_fails_and_changes_nothing(tf):
    v = _table(tf)
    ints = tf.IndexedSlices(tf.constant([[1, 1]]), tf.constant([1]), tf.constant([3, 2]))
    w = _table(tf, "float64")
    g = _gather_gradient(tf, _table(tf), [1])
    return [catch(v.assign_sub, ints), catch(w.assign_sub, g), catch(w.assign, g), v, w]


@case
def sparse_update_of_another_dense_shape_fails_and_changes_nothing(tf):
    v = _table(tf)
    g = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([1]), tf.constant([4, 2]))
    return [catch(v.assign_sub, g), catch(v.assign_add, g), catch(v.assign, g), v]


@case
def sparse_update_with_repeated_and_out_of_range_rows(tf):
    v = _table(tf)
    repeated = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, 2.0]]), tf.constant([2, 2]), tf.constant([3, 2]))
    too_large = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([5]), tf.constant([3, 2]))
    first = v.assign_add(repeated).numpy()
    return [first, catch(v.assign_add, too_large), v]


@case
def sparse_update_of_a_scalar_shaped_variable(tf):
    v = tf.Variable([0.0, 0.0, 0.0])
    g = tf.IndexedSlices(tf.constant([1.0, 2.0]), tf.constant([0, 2]), tf.constant([3]))
    return [v.assign_add(g).numpy(), v.assign_sub(g).numpy(), catch(tf.Variable(0.0).assign_add, g)]
