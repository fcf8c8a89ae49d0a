"""tf.saved_model: what a SavedModel gives back when loaded (values, signatures, errors, gradients), the variables
file read as a checkpoint. The files themselves differ by design (tapeflow writes its own format): cases never list
them, and paths in messages are replaced by ``<dir>``.
"""

import os
import shutil
import tempfile

import numpy as np

from tests.golden.harness import case, catch


def _in_tmp(tf, fn):
    directory = tempfile.mkdtemp()
    logger = tf.get_logger()
    level = logger.level
    logger.setLevel("ERROR")
    try:
        return fn(directory)
    finally:
        logger.setLevel(level)
        shutil.rmtree(directory, ignore_errors=True)


def _error(caught, d):
    return [caught.type, caught.message.replace(d, "<dir>")]


def _net(tf):
    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
            self.b = tf.Variable([0.5, -0.5], name="b", trainable=False)
            self.sub = tf.Module()
            self.sub.s = tf.Variable(2.0, name="s")
            self.table = {"k": tf.Variable([1, 2], name="k")}

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) * self.sub.s + self.b)

        @tf.function
        def two(self, x, y):
            return {"sum": x + y, "prod": x * y * self.sub.s}

        @tf.function
        def scaled(self, x, n=2):
            return x * n

        @tf.function
        def count(self, x):
            self.sub.s.assign_add(1.0)
            return tf.reduce_sum(x) + tf.cast(tf.reduce_sum(self.table["k"]), tf.float32)

    net = Net()
    net.two(tf.constant(1.0), tf.constant(2.0))
    net.two(tf.constant([1.0, 2.0]), tf.constant([2.0, 3.0]))
    net.scaled(tf.constant(1.0))
    net.scaled(tf.constant(1.0), n=3)
    net.count(tf.constant([1.0, 2.0]))
    net.sub.s.assign(2.0)
    return net


