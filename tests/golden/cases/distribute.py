"""tf.distribute in one process (TF 2.21 on one CPU): the default strategy and its replica context, the mirrored
strategies' attributes, scope/run contexts, run/reduce/gather results, distributed datasets and InputContext,
PerReplica values, compute_average_loss and scale_regularization_loss under strategies, and TF's errors for calls
in the wrong context. (Several processes: tests/test_distribute_mpi.py.)"""

from tests.golden.harness import case, catch


def _kind(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        return type(exc).__name__
    return None


@case
def default_strategy_and_contexts(tf):
    s = tf.distribute.get_strategy()
    rc = tf.distribute.get_replica_context()
    return [type(s).__name__, s.num_replicas_in_sync, tf.distribute.has_strategy(),
            tf.distribute.in_cross_replica_context(), type(rc).__name__, rc.num_replicas_in_sync,
            rc.replica_id_in_sync_group, rc.all_reduce("SUM", 3.0), rc.all_reduce("MEAN", tf.constant([1.0, 2.0]))]


@case
def mirrored_strategies_attributes(tf):
    m = tf.distribute.MirroredStrategy()
    o = tf.distribute.OneDeviceStrategy("/cpu:0")
    return [m.num_replicas_in_sync, m.cluster_resolver, o.num_replicas_in_sync, m.extended.worker_devices]


@case
def scope_and_run_contexts(tf):
    m = tf.distribute.MirroredStrategy()
    out = []
    with m.scope():
        v = tf.Variable([1.0, 2.0], name="w")
        out += [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context(),
                tf.distribute.get_replica_context() is None, tf.distribute.get_strategy() is m, type(v).__name__,
                repr(v), isinstance(v, tf.Variable), v * 2.0]

        def fn(x):
            ctx = tf.distribute.get_replica_context()
            return [type(ctx).__name__, tf.distribute.in_cross_replica_context(), ctx.replica_id_in_sync_group,
                    ctx.num_replicas_in_sync, ctx.all_reduce("sum", x), ctx.all_reduce(tf.distribute.ReduceOp.MEAN, x),
                    ctx.all_reduce("SUM", {"a": x, "b": [x * 2.0]}), ctx.all_gather(tf.constant([[1.0, 2.0]]), axis=1),
                    ctx.merge_call(lambda s, v: (s is m, tf.distribute.in_cross_replica_context(), v), args=(3,)),
                    tf.nn.compute_average_loss([1.0, 2.0, 3.0]), tf.nn.scale_regularization_loss([1.0, 2.0])]

        out.append(m.run(fn, args=(tf.constant([1.0, 2.0]),)))
    out += [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context()]
    return out


@case
def reduce_gather_and_local_results(tf):
    m = tf.distribute.MirroredStrategy()
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [m.reduce("SUM", x, axis=0), m.reduce("MEAN", x, axis=None),
            m.reduce(tf.distribute.ReduceOp.MEAN, tf.constant([1, 2, 4]), axis=0), m.gather(x, axis=0),
            m.experimental_local_results(tf.constant(1.0)), str(tf.distribute.ReduceOp.SUM),
            repr(tf.distribute.ReduceOp.MEAN), catch(m.reduce, "FOO", x, axis=None)]


@case
def per_replica_values(tf):
    m = tf.distribute.MirroredStrategy()
    values = m.experimental_distribute_values_from_function(
        lambda ctx: (type(ctx).__name__, ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync))
    single = m.experimental_distribute_values_from_function(lambda ctx: tf.constant(3.0))
    return [repr(values), type(single).__name__, m.run(lambda v: v * 2.0, args=(single,)),
            m.experimental_local_results(single)]


@case
def distributed_datasets(tf):
    m = tf.distribute.MirroredStrategy()
    dd = m.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(4))
    seen = []

    def dataset_fn(ic):
        seen.extend([type(ic).__name__, ic.num_input_pipelines, ic.input_pipeline_id, ic.num_replicas_in_sync,
                     ic.get_per_replica_batch_size(8), str(ic)])
        return tf.data.Dataset.range(6).batch(ic.get_per_replica_batch_size(4))

    dd2 = m.distribute_datasets_from_function(dataset_fn)
    it = iter(dd)
    return [type(dd).__name__, list(dd), type(dd2).__name__, list(dd2), dd2.element_spec, seen, it.get_next(),
            list(m.experimental_distribute_dataset(tf.data.Dataset.range(3))),
            str(tf.distribute.InputContext(2, 1, 4)), tf.distribute.InputContext(2, 1, 4).get_per_replica_batch_size(8),
            catch(tf.distribute.InputContext(2, 1, 4).get_per_replica_batch_size, 7)]


@case
def average_loss_under_strategies(tf):
    m = tf.distribute.MirroredStrategy()
    cal = tf.nn.compute_average_loss
    out = [cal([1.0, 2.0, 3.0]), cal([[1.0, 2.0], [3.0, 5.0]], sample_weight=[1.0, 2.0]),
           cal([1.0, 2.0], global_batch_size=0), cal([1, 2]), tf.nn.scale_regularization_loss(3.0),
           tf.nn.scale_regularization_loss(tf.constant(2, tf.int32))]
    with m.scope():
        out += [catch(cal, [1.0, 2.0, 3.0]), catch(tf.nn.scale_regularization_loss, 3.0),
                cal([1.0, 2.0], global_batch_size=4), m.run(lambda: cal([1.0, 2.0]))]
    return out


@case
def wrong_context_errors(tf):
    m = tf.distribute.MirroredStrategy()
    o = tf.distribute.OneDeviceStrategy("/cpu:0")

    def mix():
        with m.scope():
            with o.scope():
                pass

    def scope_in_run():
        def fn():
            with m.scope():
                pass
        m.run(fn)

    with m.scope():
        no_context = catch(lambda: tf.distribute.get_replica_context().all_reduce("SUM", 1.0))
    return [_kind(mix), catch(lambda: m.run(lambda: m.run(lambda: 1))), catch(scope_in_run), no_context]
