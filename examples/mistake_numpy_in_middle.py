import tapeflow as tf

# Common mistake: calling .numpy() in the middle of the calculation.
x = tf.Variable(3.0)

with tf.GradientTape() as tape:
    y = x * 2.0
    y_value = y.numpy()        # a plain NumPy number: the tape cannot follow it
    z = tf.square(y_value)     # z no longer depends on x as far as the tape knows

print("gradient after .numpy():", tape.gradient(z, x))

# Fix: stay in tensors until the final value is computed.
with tf.GradientTape() as tape:
    y = x * 2.0
    z = tf.square(y)

print("gradient staying in tensors:", tape.gradient(z, x).numpy())
