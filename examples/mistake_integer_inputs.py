import tapeflow as tf

# Common mistake: expecting gradients through integer tensors.
x = tf.constant(3)             # no decimal point, so this is an int32 tensor
print("input dtype:", x.numpy().dtype)

with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x

print("gradient through int32:", tape.gradient(y, x))   # silently None

# Fix: cast to a float type before the calculation.
x_float = tf.cast(x, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(x_float)
    y = x_float * x_float

print("gradient through float32:", tape.gradient(y, x_float).numpy())
