import tapeflow as tf

# Common mistake: "updating" a Variable with = instead of assign_sub.
w = tf.Variable(1.0)
x = tf.constant(2.0)
target = tf.constant(6.0)
variable = w                   # keep a second name for the original Variable

with tf.GradientTape() as tape:
    loss = tf.square(w * x - target)
dw = tape.gradient(loss, w)
print("first gradient:", dw.numpy())

w = w - 0.01 * dw              # WRONG: w now names a new plain tensor
with tf.GradientTape() as tape:
    loss = tf.square(w * x - target)

print("next gradient after rebinding:", tape.gradient(loss, w))   # not watched
print(f"Variable after rebinding: {variable.numpy():.2f}")       # never changed

# Fix: update the Variable in place, so the next tape still watches it.
w = variable
w.assign_sub(0.01 * dw)
with tf.GradientTape() as tape:
    loss = tf.square(w * x - target)

print(f"next gradient after assign_sub: {tape.gradient(loss, w).numpy():.2f}")
print(f"Variable after assign_sub: {w.numpy():.2f}")
