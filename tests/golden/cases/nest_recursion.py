"""Structures that contain themselves, and very deep ones: ``tf.nest`` and the tape's flattening raise
``RecursionError`` at once, with TF's message, instead of growing a list until memory runs out.

(``tf.constant`` of a cyclic list is left out: TF's C converter calls it a sequence of mixed types, tapeflow's
converter stops at the recursion limit.)
"""

from tests.golden.harness import case, catch


def _cycle():
    a = [1.0]
    a.append(a)
    return a


def _dict_cycle():
    d = {"x": 1.0}
    d["y"] = d
    return d


def _tuple_cycle():
    a = [1.0]
    t = (a,)
    a.append(t)
    return t


def _deep(depth, leaf=1.0):
    a = leaf
    for _ in range(depth):
        a = [a]
    return a


@case
def nest_cycles(tf):
    n = tf.nest
    return [catch(n.flatten, _cycle()), catch(n.flatten, _dict_cycle()), catch(n.flatten, _tuple_cycle()),
            catch(n.map_structure, lambda v: v, _cycle()), catch(n.map_structure, lambda a, b: a, _cycle(), _cycle()),
            catch(n.pack_sequence_as, _cycle(), [1.0, 2.0]), catch(n.assert_same_structure, _cycle(), _cycle()),
            n.is_nested(_cycle()), catch(n.flatten, [_cycle(), 2.0])]


@case
def nest_deep(tf):
    n = tf.nest
    return [n.flatten(_deep(300)), len(n.flatten({"a": _deep(200), "b": [1, 2]})),
            catch(n.flatten, _deep(3000)), catch(n.map_structure, lambda v: v * 2, _deep(3000)),
            n.map_structure(lambda v: v * 2, _deep(50)), catch(n.assert_same_structure, _deep(3000), _deep(3000)),
            n.assert_same_structure(_deep(100), _deep(100))]


@case
def tape_cycles(tf):
    x = tf.constant(1.0)
    a = [x]
    a.append(a)
    out = []
    tape = tf.GradientTape()
    with tape:
        out.append(catch(tape.watch, a))
        tape.watch(x)
        y = x * 2.0
    out.append(catch(tape.gradient, y, a))
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        z = x * 3.0
    b = [z]
    b.append(b)
    out.append(catch(tape2.gradient, b, x))
    with tf.GradientTape() as tape3:
        tape3.watch(x)
        w = x * 4.0
    out.append(tape3.gradient(w, _deep(100, x)))
    out.append(catch(tf.convert_to_tensor, _cycle()))
    return out
