import tapeflow as tf

# "Try it yourself": the walkthrough's training loop, with mean squared error
# swapped for mean absolute error. Nothing else changes -- the tape
# differentiates whatever expression you write inside it.
w = tf.Variable(0.0)
b = tf.Variable(0.0)
xs = tf.constant([1.0, 2.0, 3.0, 4.0])
ys = tf.constant([3.0, 5.0, 7.0, 9.0])       # the truth is y = 2x + 1

for step in range(200):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.abs(w * xs + b - ys))   # the only changed line
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(0.01 * dw)                   # walk downhill
    b.assign_sub(0.01 * db)

print(f"learned w={w.numpy():.2f}, b={b.numpy():.2f}, loss={loss.numpy():.4f}")
