import tapeflow as tf

# 1. The smallest possible example
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x ** 2
print("dy/dx at x=3:", tape.gradient(y, x).numpy())

# 2. Constants are not recorded unless you ask
c = tf.constant(3.0)
with tf.GradientTape() as tape:
    y = c ** 2
print("gradient for an unwatched constant:", tape.gradient(y, c))

with tf.GradientTape() as tape:
    tape.watch(c)
    y = c ** 2
print("after tape.watch:", tape.gradient(y, c).numpy())

# 3. A real training step, no Keras anywhere
w = tf.Variable(0.0)
b = tf.Variable(0.0)
xs = tf.constant([1.0, 2.0, 3.0, 4.0])
ys = tf.constant([3.0, 5.0, 7.0, 9.0])       # the truth is y = 2x + 1

for step in range(200):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((w * xs + b - ys) ** 2)
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(0.01 * dw)                   # walk downhill
    b.assign_sub(0.01 * db)

print(f"learned w={w.numpy():.2f}, b={b.numpy():.2f}, loss={loss.numpy():.4f}")
