"""tf.config and tf.device on a machine with one CPU (TF 2.21): device lists and their reprs, visible devices,
memory growth (refused on a CPU), determinism, thread counts, Grappler options, the jit switch, device scopes
(GPU ones placed on the CPU, unknown device types refused), tensors' and variables' device strings, and
tf.test's build questions."""

from tests.golden.harness import case, catch


@case
def devices_and_lists(tf):
    cpu = tf.config.list_physical_devices("CPU")[0]
    return [tf.config.list_physical_devices(), tf.config.list_physical_devices("GPU"),
            tf.config.list_logical_devices(), tf.config.list_logical_devices("GPU"), repr(cpu), cpu.name,
            cpu.device_type, tf.config.get_visible_devices(), tf.config.get_visible_devices("GPU"),
            tf.config.set_visible_devices([], "GPU"), tf.config.set_visible_devices(cpu),
            catch(tf.config.experimental.set_memory_growth, cpu, True),
            catch(tf.config.experimental.get_memory_growth, cpu),
            tf.config.experimental.list_physical_devices("CPU"), tf.config.experimental.get_device_details(cpu),
            tf.config.get_soft_device_placement(), tf.config.experimental.enable_op_determinism()]


@case
def threads_and_optimizer_options(tf):
    before = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options({"constant_folding": True})
    after = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    return [tf.config.threading.get_intra_op_parallelism_threads(),
            tf.config.threading.get_inter_op_parallelism_threads(), before, after, tf.config.optimizer.get_jit()]


@case
def device_scopes(tf):
    x = tf.constant(1.0)
    out = [x.device, tf.Variable(1.0).device]
    for name in ("/CPU:0", "/GPU:0", "cpu:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0", "",
                 None):
        with tf.device(name):
            out.append((x * 2.0).device)
    with tf.device("/CPU:0"):
        with tf.device("/GPU:1"):
            out.append((x + 1.0).numpy())
    out += [catch(lambda: tf.device("/XPU:0").__enter__()), catch(lambda: tf.device("/foo:bar/CPU:0").__enter__())]
    return out


@case
def test_build_questions(tf):
    return [tf.test.is_built_with_cuda(), tf.test.is_built_with_rocm(), tf.test.is_built_with_gpu_support(),
            tf.test.gpu_device_name()]


@case
def logical_devices_after_the_runtime_started(tf):
    cpu = tf.config.list_physical_devices("CPU")[0]
    return [tf.config.get_logical_device_configuration(cpu), tf.config.LogicalDeviceConfiguration(),
            tf.config.LogicalDeviceConfiguration(memory_limit=10), tf.config.experimental.VirtualDeviceConfiguration(),
            catch(tf.config.set_logical_device_configuration, cpu, [tf.config.LogicalDeviceConfiguration()] * 2)]
