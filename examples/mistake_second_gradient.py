import tapeflow as tf

# Common mistake: asking one ordinary tape for gradients twice.
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x ** 2
    z = x ** 3

print("dy/dx:", tape.gradient(y, x).numpy())   # first request: fine

# The tape freed its recording after the first call, so a second call fails.
try:
    tape.gradient(z, x)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# Fix: persistent=True keeps the recording for as many requests as you need.
with tf.GradientTape(persistent=True) as tape:
    y = x ** 2
    z = x ** 3

print("dy/dx:", tape.gradient(y, x).numpy())
print("dz/dx:", tape.gradient(z, x).numpy())
del tape   # a persistent tape holds memory until you drop it
print("persistent tape deleted")
