"""TF 2.21's functions on ragged tensors beyond elementwise math and reductions (its ragged dispatch list): tile,
reverse, expand_dims/squeeze, rank/size, one_hot, embedding_lookup, split, cumsum, unsorted segments,
dynamic_partition, gather_nd, matmul, reshape, zeros/ones/fill of a DynamicRaggedShape and its slices, softmax,
bincount, the tf.strings functions, reduce_join, format, map_fn over rows, get_concrete_function and
dense_to_ragged_batch; and the dense functions added with them (dynamic_partition/stitch, saturate_cast, bitcast,
scalar_mul, strings.unsorted_segment_join)."""

from tests.golden.harness import case, catch


def _r(tf):
    return (tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []]),
            tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]),
            tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]]))


@case
def ragged_tile_reverse_and_dimensions(tf):
    ri, r3, _ = _r(tf)
    return [tf.tile(ri, [1, 2]), tf.tile(ri, [2, 1]), tf.tile(r3, [2, 1, 2]), tf.tile(ri, [0, 3]),
            catch(tf.tile, ri, [2]), tf.reverse(ri, [1]), tf.reverse(ri, [0]), tf.reverse(r3, [0, 1]),
            tf.reverse(r3, [2]), catch(tf.reverse, ri, [2]), tf.expand_dims(ri, 0), tf.expand_dims(ri, 1),
            tf.expand_dims(ri, 2), tf.expand_dims(ri, -1), tf.expand_dims(ri, 0).shape, tf.expand_dims(ri, 1).shape,
            catch(tf.expand_dims, ri, 3), tf.squeeze(tf.expand_dims(ri, 2), [2]),
            tf.squeeze(tf.expand_dims(ri, 0), [0]), tf.squeeze(tf.ragged.constant([[[1]], [[2], [3]]]), [2]),
            tf.squeeze(tf.ragged.constant([[1], [2]], ragged_rank=1), [1]), catch(tf.squeeze, ri, [1]),
            catch(tf.squeeze, ri), tf.rank(ri), tf.rank(r3), tf.size(ri), tf.size(r3), tf.size(ri, out_type=tf.int64),
            tf.RaggedTensor.from_tensor([[1.0, 2.0], [3.0, 4.0]]).shape,
            tf.RaggedTensor.from_uniform_row_length(tf.RaggedTensor.from_row_splits(
                [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], [0, 3, 5, 9, 10]), 2).shape]


@case
def ragged_lookups_splits_and_segments(tf):
    ri, r3, _ = _r(tf)
    r = tf.cast(ri, tf.float32)
    return [tf.one_hot(ri, 10), tf.one_hot(ri, 3, axis=-1), catch(tf.one_hot, ri, 3, axis=0),
            tf.nn.embedding_lookup(tf.reshape(tf.range(20.0), [10, 2]), ri),
            tf.nn.embedding_lookup(tf.ones([10, 2]), tf.ragged.constant([[[1], [2, 3]]])),
            tf.split(ri, 5), tf.split(ri, [2, 3]), catch(tf.split, ri, 2, axis=1), tf.math.cumsum(ri, axis=1),
            tf.math.cumsum(ri, axis=0), tf.math.cumsum(ri, axis=1, exclusive=True, reverse=True),
            tf.math.unsorted_segment_sum(ri, [0, 1, 0, 1, 1], 2), tf.math.unsorted_segment_max(ri, [0, 1, 0, 1, 1], 2),
            tf.math.unsorted_segment_mean(r, [0, 1, 0, 1, 1], 2),
            tf.math.unsorted_segment_sqrt_n(r, [0, 1, 0, 1, 1], 3),
            tf.dynamic_partition(ri, [0, 1, 0, 1, 0], 2),
            tf.dynamic_partition(tf.ragged.constant([[1], [2, 3], []]), tf.ragged.constant([[0], [1, 0], []]), 2),
            tf.gather_nd(ri, [[0, 1], [2, 2]]), tf.gather_nd(ri, [[0], [2]]), tf.gather_nd(ri, [[0, 7]]),
            tf.gather_nd(r3, [[0, 0], [1, 0]]), tf.gather_nd(r3, [[0, 0, 1], [1, 0, 2]]),
            tf.matmul(tf.ragged.constant([[1.0, 2.0], [3.0, 4.0]]), [[1.0], [2.0]]), tf.reshape(ri, [-1]),
            tf.reshape(ri, [2, 4]), tf.math.bincount(ri), tf.math.bincount(ri, axis=-1),
            tf.math.bincount(ri, axis=-1, minlength=3, maxlength=5), tf.math.bincount(ri, weights=r)]


