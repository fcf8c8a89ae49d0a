"""Smallest cases: the harness itself works."""
from tests.golden.harness import case, catch


@case
def watch_square(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return [tape.gradient(y, x), catch(tape.gradient, y, x), repr(y), str(y)]
