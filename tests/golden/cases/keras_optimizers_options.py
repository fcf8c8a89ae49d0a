"""tf.keras.optimizers (Keras 3): configs and from_config round trips of Ftrl, Lion, Lamb and Adafactor (a schedule
included), and trajectories with EMA, gradient accumulation and a callable learning rate.
"""

from tests.golden.harness import case
from tests.golden.optimizer_runs import maker, trajectory


@case
def configs(tf):
    opts = [tf.keras.optimizers.Ftrl(name="a", l1_regularization_strength=0.1, beta=0.2, clipnorm=1.0),
            tf.keras.optimizers.Lion(name="b", beta_1=0.8, weight_decay=0.1),
            tf.keras.optimizers.Lamb(name="c", epsilon=1e-5, use_ema=True),
            tf.keras.optimizers.Adafactor(name="d", relative_step=False, global_clipnorm=2.0),
            tf.keras.optimizers.Ftrl(), tf.keras.optimizers.Lion(), tf.keras.optimizers.Lamb(),
            tf.keras.optimizers.Adafactor()]
    return [sorted(o.get_config().items()) if i < 4 else sorted((k, v) for k, v in o.get_config().items()
                                                                 if k != "name")
            for i, o in enumerate(opts)]


@case
def from_config_round_trip(tf):
    out = []
    for cls in ("Ftrl", "Lion", "Lamb", "Adafactor"):
        opt = getattr(tf.keras.optimizers, cls)(name="x", learning_rate=0.25)
        again = type(opt).from_config(opt.get_config())
        out.append([type(again).__name__, again.get_config()])
    sched = tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 2, 0.5)
    again = tf.keras.optimizers.Lion.from_config(tf.keras.optimizers.Lion(learning_rate=sched, name="y").get_config())
    out.append([type(again.learning_rate).__name__ if not hasattr(again.learning_rate, "numpy") else "tensor",
                again.get_config()])
    return out


@case
def ema_and_accumulation(tf):
    return {"lion_ema": trajectory(tf, maker(tf, "Lion", learning_rate=0.1, use_ema=True, ema_overwrite_frequency=2)),
            "lamb_accum": trajectory(tf, maker(tf, "Lamb", learning_rate=0.1, gradient_accumulation_steps=2)),
            "ftrl_callable_lr": trajectory(tf, maker(tf, "Ftrl", learning_rate=lambda: 0.05))}