@case
def ragged_dynamic_shapes(tf):
    ri, r3, _ = _r(tf)
    s = tf.shape(ri)
    return [str(tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])),
            str(tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2), 3])), str(s[:1]), catch(lambda: s[1:]),
            str(tf.shape(r3)[:2]), tf.zeros(s), tf.ones(s), tf.fill(s, 9), tf.fill(s, "x"),
            tf.reshape(tf.range(8), s), tf.reshape(tf.constant(list("abcdefgh")), s), tf.ones(tf.shape(r3))]


@case
def ragged_elementwise_and_nn(tf):
    ri, _, s = _r(tf)
    r = tf.cast(ri, tf.float32)
    x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    y = tf.ragged.constant([[10, 20], [30, 40], [50]])
    wide = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    wider = tf.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0]]], ragged_rank=1)
    return [tf.math.equal(ri, 1), tf.math.not_equal(ri, ri), tf.math.less(ri, 4), tf.add_n([ri, ri, ri]),
            tf.add_n([ri, 1]), tf.clip_by_value(r, 2.0, 5.0), tf.math.multiply_no_nan(r, r),
            tf.math.squared_difference(r, 2.0), tf.math.scalar_mul(2, ri), tf.saturate_cast(ri, tf.int8),
            tf.dtypes.saturate_cast(ri * 100, tf.int8), tf.bitcast(ri, tf.float32), tf.debugging.check_numerics(r, "x"),
            tf.nn.dropout(r, 0.5, seed=1).shape, tf.nn.softmax(tf.ragged.constant([[0.0, 1.0], [], [2.0]])),
            tf.math.is_nan(r), catch(tf.nn.log_softmax, r), catch(tf.unstack, ri), catch(lambda: x + y),
            catch(lambda: wide + wider), catch(lambda: tf.ragged.constant([[1], [2]]) + tf.ragged.constant([[1], [2],
                                                                                                         [3]])),
            tf.debugging.assert_equal(ri, ri), catch(tf.debugging.assert_equal, x, y), tf.strings.length(s)]


@case
def ragged_strings(tf):
    ri, _, s = _r(tf)
    return [tf.strings.to_hash_bucket_fast(s, 100), tf.strings.to_hash_bucket_strong(s, 100, [1, 2]),
            tf.strings.to_hash_bucket(s, 100), tf.strings.join([s, s], separator="+"), tf.strings.join([s, "!"]),
            tf.strings.upper(s), tf.strings.lower(s), tf.strings.strip(s), tf.strings.substr(s, 0, 2),
            tf.strings.regex_full_match(s, "f.*"), tf.strings.regex_replace(s, "o", "0"),
            tf.strings.reduce_join(s, axis=1), tf.strings.reduce_join(s, axis=-1, separator=" "),
            tf.strings.reduce_join(tf.ragged.constant([["a", "b"], [], ["c"]]), axis=0),
            tf.strings.reduce_join(tf.ragged.constant([["a", "b"], [], ["c"]])),
            tf.strings.reduce_join(tf.ragged.constant([["a", "b"], [], ["c"]]), axis=1, keepdims=True),
            tf.strings.as_string(ri), tf.strings.to_number(tf.strings.as_string(ri)), tf.io.encode_base64(s),
            tf.io.decode_base64(tf.io.encode_base64(s)), tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"),
            tf.strings.format("{}", ri), tf.strings.format("{} and {}", (ri, 3)),
            tf.strings.format("{}", tf.ragged.constant([[1, 2, 3, 4, 5, 6, 7, 8], [1]])),
            tf.strings.format("{}", tf.ragged.constant([[1.5, 2], [1]]), summarize=1),
            tf.strings.format("{}", tf.ragged.constant([[[1], [2, 3]], [[1]]])),
            tf.strings.format("{}", tf.ragged.constant([["a"], ["b"]])),
            tf.concat([tf.fill([s.nrows(), 1], "#"), s], axis=1), s[:, :-1], s[:, 1:]]


