"""``tf.summary``: TensorBoard logs written as TensorFlow 2.21 writes them.

``create_file_writer(logdir)`` makes a writer of one event file; inside ``with writer.as_default():`` the summary
functions ``scalar``, ``histogram``, ``image``, ``text``, ``audio`` and ``write`` add events to it at a step
(``step=`` or ``tf.summary.experimental.set_step``), ``record_if`` turns recording on and off, ``graph`` and
``trace_on`` / ``trace_export`` write traced functions' graphs. TensorBoard reads the files as TF's: the same
tags, steps, plugin names and values (see docs/summary.md).

Loaded on first use (``tf.summary``). The event files are written by the ``tensorboard`` package (and images
encoded by Pillow): the optional ``tensorboard`` extra, named by the ``ImportError`` a writer raises without it.
Summary functions called with no default writer write nothing and return ``False``, extra or not.
"""

from . import experimental
from ._graph import graph, trace_export, trace_off, trace_on
from ._plugins import audio, histogram, image, scalar, text
from ._writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
    should_record_summaries,
    write,
)

__all__ = ["SummaryWriter", "audio", "create_file_writer", "create_noop_writer", "experimental", "flush", "graph",
           "histogram", "image", "record_if", "scalar", "should_record_summaries", "text", "trace_export",
           "trace_off", "trace_on", "write"]