@case
def saved_module_round_trip(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        loaded = tf.saved_model.load(path)
        x = tf.constant([[1.0, -1.0], [2.0, 0.5]])
        return [loaded(x), loaded.two(tf.constant(1.0), tf.constant(2.0)), loaded.two(1.0, 2.0),
                loaded.two(x=tf.constant([1.0, 2.0]), y=tf.constant([3.0, 4.0])), loaded.scaled(tf.constant(2.0)),
                loaded.scaled(tf.constant(2.0), n=3), loaded.w, loaded.b, loaded.sub.s, loaded.table["k"],
                loaded.w.trainable, loaded.b.trainable, loaded.w.name, tf.saved_model.contains_saved_model(path),
                tf.saved_model.contains_saved_model(d)]
    return _in_tmp(tf, run)


@case
def saved_module_assigns_loaded_variables(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        loaded = tf.saved_model.load(path)
        first = loaded.count(tf.constant([1.0, 2.0]))
        return [first, loaded.sub.s, loaded.count(tf.constant([0.5, 1.5])), loaded.sub.s,
                _error(catch(loaded.count, tf.constant([0.5])), d)]
    return _in_tmp(tf, run)


@case
def saved_module_signatures(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        loaded = tf.saved_model.load(path)
        serving = loaded.signatures["serving_default"]
        x = tf.constant([[1.0, 1.0]])
        return [list(loaded.signatures.keys()), serving.structured_input_signature, serving.structured_outputs,
                serving(x=x), serving(x), catch(serving, y=x).type, catch(serving, [[1.0, 1.0]]).type,
                catch(serving, x=tf.constant([[1, 1]])).type]
    return _in_tmp(tf, run)


@case
def saved_module_no_matching_function(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        loaded = tf.saved_model.load(path)
        return [_error(catch(loaded.two, tf.constant(1), tf.constant(2)), d),
                _error(catch(loaded.scaled, tf.constant(2.0), n=4), d),
                _error(catch(loaded.two, tf.constant(1.0)), d),
                _error(catch(loaded, tf.constant([[1, 2]])), d)]
    return _in_tmp(tf, run)


@case
def saved_module_gradients(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        loaded = tf.saved_model.load(path)
        x = tf.constant([[1.0, 2.0], [-3.0, 0.5]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(loaded(x) ** 2)
        first = tape.gradient(y, [x, loaded.w, loaded.sub.s, loaded.b])
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                z = tf.reduce_sum(loaded.two(x[0], x[1])["prod"] ** 2)
            g = inner.gradient(z, x)
        return [y, first, g, outer.gradient(g, x)]
    return _in_tmp(tf, run)


@case
def saved_model_variables_as_checkpoint(tf):
    def run(d):
        path = os.path.join(d, "sm")
        tf.saved_model.save(_net(tf), path)
        names = tf.train.list_variables(os.path.join(path, "variables", "variables"))
        fresh = _net(tf)
        for v in (fresh.w, fresh.b, fresh.sub.s):
            v.assign(tf.zeros_like(v))
        status = tf.train.Checkpoint(fresh).restore(os.path.join(path, "variables", "variables"))
        return [names, fresh.w, fresh.b, fresh.sub.s, fresh.table["k"],
                type(catch(status.assert_consumed)).__name__]
    return _in_tmp(tf, run)


@case
def saved_model_default_and_explicit_signatures(tf):
    def run(d):
        class Two(tf.Module):
            def __init__(self):
                super().__init__()
                self.v = tf.Variable(2.0)

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def f(self, x):
                return x * self.v

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def g(self, x):
                return (x, x + 1.0)

        m = Two()
        tf.saved_model.save(m, os.path.join(d, "a"))
        tf.saved_model.save(m, os.path.join(d, "b"), signatures=m.g)
        tf.saved_model.save(m, os.path.join(d, "c"), signatures={"first": m.f, "second": m.g.get_concrete_function()})
        a, b, c = (tf.saved_model.load(os.path.join(d, n)) for n in "abc")
        g = b.signatures["serving_default"]
        return [list(a.signatures), g.structured_input_signature, g.structured_outputs,
                g(tf.constant([1.0, 5.0])), sorted(c.signatures), c.signatures["first"](x=tf.constant([3.0])),
                c.signatures["second"].structured_outputs, a.f(tf.constant([1.0, 2.0, 3.0])),
                a.f.input_signature]
    return _in_tmp(tf, run)


@case
def saved_model_keras_serving(tf):
    def run(d):
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.Input((3,), name="feat"), tf.keras.layers.Dense(4, activation="relu"),
                                     tf.keras.layers.Dense(2)])
        path = os.path.join(d, "k")
        tf.saved_model.save(model, path)
        loaded = tf.saved_model.load(path)
        serving = loaded.signatures["serving_default"]
        x = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
        out = serving(inputs=tf.constant(x))
        return [list(loaded.signatures), serving.structured_input_signature, serving.structured_outputs,
                sorted(out), bool(np.allclose(out["output_0"].numpy(), model(x).numpy(), atol=1e-6)),
                catch(loaded, x).type]
    return _in_tmp(tf, run)


@case
def saved_model_errors(tf):
    def run(d):
        g = tf.Variable(3.0)

        class Captures(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def f(self, x):
                return x * g

        os.makedirs(os.path.join(d, "empty"))
        with open(os.path.join(d, "file"), "w") as f:
            f.write("x")
        return [_error(catch(tf.saved_model.save, 3, os.path.join(d, "a")), d),
                catch(tf.saved_model.save, Captures(), os.path.join(d, "b")).type,
                _error(catch(tf.saved_model.load, os.path.join(d, "missing")), d),
                _error(catch(tf.saved_model.load, os.path.join(d, "empty")), d),
                _error(catch(tf.saved_model.load, os.path.join(d, "file")), d),
                _error(catch(tf.saved_model.save, tf.Module(), os.path.join(d, "file")), d)]
    return _in_tmp(tf, run)


@case
def saved_model_control_flow(tf):
    def run(d):
        class Branches(tf.Module):
            def __init__(self):
                super().__init__()
                self.v = tf.Variable(1.5)

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def pick(self, x):
                return tf.cond(x > 0, lambda: x * self.v, lambda: -x)

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def loop(self, x):
                i = tf.constant(0)
                s = tf.zeros_like(x)
                while i < 3:
                    s = s + x * self.v
                    i += 1
                return s

            @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32)])
            def switch(self, k, x):
                return tf.switch_case(k, [lambda: x, lambda: x * 2.0, lambda: x * self.v])

        tf.saved_model.save(Branches(), d)
        loaded = tf.saved_model.load(d)
        x = tf.constant([1.0, 2.0, -0.5])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(loaded.loop(x) ** 2) + loaded.pick(x[0]) + loaded.switch(tf.constant(2), x[1])
        return [loaded.pick(tf.constant(2.0)), loaded.pick(tf.constant(-2.0)), loaded.loop(x),
                [loaded.switch(tf.constant(k), tf.constant(3.0)) for k in (0, 1, 2, 7)], y,
                tape.gradient(y, [x, loaded.v])]
    return _in_tmp(tf, run)


@case
def the_saved_model_guide_module(tf):
    # TF's saved_model guide: no default signature from a function returning None; a concrete function of an
    # unknown-rank spec serves every rank
    directory = tempfile.mkdtemp()

    class CustomModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

        @tf.function
        def __call__(self, x):
            return x * self.v

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

    module = CustomModule()
    module(tf.constant(0.0))
    tf.saved_model.save(module, directory + "/plain")
    imported = tf.saved_model.load(directory + "/plain")
    first = imported(tf.constant(3.0))
    imported.mutate(tf.constant(2.0))
    call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    tf.saved_model.save(module, directory + "/signed", signatures=call)
    signed = tf.saved_model.load(directory + "/signed")
    return [first, imported(tf.constant(3.0)), len(imported.signatures), list(signed.signatures.keys()),
            signed.signatures["serving_default"](x=tf.constant([[1.0, 2.0]])), call(tf.constant([1.0, 2.0])),
            call(tf.constant([[1.0]]))]


@case
def save_and_load_options(tf):
    directory = tempfile.mkdtemp()
    module = tf.Module()
    module.v = tf.Variable(2.0)
    module.f = tf.function(lambda x: x * module.v, input_signature=[tf.TensorSpec([], tf.float32)])
    save = tf.saved_model.SaveOptions(experimental_custom_gradients=True)
    tf.saved_model.save(module, directory + "/m", options=save)
    loaded = tf.saved_model.load(directory + "/m", options=tf.saved_model.LoadOptions())
    policy = tf.saved_model.experimental.VariablePolicy
    return [loaded.f(tf.constant(3.0)), save.experimental_custom_gradients, save.namespace_whitelist,
            save.function_aliases, save.save_debug_info, str(save.experimental_variable_policy),
            str(tf.saved_model.SaveOptions(experimental_variable_policy="save_variable_devices")
                .experimental_variable_policy),
            catch(tf.saved_model.SaveOptions, experimental_variable_policy="bad"), [p.value for p in policy],
            tf.saved_model.LoadOptions().allow_partial_checkpoint, str(tf.saved_model.LoadOptions()
                                                                     .experimental_variable_policy)]