@case
def ragged_map_fn_and_functions(tf):
    ri, r3, _ = _r(tf)

    @tf.function
    def increment(x):
        return x + 1

    @tf.function
    def palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)

    cf = increment.get_concrete_function(ri)
    ds = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)
    batched = ds.apply(tf.data.experimental.dense_to_ragged_batch(2))
    return [tf.map_fn(tf.math.square, ri), catch(tf.map_fn, tf.reduce_sum, ri), tf.map_fn(lambda x: x * 2, r3),
            tf.map_fn(tf.reduce_sum, ri, fn_output_signature=tf.int32),
            tf.map_fn(lambda x: x[:1], ri, fn_output_signature=tf.RaggedTensorSpec([None], tf.int32, 0)),
            cf(ri), cf(tf.ragged.constant([[7], [8, 9], [], [], [1]])), palindrome(ri, 1),
            palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1), str(batched), list(batched)]


@case
def partition_stitch_and_casts(tf):
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as t:
        a, b = tf.dynamic_partition(x * 2, [1, 0, 1], 2)
        y = tf.reduce_sum(a) + 3 * tf.reduce_sum(b)
        z = tf.reduce_sum(tf.dynamic_stitch([[0, 1], [1]], [x[:2] * 2, x[2:] * 5]) * [1.0, 2.0])
    return [tf.dynamic_partition([1, 2, 3, 4], [1, 0, 1, 1], 2),
            tf.dynamic_partition(tf.constant([[1, 2], [3, 4]]), [[0, 1], [1, 1]], 2),
            catch(tf.dynamic_partition, [1, 2, 3], [0, 3, 1], 2), catch(tf.dynamic_partition, [1.0, 2.0], [0], 2),
            catch(tf.dynamic_partition, [1.0, 2.0], [0, 1], 0), catch(tf.dynamic_partition, [1, 2], [0.5, 1], 2),
            t.gradient(y, x), t.gradient(z, x), tf.dynamic_stitch([[0, 2], [1]], [[1.0, 2.0], [3.0]]),
            tf.dynamic_stitch([[0, 0]], [[1.0, 2.0]]), tf.dynamic_stitch([[0, 3]], [[1.0, 2.0]]),
            tf.dynamic_stitch([[[0, 1]], [2]], [[[1.0, 2.0]], [3.0]]), catch(tf.dynamic_stitch, [[0, 1]], [[1.0]]),
            catch(tf.dynamic_stitch, [[-1]], [[1.0]]), tf.saturate_cast([300, -5], tf.uint8),
            tf.saturate_cast([1.7e10, -5.5], tf.int32), tf.saturate_cast([-1, 70000], tf.int16),
            tf.saturate_cast([1 + 2j], tf.float32), tf.saturate_cast([3.9, -1.0], tf.uint8),
            tf.saturate_cast(tf.constant([2**40], tf.int64), tf.float16), catch(tf.saturate_cast, [True], tf.int32),
            tf.bitcast(tf.constant([1.0], tf.float32), tf.int32), tf.bitcast(tf.constant([1, 2], tf.int32), tf.int64),
            tf.bitcast(tf.constant([1], tf.int64), tf.int32), tf.bitcast(tf.constant([1.0], tf.float64), tf.int32),
            tf.bitcast(tf.constant([[1, 2]], tf.int16), tf.int32), tf.bitcast(tf.constant(1.5), tf.int32),
            catch(tf.bitcast, tf.constant([1, 2, 3], tf.int32), tf.int64),
            catch(tf.bitcast, tf.constant([True]), tf.int8), catch(tf.bitcast, tf.constant([1]), tf.string),
            tf.math.scalar_mul(2, tf.constant([1.0, 2.0])), tf.scalar_mul(2.0, tf.constant([1.0, 2.0])),
            catch(tf.math.scalar_mul, [2.0], tf.constant([1.0, 2.0])),
            catch(tf.math.scalar_mul, tf.constant(2.0), tf.constant([1, 2])),
            tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4, separator=":"),
            tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 0], 2),
            tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [[1, 0], [0, 0]], 2, separator="-"),
            catch(tf.strings.unsorted_segment_join, ["a", "b"], [1, 5], 2),
            catch(tf.strings.unsorted_segment_join, ["a", "b"], [1], 2),
            catch(tf.strings.unsorted_segment_join, [1, 2], [1, 0], 2),
            catch(tf.strings.unsorted_segment_join, ["a", "b"], [1, 0], -1)]
