"""``tf.keras.callbacks.TensorBoard``: Keras 3's TensorBoard logging (as it runs on TensorFlow 2.21), written with
``tf.summary`` (so it needs the ``tensorboard`` extra once it writes).

What it writes, under ``log_dir/train`` and ``log_dir/validation``:

* at each epoch end, ``epoch_<metric>`` scalars at step ``epoch`` (``val_`` metrics under ``validation`` without
  the prefix) and ``epoch_learning_rate`` (``epoch_steps_per_second`` with ``write_steps_per_second``);
* at each validation end, ``evaluation_<metric>_vs_iterations`` at the optimizer's iteration count;
* with an integer ``update_freq`` (``"batch"`` is 1), ``batch_<metric>`` scalars at the count of training
  batches since ``fit`` began. As in Keras, the writer stays default through the batches with recording on only
  at batch counts that ``update_freq`` divides, which also gates the epoch and evaluation summaries written
  meanwhile (an epoch that ends on another count writes none: Keras's behaviour, kept);
* every ``histogram_freq`` epochs, ``<weight path>/histogram`` of each layer's weights (``:`` made ``_``) and,
  with ``write_images``, ``<weight path>/image``: the squeezed weight as a one-channel image (a vector as one
  column, a matrix with its longer side across, a 3-D kernel one image per output channel);
* with ``write_graph``, the model's JSON as the ``keras`` summary (plugin ``graph_keras_model``) at step 0, for a
  Sequential or functional model that has ``to_json``; Keras 3 on TF 2.21 writes no train-step graph, nor does
  this;
* with ``profile_batch``, the graphs traced from that batch to the last one profiled as the ``batch_<n>`` trace
  (``tf.summary.trace_on`` / ``trace_export``); there is no profiler, so no profile is written;
* with ``embeddings_freq``, ``projector_config.pbtxt`` for the ``Embedding`` layers, and the weights saved as
  ``train/keras_embedding.ckpt-<epoch>.weights.h5`` every ``embeddings_freq`` epochs.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from .base import Callback

__all__ = ["TensorBoard"]


def _summary():
    from ... import summary  # noqa: PLC0415

    return summary


class TensorBoard(Callback):
    """Write TensorBoard logs of training to ``log_dir`` (see the module docstring for what and when).

    Args:
        log_dir: the directory of the logs (``train`` and ``validation`` runs inside).
        histogram_freq: every how many epochs to write weight histograms (0: never).
        write_graph: whether to write the model's JSON (the Graphs dashboard's Keras view).
        write_images: whether to write weights as images too (with the histograms).
        write_steps_per_second: whether to write training steps per second.
        update_freq: ``"epoch"``, ``"batch"`` or a number of batches between batch summaries.
        profile_batch: a batch number, a pair ``(start, stop)`` or ``"start,stop"``: the batches whose traced
            graphs are written (0: none).
        embeddings_freq: every how many epochs to save the weights for the Projector (0: never).
        embeddings_metadata: a metadata file for every embedding, or a dict from layer name to file.

    Raises:
        ValueError: for a ``profile_batch`` that is not a non-negative integer or an increasing pair.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0
        self._batch_start_time = 0
        self._epoch_start_time = 0
        self._writers = {}
        self._prev_summary_state = []
        self._is_tracing = False

    def set_model(self, model):
        """Attach ``model``; writes the model's JSON now when ``write_graph`` is on."""
        self._model = model
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()
        if self.embeddings_freq:
            self._configure_embeddings()

    # --- writers ------------------------------------------------------------------------------------------
    @property
    def _train_writer(self):
        if "train" not in self._writers:
            self._writers["train"] = _summary().create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self):
        if "val" not in self._writers:
            self._writers["val"] = _summary().create_file_writer(self._val_dir)
        return self._writers["val"]

    def _push_writer(self, writer, step):
        """Make ``writer`` default, recording when ``update_freq`` divides ``step`` (batch summaries only)."""
        if self.update_freq == "epoch":
            return
        summary = _summary()
        contexts = (writer.as_default(step), summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(contexts)
        contexts[0].__enter__()
        contexts[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch":
            return
        contexts = self._prev_summary_state.pop()
        contexts[1].__exit__(None, None, None)
        contexts[0].__exit__(None, None, None)

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()

    # --- what is written ----------------------------------------------------------------------------------
    def _write_keras_model_summary(self):
        if type(self.model).__name__ not in ("Functional", "Sequential"):
            return
        with self._train_writer.as_default():
            _keras_model_summary("keras", self.model, step=0)

    def _configure_embeddings(self):
        from ...keras.layers import Embedding  # noqa: PLC0415

        try:
            from google.protobuf import text_format  # noqa: PLC0415
            from tensorboard.plugins import projector  # noqa: PLC0415
        except ImportError:
            raise ImportError("TensorBoard's embeddings need the optional dependency `tensorboard`: install it with "
                              "`pip install 'tapeflow[tensorboard]'` (or `tapeflow[all]`).") from None
        config = projector.ProjectorConfig()
        for layer in self.model.layers:
            if isinstance(layer, Embedding):
                embedding = config.embeddings.add()
                embedding.tensor_name = "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE"
                if self.embeddings_metadata is not None:
                    if isinstance(self.embeddings_metadata, str):
                        embedding.metadata_path = self.embeddings_metadata
                    elif layer.name in self.embeddings_metadata:
                        embedding.metadata_path = self.embeddings_metadata.pop(layer.name)
        if self.embeddings_metadata and not isinstance(self.embeddings_metadata, str):
            raise ValueError("Unrecognized `Embedding` layer names passed to `keras.callbacks.TensorBoard` "
                             f"`embeddings_metadata` argument: {self.embeddings_metadata.keys()}")
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "projector_config.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(config))

    def _init_profile_batch(self, profile_batch):
        message = ("profile_batch must be a non-negative integer or 2-tuple of positive integers. A pair of positive "
                   f"integers signifies a range of batches to profile. Found: {profile_batch}")
        if isinstance(profile_batch, str):
            profile_batch = [int(p) for p in profile_batch.split(",")]
        if isinstance(profile_batch, int):
            self._start_batch = self._stop_batch = profile_batch
        elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
            self._start_batch, self._stop_batch = profile_batch
        else:
            raise ValueError(message)
        if self._start_batch < 0 or self._stop_batch < self._start_batch:
            raise ValueError(message)
        self._should_trace = not (self._start_batch == 0 and self._stop_batch == 0)

    # --- hooks --------------------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        if self._is_tracing:
            self._stop_trace()
        self._close_writers()

    def on_test_begin(self, logs=None):
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            summary = _summary()
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    summary.scalar(f"evaluation_{name}_vs_iterations", value, step=optimizer.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()
        if self._should_trace and self._global_train_batch == self._start_batch:
            _summary().trace_on(graph=True, profiler=False)
            self._is_tracing = True

    def on_train_batch_end(self, batch, logs=None):
        summary = _summary()
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start_time
            summary.scalar("batch_steps_per_second", 1.0 / max(elapsed, 1e-12), step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar(f"batch_{name}", value, step=self._global_train_batch)
        if self._should_trace and self._is_tracing and self._global_train_batch >= self._stop_batch:
            self._stop_trace()

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(np.asarray(self.model.optimizer.iterations))
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            path = os.path.join(self.log_dir, "train", f"keras_embedding.ckpt-{epoch}.weights.h5")
            self.model.save_weights(path)

    def _stop_trace(self):
        with self._train_writer.as_default():
            _summary().trace_export(name=f"batch_{self._stop_batch}", step=self._stop_batch)
        self._is_tracing = False

    def _learning_rates(self, logs):
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if hasattr(optimizer, "optimizers"):
            for opt in optimizer.optimizers:
                logs[f"learning_rate_{opt.name}"] = float(np.asarray(opt.learning_rate))
        elif optimizer is not None and hasattr(optimizer, "learning_rate"):
            logs["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        return logs

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        summary = _summary()
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._learning_rates(train_logs)
        if self.write_steps_per_second:
            iterations = float(np.asarray(self.model.optimizer.iterations))
            elapsed = np.float32(time.time() - self._epoch_start_time)
            train_logs["steps_per_second"] = float(np.float32(iterations - self._previous_epoch_iterations) / elapsed)
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    summary.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch):
        summary = _summary()
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    weight_name = weight.path.replace(":", "_")
                    summary.histogram(f"{weight_name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{weight_name}/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight, name, epoch):
        image = np.squeeze(np.asarray(weight))
        shape = image.shape
        if len(shape) == 1:
            image = image.reshape(1, shape[0], 1, 1)
        elif len(shape) == 2:
            if shape[0] > shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif len(shape) == 3:
            image = np.transpose(image, (2, 0, 1))  # channels last: one image per output channel
            image = image.reshape(image.shape + (1,))
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            _summary().image(name, image, step=epoch)


def _keras_model_summary(name, model, step=None):
    """Write ``model.to_json()`` as the ``graph_keras_model`` summary ``name`` (Keras's ``keras_model_summary``);
    a model that does not serialize gets Keras's warning and nothing is written."""
    summary = _summary()
    try:
        json_string = model.to_json()
    except Exception as exc:  # noqa: BLE001 - Keras warns for any failure to serialize
        warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}", stacklevel=3)
        return False
    from ..._core.extras import require  # noqa: PLC0415

    require("tensorboard", "The TensorBoard callback", "tensorboard")
    from tensorboard.compat.proto import summary_pb2  # noqa: PLC0415

    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = "graph_keras_model"
    metadata.plugin_data.content = b"1"
    with summary.experimental.summary_scope(name, "graph_keras_model") as (tag, _):
        return summary.write(tag=tag, tensor=json_string, step=step, metadata=metadata)
