"""tf.keras.layers (Keras 3.15): Conv1D, Conv2D and the pooling layers.

Every case starts with ``clear_session()`` so default names are deterministic. Kernels come from ``set_weights`` or
Constant initializers (random initializers do not draw TF's numbers).
"""

import numpy as np

from tests.golden.harness import case, catch


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _w(layer):
    return [[v.path, v.name, v.shape.as_list(), v.dtype, v.trainable] for v in layer.weights]


def _ramp(shape, scale=0.1, shift=0.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 1.3 + shift) * scale * 10).reshape(shape)


def _run(tf, layer, x, dtype=None):
    """Output, gradients of a weighted sum w.r.t. the input and the trainable weights."""
    x = tf.constant(x, dtype or tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = tf.reduce_sum(y * tf.constant(_ramp(y.shape.as_list(), 0.1, 0.5), y.dtype))
    return [y, tape.gradient(s, [x] + layer.trainable_variables)]


def _conv(tf, cls, x_shape, *args, **kw):
    layer = cls(*args, **kw)
    layer.build((None,) + tuple(x_shape[1:]))
    layer.set_weights([_ramp(w.shape.as_list(), 0.1, i) for i, w in enumerate(layer.weights)])
    out = _run(tf, layer, _ramp(x_shape, 0.2), tf.float64 if layer.dtype == "float64" else None)
    return [*out, _w(layer), layer.compute_output_shape((None,) + tuple(x_shape[1:]))]


@case
def conv2d_basic_same_strides(tf):
    k = _k(tf)
    # float64: the kernel gradient sums 36 float32 terms with cancellation, beyond the float32 tolerance
    out = _conv(tf, k.layers.Conv2D, (2, 5, 6, 3), 4, (2, 3), strides=(2, 1), padding="same", activation="tanh",
                dtype="float64")
    out += _conv(tf, k.layers.Conv2D, (1, 5, 5, 2), 3, 3)
    return out


@case
def conv2d_dilation_groups(tf):
    k = _k(tf)
    return [_conv(tf, k.layers.Conv2D, (2, 6, 7, 2), 2, 2, dilation_rate=(2, 1)),
            _conv(tf, k.layers.Conv2D, (2, 5, 5, 4), 6, 2, groups=2, padding="same", use_bias=False),
            _conv(tf, k.layers.Conv2D, (1, 6, 6, 2), 2, 3, dilation_rate=2, padding="same")]


@case
def conv1d_variants(tf):
    k = _k(tf)
    return [_conv(tf, k.layers.Conv1D, (2, 7, 3), 2, 3),
            _conv(tf, k.layers.Conv1D, (2, 7, 3), 2, 2, strides=3, padding="same", activation="sigmoid"),
            _conv(tf, k.layers.Conv1D, (2, 7, 2), 3, 3, padding="causal", dilation_rate=2),
            _conv(tf, k.layers.Conv1D, (1, 6, 4), 4, 2, groups=4),
            _conv(tf, k.layers.Conv1D, (2, 7, 3), 2, 3, padding="CAUSAL", strides=2)]


@case
def conv_float64_constant_init_and_regularizers(tf):
    k = _k(tf)
    c = k.layers.Conv2D(2, 2, kernel_initializer=k.initializers.Constant(0.25),
                        bias_initializer=k.initializers.Constant(-0.5), dtype="float64",
                        kernel_regularizer=k.regularizers.L2(0.1), bias_regularizer="l1")
    y, g = _run(tf, c, _ramp((1, 3, 3, 2)), tf.float64)
    c32 = k.layers.Conv1D(1, 2, kernel_initializer="ones")
    y32 = c32(tf.constant(_ramp((1, 4, 2)), tf.float64))
    return [y, g, c.losses, _w(c), c.count_params(), y32, c32.kernel.dtype]


@case
def conv_configs(tf):
    k = _k(tf)
    c = k.layers.Conv2D(8, [3, 2], strides=[1, 1], padding="SAME", dilation_rate=(1, 1), activation="relu",
                        kernel_regularizer=k.regularizers.L1(0.01), activity_regularizer="l2", name="c")
    c1 = k.layers.Conv1D(4, 5, padding="causal", groups=2, use_bias=False, bias_initializer="ones")
    r = k.layers.Conv2D.from_config(c.get_config())
    r1 = k.layers.Conv1D.from_config(c1.get_config())
    return [c.get_config(), c1.get_config(), r.get_config(), r1.get_config(), c.name, c1.name, r1.name,
            c.built, repr(c1), c.compute_output_shape((4, 10, None, 3)),
            c1.compute_output_shape((None, 9, 6)), k.layers.Conv1D(2, 3, strides=2).compute_output_shape((1, 8, 1))]


@case
def conv_constructor_errors(tf):
    k = _k(tf)
    C1, C2 = k.layers.Conv1D, k.layers.Conv2D
    errs = [catch(C2, 0, 3), catch(C2, 4, 3, groups=0), catch(C2, 3, 3, groups=2), catch(C2, 2, 0),
            catch(C2, 2, (3, 0)), catch(C2, 2, 3, strides=0), catch(C2, 2, 3, strides=2, dilation_rate=2),
            catch(C2, 2, (1, 2, 3)), catch(C2, 2, "a"), catch(C2, 2, 3, strides=(1, -1)),
            catch(C2, 2, 3, data_format="nhwc"), catch(C1, 2, 3, foo=1)]
    bad_padding = [type(catch(C2, 2, 3, padding="causal")).__name__, type(catch(C1, 2, 3, padding="full")).__name__]
    return [errs, bad_padding, catch(C2, -2, 3)]


@case
def conv_call_errors(tf):
    k = _k(tf)
    c = k.layers.Conv2D(2, 3)
    out = [catch(lambda: c.kernel), catch(c, tf.ones((1, 4, 4))), c.built,
           catch(k.layers.Conv2D(2, 3, groups=2), tf.ones((1, 5, 5, 3))),
           catch(k.layers.Conv2D(2, 3), tf.ones((1, 2, 5, 1))),
           catch(k.layers.Conv1D(2, 3, dilation_rate=3), tf.ones((1, 6, 1))),
           catch(k.layers.Conv2D(2, 3).compute_output_shape, (1, 5, 5)),
           catch(k.layers.Conv2D(2, 3, strides=3).compute_output_shape, (1, 2, 5, 1))]
    c(tf.ones((1, 4, 4, 3)))
    out += [catch(c, tf.ones((1, 4, 4, 2))), c(tf.ones((2, 6, 5, 3))).shape, c.kernel.shape]
    return out


def _pool(tf, layer, x_shape, dtype=None):
    y, g = _run(tf, layer, _ramp(x_shape, 0.3), dtype)
    return [y, g[0], layer.compute_output_shape(x_shape), layer.built, layer.weights]


@case
def max_pooling(tf):
    k = _k(tf)
    return [_pool(tf, k.layers.MaxPooling2D(), (2, 4, 5, 3)),
            _pool(tf, k.layers.MaxPooling2D((3, 2), strides=(1, 2), padding="same"), (1, 5, 5, 2)),
            _pool(tf, k.layers.MaxPooling2D(2, data_format="channels_first"), (1, 2, 4, 4)),
            _pool(tf, k.layers.MaxPooling1D(), (2, 7, 2)),
            _pool(tf, k.layers.MaxPooling1D(3, 2, "same"), (2, 7, 2), tf.float64),
            _pool(tf, k.layers.MaxPooling1D(2, data_format="channels_first"), (1, 3, 6))]


@case
def average_pooling(tf):
    k = _k(tf)
    return [_pool(tf, k.layers.AveragePooling2D(2), (2, 4, 5, 3)),
            _pool(tf, k.layers.AveragePooling2D((3, 3), strides=2, padding="same"), (1, 5, 6, 2)),
            _pool(tf, k.layers.AveragePooling2D((2, 1), data_format="channels_first"), (1, 2, 4, 3), tf.float64),
            _pool(tf, k.layers.AveragePooling1D(3), (2, 7, 2)),
            _pool(tf, k.layers.AveragePooling1D(2, 1, "same"), (2, 5, 2)),
            _pool(tf, k.layers.AveragePooling1D(4, data_format="channels_first"), (1, 3, 8))]


@case
def pooling_configs_errors(tf):
    k = _k(tf)
    layers = [k.layers.MaxPooling2D(), k.layers.MaxPooling1D(3, padding="same"),
              k.layers.AveragePooling2D([2, 3], strides=1), k.layers.AveragePooling1D(2, data_format="channels_first")]
    configs = [layer.get_config() for layer in layers]
    rebuilt = [type(layer).from_config(layer.get_config()).get_config() for layer in layers]
    errs = [catch(k.layers.MaxPooling2D, 0), catch(k.layers.MaxPooling2D, 2, strides=-1),
            catch(k.layers.MaxPooling1D, (2, 2)), catch(k.layers.AveragePooling2D),
            catch(k.layers.MaxPooling2D(), tf.ones((1, 4, 4))), catch(k.layers.AveragePooling1D(2), tf.ones((4, 4))),
            catch(k.layers.MaxPooling2D(3).compute_output_shape, (1, 2, 5, 1)),
            catch(k.layers.AveragePooling2D(2, data_format="channels_middle"))]
    return [configs, rebuilt, [layer.name for layer in layers], errs,
            k.layers.MaxPooling2D(2).compute_output_shape((None, None, 7, 3))]


@case
def global_pooling(tf):
    k = _k(tf)
    out = []
    for cls, shape in [(k.layers.GlobalAveragePooling2D, (2, 3, 4, 2)), (k.layers.GlobalMaxPooling2D, (2, 3, 4, 2)),
                       (k.layers.GlobalAveragePooling1D, (2, 5, 3)), (k.layers.GlobalMaxPooling1D, (2, 5, 3))]:
        for kw in [{}, {"keepdims": True}, {"data_format": "channels_first"},
                   {"data_format": "channels_first", "keepdims": True}]:
            layer = cls(**kw)
            out.append(_pool(tf, layer, shape) + [layer.get_config()])
    return out


@case
def global_pooling_mask_and_errors(tf):
    k = _k(tf)
    gap = k.layers.GlobalAveragePooling1D()
    x = tf.constant(_ramp((2, 4, 3)), tf.float32)
    mask = tf.constant([[True, True, False, True], [False, True, True, False]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = gap(x, mask=mask)
    cf = k.layers.GlobalAveragePooling1D(data_format="channels_first", keepdims=True)
    y_cf = cf(tf.transpose(x, (0, 2, 1)), mask=mask)
    errs = [catch(k.layers.GlobalMaxPooling2D(), tf.ones((2, 3, 4))),
            catch(k.layers.GlobalAveragePooling1D(), tf.ones((2, 3, 4, 1))),
            catch(k.layers.GlobalMaxPooling1D, data_format="x"), catch(k.layers.GlobalAveragePooling2D, foo=1)]
    return [y, tape.gradient(y, x), y_cf, gap.compute_mask(x, mask), gap.supports_masking, errs,
            k.layers.GlobalMaxPooling2D().name, k.layers.GlobalAveragePooling1D().name]
