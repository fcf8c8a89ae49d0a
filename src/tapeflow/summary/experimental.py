"""``tf.summary.experimental``: the default step (``get_step``, ``set_step``), ``summary_scope`` for custom
summaries, and ``write_raw_pb`` for serialized ``Summary`` protos."""

from ._writer import get_step, set_step, summary_scope, write_raw_pb

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
