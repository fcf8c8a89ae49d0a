"""tf.vectorized_map (TF 2.21): elementwise, reductions, axis ops, matmuls against shared and per-element
matrices, gathers, structures and constants in one batched call; per-example gradients of a small MLP; a tape
outside the call. TF's pfor warns on the 5th and 6th vectorised call of a process (``jacobian.py`` takes those):
this module makes fewer than five calls, so its recordings hold no such warning whatever ran before."""

from tests.golden.harness import case


def _mixed(tf, x, i):
    w = tf.reshape(tf.range(8, dtype=tf.float32) / 4.0, [4, 2])
    table = tf.constant([10.0, 20.0, 30.0, 40.0])
    m = tf.reshape(x, [2, 2])
    return {
        "affine": x * 2.0 + 1.0, "sum": tf.reduce_sum(x), "mean_keep": tf.reduce_mean(m, axis=0, keepdims=True),
        "max": tf.reduce_max(m, axis=-1), "softmax": tf.nn.softmax(m), "cumsum": tf.cumsum(x),
        "argmax": tf.argmax(m, axis=1), "transpose": tf.transpose(m), "matmul_shared": tf.matmul(x[None], w),
        "matmul_own": tf.matmul(m, m, transpose_b=True), "outer": tf.matmul(x[:, None], x[None, :2]),
        "gather": tf.gather(table, i % 4), "concat": tf.concat([x, tf.ones([2])], 0),
        "stack": tf.stack([x[0], x[1], 7.0]), "tile": tf.tile(x[:2], [2]), "pair": (x[0], [x[1:3]]),
        "where": tf.where(x > 3.0, x, -x), "const": tf.constant(5.0), "cast": tf.cast(x, tf.int32),
        "expand": tf.expand_dims(x, 0), "squeeze": tf.squeeze(x[None]), "broadcast": tf.broadcast_to(x[:1], [3]),
    }


@case
def batched_ops_and_structures(tf):
    x = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
    i = tf.constant([3, 6, 1])
    return tf.vectorized_map(lambda e: _mixed(tf, *e), (x, i))


@case
def per_example_gradients_of_an_mlp(tf):
    w1 = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32) / 10.0 - 0.5, [4, 3]))
    b1 = tf.Variable([0.1, -0.2, 0.3])
    w2 = tf.Variable(tf.reshape(tf.range(6, dtype=tf.float32) / 5.0 - 0.4, [3, 2]))
    x = tf.reshape(tf.range(20, dtype=tf.float32) / 7.0 - 1.0, [5, 4])
    y = tf.constant([0, 1, 1, 0, 1])

    def one(example):
        xi, yi = example
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xi[None], w1) + b1)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(yi[None], tf.matmul(h, w2))
        return tape.gradient(loss, [w1, b1, w2]), loss

    return tf.vectorized_map(one, (x, y))


@case
def gradient_through_the_batch(tf):
    x = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.vectorized_map(lambda r: tf.sin(r) * tf.reduce_sum(r), x))
    return [y, tape.gradient(y, x)]
