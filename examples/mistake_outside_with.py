import tapeflow as tf

# Common mistake: doing part of the forward pass before the tape starts.
x = tf.Variable(3.0)

y = x * x                      # computed outside the with block: not recorded
with tf.GradientTape() as tape:
    z = y + 1.0                # only this step is on the record

print("gradient with work outside the tape:", tape.gradient(z, x))

# Fix: put the whole forward pass inside the with block.
with tf.GradientTape() as tape:
    y = x * x
    z = y + 1.0

print("gradient with everything inside:", tape.gradient(z, x).numpy())
